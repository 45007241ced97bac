#!/usr/bin/env python3
"""Same outputs, same speed: run two strata binaries over a fixed set of commands and compare.

    bench/output_bytes.py data DIR                 # simulated cohorts, phenotypes, a GLM design
    bench/output_bytes.py run STRATA DIR OUT       # every command's outputs (and reports) under OUT
    bench/output_bytes.py compare OUT_A OUT_B      # byte equality; reports without timing fields
    bench/output_bytes.py perf OLD NEW DIR [--rounds N]  # alternating runs, median wall/CPU ratios

A refactor that must not change what users get runs `run` with the binary before and after,
then `compare` (exit 1 when anything differs) and `perf` (same-run ratios NEW/OLD).
"""
import argparse
import filecmp
import json
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

SIZES = ("500x5000", "2000x20000")


def sh(args, **kw):
    subprocess.run([str(a) for a in args], check=True, stdout=subprocess.DEVNULL, **kw)


def make_data(strata, d):
    os.makedirs(d, exist_ok=True)
    for sz in SIZES + ("5000x50000",):
        n, m = sz.split("x")
        sh([strata, "simulate", "--samples", n, "--variants", m, "--seed", "7", "--out", f"{d}/c{sz}", "-q"])
    sh([strata, "simulate", "--samples", 600, "--variants", 4000, "--missing", 0.02, "--seed", 3,
        "--out", f"{d}/cmiss", "-q"])
    fam = [line.split()[:2] for line in open(f"{d}/cmiss.fam")]
    rng = np.random.default_rng(5)
    with open(f"{d}/pheno.txt", "w") as f:
        f.write("#FID\tIID\tQ\tCC\n")
        for fid, iid in fam:
            f.write(f"{fid}\t{iid}\t{rng.normal():.5f}\t{rng.integers(1, 3)}\n")
    with open(f"{d}/covar.txt", "w") as f:
        f.write("#FID\tIID\tAGE\n")
        for fid, iid in fam:
            f.write(f"{fid}\t{iid}\t{rng.uniform(30, 70):.3f}\n")
    x = rng.normal(size=(2000, 8))
    y = (x @ rng.normal(size=8) * 0.5 + rng.normal(size=2000) > 0).astype(np.float64)
    np.save(f"{d}/x.npy", x)
    np.save(f"{d}/y.npy", y)
    sh([strata, "zarr", "import", f"{d}/x.npy", f"{d}/x.zarr", "--chunks", "500,8", "--overwrite"])


def commands(d):
    cmds = []
    for sz in SIZES:
        for method in ("auto", "exact", "randomized"):
            cmds.append(["pca", f"{d}/c{sz}", "-k", 10, "--method", method, "--out", f"pca_{method}_{sz}"])
    cmds += [
        ["pca", f"{d}/cmiss", "-k", 5, "--maf", 0.05, "--geno", 0.1, "--out", "pca_miss"],
        ["grm", f"{d}/c500x5000", "--out", "grm_rel"],
        ["grm", f"{d}/c500x5000", "--format", "grm-bin", "--out", "grm_bin"],
        ["grm", f"{d}/cmiss", "--format", "rel-bin", "--out", "grm_miss"],
        ["king", f"{d}/c500x5000", "--out", "king_tri"],
        ["king", f"{d}/cmiss", "--table", "--out", "king_tab"],
        ["king", f"{d}/cmiss", "--cutoff", 0.02, "--out", "king_cut"],
        ["distance", f"{d}/cmiss", "--metric", "ibs", "--out", "dist_ibs"],
        ["distance", f"{d}/c500x5000", "--metric", "euclidean", "--out", "dist_e"],
        ["freq", f"{d}/cmiss", "--out", "freq"],
        ["gwas", f"{d}/cmiss", "--pheno", f"{d}/pheno.txt", "--covar", f"{d}/covar.txt", "--out", "gwas"],
        ["glm", "--x", f"{d}/x.zarr", "--y", f"{d}/y.npy", "--family", "logistic", "--solver", "newton",
         "--intercept", "--out", "glm_logit"],
        ["glm", "--x", f"{d}/x.zarr", "--y", f"{d}/y.npy", "--family", "normal", "--solver", "lbfgs",
         "--out", "glm_norm"],
        ["svd", f"{d}/x.zarr", "-k", 3, "--out", "svd_x.zarr"],
        ["svd", f"{d}/x.zarr", "-k", 3, "--method", "randomized", "--out", "svd_r.zarr"],
        ["convert", f"{d}/cmiss.bed", "cmiss.vcz"],
        ["convert", f"{d}/cmiss.bed", "cmiss_maf.bed", "--maf", 0.1],
    ]
    return cmds


