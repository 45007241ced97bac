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
    bad[3, 5] = 2.5
    with pytest.raises(ValueError, match=r"dosage 2.5 at variant 3, sample 5 is outside \[0, 2\]"):
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


def _cli_error(strata_cli, *args):
    import subprocess
    r = subprocess.run([strata_cli, *args], capture_output=True, text=True)
    return r.returncode, (r.stderr.splitlines() or [""])[0]


def test_python_refuses_what_the_cli_refuses(tmp_path, strata_cli):
    """One validation in the library: the same values fail in both, with the same message."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 3))
    y = (rng.random(40) < 0.5).astype(float)
    np.save(tmp_path / "y.npy", y)
    strata_cmd = [strata_cli, "zarr", "import", str(tmp_path / "x.npy"), str(tmp_path / "x.zarr"), "-q"]
    np.save(tmp_path / "x.npy", x)
    import subprocess
    subprocess.run(strata_cmd, check=True)
    glm_cli = ["glm", "--x", str(tmp_path / "x.zarr"), "--y", str(tmp_path / "y.npy"), "--family", "logistic",
               "--solver", "newton", "--out", str(tmp_path / "g"), "-q"]
    for tol in (-1.0, 0.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match=r"tol must be a finite number > 0") as e:
            strata.glm(x, y, tol=tol)
        code, first = _cli_error(strata_cli, *glm_cli, "--tol", str(tol))
        assert code == 2 and str(e.value) in first, (first, str(e.value))
    with pytest.raises(ValueError, match="max-iter must be at least 1, got -1"):
        strata.glm(x, y, max_iter=-1)
    with pytest.raises(ValueError, match="threads must be 0 \\(all cores\\) or 1–1024, got 9999") as e:
        strata.glm(x, y, threads=9999)
    code, first = _cli_error(strata_cli, *glm_cli, "--threads", "9999")
    assert code == 2 and "must be 0 (all cores) or 1–1024, got 9999" in first
    with pytest.raises(ValueError, match="memory must be a memory size such as 2G, 512M, 1500000000 \\(bytes\\) "
                                         "or 4000 \\(MiB.*at least 1M, got '1K'") as e:
        strata.glm(x, y, memory="1K")
    code, first = _cli_error(strata_cli, *glm_cli, "--memory", "1K")
    assert code == 2 and str(e.value).removeprefix("memory ") in first
    with pytest.raises(ValueError, match="at least 1M"):
        strata.Context(memory=1000)
    assert strata.Context(memory="2M").memory == 2 << 20
    # Defaults are still the defaults.
    assert strata.glm(x, y).converged


def test_from_dosages_refuses_duplicate_sample_ids():
    d = np.zeros((5, 3), dtype=np.int8)
    with pytest.raises(ValueError, match="sample_ids: duplicate sample ID 'a' \\(samples 1 and 3\\)"):
        strata.from_dosages(d, sample_ids=["a", "b", "a"])
    with pytest.raises(ValueError, match="sample_ids has 2 entries for 3 samples"):
        strata.from_dosages(d, sample_ids=["a", "b"])
    assert list(strata.from_dosages(d, sample_ids=["a", "b", "c"]).sample_ids) == ["a", "b", "c"]


def test_relatedness_on_no_variants_raises_like_grm():
    g = strata.from_dosages(np.zeros((0, 5), dtype=np.int8))
    with pytest.raises(ValueError):
        strata.grm(g)
    with pytest.raises(ValueError, match="no variants"):
        strata.king(g)
