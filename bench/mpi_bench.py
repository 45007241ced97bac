#!/usr/bin/env python3
"""strata under MPI on one machine: 2 ranks x 1 thread against 1 rank x 2 threads, same run, and
the sgkit/Dask peer on a dask.distributed LocalCluster with 2 workers.

    .venv/bin/python bench/mpi_bench.py --strata build/tools/cli/strata                   # 10,000 x 100,000
    .venv/bin/python bench/mpi_bench.py --strata build/tools/cli/strata --samples 2000 --variants 20000 --skip sgkit

For each command (randomized PCA, and exact PCA / KING / GRM at --tile-samples) it prints the
wall seconds of both layouts (median of --repeats, alternating), their ratio, and from the
2-rank run's report: passes, bytes each rank sent, seconds each rank spent in collectives, and
bytes per pass per rank (what the scaling model in docs/scaling.md starts from). The peer row
runs sgkit.pca (randomized, its default n_iter = 0, Dask arrays on a 2-worker LocalCluster) on the
same dosages, and strata at the same number of passes; both print the sine of the largest
principal angle to strata's converged subspace (top 2 and top 10 PCs) and the speedups. Outputs of
the two layouts are compared byte for byte.
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


def mpirun():
    exe = shutil.which("mpirun")
    if not exe:
        sys.exit("mpirun not found (scripts/install-deps.sh installs openmpi-bin)")
    extra = ["--oversubscribe", "--bind-to", "none"]
    if os.geteuid() == 0:
        extra.append("--allow-run-as-root")
    return [exe] + extra


ENV = dict(os.environ, OMPI_MCA_btl="self,vader,tcp", OMPI_MCA_btl_vader_single_copy_mechanism="none")


def run(cmd):
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-2000:]}")
    return time.monotonic() - t0


def outputs(d):
    files = {}
    for root, _, fs in os.walk(d):
        for f in fs:
            if not f.endswith(".json"):
                p = os.path.join(root, f)
                files[os.path.relpath(p, d)] = open(p, "rb").read()
    return files


def compare(strata, tmp, name, args, repeats):
    """1 rank x 2 threads vs 2 ranks x 1 thread: medians, ratio, the 2-rank report."""
    one, two = os.path.join(tmp, name + "-1x2"), os.path.join(tmp, name + "-2x1")
    for d in (one, two):
        os.makedirs(d, exist_ok=True)
    t1, t2 = [], []
    for _ in range(repeats):
        t1.append(run([strata] + args + ["--out", os.path.join(one, "o"), "--threads", "2", "-q", "--report",
                                         os.path.join(one, "r.json")]))
        t2.append(run(mpirun() + ["-n", "2", strata] + args + ["--out", os.path.join(two, "o"), "--threads", "1",
                                                              "-q", "--report", os.path.join(two, "r.json")]))
    same = outputs(one) == outputs(two)
    rep = json.load(open(os.path.join(two, "r.json")))
    per = rep.get("per_rank", [])
    passes = max(1, int(rep.get("passes", 1)))
    row = {"bench": name, "ranks_1x2_s": round(statistics.median(t1), 3), "ranks_2x1_s": round(statistics.median(t2), 3),
           "ratio_2x1_over_1x2": round(statistics.median(t2) / statistics.median(t1), 3), "same_outputs": same,
           "passes": passes, "bytes_sent_per_rank": [r["bytes_sent"] for r in per],
           "comm_seconds_per_rank": [round(r["comm_seconds"], 4) for r in per],
           "collectives_per_rank": [r["collectives"] for r in per],
           "bytes_read_per_rank": [r["bytes_read"] for r in per],
           "bytes_sent_per_pass_per_rank": [r["bytes_sent"] // passes for r in per]}
    print(json.dumps(row), flush=True)
    return row


def eigenvectors(path):
    import numpy as np
    return np.array([line.split()[2:] for line in open(path) if not line.startswith("#")], dtype=float)


def subspace_sines(a, b, ks=(2, 10)):
    """Largest principal-angle sine between the spans of the first k columns, for each k."""
    import numpy as np
    out = {}
    for k in ks:
        qa, _ = np.linalg.qr(a[:, :k])
        qb, _ = np.linalg.qr(b[:, :k])
        c = np.linalg.svd(qa.T @ qb, compute_uv=False)
        out[f"top{k}"] = float(np.sqrt(max(0.0, 1.0 - min(c) ** 2)))
    return out


def sgkit_pca(strata, tmp, prefix, reference, strata_seconds):
    """sgkit.pca (randomized, its default n_iter = 0: a sketch pass and a projection pass) on a
    2-worker LocalCluster, and strata (2 ranks x 1 thread) at the same number of passes over
    the genotypes; both subspaces against strata's converged default (`reference` eigenvectors)."""
    import numpy as np
    import sgkit
    import xarray as xr
    from dask.distributed import Client, LocalCluster

    # Dosages straight from the .bed (variant-major, 2 bits a call: 00 → 2, 10 → 1, 11 → 0,
    # 01 missing → 0; the simulated cohort has none).
    n = sum(1 for _ in open(prefix + ".fam"))
    raw = np.fromfile(prefix + ".bed", dtype=np.uint8)[3:].reshape(-1, (n + 3) // 4)
    codes = np.stack([(raw >> s) & 3 for s in (0, 2, 4, 6)], axis=2).reshape(raw.shape[0], -1)[:, :n]
    dosages = np.array([2, 0, 1, 0], dtype=np.uint8)[codes]
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster):
        ds = xr.Dataset({"call_alternate_allele_count": (("variants", "samples"), dosages)})
        ds = ds.chunk({"variants": 10_000, "samples": -1})
        t0 = time.monotonic()
        res = sgkit.pca(ds, n_components=10, ploidy=2, algorithm="randomized", merge=False).compute()
        secs = time.monotonic() - t0
    proj = np.asarray(res["sample_pca_projection"].values)
    ref = eigenvectors(reference)
    row = {"bench": "sgkit.pca randomized (n_iter=0), LocalCluster 2 workers x 1 thread", "seconds": round(secs, 3),
           "vs_strata_converged": subspace_sines(proj, ref),
           "speedup_of_strata_default": round(secs / strata_seconds, 2)}
    print(json.dumps(row), flush=True)
    # strata at sgkit's passes: one sketch pass and one projection pass (plus the counts pass).
    d = os.path.join(tmp, "equal-passes")
    os.makedirs(d, exist_ok=True)
    times = [run(mpirun() + ["-n", "2", strata, "pca", prefix, "-k", "10", "--method", "randomized", "--iterations",
                             "2", "--block", "24", "--out", os.path.join(d, "o"), "--threads", "1", "-q",
                             "--overwrite", "--report", os.path.join(d, "r.json")]) for _ in range(3)]
    t = statistics.median(times)
    rep = json.load(open(os.path.join(d, "r.json")))
    row = {"bench": "strata pca --iterations 2 --block 24, 2 ranks x 1 thread", "seconds": round(t, 3),
           "passes": rep["passes"], "vs_strata_converged": subspace_sines(eigenvectors(os.path.join(d, "o.eigenvec")), ref),
           "speedup_over_sgkit": round(secs / t, 2)}
    print(json.dumps(row), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--strata", required=True)
    ap.add_argument("--samples", type=int, default=10_000)
    ap.add_argument("--variants", type=int, default=100_000)
    ap.add_argument("--tile-samples", type=int, default=4000, help="samples of the KING/GRM/exact-PCA cohort")
    ap.add_argument("--tile-variants", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip", action="append", default=[], help="pca, tiles, sgkit")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="strata-mpi-bench-") as tmp:
        rows = {}
        if "pca" not in a.skip:
            prefix = os.path.join(tmp, "cohort")
            run([a.strata, "simulate", "--samples", str(a.samples), "--variants", str(a.variants), "--pops", "3",
                 "--fst", "0.05", "--seed", "7", "--out", prefix, "-q"])
            rows["pca"] = compare(a.strata, tmp, "pca randomized -k 10", ["pca", prefix, "-k", "10", "--method",
                                                                         "randomized", "--overwrite"], a.repeats)
            if "sgkit" not in a.skip:
                sgkit_pca(a.strata, tmp, prefix, os.path.join(tmp, "pca randomized -k 10-2x1", "o.eigenvec"),
                          rows["pca"]["ranks_2x1_s"])
        if "tiles" not in a.skip:
            tp = os.path.join(tmp, "tiles")
            run([a.strata, "simulate", "--samples", str(a.tile_samples), "--variants", str(a.tile_variants),
                 "--seed", "7", "--out", tp, "-q"])
            for name, args in (("king", ["king", tp]), ("grm", ["grm", tp]),
                               ("pca exact (grm route)", ["pca", tp, "-k", "10", "--method", "exact", "--overwrite"])):
                compare(a.strata, tmp, name, args, a.repeats)


if __name__ == "__main__":
    main()
