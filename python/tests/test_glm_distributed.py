"""strata.glm of a Dask array on a dask.distributed cluster of 2 worker processes: X's row blocks
stay on the workers, every pass runs there as Dask tasks, and the fit is the same bits as
strata.glm of the same X computed onto this machine."""
import numpy as np
import pytest

import strata

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

# 31 columns: 67,648 rows a block (16 MiB of float64 rows), 65,536 with the intercept; 160,000
# rows make 3 blocks either way, stored in Dask chunks of 50,000 rows that cross the blocks.
ROWS, COLS, CHUNK = 160_000, 31, 50_000


@pytest.fixture(scope="module")
def data():
    """X generated chunk by chunk on whichever worker computes it; y from it, on this machine."""
    x = da.random.RandomState(5).standard_normal((ROWS, COLS), chunks=(CHUNK, COLS))
    xn = x.compute()
    eta = 0.2 + xn @ (0.05 * (np.arange(COLS) % 5 - 2))
    rng = np.random.default_rng(6)
    y = {"normal": eta + rng.standard_normal(ROWS),
         "logistic": (rng.random(ROWS) < 1 / (1 + np.exp(-eta))).astype(np.float64),
         "poisson": rng.poisson(np.exp(0.5 * eta)).astype(np.float64)}
    return x, xn, y


FIELDS = ("coef", "se", "stat", "p", "objective", "iterations", "passes", "converged", "design_check", "warnings",
          "separation", "t_stat", "df_resid")

CASES = [("newton", "none", None), ("lbfgs", "l2", None), ("proximal-gradient", "l1", 8), ("admm", "l1", 3),
         ("admm", "elastic-net", 2), ("gradient-descent", "none", 4)]


def same_bits(a, b):
    for f in FIELDS:
        x, y = getattr(a, f), getattr(b, f)
        assert np.asarray(x).tobytes() == np.asarray(y).tobytes(), f
    log = [np.array([(e["objective"], e["change"], e["step"], e["passes"]) for e in r.log]) for r in (a, b)]
    assert log[0].shape == log[1].shape and log[0].tobytes() == log[1].tobytes()  # admm's objective is NaN


@pytest.mark.filterwarnings("ignore::strata.GlmWarning")  # the iteration limits are short on purpose
@pytest.mark.parametrize("family", ["normal", "logistic", "poisson"])
def test_same_bits_as_a_local_fit(cluster, data, family):
    x, xn, ys = data
    y = ys[family]
    for solver, penalty, max_iter in CASES:
        kw = dict(family=family, solver=solver, penalty=penalty, lam=0.5, intercept=solver != "lbfgs",
                  max_iter=max_iter)
        local = strata.glm(xn, y, **kw)
        with distributed.Client(cluster) as client, distributed.get_task_stream(client) as ts:
            remote = strata.glm(x, y, **kw)
        same_bits(local, remote)
        # Every pass ran as tasks on the workers: one per batch of blocks (a batch per worker).
        passes = [t for t in ts.data if t["key"][0].startswith("_pass_task") or "_pass_task" in str(t["key"])]
        assert len(passes) == 2 * remote.passes, (solver, len(passes), remote.passes)
        assert remote.summary["blocks"] == 3 and remote.summary == local.summary


def test_solvers_converge_to_the_local_answer_with_statistics(cluster, data):
    x, xn, ys = data
    with distributed.Client(cluster):
        r = strata.glm(x, ys["logistic"], "logistic", "newton", intercept=True)
    ref = strata.glm(xn, ys["logistic"], "logistic", "newton", intercept=True)
    assert r.converged and r.has_stats and np.all(np.isfinite(r.p))
    np.testing.assert_array_equal(r.coef, ref.coef)
    np.testing.assert_array_equal(r.se, ref.se)


def test_bad_input_is_the_local_error(cluster, data):
    x, xn, ys = data
    y = ys["normal"]
    with distributed.Client(cluster):
        with pytest.raises(ValueError, match=r"the logistic family needs 0/1 responses, found .* at row 0"):
            strata.glm(x, y, "logistic")
        with pytest.raises(ValueError, match=r"y has 159999 values but X has 160000 rows"):
            strata.glm(x, y[1:], "normal")
        with pytest.raises(ValueError, match="solver newton fits unpenalized models only"):
            strata.glm(x, y, "normal", penalty="l2")
        with pytest.raises(ValueError, match="needs a 2-D Dask array"):
            strata.glm(x[:, 0], y, "normal")


def test_a_worker_error_is_raised_here(cluster):
    def boom(block):
        raise ArithmeticError("no rows here")

    x = da.ones((1000, 3), chunks=(500, 3)).map_blocks(boom, dtype=np.float64)
    with distributed.Client(cluster):
        with pytest.raises(ArithmeticError, match="no rows here"):
            strata.glm(x, np.zeros(1000), "normal")


def test_no_client_computes_the_dask_array_here(data):
    x, xn, ys = data
    r = strata.glm(x[:1000], ys["normal"][:1000], "normal")
    ref = strata.glm(xn[:1000], ys["normal"][:1000], "normal")
    np.testing.assert_array_equal(r.coef, ref.coef)
