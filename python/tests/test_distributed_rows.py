"""strata.pairwise_distance of a plain Dask array (rows = observations) on a dask.distributed
cluster of worker processes: tasks over tiles of row bands, the same bits as the local call."""
import numpy as np
import pytest

import strata

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

METRICS = ["euclidean", "sqeuclidean", "cityblock", "chebyshev", "minkowski:3", "cosine", "correlation", "hamming"]


def rows_with_nan(n, d, seed):
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(size=(n, d)) * 4) / 2  # ties, so hamming and chebyshev see equal values
    x[rng.random((n, d)) < 0.03] = np.nan
    x[5, :] = np.nan  # a row without observations: NaN distances
    return x


@pytest.fixture(scope="module")
def rows():
    return rows_with_nan(300, 90, seed=4)


def _task_workers(ts, name):
    return [t["worker"] for t in ts.data if str(t["key"][0] if isinstance(t["key"], tuple) else t["key"])
            .startswith(name)]


@pytest.mark.parametrize("metric", METRICS)
def test_every_metric_on_the_cluster_is_the_local_bits(cluster, rows, metric):
    local = strata.pairwise_distance(rows, metric)
    assert np.isnan(local[5, 6]) and not np.isnan(local[4, 6])
    with distributed.Client(cluster) as client:
        x = da.from_array(rows, chunks=(70, 25))  # several row and column chunks, off the band grid
        with distributed.get_task_stream(client) as ts:
            remote = strata.pairwise_distance(x, metric)
        workers = set(client.nthreads())
    assert remote.tobytes() == local.tobytes()
    # 2 worker threads: 4 bands of whole 64-row blocks (128, 128, 44 rows) make 6 tiles.
    ran = _task_workers(ts, "_tile_task")
    assert len(ran) == 6 and set(ran) <= workers, ran


@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.uint8, ">f8"])
def test_other_dtypes_on_the_cluster_are_the_local_bits(cluster, dtype):
    rng = np.random.default_rng(9)
    a = rng.integers(0, 5, size=(150, 40)).astype(dtype)
    with distributed.Client(cluster):
        for metric in ("euclidean", "correlation", "cityblock"):
            remote = strata.pairwise_distance(da.from_array(a, chunks=(40, 15)), metric)
            assert remote.tobytes() == strata.pairwise_distance(a, metric).tobytes(), (dtype, metric)


def test_bands_are_whole_blocks_within_the_memory_cap():
    from strata._dask_rows import band_rows

    assert band_rows(300, 90, 2) == 128
    assert band_rows(2000, 20000, 2) == 384  # 64 MB of float64 values: 419 rows, rounded to blocks
    assert band_rows(100, 10**8, 4) == 64  # one block at least
    assert band_rows(2, 3, 16) == 64


def test_cluster_errors_name_the_problem(cluster):
    with distributed.Client(cluster):
        with pytest.raises(ValueError, match="--metric ibs needs genotype input; a 10 x 3 float64 array is a numeric"):
            strata.pairwise_distance(da.zeros((10, 3)), "ibs")
        with pytest.raises(ValueError, match="one of euclidean.*got 'euclidian'"):
            strata.pairwise_distance(da.zeros((10, 3)), "euclidian")
        with pytest.raises(ValueError, match="1 row: distances need at least two rows"):
            strata.pairwise_distance(da.zeros((1, 3)), "euclidean")
        with pytest.raises(ValueError, match="2-D .* got 3 dimensions"):
            strata.pairwise_distance(da.zeros((4, 3, 2)), "euclidean")
        a = np.zeros((200, 4))
        a[150, 2] = np.inf
        with pytest.raises(ValueError, match=r"a 200 x 4 float64 array: row 150, column 2 is inf"):
            strata.pairwise_distance(da.from_array(a, chunks=(50, 2)), "cityblock")
        with pytest.raises(ValueError, match=r"a 200 x 4 float64 array: row 150, column 2 is inf"):
            strata.pairwise_distance(a, "cityblock")  # the same words locally
