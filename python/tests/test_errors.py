"""Errors become Python exceptions carrying the library's message."""
import numpy as np
import pytest

import strata


def test_missing_path_is_oserror(tmp_path):
    with pytest.raises(OSError, match="nope"):
        strata.open_genotypes(tmp_path / "nope")
    with pytest.raises(OSError, match="nope"):
        strata.pca(str(tmp_path / "nope.bed"), k=2)


def test_bad_k(hm3_dosages):
    with pytest.raises(ValueError, match="k must be at least 1, got 0"):
        strata.pca(hm3_dosages[:200], k=0)
    with pytest.raises(TypeError, match="k must be an integer"):
        strata.pca(hm3_dosages[:200], k=2.5)
    with pytest.raises(ValueError, match="k"):
        strata.pca(hm3_dosages[:50, :20], k=30)


def test_wrong_dtypes_and_values():
    with pytest.raises(ValueError, match="dosages must be int8/int16/int32/int64/uint8"):
        strata.pca(np.zeros((10, 10), dtype=np.complex64), k=2)
    with pytest.raises(ValueError, match="dosages must be a 2-D"):
        strata.pca(np.zeros(10, dtype=np.int8), k=2)
    bad = np.zeros((10, 8))
    bad[3, 5] = 0.5
    with pytest.raises(ValueError, match=r"dosage 0.5 at variant 3, sample 5 is not a genotype dosage"):
        strata.pca(bad, k=2)
    with pytest.raises(ValueError, match="unknown standardization .zscore. \\(expected binom2, binom, center or none\\)"):
        strata.pca(np.zeros((10, 8)), k=2, scale="zscore")
    with pytest.raises(ValueError, match="threads must be a positive integer"):
        strata.pca(np.zeros((10, 8)), k=2, threads=0)


def test_array_errors():
    with pytest.raises(ValueError):
        (strata.random.normal(shape=(10, 3)) + strata.random.normal(shape=(4,))).compute()
    with pytest.raises(OSError):
        strata.open_zarr("/nonexistent/x.zarr")
