#!/usr/bin/python3
"""PCA benchmark: strata vs plink2 (and optionally Dask) in the same run.

Simulates a structured cohort, then runs
  strata pca -k K --method randomized      vs  plink2 --pca approx K
  strata pca -k K --method exact           vs  plink2 --pca K meanimpute
  strata pca -k K --tolerance T (converged Krylov, strata's exact mode for large cohorts)
                                           vs  plink2 --pca K meanimpute
and prints wall time, peak RSS (from /usr/bin/time -v), ratios, each run's largest relative
eigenvalue error against the exact reference (plink2 exact, or strata exact when plink2 exact is
skipped), and the largest eigenvector entry difference (up to sign) against plink2 exact.

  /usr/bin/python3 bench/pca_bench.py --samples 2000 --variants 20000
  /usr/bin/python3 bench/pca_bench.py --samples 10000 --variants 100000 --skip plink2-exact
  /usr/bin/python3 bench/pca_bench.py --samples 10000 --variants 100000 --skip strata-exact
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import timed  # noqa: E402


RUNS = ["strata-randomized", "plink2-approx", "strata-exact", "strata-converged", "plink2-exact", "dask"]


def shared_bench_dir():
    """The shared peer runners: $STRATA_SHARED_DATA's parent, else ../shared beside the repository."""
    env = os.environ.get("STRATA_SHARED_DATA")
    root = os.path.dirname(os.path.abspath(env.rstrip("/"))) if env else \
        os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared"))
    return os.path.join(root, "bench")


def shared_runner(name):
    path = os.path.join(shared_bench_dir(), name)
    if not os.path.exists(path):
        sys.exit("pca_bench: the peer runner %s is missing (set STRATA_SHARED_DATA to shared/data)" % path)
    return path


def eigenvalues(path):
    return [float(x) for x in open(path).read().split()]


def eigenvectors(path):
    """Columns PC1.. of a PLINK 2 .eigenvec file (header line skipped)."""
    rows = [line.split()[2:] for line in open(path) if not line.startswith("#")]
    return [[float(r[j]) for r in rows] for j in range(len(rows[0]))] if rows else []


