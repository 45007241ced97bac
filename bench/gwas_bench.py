#!/usr/bin/python3
"""GWAS benchmark: `strata gwas` vs `plink2 --glm hide-covar`, same run.

Simulates a cohort with `strata simulate` (1 % missing calls), 10 covariates and phenotypes
(fixed seed; --patterns distinct sets of samples missing a phenotype), then times (median of --repeats, alternating):
  linear, 1 phenotype        strata gwas --pheno-name Q1          vs plink2 --glm --pheno-name Q1
  linear, --phenos phenotypes strata gwas (all Q*, one run)       vs plink2 --glm (all Q*, one run)
  logistic + Firth fallback  strata gwas --pheno-name B1          vs plink2 --glm --pheno-name B1
and prints wall seconds, peak RSS, the ratio and the largest difference of BETA / OR. With
--strata-base a second strata build runs in the same rounds (before/after figures of one run).

  /usr/bin/python3 bench/gwas_bench.py --samples 10000 --variants 100000 --phenos 100
"""
import argparse
import functools
import math
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_common  # noqa: E402

timed = functools.partial(bench_common.timed, missing_rss=0)


def write_tables(fam, pheno, covar, phenos, patterns, seed):
    rng = random.Random(seed)
    rows = [line.split()[:2] for line in open(fam)]
    with open(pheno, "w") as ph, open(covar, "w") as cv:
        ph.write("#FID IID " + " ".join(f"Q{j + 1}" for j in range(phenos)) + " B1\n")
        cv.write("#FID IID " + " ".join(f"C{j + 1}" for j in range(10)) + "\n")
        for i, (fid, iid) in enumerate(rows):
            c = [rng.gauss(0, 1) for _ in range(10)]
            q = [0.2 * c[j % 10] + rng.gauss(0, 1) for j in range(phenos)]
            # ~10 % cases: rare variants then separate cases from controls (Firth fallback).
            eta = -2.2 + 0.3 * c[0]
            b = 2 if rng.random() < 1 / (1 + math.exp(-eta)) else 1
            # Phenotype j is missing on the samples of pattern j mod `patterns` (one sample set per
            # pattern: strata shares a pass and a covariate QR per sample set).
            qs = ["NA" if (i + j % patterns) % 53 == 0 else repr(x) for j, x in enumerate(q)]
            ph.write(f"{fid} {iid} {' '.join(qs)} {'NA' if i % 61 == 0 else b}\n")
            cv.write(f"{fid} {iid} {' '.join(repr(x) for x in c)}\n")


def column(path, name):
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        k = head.index(name)
        return [line.rstrip("\n").split("\t")[k] for line in f]


def max_rel(a, b):
    worst = 0.0
    for x, y in zip(a, b):
        if x == "NA" or y == "NA":
            continue
        x, y = float(x), float(y)
        worst = max(worst, abs(x - y) / max(abs(y), 1e-300))
    return worst


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=10000)
    ap.add_argument("--variants", type=int, default=100000)
    ap.add_argument("--phenos", type=int, default=100)
    ap.add_argument("--patterns", type=int, default=1, help="distinct missing-phenotype patterns among the Q*")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--skip", action="append", default=[], help="linear1, linearN or logistic")
    ap.add_argument("--strata", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build",
                                                     "tools", "cli", "strata"))
    ap.add_argument("--strata-base", default=None, help="another strata build, timed in the same rounds")
    ap.add_argument("--plink2", default="/usr/bin/plink2")
    ap.add_argument("--workdir", default=None)
    a = ap.parse_args()
    work = a.workdir or tempfile.mkdtemp(prefix="gwas_bench_")
    os.makedirs(work, exist_ok=True)
    data = os.path.join(work, f"sim_{a.samples}x{a.variants}")
    if not os.path.exists(data + ".bed"):
        subprocess.run([a.strata, "simulate", "--samples", str(a.samples), "--variants", str(a.variants),
                        "--missing", "0.01", "--out", data, "-q"], check=True)
    pheno, covar = os.path.join(work, "pheno.txt"), os.path.join(work, "covar.txt")
    write_tables(data + ".fam", pheno, covar, a.phenos, a.patterns, 1)
    th = str(a.threads)
    all_q = ",".join(f"Q{j + 1}" for j in range(a.phenos))
    cases = [
        ("linear1", "Q1", "Q1.glm.linear", "BETA"),
        ("linearN", all_q, "Q1.glm.linear", "BETA"),
        ("logistic", "B1", "B1.glm.logistic.hybrid", "OR"),
    ]
    print(f"data: {a.samples} samples x {a.variants} variants (1 % missing calls), 10 covariates, "
          f"{a.phenos} phenotypes in {a.patterns} missing pattern(s), threads {a.threads}")
    base_head = f" {'base s':>8s} {'base ratio':>10s}" if a.strata_base else ""
    print(f"{'case':>9s} {'strata s':>9s} {'plink2 s':>9s} {'ratio':>7s} {'strata RSS':>11s} {'plink2 RSS':>11s} "
          f"{'max rel diff':>13s}{base_head}")
    for name, names, suffix, col in cases:
        if name in a.skip:
            continue
        s_out, p_out = os.path.join(work, "s_" + name), os.path.join(work, "p_" + name)
        s_cmd = [a.strata, "gwas", data, "--pheno", pheno, "--pheno-name", names, "--covar", covar, "--threads", th,
                 "-q", "--out", s_out]
        p_cmd = [a.plink2, "--bfile", data, "--pheno", pheno, "--pheno-name", names, "--covar", covar, "--glm",
                 "hide-covar", "--threads", th, "--out", p_out]
        st, pt, bt, sr, pr = [], [], [], 0, 0
        for _ in range(a.repeats):
            if a.strata_base:
                b_cmd = [a.strata_base] + s_cmd[1:-1] + [os.path.join(work, "b_" + name)]
                bt.append(timed(b_cmd, os.path.join(work, "b.log"))[0])
            w, r = timed(s_cmd, os.path.join(work, "s.log"))
            st.append(w)
            sr = max(sr, r)
            w, r = timed(p_cmd, os.path.join(work, "p.log"))
            pt.append(w)
            pr = max(pr, r)
        st.sort()
        pt.sort()
        s, p = st[len(st) // 2], pt[len(pt) // 2]
        diff = max_rel(column(f"{s_out}.{suffix}", col), column(f"{p_out}.{suffix}", col))
        base_cols = ""
        if bt:
            bt.sort()
            b = bt[len(bt) // 2]
            base_cols = f" {b:8.2f} {p / b:9.2f}x"
        print(f"{name:>9s} {s:9.2f} {p:9.2f} {p / s:6.2f}x {sr / 1e9:10.2f}G {pr / 1e9:10.2f}G {diff:13.2e}{base_cols}",
              flush=True)


if __name__ == "__main__":
    main()
