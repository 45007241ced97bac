"""strata.pca on a Dask array with a dask.distributed LocalCluster equals the local answer.

With the randomized method every pass runs as Dask tasks (one per group of 3,072 used
variants) and the driver adds the partials in order, the float64 check pass's too (one task
per batch of its blocks): the same bits as the local run, error bounds included. The exact
routes on a small cohort fetch the packed codes and run here (also the same bits)."""
import numpy as np
import pytest

import strata

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as c:
        yield c


def _recording(monkeypatch, name):
    """Wraps strata._core.<name> (called by the worker tasks) to record the threads it ran on."""
    import threading

    from strata import _core

    calls = []
    real = getattr(_core, name)

    def wrapper(*args):
        calls.append(threading.current_thread().name)
        return real(*args)

    monkeypatch.setattr(_core, name, wrapper)
    return calls


@pytest.mark.parametrize("precision", ["auto", "float32", "mixed"])
def test_randomized_passes_run_as_tasks_and_equal_local(cluster, hm3_dosages, precision, monkeypatch):
    import dask.array as da

    x = hm3_dosages[:, :700]
    local = strata.pca(x, k=4, method="randomized", precision=precision)
    grams = _recording(monkeypatch, "gram_group")
    projections = _recording(monkeypatch, "project_group")
    checks = _recording(monkeypatch, "check_blocks")
    with distributed.Client(cluster):
        r = strata.pca(da.from_array(x, chunks=(5000, 350)), k=4, method="randomized", precision=precision)
    groups = -(-r.variants_used.size // 3072)
    assert groups > 1
    # every Krylov pass: one task per group; the loadings pass too
    assert len(grams) >= 2 * groups and len(grams) % groups == 0
    assert len(projections) == groups
    assert 1 <= len(checks) <= 2  # the check pass: one task per batch (two workers) with a block
    assert "MainThread" not in grams + projections + checks  # on the workers
    assert r.summary["errors_bounded"] and local.summary["errors_bounded"]
    np.testing.assert_array_equal(r.error_estimate, local.error_estimate)
    np.testing.assert_array_equal(r.summary["eigenvector_error_bound"], local.summary["eigenvector_error_bound"])
    # HapMap3 has missing calls: the int16 path's per-call corrections are exercised.
    np.testing.assert_array_equal(r.eigenvalues, local.eigenvalues)
    np.testing.assert_array_equal(r.eigenvectors, local.eigenvectors)
    np.testing.assert_array_equal(r.loadings, local.loadings)
    np.testing.assert_array_equal(r.variants_used, local.variants_used)
    assert r.passes == local.passes


def test_exact_route_fetches_codes_and_equals_the_cli(cluster, hm3_dosages, cli_pca):
    import dask.array as da

    with distributed.Client(cluster):
        r = strata.pca(da.from_array(hm3_dosages, chunks=(2500, 957)), k=4)
    np.testing.assert_array_equal(r.eigenvalues, cli_pca["eigenvalues"])
    np.testing.assert_array_equal(r.eigenvectors, cli_pca["eigenvectors"])


def test_worker_errors_reach_the_caller(cluster):
    import dask.array as da

    with distributed.Client(cluster):
        bad = da.from_array(np.full((100, 50), 7, dtype=np.int8), chunks=(50, 50))
        with pytest.raises(ValueError, match="dosage"):
            strata.pca(bad, k=2)


@pytest.mark.parametrize("method", ["randomized", "exact"])
def test_maf_and_geno_select_as_the_local_run(cluster, hm3_dosages, method):
    """maf=/geno= on Dask genotypes: the selection's rules on the workers' counts (the group
    plan and the fetched codes see only the selected variants), the local run's bits."""
    import dask.array as da

    x = hm3_dosages[:, :700]
    local = strata.pca(x, k=4, method=method, maf=0.2, geno=0.01)
    assert local.variants_used.size < x.shape[0]
    with distributed.Client(cluster):
        r = strata.pca(da.from_array(x, chunks=(5000, 350)), k=4, method=method, maf=0.2, geno=0.01)
    np.testing.assert_array_equal(r.variants_used, local.variants_used)
    np.testing.assert_array_equal(r.eigenvalues, local.eigenvalues)
    np.testing.assert_array_equal(r.eigenvectors, local.eigenvectors)
    assert r.grm_variants == local.grm_variants and r.route == local.route
    # The remote run's summary: the same report fields (pca_result_summary) as the local run's.
    for key in ("method", "route", "k", "scale", "grm_variants", "variants_used", "samples", "variants_input",
                "eigenvalues", "variance_ratio", "errors_bounded", "error_estimate", "eigenvector_error_bound"):
        assert r.summary[key] == local.summary[key], key
    assert r.summary["variants_input"] < x.shape[0] and r.summary["samples"] == x.shape[1]


def test_check_pass_on_worker_processes_equals_local(hm3_dosages):
    """Two worker processes, default settings but the randomized method (the exact routes fetch
    the codes): the float64 check pass's blocks (2,944 variants for 700 samples) straddle the two
    batches, so a block takes rows from the other worker's batch; the answer is the local
    run's bits."""
    import dask.array as da

    x = hm3_dosages[:, :700]
    kw = dict(k=4, method="randomized")
    local = strata.pca(x, **kw)
    assert local.summary["errors_bounded"]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        with distributed.Client(c):
            r = strata.pca(da.from_array(x, chunks=(4000, 350)), **kw)
    assert r.summary["errors_bounded"]
    np.testing.assert_array_equal(r.eigenvalues, local.eigenvalues)
    np.testing.assert_array_equal(r.eigenvectors, local.eigenvectors)
    np.testing.assert_array_equal(r.loadings, local.loadings)
    np.testing.assert_array_equal(r.error_estimate, local.error_estimate)
    np.testing.assert_array_equal(r.summary["eigenvector_error_bound"], local.summary["eigenvector_error_bound"])
    assert r.passes == local.passes
