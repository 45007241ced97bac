#!/usr/bin/env python3
"""QC table speed: `strata qc --missing --het --hardy` against `plink2 --missing --het --hardy` in
the same run (goal: strata at least as fast as plink2, ratio >= 1).

The cohort is `strata simulate` (Balding-Nichols, 3 populations, 1% missing calls), written once
under --data-dir and reused; --x-fraction moves that share of the variants onto X (with sexes in
the .fam), so `--hardy` also writes .hardy.x (the X exact test). Each tool runs --repeats times,
alternating; the table gives median wall seconds, CPU seconds and the ratio plink2 / strata, and
checks that every table plink2 writes is byte-identical to strata's.
"""
import argparse
import os
import subprocess
import sys

from formats_bench import same_run

HERE = os.path.dirname(os.path.abspath(__file__))
TABLES = ("smiss", "vmiss", "het", "hardy", "hardy.x")


def write_cohort(strata, prefix, samples, variants, x_fraction):
    subprocess.run([strata, "simulate", "--samples", str(samples), "--variants", str(variants), "--missing", "0.01",
                    "--seed", "11", "--out", prefix, "-q"], check=True)
    if x_fraction <= 0:
        return
    x0 = variants - int(variants * x_fraction)
    lines = open(prefix + ".bim").read().splitlines(keepends=True)
    with open(prefix + ".bim", "w") as f:
        for i, line in enumerate(lines):
            f.write("X" + line[line.index("\t"):] if i >= x0 else line)
    fam = [line.split() for line in open(prefix + ".fam")]
    with open(prefix + ".fam", "w") as f:
        for i, cols in enumerate(fam):
            cols[4] = str(1 + i % 2)
            f.write(" ".join(cols) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=10000)
    ap.add_argument("--variants", type=int, default=100000)
    ap.add_argument("--x-fraction", type=float, default=0.0, help="share of the variants on X (default 0)")
    ap.add_argument("--tables", nargs="+", default=["--missing", "--het", "--hardy"])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--data-dir", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "strata_qc_bench"))
    ap.add_argument("--strata", default=os.path.join(HERE, "..", "build", "tools", "cli", "strata"))
    ap.add_argument("--plink2", default="/usr/bin/plink2")
    a = ap.parse_args()
    os.makedirs(a.data_dir, exist_ok=True)
    base = os.path.join(a.data_dir, f"sim_{a.samples}x{a.variants}_x{a.x_fraction:g}")
    if not os.path.exists(base + ".bed"):
        write_cohort(a.strata, base, a.samples, a.variants, a.x_fraction)
    out = os.path.join(a.data_dir, "out")
    os.makedirs(out, exist_ok=True)
    th = str(a.threads)
    strata_cmd = [a.strata, "qc", base, *a.tables, "--threads", th, "-q", "--out", out + "/s"]
    plink2_cmd = [a.plink2, "--bfile", base, *a.tables, "--threads", th, "--out", out + "/p"]
    for ext in TABLES:
        for who in "sp":
            if os.path.exists(f"{out}/{who}.{ext}"):
                os.remove(f"{out}/{who}.{ext}")
    (s, _, s_cpu), (p, _, p_cpu) = same_run([(strata_cmd, None), (plink2_cmd, None)], a.repeats, out + "/time.log")
    compared = [e for e in TABLES if os.path.exists(f"{out}/p.{e}")]
    differ = [e for e in compared if open(f"{out}/s.{e}", "rb").read() != open(f"{out}/p.{e}", "rb").read()]
    print(f"{a.samples} x {a.variants} (X share {a.x_fraction:g}), qc {' '.join(a.tables)}, threads {th}, "
          f"median of {a.repeats}, STRATA_CPU={os.environ.get('STRATA_CPU', '(default)')}")
    print(f"strata {s:.2f} s ({s_cpu:.2f} CPU s)  plink2 {p:.2f} s ({p_cpu:.2f} CPU s)  "
          f"ratio {p / s:.2f}x  (goal >= 1x)  tables {', '.join(compared)}: "
          f"{'identical' if not differ else 'DIFFER: ' + ', '.join(differ)}")
    if differ:
        sys.exit(1)


if __name__ == "__main__":
    main()