def max_vector_diff(a, b):
    """Largest |a_ij - b_ij| over the common PCs, each column's sign aligned by its dot product."""
    worst = 0.0
    for x, y in zip(a, b):
        sign = 1.0 if sum(p * q for p, q in zip(x, y)) >= 0 else -1.0
        worst = max(worst, max(abs(p - sign * q) for p, q in zip(x, y)))
    return worst


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=10000)
    ap.add_argument("--variants", type=int, default=100000)
    ap.add_argument("--pops", type=int, default=3)
    ap.add_argument("--fst", type=float, default=0.05)
    ap.add_argument("-k", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--strata", default=os.path.join(os.path.dirname(__file__), "..", "build", "tools", "cli", "strata"))
    ap.add_argument("--plink2", default="/usr/bin/plink2")
    ap.add_argument("--iterations", type=int, default=None, help="strata randomized: passes (default: strata's)")
    ap.add_argument("--tolerance", type=float, default=1e-6, help="strata converged: eigenvalue error estimate to reach")
    ap.add_argument("--skip", action="append", default=[], choices=RUNS, help="leave a run out (repeatable)")
    ap.add_argument("--dask", action="store_true", help="also run Dask svd_compressed (data from shared simulate.py)")
    ap.add_argument("--dask-iterations", type=int, default=4)
    ap.add_argument("--workdir", default=None, help="keep data and outputs here (default: a temp dir, removed)")
    a = ap.parse_args()
    if not a.dask:
        a.skip.append("dask")

    work = a.workdir or tempfile.mkdtemp(prefix="pca_bench_")
    os.makedirs(work, exist_ok=True)
    data = os.path.join(work, "sim")
    t0 = time.monotonic()
    if a.dask:
        # Dask reads a `dosage` Zarr array, which the shared generator writes beside the .bed.
        sim = ["/usr/bin/python3", shared_runner("simulate.py"), "--variants", str(a.variants),
               "--samples", str(a.samples), "--pops", str(a.pops), "--fst", str(a.fst), "--out", data,
               "--no-gt"]  # Dask reads `dosage` only (and Debian's zarr rejects the call_genotype fill value)
    else:
        sim = [a.strata, "simulate", "--samples", str(a.samples), "--variants", str(a.variants),
               "--pops", str(a.pops), "--fst", str(a.fst), "--out", data, "-q"]
    subprocess.run(sim, check=True, stdout=subprocess.DEVNULL)
    print(f"data: {a.samples} samples x {a.variants} variants, {a.pops} pops, F_ST {a.fst} "
          f"({time.monotonic() - t0:.1f} s to simulate); k = {a.k}, threads = {a.threads}")

    k, th = str(a.k), str(a.threads)
    cmds = {
        "strata-randomized": ([a.strata, "pca", data, "-k", k, "--method", "randomized", "--threads", th, "-q", "--overwrite",
                               "--out", os.path.join(work, "s_rand")]
                              + (["--iterations", str(a.iterations)] if a.iterations else []), os.path.join(work, "s_rand.eigenval")),
        "plink2-approx": ([a.plink2, "--bfile", data, "--pca", "approx", k, "--threads", th,
                           "--out", os.path.join(work, "p_approx")], os.path.join(work, "p_approx.eigenval")),
        "strata-exact": ([a.strata, "pca", data, "-k", k, "--method", "exact", "--threads", th, "-q", "--overwrite",
                          "--out", os.path.join(work, "s_exact")], os.path.join(work, "s_exact.eigenval")),
        "strata-converged": ([a.strata, "pca", data, "-k", k, "--method", "randomized", "--tolerance", str(a.tolerance),
                              "--threads", th, "-q", "--overwrite", "--out", os.path.join(work, "s_conv")],
                             os.path.join(work, "s_conv.eigenval")),
        "plink2-exact": ([a.plink2, "--bfile", data, "--pca", k, "meanimpute", "--threads", th,
                          "--out", os.path.join(work, "p_exact")], os.path.join(work, "p_exact.eigenval")),
        "dask": (["/usr/bin/python3", shared_runner("dask_pca.py") if a.dask else "dask_pca.py", data + ".zarr", k, str(a.dask_iterations),
                  "threads", os.path.join(work, "dask_v.npy")], None),
    }
    results = {}
    for name in RUNS:
        if name in a.skip:
            continue
        cmd, out = cmds[name]
        log = os.path.join(work, name + ".log")
        wall, rss = timed(cmd, log)
        if out:
            ev = eigenvalues(out)
        else:  # dask prints its eigenvalues
            m = re.search(r"\[([^\]]*)\]", open(log).read())
            ev = [float(x) for x in m.group(1).split()] if m else []
        results[name] = (wall, rss, ev)
        print(f"  {name:18s} {wall:8.2f} s", flush=True)

    ref_name = next((n for n in ("plink2-exact", "strata-exact", "strata-converged") if n in results), None)
    ref = results[ref_name][2] if ref_name else None
    vec_ref = eigenvectors(os.path.join(work, "p_exact.eigenvec")) if "plink2-exact" in results else None
    print(f"\n{'run':18s} {'wall s':>9s} {'peak RSS':>10s} {'max rel err vs ' + (ref_name or '-'):>28s} "
          f"{'max |dv| vs plink2-exact':>26s}")
    for name, (wall, rss, ev) in results.items():
        err = max(abs(e - r) / r for e, r in zip(ev, ref)) if ref and ev else float("nan")
        rss_s = f"{rss / 2**30:.2f} GB" if rss else "?"
        out = cmds[name][1]
        vec = out.replace(".eigenval", ".eigenvec") if out else None
        dv = max_vector_diff(eigenvectors(vec), vec_ref) if vec_ref and vec and os.path.exists(vec) else float("nan")
        print(f"{name:18s} {wall:9.2f} {rss_s:>10s} {err:28.2e} {dv:26.2e}")
    if ref:
        print("\nreference eigenvalues:", " ".join(f"{x:.4f}" for x in ref))

    def ratio(peer, ours):
        if peer in results and ours in results:
            print(f"{peer} / {ours}: {results[peer][0] / results[ours][0]:.2f}x wall")
    print()
    ratio("plink2-approx", "strata-randomized")
    ratio("plink2-exact", "strata-exact")
    ratio("plink2-exact", "strata-converged")
    ratio("dask", "strata-randomized")
    if not a.workdir:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
