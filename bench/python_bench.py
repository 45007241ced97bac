#!/usr/bin/env python3
"""strata from Python against its CLI and the Python peers, same run, medians of --repeats.

    .venv/bin/python bench/python_bench.py --samples 10000 --variants 100000   # the issue's sizes
    .venv/bin/python bench/python_bench.py --quick                             # small smoke run

Measures: strata.pca (path input) vs `strata pca` (CLI) on data made by `strata simulate`;
sgkit.pca (Dask, randomized, its default n_iter = 0) and dask.array.linalg.svd_compressed
(n_power_iter 0 as in the seed, and 4, on centred float32 dosages; and the seed's own call on
the uint8 dosages) on the same data, against strata's converged default
against strata at the peers' pass count (two AᵀA products), and against strata's form of the
peers' own sketch (one AᵀA product with the Nyström finish, which is svd_compressed(0)'s
projection; no loadings, as the Dask rows compute S and V only), each with the sine of its
largest principal angle to strata's converged subspace (top 2 and top 10 PCs);
the random sum ((x + 1)[::2, ::2]).sum() via strata.random vs dask.array.random (the seed's own
RandomState call and the current default_rng Generator; --dask-repeats pairs, median ratio); and the
per-call overhead of the Python layer (a call on a tiny input, minus the C++ time in the report).
Prints one JSON line per measurement and a summary of same-run ratios."""
import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

import strata
from strata._cli import executable


def timed(fn, repeats):
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def settle(seconds):
    """Collects garbage and pauses, so freed memory is back with the kernel before a timed run."""
    import gc

    gc.collect()
    time.sleep(seconds)


def subspace_sines(a, b, ks=(2, 10)):
    """Largest principal-angle sine between the spans of the first k columns, for each k."""
    out = {}
    for k in ks:
        qa, _ = np.linalg.qr(np.asarray(a)[:, :k])
        qb, _ = np.linalg.qr(np.asarray(b)[:, :k])
        c = np.linalg.svd(qa.T @ qb, compute_uv=False)
        out[f"top{k}"] = round(float(np.sqrt(max(0.0, 1.0 - min(c) ** 2))), 6)
    return out


