"""Probe cases about degenerate models (class `degenerate-models`): designs where a fit has no
meaningful answer — a covariate equal to the phenotype, duplicated or constant columns,
separation, covariates on wildly different scales — must say so (plink2's ERRCODE per row, a
warning on stderr) or give the answer of a well-posed equivalent, never plausible numbers."""

import os

import numpy as np

import probe_harness as h
from probe_harness import *  # noqa: F401,F403 (helpers, Case list)

C = "degenerate-models"
SOLVERS = ["newton", "lbfgs", "admm", "gradient-descent", "proximal-gradient"]


def register(order, builders):
    """Add the class to bad_inputs.py's table."""
    order.append(C)
    builders[C] = cases_models


def _fam(d):
    return [l.split()[:2] for l in open(os.path.join(d, "base.fam"))]


def _tables(kind, covar="covar.txt"):
    """setup(d): pheno.txt (Q quantitative, B case/control 1/2) and `covar` for `kind`."""
    def f(d):
        ids = _fam(d)
        n = len(ids)
        rng = np.random.default_rng(33)
        c1 = rng.standard_normal(n)
        q = 0.5 * c1 + rng.standard_normal(n)
        b = np.where(np.arange(n) % 2 == 0, 2, 1)
        cols = {"C1": c1}
        if kind == "equal":
            cols["QQ"] = q
        elif kind == "equal-scaled":
            q = q * 1e8 + 3e9
            cols["QQ"] = q
        elif kind == "duplicate":
            cols["C2"] = c1.copy()
        elif kind == "separating":
            cols["S"] = (b == 2) + 0.01 * rng.random(n)
        elif kind in ("scaled", "standardized"):
            c2 = rng.standard_normal(n)
            big = c2 * 1e12 + 1e15
            cols["BIG"] = big if kind == "scaled" else (big - big.mean()) / big.std(ddof=1)
        with open(os.path.join(d, "pheno.txt"), "w") as o:
            o.write("#FID IID Q B\n")
            for i, (fid, iid) in enumerate(ids):
                o.write("%s %s %.17g %d\n" % (fid, iid, q[i], b[i]))
        with open(os.path.join(d, covar), "w") as o:
            o.write("#FID IID " + " ".join(cols) + "\n")
            for i, (fid, iid) in enumerate(ids):
                o.write("%s %s %s\n" % (fid, iid, " ".join("%.17g" % cols[k][i] for k in cols)))
    return f


def _rows(path):
    rows = [l.rstrip("\n").split("\t") for l in open(path)]
    return rows[0], rows[1:]


def _gwas(pheno, extra=()):
    return ["gwas", "base", "--pheno", "pheno.txt", "--pheno-name", pheno, "--covar", "covar.txt", "--out", "o",
            "-q"] + list(extra)


def _every_row(path, want):
    def check(d, p):
        head, rows = _rows(os.path.join(d, path))
        bad = [r for r in rows if r[-1] != want]
        return None if rows and not bad else "%d of %d rows not %s" % (len(bad), len(rows), want)
    return check


def _firth_everywhere(d, p):
    head, rows = _rows(os.path.join(d, "o.B.glm.logistic.hybrid"))
    firth, orr, pv = head.index("FIRTH?"), head.index("OR"), head.index("P")
    no = [r for r in rows if r[firth] != "Y"]
    if no:
        return "%d rows without the Firth fallback (plink2's hybrid falls back on every one)" % len(no)
    flat = [r for r in rows if r[orr] == "1" and r[pv] == "1"]
    return "%d rows OR 1, P 1" % len(flat) if flat else None


def _same_as_standardized(outs):
    def check(d, p):
        _tables("standardized", "covar_std.txt")(d)
        q = h.run_strata(["gwas", "base", "--pheno", "pheno.txt", "--pheno-name", "Q,B", "--covar", "covar_std.txt",
                          "--out", "ref", "-q"], d)
        if q.returncode != 0:
            return "standardized run failed: " + q.stderr.decode(errors="replace")
        for o in outs:
            ha, a = _rows(os.path.join(d, "o." + o))
            hb, b = _rows(os.path.join(d, "ref." + o))
            for ra, rb in zip(a, b):
                for x, y in zip(ra[ha.index("OBS_CT") + 1:-1], rb[hb.index("OBS_CT") + 1:-1]):
                    if x == "NA" or y == "NA":
                        if x != y:
                            return "%s: %s vs %s" % (o, x, y)
                    elif abs(float(x) - float(y)) > 1e-4 * max(1e-3, abs(float(y))):
                        return "%s: %s vs %s with the covariates standardized" % (o, x, y)
        return None
    return check


