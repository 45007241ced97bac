#!/usr/bin/python3
"""KING kinship: strata king vs plink2 --make-king in the same run, and the peak RSS of the
streamed, filtered table at biobank-like sample counts.

  strata king P --out S               vs  plink2 --bfile P --make-king triangle --threads T
  (optional, heavy) --big: strata king P --table --filter 0.0884 on --big-samples x --big-variants

Prints the median wall time of --runs runs, peak RSS (/usr/bin/time -v), the ratio
plink2/strata, and the largest absolute difference between the two .king files.

  /usr/bin/python3 bench/king_bench.py --samples 4000 --variants 50000
  /usr/bin/python3 bench/king_bench.py --runs 1 --big
"""
import argparse
import os
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import median_run, timed  # noqa: E402



def max_abs_diff(a_path, b_path):
    worst = 0.0
    with open(a_path) as fa, open(b_path) as fb:
        for la, lb in zip(fa, fb):
            for x, y in zip(la.split(), lb.split()):
                fx, fy = float(x), float(y)
                if fx == fx and fy == fy and abs(fx) != float("inf"):
                    worst = max(worst, abs(fx - fy))
    return worst


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=4000)
    ap.add_argument("--variants", type=int, default=50000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--big", action="store_true", help="also the filtered table at --big-samples x --big-variants")
    ap.add_argument("--big-samples", type=int, default=50000)
    ap.add_argument("--big-variants", type=int, default=20000)
    ap.add_argument("--strata", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build",
                                                      "tools", "cli", "strata"))
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="strata_king_bench_")
    prefix = os.path.join(tmp, "cohort")
    subprocess.run([a.strata, "simulate", "-q", "--samples", str(a.samples), "--variants", str(a.variants),
                    "--out", prefix], check=True)
    sw, srss = median_run([a.strata, "king", prefix, "-q", "--threads", str(a.threads), "--out",
                           os.path.join(tmp, "s")], a.runs, os.path.join(tmp, "s.log"))
    pw, prss = median_run(["plink2", "--bfile", prefix, "--make-king", "triangle", "--threads", str(a.threads),
                           "--out", os.path.join(tmp, "p")], a.runs, os.path.join(tmp, "p.log"))
    diff = max_abs_diff(os.path.join(tmp, "s.king"), os.path.join(tmp, "p.king"))
    print(f"KING {a.samples} samples x {a.variants} variants, {a.threads} threads, median of {a.runs}")
    print(f"  strata king            {sw:8.2f} s  peak {srss / 2**20:7.0f} MB")
    print(f"  plink2 --make-king     {pw:8.2f} s  peak {prss / 2**20:7.0f} MB")
    print(f"  ratio plink2/strata    {pw / sw:8.2f}x   max |diff| of .king values {diff:.2e} (6 printed digits)")
    subprocess.run(["rm", "-rf", tmp])
    if a.big:
        tmp = tempfile.mkdtemp(prefix="strata_king_bench_big_")
        prefix = os.path.join(tmp, "big")
        subprocess.run([a.strata, "simulate", "-q", "--samples", str(a.big_samples), "--variants",
                        str(a.big_variants), "--out", prefix], check=True)
        w, rss = timed([a.strata, "king", prefix, "-q", "--threads", str(a.threads), "--table", "--filter", "0.0884",
                        "--out", os.path.join(tmp, "f")], os.path.join(tmp, "f.log"))
        rows = sum(1 for _ in open(os.path.join(tmp, "f.kin0"))) - 1
        print(f"strata king --table --filter 0.0884, {a.big_samples} x {a.big_variants}: {w:.1f} s, "
              f"peak RSS {rss / 2**30:.2f} GB, {rows} pairs kept")
        subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