def emit(name, seconds, **extra):
    print(json.dumps({"bench": name, "seconds": round(seconds, 6), **extra}), flush=True)
    return seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=10_000)
    ap.add_argument("--variants", type=int, default=100_000)
    ap.add_argument("--random-shape", type=int, default=40_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--dask-repeats", type=int, default=1, help="Dask random-sum runs (each paired with a strata run)")
    ap.add_argument("--settle", type=float, default=3.0, help="seconds of pause before each paired random-sum run")
    ap.add_argument("--skip", action="append", default=[], help="sgkit, dask-svd, dask-random, pca, random, overhead")
    ap.add_argument("--quick", action="store_true", help="2,000 x 20,000 genotypes, 8,000^2 random sum")
    a = ap.parse_args()
    if a.quick:
        a.samples, a.variants, a.random_shape = 2000, 20_000, 8000
    cli = executable()
    ratios = {}
    with tempfile.TemporaryDirectory() as tmp:
        prefix = str(Path(tmp) / "cohort")
        if "pca" not in a.skip:
            subprocess.run([cli, "simulate", "--samples", str(a.samples), "--variants", str(a.variants), "--pops", "3",
                            "--fst", "0.05", "--seed", "7", "--out", prefix, "-q"], check=True)
            t_cli, _ = timed(lambda: subprocess.run([cli, "pca", prefix, "-k", "10", "--out", prefix + "_pca", "-q",
                                                     "--overwrite"],
                                                    check=True), a.repeats)
            emit("cli pca", t_cli, shape=[a.variants, a.samples])
            t_py, r = timed(lambda: strata.pca(prefix, k=10), a.repeats)
            emit("strata.pca (path)", t_py, method=r.method, passes=r.passes)
            ratios["python / CLI pca"] = t_py / t_cli
            ref = r.eigenvectors  # strata's converged default: the accuracy reference below
            # strata at the peers' pass count (a sketch pass and a projection pass, as sgkit's
            # default n_iter = 0 and svd_compressed's default n_power_iter = 0 make).
            t_eq, r_eq = timed(lambda: strata.pca(prefix, k=10, method="randomized", iterations=2, block=24),
                               a.repeats)
            emit("strata.pca (randomized, iterations=2, block=24)", t_eq, passes=r_eq.passes,
                 subspace_sine_vs_converged=subspace_sines(r_eq.eigenvectors, ref))
            # The same sketch as svd_compressed(n_power_iter=0): one AᵀA product of a random block
            # (24 columns; Dask's has k + 10 = 20) and the Nyström finish, whose matrix
            # AᵀA·K·(KᵀAᵀA·K)⁺·KᵀAᵀA = Aᵀ·P(A·K)·A is Dask's BᵀB for B = QᵀA, Q = orth(A·Ω). S and the
            # sample vectors only, as the Dask rows compute (no loadings pass).
            t_sk, r_sk = timed(lambda: strata.pca(prefix, k=10, method="randomized", iterations=1, block=24,
                                                  loadings=False), a.repeats)
            emit("strata.pca (randomized, iterations=1, block=24, loadings=False)", t_sk, passes=r_sk.passes,
                 subspace_sine_vs_converged=subspace_sines(r_sk.eigenvectors, ref))
            g = strata.open_genotypes(prefix)
            dosages = g[:, :]
            if "sgkit" not in a.skip:
                import sgkit
                import xarray as xr

                ds = xr.Dataset({"call_alternate_allele_count": (("variants", "samples"), dosages.astype(np.uint8))})
                ds = ds.chunk({"variants": 10_000, "samples": -1})
                t_sg, res = timed(lambda: sgkit.pca(ds, n_components=10, ploidy=2, algorithm="randomized",
                                                    merge=False).compute(), 1)
                emit("sgkit.pca (randomized, n_iter=0 default, dask)", t_sg,
                     subspace_sine_vs_converged=subspace_sines(np.asarray(res["sample_pca_projection"].values), ref))
                ratios["sgkit.pca / strata.pca (default, converged)"] = t_sg / t_py
                ratios["sgkit.pca / strata.pca (same passes)"] = t_sg / t_eq
            if "dask-svd" not in a.skip:
                import dask.array as da

                x = da.from_array(dosages.astype(np.float32), chunks=(10_000, -1))
                x = (x - x.mean(axis=1, keepdims=True))
                for iters in (0, 4):
                    t_dk, out = timed(lambda: [v.compute() for v in
                                               da.linalg.svd_compressed(x, k=10, n_power_iter=iters, seed=0)[1:]], 1)
                    emit(f"dask svd_compressed (n_power_iter={iters})", t_dk,
                         subspace_sine_vs_converged=subspace_sines(np.asarray(out[1]).T, ref))
                    ratios[f"svd_compressed({iters}) / strata.pca (default, converged)"] = t_dk / t_py
                    if iters == 0:
                        ratios["svd_compressed(0) / strata.pca (same passes)"] = t_dk / t_eq
                        ratios["svd_compressed(0) / strata.pca (same sketch)"] = t_dk / t_sk
                # The seed's own code: uint8 dosages in (20,000 x 5,000) chunks, persisted, no
                # centring, svd_compressed(x, k=10, compute=True) with its defaults.
                xs = da.from_array(dosages.astype(np.uint8), chunks=(20_000, 5_000)).persist()
                t_seed, out = timed(lambda: [v.compute() for v in da.linalg.svd_compressed(xs, k=10, compute=True)[1:]], 1)
                emit("dask svd_compressed as in the seed (uint8, chunks 20,000 x 5,000, compute=True)", t_seed,
                     subspace_sine_vs_converged=subspace_sines(np.asarray(out[1]).T, ref))
                ratios["svd_compressed as in the seed / strata.pca (same passes)"] = t_seed / t_eq
                ratios["svd_compressed as in the seed / strata.pca (same sketch)"] = t_seed / t_sk
                ratios["svd_compressed as in the seed / strata.pca (default, converged)"] = t_seed / t_py
        if "random" not in a.skip:
            n, c = a.random_shape, a.random_shape // 4
            x = strata.random.normal(10, 1, shape=(n, n), chunks=(c, c), seed=0)

            def strata_sum():
                return float(((x + 1)[::2, ::2]).sum().compute())

            t_st, v = timed(strata_sum, a.repeats)
            emit("strata.random sum", t_st, shape=[n, n], result=v)
            if "dask-random" not in a.skip:
                import dask.array as da

                # The seed's own call (legacy RandomState, Box-Muller polar) and the current
                # Generator API (PCG64, ziggurat). Each Dask run is followed by a strata run,
                # so every ratio is of one adjacent pair; the median of the pairs is reported.
                # Each run starts after a pause (--settle): Dask frees ~13 GB at the end of
                # its run, and the kernel returning those pages would otherwise be timed as
                # part of the next run.
                def dask_sum(seed_call):
                    rs = da.random.RandomState(0) if seed_call else da.random.default_rng(0)
                    y = rs.normal(10, 1, size=(n, n), chunks=(c, c))
                    return float(((y + 1)[::2, ::2]).sum().compute(scheduler="threads"))

                for seed_call, name in ((False, "default_rng"), (True, "RandomState, as in the seed")):
                    pairs = []
                    for _ in range(a.dask_repeats):
                        settle(a.settle)
                        t_d = timed(lambda: dask_sum(seed_call), 1)[0]
                        settle(a.settle)
                        t_s = timed(strata_sum, 1)[0]
                        pairs.append((t_d, t_s))
                    t_dr = statistics.median(p[0] for p in pairs)
                    emit(f"dask.array.random sum ({name})", t_dr, shape=[n, n],
                         runs=[round(p[0], 3) for p in pairs], strata_after_each=[round(p[1], 4) for p in pairs])
                    ratios[f"dask ({name}) / strata random sum"] = statistics.median(p[0] / p[1] for p in pairs)
        if "overhead" not in a.skip:
            tiny = np.random.default_rng(0).integers(0, 3, size=(50, 20)).astype(np.int8)
            ctx = strata.Context(threads=1)
            strata.pca(tiny, k=2, context=ctx)
            calls = []
            for _ in range(200):
                t0 = time.perf_counter()
                r = strata.pca(tiny, k=2, context=ctx)
                wall = time.perf_counter() - t0
                inside = sum(p["seconds"] for p in r.report.get("phases", []))
                calls.append(wall - inside)
            emit("python layer per pca call (wall - C++ phases)", statistics.median(calls))
            t_sum = timed(lambda: strata.asarray(tiny).sum().compute(context=ctx), 200)[0]
            emit("asarray(50x20).sum().compute() total", t_sum)
    print(json.dumps({"ratios": {k: round(v, 3) for k, v in ratios.items()}}))


if __name__ == "__main__":
    main()
