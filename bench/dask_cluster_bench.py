#!/usr/bin/python3
"""strata vs sgkit on a dask.distributed LocalCluster of worker processes, same run, same data.

A .bed of --variants x --samples (no missing calls: sgkit's PCA takes none) is read through
``da.from_array(strata.open_genotypes(bed))``; with a Client on a LocalCluster(--workers
processes, 1 thread each) active it times

  strata.pca(x, k=10)                       vs  sgkit.pca(ds, n_components=10) (tsqr, its default)
  strata.king(x)                            vs  sgkit.pairwise_distance(x.T, "euclidean")
  strata.grm(x)

and prints each wall time (median of --runs), the ratio sgkit/strata, and whether the cluster's
results are the bytes of a local run on the same .bed (error bounds included: the float64 check
pass runs on the workers; the randomized PCA is also timed without it). king and grm run as tasks
split by variants on the cluster; they are also timed through the former route (the packed codes
gathered to this process, the pass run here: ``strata.king(as_genotypes(x))``) and locally on the
.bed (this process's threads). --former-schedule also times the randomized PCA with one task per
3,072-variant group per pass (the runner's schedule before it batched groups per worker thread).

  PYTHONPATH=build/python:python .venv/bin/python bench/dask_cluster_bench.py --former-schedule

--glm instead times a logistic fit of --glm-rows x 20 standard normal X (generated on the
workers, persisted there) on the same cluster: strata.glm(x, y) (newton, lbfgs) against
strata.glm of X computed onto this machine and dask-glm's newton and lbfgs on the cluster, and
prints whether the cluster's coefficients are the local fit's bytes and how far dask-glm's are.
"""
import argparse
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from python_bench import timed  # noqa: E402


