"""strata.glm against statsmodels / scikit-learn, numpy and Zarr input, errors."""
import warnings

import numpy as np
import pytest

import strata


def _data(n=800, p=4, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, p))
    eta = x @ (rng.standard_normal(p) * 0.5) + 0.2
    return x, (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float)


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
def test_logistic_matches_statsmodels(solver):
    sm = pytest.importorskip("statsmodels.api")
    x, y = _data()
    kw = dict(tol=1e-9, ftol=0.0) if solver == "lbfgs" else {}
    r = strata.glm(x, y, "logistic", solver, intercept=True, threads=2, **kw)
    ref = sm.Logit(y, np.column_stack([x, np.ones(len(x))])).fit(disp=0, tol=1e-12)
    assert r.converged and r.has_stats and not r.t_stat
    assert r.terms == ["x0", "x1", "x2", "x3", "intercept"]
    np.testing.assert_allclose(r.coef, ref.params, atol=1e-6)
    np.testing.assert_allclose(r.se, ref.bse, rtol=1e-5)
    np.testing.assert_allclose(r.p, ref.pvalues, rtol=1e-5)


def test_zarr_input_gives_the_numpy_bits(tmp_path):
    zarr = pytest.importorskip("zarr")
    x, y = _data(n=3000)
    z = zarr.open_array(str(tmp_path / "x.zarr"), mode="w", shape=x.shape, chunks=(123, 4), dtype="f8")
    z[:] = x
    np.save(tmp_path / "y.npy", y)
    a = strata.glm(x, y, "logistic", "lbfgs")
    b = strata.glm(str(tmp_path / "x.zarr"), str(tmp_path / "y.npy"), "logistic", "lbfgs", threads=1)
    assert np.array_equal(a.coef, b.coef) and a.log == b.log


def test_summary_is_the_cli_report(tmp_path, strata_cli):
    """strata.glm's summary holds the fields `strata glm --report` writes for the same fit."""
    import json
    import subprocess

    zarr = pytest.importorskip("zarr")
    x, y = _data(n=600)
    z = zarr.open_array(str(tmp_path / "x.zarr"), mode="w", shape=x.shape, chunks=(100, 4), dtype="f8")
    z[:] = x
    np.save(tmp_path / "y.npy", y)
    out = str(tmp_path / "fit")
    subprocess.run([strata_cli, "glm", "--x", str(tmp_path / "x.zarr"), "--y", str(tmp_path / "y.npy"), "--family",
                    "logistic", "--solver", "lbfgs", "--intercept", "--out", out, "--report", out + ".json", "-q",
                    "--threads", "1"], check=True)
    report = json.load(open(out + ".json"))
    r = strata.glm(str(tmp_path / "x.zarr"), str(tmp_path / "y.npy"), "logistic", "lbfgs", intercept=True, threads=1)
    for key in ("family", "solver", "penalty", "lambda", "intercept", "rows", "iterations", "objective",
                "passes_over_x", "iteration_log", "warnings", "design_check"):
        assert key in r.summary, key
    assert {k: report[k] for k in r.summary} == r.summary
    assert r.summary["rows"] == 600 and r.summary["coefficients"] == 5
    assert r.summary["iterations"] == r.iterations and r.summary["objective"] == r.objective


def test_library_defaults_reach_python():
    p = strata._core.GlmParams()
    assert (p.family, p.solver, p.penalty, p.lam, p.alpha, p.intercept) == ("logistic", "newton", "none", 1.0, 0.5,
                                                                              False)
    assert p.max_iter is None and p.tol is None and p.ftol == 1e7 * np.finfo(float).eps
    with pytest.raises(ValueError, match="tol"):
        p.tol = float("nan")  # only None means the default
    with pytest.raises(ValueError, match="max-iter"):
        p.max_iter = 0
    s = strata._core.SvdParams()
    assert (s.k, s.method, s.iterations, s.tolerance, s.seed, s.compute_u) == (0, "auto", -1, 0.0, 0, True)
    with pytest.raises(ValueError, match="method"):
        s.method = "lanczos"


def test_l2_matches_sklearn():
    lm = pytest.importorskip("sklearn.linear_model")
    x, y = _data(seed=3)
    r = strata.glm(x, y, "logistic", "lbfgs", penalty="l2", lam=10.0, tol=1e-9, ftol=0.0)
    ref = lm.LogisticRegression(C=0.1, fit_intercept=False, tol=1e-12, max_iter=10000).fit(x, y)
    np.testing.assert_allclose(r.coef, ref.coef_[0], atol=1e-6)
    assert not r.has_stats and np.isnan(r.se).all()


def test_bad_input_raises_value_error():
    x, y = _data(n=50)
    with pytest.raises(ValueError, match="unknown solver"):
        strata.glm(x, y, "logistic", "sgd")
    with pytest.raises(ValueError, match="unpenalized"):
        strata.glm(x, y, "logistic", "newton", penalty="l1")
    with pytest.raises(ValueError, match="0/1"):
        strata.glm(x, y * 2, "logistic", "newton")
    with pytest.raises(ValueError, match="49 values"):
        strata.glm(x, y[:-1], "logistic", "newton")


SOLVERS = ["newton", "lbfgs", "admm", "gradient-descent", "proximal-gradient"]


@pytest.mark.parametrize("solver", SOLVERS)
def test_duplicated_column_warns_for_every_solver(solver):
    # x3 = x1: X has rank 4 of 5 (numpy says so); statistics of such a fit are meaningless.
    x, y = _data(n=400)
    xd = np.column_stack([x[:, :3], x[:, 1]])
    assert np.linalg.matrix_rank(np.column_stack([xd, np.ones(len(xd))])) == 4
    with pytest.warns(strata.GlmWarning, match="x1 and x3 correlate above 0.999"):
        r = strata.glm(xd, y, "logistic", solver, intercept=True, threads=2)
    assert r.design_check == "CORR_TOO_HIGH"
    assert np.isnan(r.se).all() and np.isnan(r.p).all()


@pytest.mark.parametrize("solver", SOLVERS)
def test_separable_classes_warn_for_every_solver(solver):
    sm = pytest.importorskip("statsmodels.api")
    x, _ = _data(n=400)
    y = (x[:, 0] > 0).astype(float)
    # statsmodels sees the same thing: its maximum likelihood fit does not converge and
    # predicts every row with certainty.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = sm.Logit(y, np.column_stack([x, np.ones(len(x))])).fit(disp=0)
    assert np.abs(ref.predict() - y).max() < 1e-3
    with pytest.warns(strata.GlmWarning, match="separation suspected"):
        r = strata.glm(x, y, "logistic", solver, intercept=True, threads=2)
    assert r.separation and np.isnan(r.p).all()


def test_well_posed_fit_gives_no_warning():
    x, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", strata.GlmWarning)
        r = strata.glm(x, y, "logistic", "newton", intercept=True, threads=2)
    assert r.design_check == "." and not r.separation and not r.warnings
