#!/usr/bin/env python3
"""How honest strata's progress bars are: the ETA a bar prints at 25 % and 50 % against the
time the command then really took (issue 37's goal: within a factor 1.5).

Drives the CLI in a pseudo-terminal (the bar is drawn only on a terminal), reads each redraw
("...  37.5%  12.3s  eta 20s"), notes the wall time at which it saw it and the time the command
ended, and prints one row per command and checkpoint. A benchmark, not a unit test: the figures
depend on the machine; run it on a quiet one.

  python3 bench/progress_eta.py [--strata build/tools/cli/strata] [--samples 5000]
         [--variants 50000] [--commands pca,grm,king,gwas,convert] [--threads 0] [--dir DIR]

Exit status 1 when a checkpoint misses the factor (or a command printed no bar there).
"""
import argparse
import os
import pty
import random
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

BAR = re.compile(r"(\d+\.\d)%\s+([0-9.]+)s(?:.*?eta ([0-9.]+)s)?")


def run_in_pty(argv):
    """Runs argv on a pseudo-terminal; returns ([(seconds, percent, eta or None, phase line)], wall, code)."""
    t0 = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the command, its stderr and stdout on the terminal
        os.execv(argv[0], argv)
    samples, pending = [], ""
    while True:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        now = time.monotonic() - t0
        pending += chunk.decode("utf-8", "replace")
        parts = re.split(r"[\r\n]", pending)
        pending = parts.pop()
        for line in parts:
            m = BAR.search(line)
            if m:
                samples.append((now, float(m.group(1)), float(m.group(3)) if m.group(3) else None, line.strip()))
    _, status = os.waitpid(pid, 0)
    return samples, time.monotonic() - t0, os.waitstatus_to_exitcode(status)


def checkpoint(samples, percent, wall):
    """The first redraw at or past `percent` that has an ETA: (seconds, percent, eta, real left)."""
    for t, p, eta, line in samples:
        if p >= percent and eta is not None:
            return t, p, eta, wall - t, line
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--strata", default=os.path.join(root, "build", "tools", "cli", "strata"))
    ap.add_argument("--samples", type=int, default=5000)
    ap.add_argument("--variants", type=int, default=50000)
    ap.add_argument("--commands", default="pca,grm,king,gwas,convert")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--factor", type=float, default=1.5)
    ap.add_argument("--dir", help="work directory (default: a temporary one, removed after)")
    a = ap.parse_args()
    work = a.dir or tempfile.mkdtemp(prefix="strata-progress-")
    os.makedirs(work, exist_ok=True)
    cohort = os.path.join(work, "cohort")
    threads = ["--threads", str(a.threads)]
    if not os.path.exists(cohort + ".bed"):
        subprocess.run([a.strata, "simulate", "-q", "--samples", str(a.samples), "--variants", str(a.variants),
                        "--seed", "7", "--out", cohort] + threads, check=True)
    # A quantitative phenotype for gwas (any values do: the scan's cost does not depend on them).
    pheno = os.path.join(work, "pheno.txt")
    rng = random.Random(7)
    with open(cohort + ".fam") as fam, open(pheno, "w") as out:
        out.write("#FID\tIID\ty\n")
        for line in fam:
            f = line.split()
            out.write(f"{f[0]}\t{f[1]}\t{rng.gauss(0, 1):.4f}\n")
    out = os.path.join(work, "out")
    commands = {
        "pca": ["pca", cohort, "-k", "10", "--out", out],
        "grm": ["grm", cohort, "--out", out],
        "king": ["king", cohort, "--out", out],
        "gwas": ["gwas", cohort, "--pheno", pheno, "--out", out],
        "convert": ["convert", cohort, out + ".vcz"],
    }
    rows, failed = [], False
    for name in a.commands.split(","):
        samples, wall, code = run_in_pty([a.strata] + commands[name] + threads)
        if code != 0:
            print(f"{name}: exit {code}", file=sys.stderr)
            failed = True
            continue
        for pct in (25, 50):
            c = checkpoint(samples, pct, wall)
            if c is None:
                rows.append((name, pct, None, None, None, None, wall, "no bar with an ETA"))
                failed = True
                continue
            t, p, eta, left, line = c
            factor = max(eta, 0.5) / max(left, 0.5)
            factor = max(factor, 1 / factor)
            ok = factor <= a.factor
            failed |= not ok
            rows.append((name, pct, p, t, eta, left, wall, f"{factor:.2f} {'ok' if ok else 'MISS'}"))
    print(f"{a.samples} samples x {a.variants} variants, {a.strata}")
    print("| command | at | bar % | seen at s | eta s | real left s | wall s | factor |")
    print("|---|---|---|---|---|---|---|---|")
    for name, pct, p, t, eta, left, wall, verdict in rows:
        if p is None:
            print(f"| {name} | {pct}% | - | - | - | - | {wall:.1f} | {verdict} |")
        else:
            print(f"| {name} | {pct}% | {p:.1f} | {t:.1f} | {eta} | {left:.1f} | {wall:.1f} | {verdict} |")
    if not a.dir:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
