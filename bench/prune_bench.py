#!/usr/bin/env python3
"""LD pruning speed: `strata prune --indep-pairwise W S R2` against `plink2 --indep-pairwise W S R2`
in the same run, on a PLINK 1 cohort WITH LD (goal: strata >= 5x plink2's speed).

The cohort follows tests/prune/prune_cli_test.cpp's generator: most variants copy the previous
one and re-draw a fraction of the calls (so pruning removes many), a few are monomorphic, 1% of
calls are missing. It is written once under --data-dir and reused. Each tool runs --repeats
times, alternating; the table gives median wall seconds, CPU seconds and the ratio plink2 / strata,
and checks that .prune.in and .prune.out are byte-identical.
"""
import argparse
import os
import sys

import numpy as np

from bench_common import timed
from formats_bench import cpu_seconds

HERE = os.path.dirname(os.path.abspath(__file__))


def write_ld_cohort(prefix, samples, variants, chromosomes, seed):
    """PLINK 1 .bed/.bim/.fam of `variants` variants split over `chromosomes` chromosomes."""
    rng = np.random.default_rng(seed)
    n = samples
    with open(prefix + ".fam", "w") as f:
        for i in range(n):
            f.write(f"F{i}\tI{i}\t0\t0\t{1 + i % 2}\t-9\n")
    code = np.array([0b11, 0b10, 0b00, 0b01], dtype=np.uint8)  # ALT dosage 0, 1, 2, missing
    per_chr = [variants // chromosomes + (c < variants % chromosomes) for c in range(chromosomes)]
    pad = (-n) % 4
    with open(prefix + ".bed", "wb") as bed, open(prefix + ".bim", "w") as bim:
        bed.write(b"\x6c\x1b\x01")
        vid = 0
        for c, count in enumerate(per_chr):
            prev = np.zeros(n, dtype=np.uint8)
            pos = 1000
            chunk = []
            for j in range(count):
                p = 0.02 + 0.96 * rng.random()
                u = rng.random()
                g = (rng.random(n) < p).astype(np.uint8) + (rng.random(n) < p)
                if j > 0 and u < 0.75:
                    keep = rng.random(n) > 0.02 + 0.5 * rng.random()
                    g = np.where(keep, prev, g)
                if u > 0.97:
                    g = np.zeros(n, dtype=np.uint8)
                prev = g
                x = np.where(rng.random(n) < 0.01, 3, g)
                chunk.append(code[np.concatenate([x, np.full(pad, 3, dtype=np.uint8)])] if pad else code[x])
                pos += 200000 if j % 60 == 59 else 1 + int(rng.random() * 2000)
                bim.write(f"{c + 1}\tv{vid}\t0\t{pos}\tA\tG\n")
                vid += 1
                if len(chunk) == 4096 or j == count - 1:
                    q = np.stack(chunk).reshape(len(chunk), -1, 4)
                    bed.write((q[:, :, 0] | (q[:, :, 1] << 2) | (q[:, :, 2] << 4) | (q[:, :, 3] << 6)).tobytes())
                    chunk = []


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=10000)
    ap.add_argument("--variants", type=int, default=100000)
    ap.add_argument("--chromosomes", type=int, default=2)
    ap.add_argument("--window", nargs=3, default=["50", "5", "0.2"], metavar=("W", "S", "R2"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--data-dir", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "strata_prune_bench"))
    ap.add_argument("--strata", default=os.path.join(HERE, "..", "build", "tools", "cli", "strata"))
    ap.add_argument("--plink2", default="/usr/bin/plink2")
    a = ap.parse_args()
    os.makedirs(a.data_dir, exist_ok=True)
    base = os.path.join(a.data_dir, f"ld_{a.samples}x{a.variants}")
    if not os.path.exists(base + ".bed"):
        write_ld_cohort(base, a.samples, a.variants, a.chromosomes, seed=7)
    out = os.path.join(a.data_dir, "out")
    os.makedirs(out, exist_ok=True)
    th = str(a.threads)
    cmds = {
        "strata": [a.strata, "prune", base, "--indep-pairwise", *a.window, "--threads", th, "--out", out + "/s"],
        "plink2": [a.plink2, "--bfile", base, "--indep-pairwise", *a.window, "--threads", th, "--out", out + "/p"],
    }
    walls, cpus = {k: [] for k in cmds}, {k: [] for k in cmds}
    for _ in range(a.repeats):
        for k, cmd in cmds.items():
            w, _ = timed(cmd, out + "/" + k + ".time")
            walls[k].append(w)
            cpus[k].append(cpu_seconds(out + "/" + k + ".time"))
    med = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
    same = all(open(out + "/s.prune." + e, "rb").read() == open(out + "/p.prune." + e, "rb").read()
               for e in ("in", "out"))
    pruned = sum(1 for _ in open(out + "/p.prune.out"))
    print(f"{a.samples} x {a.variants}, --indep-pairwise {' '.join(a.window)}, threads {th}, "
          f"median of {a.repeats}, STRATA_CPU={os.environ.get('STRATA_CPU', '(default)')}; plink2 prunes {pruned}")
    s, p = med(walls["strata"]), med(walls["plink2"])
    print(f"strata {s:.3f} s ({med(cpus['strata']):.2f} CPU s)  plink2 {p:.3f} s ({med(cpus['plink2']):.2f} CPU s)  "
          f"ratio {p / s:.2f}x  (goal >= 5x)  lists {'identical' if same else 'DIFFER'}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