def _glm_fixture(kind):
    def f(d):
        import zarr
        rng = np.random.default_rng(7)
        n = 300
        x = rng.standard_normal((n, 3))
        y = (rng.random(n) < 1 / (1 + np.exp(-x[:, 0]))).astype(float)
        if kind == "duplicate":
            x = np.column_stack([x, x[:, 1]])
        elif kind == "constant":
            x = np.column_stack([x, np.full(n, 5.0)])
        elif kind == "separable":
            y = (x[:, 0] > 0).astype(float)
        elif kind == "exact":
            y = x @ np.array([1.0, -2.0, 0.5]) + 3.0
        z = zarr.open_array(os.path.join(d, "x.zarr"), mode="w", shape=x.shape, chunks=(97, x.shape[1]), dtype="f8")
        z[:] = x
        np.save(os.path.join(d, "y.npy"), y)
    return f


def _glm_na(d, p):
    rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(d, "o.coef.tsv"))][1:]
    bad = [r for r in rows if r[2:] != ["NA", "NA", "NA"]]
    return "%d coefficients with statistics (expected NA)" % len(bad) if bad else None


def cases_models():
    outs = ["o.Q.glm.linear", "o.B.glm.logistic.hybrid", "o.B.glm.logistic", "o.B.glm.firth"]
    add(C, "gwas-covariate-equals-phenotype", _gwas("Q"), 0, files=BASE, setup=_tables("equal"), allowed=outs,
        stderr_must="linear function of the covariates", check=_every_row("o.Q.glm.linear", "INVALID_RESULT"))
    add(C, "gwas-covariate-equals-phenotype-1e8", _gwas("Q"), 0, files=BASE, setup=_tables("equal-scaled"),
        allowed=outs, stderr_must="INVALID_RESULT", check=_every_row("o.Q.glm.linear", "INVALID_RESULT"))
    add(C, "gwas-duplicated-covariate", _gwas("Q"), 1, files=BASE, setup=_tables("duplicate"),
        stderr_must="too correlated")
    add(C, "gwas-duplicated-covariate-logistic", _gwas("B"), 1, files=BASE, setup=_tables("duplicate"),
        stderr_must="too correlated")
    add(C, "gwas-separating-covariate-firth-auto", _gwas("B"), 0, files=BASE, setup=_tables("separating"),
        allowed=outs, check=_firth_everywhere)
    add(C, "gwas-separating-covariate-firth-never", _gwas("B", ["--firth", "never"]), 0, files=BASE,
        setup=_tables("separating"), allowed=outs, stderr_must="phenotype 'B':")
    add(C, "gwas-covariates-1e12-scale", _gwas("Q,B"), 0, files=BASE, setup=_tables("scaled"),
        allowed=outs + ["ref.Q.glm.linear", "ref.B.glm.logistic.hybrid", "covar_std.txt", "pheno.txt"], stderr_must="standardizes them",
        check=_same_as_standardized(["Q.glm.linear", "B.glm.logistic.hybrid"]))
    for s in SOLVERS:
        glm = ["glm", "--family", "logistic", "--x", "x.zarr", "--y", "y.npy", "--intercept", "--solver", s,
               "--out", "o", "-q"]
        add(C, "glm-duplicated-column-" + s, glm, 0, setup=_glm_fixture("duplicate"), allowed=["o.coef.tsv"],
            stderr_must="collinear design", check=_glm_na if s in ("newton", "lbfgs") else None)
        add(C, "glm-constant-column-" + s, glm, 0, setup=_glm_fixture("constant"), allowed=["o.coef.tsv"],
            stderr_must="is constant")
        add(C, "glm-separable-" + s, glm, 0, setup=_glm_fixture("separable"), allowed=["o.coef.tsv"],
            stderr_must="separation suspected", check=_glm_na if s in ("newton", "lbfgs") else None)
    add(C, "glm-normal-exact-fit", ["glm", "--family", "normal", "--x", "x.zarr", "--y", "y.npy", "--intercept",
                                    "--solver", "newton", "--out", "o", "-q"], 0, setup=_glm_fixture("exact"), allowed=["o.coef.tsv"],
        stderr_must="INVALID_RESULT", check=_glm_na)
