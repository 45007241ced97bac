#!/usr/bin/python3
"""Exact PCA size sweep: `strata pca -k 10 --method exact` vs `plink2 --pca 10 meanimpute`
(plink2's exact mode), same run, whole commands with their default outputs.

For each size (samples x variants, simulated with `strata simulate`, 3 populations, F_ST 0.05)
it prints: the route strata's exact method took (from --report), wall seconds of both (median
of --repeats runs, alternating), the ratio, peak RSS of both, the largest relative eigenvalue
difference and whether every eigenvalue prints the same to plink2's 6 digits, the largest
eigenvector entry difference (up to sign) over PCs whose relative eigengap exceeds 1e-3, and
the largest principal-angle sine between the spans of the other PCs.

  /usr/bin/python3 bench/pca_sweep.py                       # all five sizes
  /usr/bin/python3 bench/pca_sweep.py --sizes 2000x20000 --repeats 3
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import functools
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_common  # noqa: E402

timed = functools.partial(bench_common.timed, missing_rss=0)


SIZES = ["500x5000", "1000x14000", "2000x20000", "5000x50000", "10000x100000"]


def eigenvectors(path):
    rows = [line.split()[2:] for line in open(path) if not line.startswith("#")]
    return np.array(rows, dtype=float)


def compare(prefix_s, prefix_p, k):
    """(max rel eigenvalue diff, printed-equal, max |dv| over gapped PCs, max sin angle of the rest, gapped count)."""
    es = np.loadtxt(prefix_s + ".eigenval")
    ep = np.loadtxt(prefix_p + ".eigenval")
    rel = float(np.max(np.abs(es - ep) / ep))
    printed = all(f"{a:.6g}" == f"{b:.6g}" for a, b in zip(es, ep))
    vs, vp = eigenvectors(prefix_s + ".eigenvec"), eigenvectors(prefix_p + ".eigenvec")
    # Relative gap to the neighbours among the k computed (the k-th PC has no lower neighbour
    # here, so it counts as gapped only through its upper one when that is large).
    gapped, rest = [], []
    for i in range(k):
        nb = [abs(ep[i] - ep[j]) for j in (i - 1, i + 1) if 0 <= j < k]
        (gapped if min(nb) / ep[i] > 1e-3 and i < k - 1 else rest).append(i)
    dv = 0.0
    for i in gapped:
        sign = 1.0 if vs[:, i] @ vp[:, i] >= 0 else -1.0
        dv = max(dv, float(np.max(np.abs(vs[:, i] - sign * vp[:, i]))))
    angle = 0.0
    if rest:
        qs, _ = np.linalg.qr(vs[:, rest])
        qp, _ = np.linalg.qr(vp[:, rest])
        cos = np.linalg.svd(qs.T @ qp, compute_uv=False)
        angle = float(np.sqrt(max(0.0, 1.0 - min(cos) ** 2)))
    return rel, printed, dv, angle, len(gapped)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default=",".join(SIZES), help="comma-separated SAMPLESxVARIANTS")
    ap.add_argument("-k", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=1, help="runs of each command (median; alternating)")
    ap.add_argument("--strata", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build",
                                                     "tools", "cli", "strata"))
    ap.add_argument("--plink2", default="/usr/bin/plink2")
    ap.add_argument("--workdir", default=None, help="keep data and outputs here (default: a temp dir, removed)")
    a = ap.parse_args()
    work = a.workdir or tempfile.mkdtemp(prefix="pca_sweep_")
    os.makedirs(work, exist_ok=True)
    k, th = str(a.k), str(a.threads)
    rows = []
    for size in a.sizes.split(","):
        n, m = (int(x) for x in size.lower().split("x"))
        data = os.path.join(work, f"sim_{n}x{m}")
        if not os.path.exists(data + ".bed"):
            subprocess.run([a.strata, "simulate", "--samples", str(n), "--variants", str(m), "--pops", "3",
                            "--fst", "0.05", "--out", data, "-q"], check=True)
        s_prefix, p_prefix = os.path.join(work, f"s_{n}"), os.path.join(work, f"p_{n}")
        strata_cmd = [a.strata, "pca", data, "-k", k, "--method", "exact", "--threads", th, "-q", "--overwrite",
                      "--report", s_prefix + ".json", "--out", s_prefix]
        plink_cmd = [a.plink2, "--bfile", data, "--pca", k, "meanimpute", "--threads", th, "--out", p_prefix]
        st, pt, srss, prss = [], [], 0, 0
        for _ in range(a.repeats):
            w, r = timed(strata_cmd, s_prefix + ".log")
            st.append(w)
            srss = max(srss, r)
            w, r = timed(plink_cmd, p_prefix + ".timelog")
            pt.append(w)
            prss = max(prss, r)
        route = json.load(open(s_prefix + ".json")).get("route", "?")
        rel, printed, dv, angle, ngap = compare(s_prefix, p_prefix, a.k)
        s_med, p_med = statistics.median(st), statistics.median(pt)
        rows.append((f"{n} x {m}", route, s_med, p_med, p_med / s_med, srss, prss, rel, printed, dv, ngap, angle))
        print(f"  {n} x {m}: strata {s_med:.2f} s ({route}), plink2 {p_med:.2f} s", flush=True)
    print()
    hdr = (f"{'size':>16s} {'route':>6s} {'strata s':>9s} {'plink2 s':>9s} {'ratio':>6s} {'strata RSS':>11s} "
           f"{'plink2 RSS':>11s} {'max rel dλ':>11s} {'6 digits':>8s} {'max |dv| gapped':>16s} {'sin angle rest':>15s}")
    print(hdr)
    for (size, route, s, p, ratio, srss, prss, rel, printed, dv, ngap, angle) in rows:
        print(f"{size:>16s} {route:>6s} {s:9.2f} {p:9.2f} {ratio:5.2f}x {srss / 2**20:8.0f} MB {prss / 2**20:8.0f} MB "
              f"{rel:11.1e} {('yes' if printed else 'NO'):>8s} {dv:10.1e} ({ngap:2d}) {angle:15.1e}")
    if not a.workdir:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