def run_all(strata, d, out):
    strata = os.path.abspath(strata)
    os.makedirs(os.path.join(out, "reports"), exist_ok=True)
    failed = 0
    for i, c in enumerate(commands(os.path.abspath(d))):
        args = [strata] + [str(a) for a in c] + ["-q", "--threads", "2", "--report", f"reports/r{i:02d}.json"]
        r = subprocess.run(args, cwd=out, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            failed += 1
            print(f"FAILED ({r.returncode}): {' '.join(args)}\n{r.stderr}", file=sys.stderr)
    return failed


TIMING = ("seconds", "phases", "rss", "peak", "wall", "time", "started", "command_line", "version",
          "bytes_per_s", "parameters")


def strip(x, root):
    if isinstance(x, dict):
        return {k: strip(v, root) for k, v in x.items() if not any(t in k for t in TIMING)}
    if isinstance(x, list):
        return [strip(v, root) for v in x]
    return x.replace(root, "OUT") if isinstance(x, str) else x


def compare(a, b):
    differ = 0

    def walk(cmp, rel=""):
        nonlocal differ
        for name in cmp.left_only + cmp.right_only:
            differ += 1
            print("only in one run:", os.path.join(rel, name))
        for name in cmp.diff_files + cmp.funny_files:
            if rel == "reports":
                continue
            differ += 1
            print("differs:", os.path.join(rel, name))
        for name, sub in cmp.subdirs.items():
            walk(sub, os.path.join(rel, name))

    walk(filecmp.dircmp(a, b))
    print("outputs:", "IDENTICAL" if differ == 0 else f"{differ} differ")
    bad = 0
    for f in sorted(os.listdir(os.path.join(a, "reports"))):
        ja = strip(json.load(open(os.path.join(a, "reports", f))), os.path.abspath(a))
        jb = strip(json.load(open(os.path.join(b, "reports", f))), os.path.abspath(b))
        if ja != jb:
            bad += 1
            ka, kb = set(ja), set(jb)
            print(f, "only in A:", sorted(ka - kb), "only in B:", sorted(kb - ka),
                  "changed:", sorted(k for k in ka & kb if ja[k] != jb[k]))
    print("reports:", "SAME" if bad == 0 else f"{bad} differ")
    return differ + bad


def perf(old, new, d, rounds):
    c = f"{d}/c2000x20000"
    cmds = {
        "pca 5k exact": ["pca", f"{d}/c5000x50000", "-k", "10", "--method", "exact"],
        "pca 5k randomized": ["pca", f"{d}/c5000x50000", "-k", "10", "--method", "randomized"],
        "grm 5k": ["grm", f"{d}/c5000x50000"],
        "king 5k": ["king", f"{d}/c5000x50000"],
        "pca exact": ["pca", c, "-k", "10", "--method", "exact"],
        "distance ibs": ["distance", c, "--metric", "ibs"],
        "gwas": ["gwas", f"{d}/cmiss", "--pheno", f"{d}/pheno.txt", "--covar", f"{d}/covar.txt"],
    }
    scratch = os.path.join(d, "perf_out")
    os.makedirs(scratch, exist_ok=True)

    def once(binary, args):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        sh([binary] + args + ["--out", f"{scratch}/o", "-q", "--threads", "2"], stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - t
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

    print(f"{'command':18s} {'old wall':>9s} {'new wall':>9s} {'ratio':>6s} {'old cpu':>8s} {'new cpu':>8s} {'ratio':>6s}")
    for name, args in cmds.items():
        walls = {old: [], new: []}
        cpus = {old: [], new: []}
        for i in range(rounds):
            for b in (old, new) if i % 2 == 0 else (new, old):
                w, cpu = once(b, args)
                walls[b].append(w)
                cpus[b].append(cpu)
        mw = {b: statistics.median(v) for b, v in walls.items()}
        mc = {b: statistics.median(v) for b, v in cpus.items()}
        print(f"{name:18s} {mw[old]:9.3f} {mw[new]:9.3f} {mw[new] / mw[old]:6.3f} "
              f"{mc[old]:8.3f} {mc[new]:8.3f} {mc[new] / mc[old]:6.3f}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    s = sub.add_parser("data")
    s.add_argument("dir")
    s.add_argument("--strata", default="build/tools/cli/strata")
    s = sub.add_parser("run")
    s.add_argument("strata")
    s.add_argument("dir")
    s.add_argument("out")
    s = sub.add_parser("compare")
    s.add_argument("a")
    s.add_argument("b")
    s = sub.add_parser("perf")
    s.add_argument("old")
    s.add_argument("new")
    s.add_argument("dir")
    s.add_argument("--rounds", type=int, default=5)
    a = p.parse_args()
    if a.what == "data":
        make_data(os.path.abspath(a.strata), os.path.abspath(a.dir))
        return 0
    if a.what == "run":
        os.makedirs(a.out, exist_ok=False)
        return 1 if run_all(a.strata, a.dir, a.out) else 0
    if a.what == "compare":
        return 1 if compare(a.a, a.b) else 0
    perf(os.path.abspath(a.old), os.path.abspath(a.new), os.path.abspath(a.dir), a.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
