"""strata.Array: NEP-18 functions and ufuncs against numpy, svd of a tall array, random-sum bits."""
import json
import subprocess

import numpy as np
import pytest

import strata


@pytest.fixture(scope="module")
def a():
    return np.random.default_rng(1).normal(size=(300, 70))


def test_reductions_dispatch_to_strata(a):
    x = strata.asarray(a, chunks=(64, 32))
    for got, want in [(np.sum(x), a.sum()), (np.mean(x, axis=0), a.mean(axis=0)), (x.sum(axis=1), a.sum(axis=1)),
                      (np.var(x, axis=0, ddof=1), a.var(axis=0, ddof=1)), (np.max(x, axis=-1), a.max(axis=-1))]:
        assert isinstance(got, strata.Array)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)


def test_ufuncs_and_operators(a):
    x = strata.asarray(a, chunks=(100, 70))
    expr = np.exp(x / 4) * 2 - abs(x) + np.maximum(x, 0.5) ** 2
    assert isinstance(expr, strata.Array)
    np.testing.assert_allclose(expr.compute(), np.exp(a / 4) * 2 - abs(a) + np.maximum(a, 0.5) ** 2, rtol=1e-13)
    np.testing.assert_array_equal(np.asarray(x > 0), a > 0)
    np.testing.assert_allclose(np.asarray(np.matmul(x, x.T)), a @ a.T, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(x.T @ a), a.T @ a, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(np.asarray(x[10:20:3, ::-2]), a[10:20:3, ::-2])
    np.testing.assert_array_equal(np.asarray(x[5]), a[5])
    # Functions strata does not implement compute through numpy.
    np.testing.assert_allclose(np.cumsum(x, axis=0), np.cumsum(a, axis=0))


def test_linalg_svd_tall_million_rows():
    a = np.random.default_rng(2).normal(size=(1_000_000, 20))
    x = strata.asarray(a, chunks=(100_000, 20))
    u, s, vt = np.linalg.svd(x, full_matrices=False)
    assert isinstance(s, strata.Array)
    u_np, s_np, vt_np = np.linalg.svd(a, full_matrices=False)
    np.testing.assert_allclose(np.asarray(s), s_np, rtol=1e-12)
    # Same factors up to the sign of each component.
    signs = np.sign(np.sum(np.asarray(vt) * vt_np, axis=1))
    np.testing.assert_allclose(np.asarray(vt) * signs[:, None], vt_np, atol=1e-10)
    np.testing.assert_allclose(np.asarray(u)[:1000] * signs, u_np[:1000], atol=1e-10)


def test_linalg_qr(a):
    q, r = np.linalg.qr(strata.asarray(a))
    q, r = np.asarray(q), np.asarray(r)
    np.testing.assert_allclose(q @ r, a, atol=1e-12)
    np.testing.assert_allclose(q.T @ q, np.eye(a.shape[1]), atol=1e-12)


def test_random_sum_equals_cli_bits(strata_cli):
    shape, chunks = (4000, 4000), (1000, 1000)
    x = strata.random.normal(10, 1, shape=shape, chunks=chunks, seed=0)
    got = float(((x + 1)[::2, ::2]).sum().compute())
    out = subprocess.run([strata_cli, "bench", "random-sum", "--shape", "4000,4000", "--chunks", "1000,1000",
                          "--threads", "1", "--json"], check=True, capture_output=True, text=True).stdout
    want = json.loads(out.strip().splitlines()[0])["result"]
    assert got == want


def test_random_generators_are_chunking_independent():
    a = strata.random.uniform(2, 5, shape=(50, 40), chunks=(7, 9), seed=3).compute()
    b = strata.random.uniform(2, 5, shape=(50, 40), chunks=(50, 40), seed=3).compute()
    np.testing.assert_array_equal(a, b)
    assert 2 <= a.min() and a.max() < 5
    i = strata.random.integers(0, 3, shape=(1000,), seed=1).compute()
    assert i.dtype == np.int64 and set(np.unique(i)) == {0, 1, 2}


def test_to_dask_and_back():
    import dask.array as da

    x = strata.random.normal(shape=(100, 30), chunks=(25, 30), seed=5)
    d = x.to_dask()
    assert isinstance(d, da.Array) and d.chunks == x.chunks
    np.testing.assert_array_equal(d.compute(), x.compute())
    np.testing.assert_array_equal(strata.asarray(d).compute(), x.compute())


def test_zarr_roundtrip(tmp_path):
    zarr = pytest.importorskip("zarr")
    a = np.random.default_rng(4).normal(size=(20, 30)).astype(np.float32)
    z = zarr.create_array(str(tmp_path / "a.zarr"), shape=a.shape, chunks=(7, 30), dtype=a.dtype)
    z[...] = a
    x = strata.open_zarr(tmp_path / "a.zarr")
    assert x.shape == a.shape and x.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(x[3:9]), a[3:9])
    np.testing.assert_array_equal(np.asarray(strata.asarray(z)), a)
    u, s, vt = strata.svd(str(tmp_path / "a.zarr"), k=3)
    np.testing.assert_allclose(s, np.linalg.svd(a.astype(np.float64), compute_uv=False)[:3], rtol=1e-10)
