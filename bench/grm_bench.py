#!/usr/bin/python3
"""GRM benchmark: `strata grm` vs `plink2 --make-rel` (and `--make-grm-bin`), same run.

Simulates a cohort with `strata simulate`, then times (median of --repeats, alternating)
  strata grm DATA --out S                      vs  plink2 --bfile DATA --make-rel --out P
  strata grm DATA --format grm-bin --out S     vs  plink2 --bfile DATA --make-grm-bin --out P
and prints wall seconds, peak RSS, the ratio and the largest difference of the values.

  /usr/bin/python3 bench/grm_bench.py --samples 4000 --variants 50000 --repeats 3
"""
import argparse
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



def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=4000)
    ap.add_argument("--variants", type=int, default=50000)
    ap.add_argument("--missing", type=float, default=0.0, help="per-call missing rate of the simulated data")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--strata", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build",
                                                     "tools", "cli", "strata"))
    ap.add_argument("--plink2", default="/usr/bin/plink2")
    ap.add_argument("--formats", default="rel,grm-bin", help="comma-separated: rel, grm-bin")
    ap.add_argument("--workdir", default=None)
    a = ap.parse_args()
    work = a.workdir or tempfile.mkdtemp(prefix="grm_bench_")
    os.makedirs(work, exist_ok=True)
    data = os.path.join(work, f"sim_{a.samples}x{a.variants}")
    if not os.path.exists(data + ".bed"):
        subprocess.run([a.strata, "simulate", "--samples", str(a.samples), "--variants", str(a.variants),
                        "--missing", str(a.missing), "--out", data, "-q"], check=True)
    th = str(a.threads)
    pairs = [
        ("rel", [a.strata, "grm", data, "--threads", th, "-q", "--out", os.path.join(work, "s")],
         [a.plink2, "--bfile", data, "--make-rel", "--threads", th, "--out", os.path.join(work, "p")]),
        ("grm-bin", [a.strata, "grm", data, "--format", "grm-bin", "--threads", th, "-q", "--out", os.path.join(work, "s")],
         [a.plink2, "--bfile", data, "--make-grm-bin", "--threads", th, "--out", os.path.join(work, "p")]),
    ]
    print(f"data: {a.samples} samples x {a.variants} variants (missing rate {a.missing}), threads {a.threads}")
    print(f"{'format':>8s} {'strata s':>9s} {'plink2 s':>9s} {'ratio':>7s} {'strata RSS':>11s} {'plink2 RSS':>11s} "
          f"{'max |diff|':>11s}")
    for name, s_cmd, p_cmd in pairs:
        if name not in a.formats.split(","):
            continue
        st, pt, sr, pr = [], [], 0, 0
        for _ in range(a.repeats):
            w, r = timed(s_cmd, os.path.join(work, "s.timelog"))
            st.append(w)
            sr = max(sr, r)
            w, r = timed(p_cmd, os.path.join(work, "p.timelog"))
            pt.append(w)
            pr = max(pr, r)
        if name == "rel":
            def tri(path):
                return np.concatenate([np.array(line.split("\t"), dtype=float) for line in open(path)])
            diff = float(np.max(np.abs(tri(os.path.join(work, "s.rel")) - tri(os.path.join(work, "p.rel")))))
        else:
            x = np.fromfile(os.path.join(work, "s.grm.bin"), dtype=np.float32)
            y = np.fromfile(os.path.join(work, "p.grm.bin"), dtype=np.float32)
            diff = float(np.max(np.abs(x - y)))
        s, p = statistics.median(st), statistics.median(pt)
        print(f"{name:>8s} {s:9.2f} {p:9.2f} {p / s:6.2f}x {sr / 2**20:8.0f} MB {pr / 2**20:8.0f} MB {diff:11.1e}",
              flush=True)
    if not a.workdir:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