def write_bed(prefix, dosages):
    """A PLINK 1 fileset of (variants × samples) dosages 0..2 (A1 count), chromosome 1."""
    m, n = dosages.shape
    codes = np.array([0b11, 0b10, 0b00], np.uint8)[dosages]
    padded = np.zeros((m, -(-n // 4) * 4), np.uint8)
    padded[:, :n] = codes
    q = padded.reshape(m, -1, 4)
    with open(prefix + ".bed", "wb") as f:
        f.write(bytes([0x6C, 0x1B, 0x01]) + (q[..., 0] | q[..., 1] << 2 | q[..., 2] << 4 | q[..., 3] << 6).tobytes())
    with open(prefix + ".bim", "w") as f:
        f.writelines(f"1\trs{i}\t0\t{1000 + 10 * i}\tA\tG\n" for i in range(m))
    with open(prefix + ".fam", "w") as f:
        f.writelines(f"F{j}\tS{j}\t0\t0\t0\t-9\n" for j in range(n))


def _same(a, b):
    return all(np.asarray(getattr(a, f)).tobytes() == np.asarray(getattr(b, f)).tobytes()
               for f in ("eigenvalues", "eigenvectors", "loadings", "error_estimate")) and all(
        a.summary.get(f) == b.summary.get(f) for f in ("errors_bounded", "eigenvector_error_bound"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--variants", type=int, default=20000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--chunk", type=int, default=5000, help="variants per Dask block")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--pca-only", action="store_true", help="skip strata.king and sgkit.pairwise_distance")
    ap.add_argument("--skip-pca", action="store_true", help="time king and grm only")
    ap.add_argument("--sgkit-distance-runs", type=int, default=1,
                    help="runs of sgkit.pairwise_distance (minutes each at the default size; 0 = skip)")
    ap.add_argument("--former-schedule", action="store_true",
                    help="also time randomized PCA with one task per group per pass, as before batching")
    ap.add_argument("--glm", action="store_true", help="time the GLM case only (see above)")
    ap.add_argument("--glm-rows", type=int, default=1_000_000)
    a = ap.parse_args()
    if a.glm:
        return glm_bench(a)

    import dask.array as da
    import distributed
    import sgkit
    import xarray as xr

    import strata

    rng = np.random.default_rng(0)
    f = rng.uniform(0.05, 0.5, size=(a.variants, 1))
    dosages = rng.binomial(2, f, size=(a.variants, a.samples)).astype(np.int8)
    prefix = os.path.join(tempfile.mkdtemp(prefix="strata_dask_bench_"), "cohort")
    write_bed(prefix, dosages)
    del dosages

    with distributed.LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        x = da.from_array(strata.open_genotypes(prefix + ".bed"), chunks=(a.chunk, -1))
        x.sum().compute()  # the workers import strata and open the file once
        print(f"{a.variants} variants x {a.samples} samples, LocalCluster {a.workers} processes x 1 thread, "
              f"blocks of {a.chunk} variants, median of {a.runs}", flush=True)
        rows = {}

        def row(name, fn):
            rows[name] = timed(fn, a.runs)
            print(f"  {name:45s} {rows[name][0]:8.2f} s", flush=True)
            return rows[name]

        if a.skip_pca:
            pairs(a, x, row, rows, prefix, strata)
            return
        _, r_auto = row("strata.pca(x, k=10)", lambda: strata.pca(x, k=10))
        _, r_rand = row("strata.pca(x, k=10, method='randomized')", lambda: strata.pca(x, k=10, method="randomized"))
        _, r_nocheck = row("  same, check_errors=False",
                           lambda: strata.pca(x, k=10, method="randomized", check_errors=False))
        if a.former_schedule:
            # The runner batches consecutive groups, one batch per worker thread; claiming a
            # thread per group gives its former schedule (one task per 3,072-variant group).
            client.nthreads = lambda *args, **kwargs: {"one task per group": 1 << 30}
            _, r_former = row("  same, one task per group (former schedule)",
                              lambda: strata.pca(x, k=10, method="randomized"))
            del client.nthreads
            assert _same(r_former, r_rand)
        print(f"    routes: default {r_auto.route} ({r_auto.passes} passes), randomized {r_rand.route} "
              f"({r_rand.passes} passes)", flush=True)
        ds = xr.Dataset({"call_alternate_allele_count": (("variants", "samples"), x)})
        row("sgkit.pca(ds, n_components=10)", lambda: sgkit.pca(ds, n_components=10, ploidy=2, merge=False).compute())
        if not a.pca_only:
            pairs(a, x, row, rows, prefix, strata)

    # The cluster's bytes against a local run of the same .bed, with the same settings.
    same = {
        "pca": _same(r_auto, strata.pca(prefix + ".bed", k=10)),
        "pca randomized": _same(r_rand, strata.pca(prefix + ".bed", k=10, method="randomized")),
        "pca randomized unchecked": _same(r_nocheck,
                                          strata.pca(prefix + ".bed", k=10, method="randomized", check_errors=False)),
    }
    print("  cluster bytes == local run: " + ", ".join(f"{k} {v}" for k, v in same.items()))
    pca = rows["sgkit.pca(ds, n_components=10)"][0]
    randomized = rows["strata.pca(x, k=10, method='randomized')"][0]
    unchecked = rows["  same, check_errors=False"][0]
    print(f"  ratio sgkit.pca / strata.pca                  {pca / rows['strata.pca(x, k=10)'][0]:8.1f}x "
          f"(randomized: {pca / randomized:.1f}x, without the check pass {pca / unchecked:.1f}x)")
    print(f"    randomized: errors bounded {r_rand.summary['errors_bounded']}, unchecked "
          f"{r_nocheck.summary['errors_bounded']}")


def glm_bench(a):
    import dask.array as da
    import dask_glm.algorithms as dga
    import dask_glm.families as dgf
    import distributed

    import strata

    with distributed.LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        x = da.random.RandomState(0).standard_normal((a.glm_rows, 20), chunks=(100_000, 20)).persist()
        xn = x.compute()
        eta = xn @ np.linspace(-0.5, 0.5, 20)
        y = (np.random.default_rng(1).random(a.glm_rows) < 1 / (1 + np.exp(-eta))).astype(np.float64)
        yd = da.from_array(y, chunks=x.chunks[0]).persist()
        print(f"logistic GLM, {a.glm_rows} x 20, LocalCluster {a.workers} processes x 1 thread, median of {a.runs}")
        for solver in ("newton", "lbfgs"):
            t_local, local = timed(lambda: strata.glm(xn, y, "logistic", solver, threads=a.workers), a.runs)
            t_cluster, r = timed(lambda: strata.glm(x, y, "logistic", solver), a.runs)
            fit = dga.newton if solver == "newton" else dga.lbfgs
            t_peer, b = timed(lambda: np.asarray(fit(x, yd, family=dgf.Logistic)), a.runs)
            print(f"  {solver:7s} strata local ({a.workers} threads) {t_local:7.2f} s   strata cluster {t_cluster:7.2f} s "
                  f"({r.passes} passes; bytes == local: {r.coef.tobytes() == local.coef.tobytes()})   "
                  f"dask-glm cluster {t_peer:7.2f} s (max |coef - strata| {np.max(np.abs(b - r.coef)):.2e})",
                  flush=True)


def pairs(a, x, row, rows, prefix, strata):
    """king and grm: tasks on the cluster, the former gather route, local; sgkit's distance."""
    import sgkit

    from strata._pca import as_genotypes

    _, k = row("strata.king(x)  (tasks on the cluster)", lambda: strata.king(x))
    row("  king, codes gathered here (former route)", lambda: strata.king(as_genotypes(x)))
    _, k_local = row("  king of the .bed, local", lambda: strata.king(prefix + ".bed"))
    _, g = row("strata.grm(x)  (tasks on the cluster)", lambda: strata.grm(x))
    row("  grm, codes gathered here (former route)", lambda: strata.grm(as_genotypes(x)))
    _, g_local = row("  grm of the .bed, local", lambda: strata.grm(prefix + ".bed"))
    same = f"king {k.tobytes() == k_local.tobytes()}, grm {g.tobytes() == g_local.tobytes()}"
    print(f"  cluster bytes == local run: {same}", flush=True)
    if a.sgkit_distance_runs > 0:
        xt = x.T.astype(np.float64).rechunk((-1, a.chunk))
        name = "sgkit.pairwise_distance(x.T, 'euclidean')"
        rows[name] = timed(lambda: sgkit.pairwise_distance(xt, metric="euclidean").compute(), a.sgkit_distance_runs)
        print(f"  {name:45s} {rows[name][0]:8.2f} s  (median of {a.sgkit_distance_runs})")
        king = rows["strata.king(x)  (tasks on the cluster)"][0]
        print(f"  ratio sgkit.pairwise_distance / strata.king   {rows[name][0] / king:8.1f}x")
    return k


if __name__ == "__main__":
    sys.exit(main())
