"""`strata.pca(path)` and `strata pca path` at default settings: the same bits and the same route
for every cohort size of the PCA sweep (bench/pca_sweep.py SIZES), because both take their
parameters (genomics::PcaParams), their memory budget (default_memory_budget) and their variant
selection (genomics::SelectionOptions) from the library.

The text outputs (.eigenval, .eigenvec, .eigenvec.var) are formatted from the doubles the CLI
also stores in PREFIX.zarr; the test compares those doubles bit for bit (and the variant index
of every loading row), which fixes the text bytes too."""
import importlib.util
import json
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

import strata

ROOT = Path(__file__).resolve().parents[2]


def _sweep_sizes():
    spec = importlib.util.spec_from_file_location("pca_sweep", ROOT / "bench" / "pca_sweep.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SIZES


SIZES = _sweep_sizes()
TIMES = {}


@pytest.fixture(scope="module", params=SIZES)
def cohort(request, strata_cli, tmp_path_factory):
    """One simulated cohort per size (3 populations, F_ST 0.05, as the sweep), made once."""
    n, m = (int(x) for x in request.param.split("x"))
    prefix = tmp_path_factory.mktemp("sweep") / f"sim_{request.param}"
    t0 = time.perf_counter()
    subprocess.run([strata_cli, "simulate", "--samples", str(n), "--variants", str(m), "--pops", "3", "--fst", "0.05",
                    "--out", str(prefix), "-q"], check=True)
    TIMES[request.param] = {"simulate": time.perf_counter() - t0}
    return request.param, str(prefix)


def _zarr_arrays(prefix):
    import zarr

    g = zarr.open_group(prefix + ".zarr", mode="r")
    return {name: np.asarray(g[name][...])
            for name in ("eigenvalues", "eigenvectors", "loadings", "variance_ratio", "variant_index")}


def test_cli_and_python_agree_at_default_settings(cohort, strata_cli, tmp_path):
    size, data = cohort
    out = str(tmp_path / "cli")
    t0 = time.perf_counter()
    subprocess.run([strata_cli, "pca", data, "-k", "10", "--out", out, "-q", "--report", out + ".json"], check=True)
    t1 = time.perf_counter()
    r = strata.pca(data)  # k = 10: the library's default, as `-k 10`
    t2 = time.perf_counter()
    TIMES[size].update(cli=t1 - t0, python=t2 - t1)
    report = json.load(open(out + ".json"))
    cli = _zarr_arrays(out)

    assert r.route == report["route"] and r.method == report["method"]
    assert r.passes == report["passes"] and r.grm_variants == report["grm_variants"]
    # The result's summary is the report's fields of the run, value for value.
    for key in ("method", "route", "k", "scale", "passes", "stop", "converged", "tolerance", "eigenvalues",
                "variance_ratio", "error_estimate", "grm_variants", "variants_used", "samples", "variants_input"):
        assert key in r.summary, key
    assert {k: report[k] for k in r.summary} == r.summary
    assert r.summary["eigenvalues"] == list(r.eigenvalues) and r.summary["k"] == 10
    assert report["memory_budget_bytes"] == r.report["memory_budget_bytes"] == strata._core.memory_budget(None)
    np.testing.assert_array_equal(r.eigenvalues, cli["eigenvalues"])
    np.testing.assert_array_equal(r.eigenvectors, cli["eigenvectors"])
    np.testing.assert_array_equal(r.loadings, cli["loadings"])
    np.testing.assert_array_equal(r.variance_ratio, cli["variance_ratio"])
    np.testing.assert_array_equal(r.variants_used, cli["variant_index"])
    # Independent of the library's formatting: the text outputs hold these values.
    np.testing.assert_allclose(np.loadtxt(out + ".eigenval"), r.eigenvalues, rtol=1e-5)
    assert r.eigenvectors.shape == (int(size.split("x")[0]), 10)


def test_maf_and_geno_are_the_cli_selection(strata_cli, tmp_path):
    """maf=/geno= go through the same selection as --maf/--geno (plink2's, before pca())."""
    data = str(tmp_path / "miss")
    subprocess.run([strata_cli, "simulate", "--samples", "300", "--variants", "4000", "--pops", "3", "--missing",
                    "0.03", "--out", data, "-q"], check=True)
    out = str(tmp_path / "cli")
    subprocess.run([strata_cli, "pca", data, "-k", "4", "--maf", "0.05", "--geno", "0.035", "--out", out, "-q",
                    "--report", out + ".json"], check=True)
    report = json.load(open(out + ".json"))
    removed = report["selection"]
    assert removed["removed_maf"] > 0 and removed["removed_geno"] > 0  # both flags did something
    r = strata.pca(data, k=4, maf=0.05, geno=0.035)
    cli = _zarr_arrays(out)
    np.testing.assert_array_equal(r.variants_used, cli["variant_index"])
    np.testing.assert_array_equal(r.eigenvalues, cli["eigenvalues"])
    np.testing.assert_array_equal(r.eigenvectors, cli["eigenvectors"])
    assert r.grm_variants == report["grm_variants"]
    assert r.summary["selection"] == removed  # what the selection removed, as the report says
    assert {k: report[k] for k in r.summary} == r.summary


def test_library_defaults_reach_python():
    p = strata._core.PcaParams()
    assert (p.k, p.method, p.scale, p.precision, p.iterations, p.tolerance) == (10, "auto", "binom2", "auto", -1, 0.0)
    from strata import _dask

    assert _dask.GROUP_VARIANTS == strata._core.GENOTYPE_GRAM_GROUP_VARIANTS == 3072
    with pytest.raises(ValueError, match="unknown standardization 'zscore'"):
        p.scale = "zscore"


def teardown_module(module):
    for size, t in TIMES.items():
        print(f"\n{size}: " + ", ".join(f"{k} {v:.1f} s" for k, v in t.items()))
