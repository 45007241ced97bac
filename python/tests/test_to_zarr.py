"""strata.Array.to_zarr writes through the library's Zarr path; zarr-python reads it back."""
import numpy as np
import pytest

import strata

zarr = pytest.importorskip("zarr")


@pytest.mark.parametrize("fmt", [2, 3])
@pytest.mark.parametrize("compressor", ["none", "blosc:zstd:5:shuffle", "zstd:3", "gzip:6"])
def test_zarr_python_reads_it(tmp_path, fmt, compressor):
    x = strata.random.normal(10, 1, shape=(300, 170), chunks=(64, 64), seed=3)
    y = (x + 1)[::2, 5:]
    path = tmp_path / f"y{fmt}.zarr"
    y.to_zarr(path, chunks=(40, 50), zarr_format=fmt, compressor=compressor)
    z = zarr.open_array(str(path), mode="r")
    assert z.metadata.zarr_format == fmt
    assert z.shape == y.shape and z.chunks == (40, 50) and z.dtype == np.float64
    np.testing.assert_array_equal(z[...], y.compute())
    np.testing.assert_array_equal(np.asarray(strata.open_zarr(path)), y.compute())


def test_dtypes_default_chunks_and_dimension_names(tmp_path):
    a = np.arange(35 * 12, dtype=np.int16).reshape(35, 12)
    x = strata.asarray(a, chunks=(10, 5))
    x.to_zarr(tmp_path / "a.zarr", zarr_format=3, dimension_names=["variants", "samples"])
    z = zarr.open_array(str(tmp_path / "a.zarr"), mode="r")
    assert z.dtype == np.int16 and z.chunks == (10, 5)
    assert tuple(z.metadata.dimension_names) == ("variants", "samples")
    np.testing.assert_array_equal(z[...], a)
    (x > 100).to_zarr(tmp_path / "b.zarr")
    np.testing.assert_array_equal(zarr.open_array(str(tmp_path / "b.zarr"), mode="r")[...], a > 100)


def test_existing_stores_and_inputs_are_protected(tmp_path):
    p = tmp_path / "s.zarr"
    strata.asarray(np.ones((20, 20))).to_zarr(p)
    with pytest.raises(OSError, match="exists|overwrite"):
        strata.asarray(np.zeros((20, 20))).to_zarr(p)
    np.testing.assert_array_equal(zarr.open_array(str(p), mode="r")[...], np.ones((20, 20)))
    strata.asarray(np.full((20, 20), 2.0)).to_zarr(p, overwrite=True)
    np.testing.assert_array_equal(zarr.open_array(str(p), mode="r")[...], np.full((20, 20), 2.0))
    x = strata.open_zarr(p)
    with pytest.raises((OSError, ValueError)):
        (x + 1).to_zarr(p, overwrite=True)  # never replaces a store the array reads
    np.testing.assert_array_equal(zarr.open_array(str(p), mode="r")[...], np.full((20, 20), 2.0))
    with pytest.raises(ValueError):
        x.to_zarr(tmp_path / "t.zarr", zarr_format=4)
    with pytest.raises(ValueError):
        x.to_zarr(tmp_path / "t.zarr", compressor="nonsense")
    assert not (tmp_path / "t.zarr").exists()
