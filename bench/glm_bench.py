"""strata glm vs dask-glm and an in-memory numpy/scipy fit, same run, ratios printed.

Logistic regression on a rows × cols float64 matrix (standard normal X, y from a logistic
model), X stored as an uncompressed Zarr v2 array in row chunks:

- strata glm --solver lbfgs / newton (the CLI, X out of core; read once and kept resident when
  it fits half of --memory), and with --memory 1.25 × X, so that every pass re-reads X
  (streamed);
- in memory: scipy.optimize.fmin_l_bfgs_b with numpy loss+gradient (dask-glm's lbfgs on a numpy
  array: the same stopping rules), statsmodels Logit(...).fit(method="newton");
- dask-glm 0.4.0 lbfgs / newton on dask.array.from_zarr (normalize=False: the same problem),
  optionally on fewer rows (--dask-rows) when it is too slow at full size.

    .venv/bin/python bench/glm_bench.py --rows 1000000 --cols 100 --repeats 3
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def make_data(d, rows, cols, chunk_rows, seed=0):
    import zarr

    rng = np.random.default_rng(seed)
    beta = rng.standard_normal(cols) * (1.0 / np.sqrt(cols))
    z = zarr.open_array(os.path.join(d, "X.zarr"), mode="w", shape=(rows, cols), chunks=(chunk_rows, cols),
                        dtype="f8", zarr_format=2, compressor=None)
    y = np.empty(rows)
    for r0 in range(0, rows, chunk_rows):
        r1 = min(rows, r0 + chunk_rows)
        x = rng.standard_normal((r1 - r0, cols))
        z[r0:r1] = x
        y[r0:r1] = rng.random(r1 - r0) < 1.0 / (1.0 + np.exp(-(x @ beta)))
    np.save(os.path.join(d, "y.npy"), y)


def med(f, repeats):
    ts, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = f()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), out


def strata_fit(strata, d, solver, memory, threads, tag):
    rep = os.path.join(d, f"r_{tag}.json")
    cmd = [strata, "glm", "--x", os.path.join(d, "X.zarr"), "--y", os.path.join(d, "y.npy"), "--family", "logistic",
           "--solver", solver, "--out", os.path.join(d, tag), "--quiet", "--report", rep, "--memory", memory]
    if threads:
        cmd += ["--threads", str(threads)]
    subprocess.run(cmd, check=True)
    r = json.load(open(rep))
    coef = np.loadtxt(os.path.join(d, tag + ".coef.tsv"), usecols=1)
    return coef, r


def numpy_lbfgs(x, y):
    from scipy.optimize import fmin_l_bfgs_b

    def fg(b):
        eta = x @ b
        loss = np.sum(np.logaddexp(0, eta)) - y @ eta
        return loss, x.T @ (1 / (1 + np.exp(-eta)) - y)

    b, f, info = fmin_l_bfgs_b(fg, np.zeros(x.shape[1]), pgtol=1e-4, maxiter=100)
    return b, info["nit"]


def statsmodels_newton(x, y):
    import statsmodels.api as sm

    r = sm.Logit(y, x).fit(method="newton", disp=0, tol=1e-8)
    return r.params, r.mle_retvals["iterations"]


def daskglm(d, rows, solver, chunk_rows):
    import dask.array as da
    from dask_glm import algorithms

    x = da.from_zarr(os.path.join(d, "X.zarr"))[:rows].rechunk((chunk_rows, -1))
    y = da.from_array(np.load(os.path.join(d, "y.npy"))[:rows], chunks=chunk_rows)
    f = algorithms.lbfgs if solver == "lbfgs" else algorithms.newton
    return np.asarray(f(x, y, normalize=False))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--cols", type=int, default=100)
    ap.add_argument("--chunk-rows", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--dask-rows", type=int, default=0, help="rows for dask-glm (0 = all)")
    ap.add_argument("--dask-repeats", type=int, default=1)
    ap.add_argument("--skip-dask", action="store_true")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--strata", default=os.path.join(HERE, "..", "build", "tools", "cli", "strata"))
    ap.add_argument("--strata-base", default="", help="a second strata build, timed in the same rounds")
    ap.add_argument("--skip-statsmodels", action="store_true")
    ap.add_argument("--skip-streamed", action="store_true")
    ap.add_argument("--dir", default="")
    a = ap.parse_args()
    d = a.dir or tempfile.mkdtemp(prefix="glm_bench_")
    print(f"load before: {os.getloadavg()}", flush=True)
    if not os.path.exists(os.path.join(d, "X.zarr")):
        t0 = time.perf_counter()
        make_data(d, a.rows, a.cols, a.chunk_rows)
        print(f"data {a.rows} x {a.cols} float64 in {d}: {time.perf_counter() - t0:.1f} s", flush=True)
    # Streamed: a budget of 1.25 × X, so X does not fit the half kept for residency.
    small = f"{max(2, a.rows * a.cols * 8 * 5 // 4 // (1 << 20))}M"
    res = {}
    builds = [("strata", a.strata)] + ([("base", a.strata_base)] if a.strata_base else [])
    modes = [("resident", "2G" if a.rows * a.cols * 8 <= (1 << 30) else "64G")] + ([] if a.skip_streamed else [("streamed", small)])
    for solver in ["lbfgs", "newton"]:
        for mode, mem in modes:
            # Interleaved: one run of each build per round, medians over the rounds.
            ts, last = {name: [] for name, _ in builds}, {}
            for _ in range(a.repeats):
                for name, exe in builds:
                    t0 = time.perf_counter()
                    last[name] = coef, r = strata_fit(exe, d, solver, mem, a.threads, f"{name}_{solver}_{mode}")
                    ts[name].append(time.perf_counter() - t0)
                    assert r["resident"] == (mode == "resident"), r["resident"]
                    phases = {p["name"]: round(p["seconds"], 3) for p in r.get("phases", [])}
                    print(f"  {name} {solver} {mode}: {ts[name][-1]:.2f} s {phases}", flush=True)
            for name, _ in builds:
                t, (coef, r) = statistics.median(ts[name]), last[name]
                res[f"{name} {solver} {mode}"] = (t, r["iterations"], r["passes_over_x"], coef)
                print(f"{name} {solver} {mode}: {t:.2f} s, {r['iterations']} it, {r['passes_over_x']} passes", flush=True)
    x = np.load(os.path.join(d, "y.npy"))  # y
    y = x
    import zarr

    t0 = time.perf_counter()
    x = zarr.open_array(os.path.join(d, "X.zarr"), mode="r")[:]
    print(f"numpy load of X: {time.perf_counter() - t0:.2f} s (not in the in-memory fit times)", flush=True)
    t, (b, it) = med(lambda: numpy_lbfgs(x, y), a.repeats)
    res["scipy lbfgs (numpy, in memory)"] = (t, it, None, b)
    print(f"scipy lbfgs in memory: {t:.2f} s, {it} it", flush=True)
    if not a.skip_statsmodels:
        t, (b, it) = med(lambda: statsmodels_newton(x, y), a.repeats)
        res["statsmodels Logit newton (in memory)"] = (t, it, None, b)
        print(f"statsmodels newton in memory: {t:.2f} s, {it} it", flush=True)
    del x
    if not a.skip_dask:
        rows = a.dask_rows or a.rows
        for solver in ["lbfgs", "newton"]:
            t, b = med(lambda: daskglm(d, rows, solver, a.chunk_rows), a.dask_repeats)
            res[f"dask-glm {solver} ({rows} rows)"] = (t, None, None, b)
            print(f"dask-glm {solver} on {rows} rows: {t:.2f} s", flush=True)
    print(f"load after: {os.getloadavg()}")
    print("\n| run | seconds | iterations | passes | max |coef - strata resident| |")
    print("|---|---|---|---|---|")
    for k, (t, it, ps, c) in res.items():
        ref = res["strata lbfgs resident" if "lbfgs" in k else "strata newton resident"][3]
        diff = np.abs(np.asarray(c) - ref).max() if len(c) == len(ref) else float("nan")
        print(f"| {k} | {t:.2f} | {it if it is not None else ''} | {ps if ps is not None else ''} | {diff:.2e} |")
    for solver, ref in [("lbfgs", "scipy lbfgs (numpy, in memory)"), ("newton", "statsmodels Logit newton (in memory)")]:
        for name, mode in [(n, m) for n, _ in builds for m, _ in modes]:
            s = res[f"{name} {solver} {mode}"][0]
            print(f"{name} {solver} {mode}: " + (f"in-memory/strata = {res[ref][0] / s:.2f}x" if ref in res else ""), end="")
            dk = [k for k in res if k.startswith(f"dask-glm {solver}")]
            if dk:
                scale = a.rows / (a.dask_rows or a.rows)
                print(f", dask-glm/strata = {res[dk[0]][0] * scale / s:.1f}x"
                      + (f" (dask-glm time scaled by {scale:g} from {a.dask_rows} rows)" if scale != 1 else ""), end="")
            print()
    if not a.dir:
        shutil.rmtree(d)


if __name__ == "__main__":
    sys.exit(main())
