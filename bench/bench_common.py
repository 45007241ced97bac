"""Helpers shared by the bench/ drivers: timing a command with its peak RSS."""
import os
import re
import statistics
import subprocess
import sys
import time


def timed(cmd, log, missing_rss=None):
    """Run cmd under /usr/bin/time -v (output to `log`); return (wall seconds, peak RSS bytes).

    Exits with the log's tail when the command fails. RSS is `missing_rss` without /usr/bin/time.
    """
    full = ["/usr/bin/time", "-v"] + cmd if os.path.exists("/usr/bin/time") else cmd
    t0 = time.monotonic()
    with open(log, "w") as f:
        p = subprocess.run(full, stdout=f, stderr=subprocess.STDOUT)
    wall = time.monotonic() - t0
    text = open(log).read()
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{text[-2000:]}")
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    return wall, int(m.group(1)) * 1024 if m else missing_rss


def median_run(cmd, runs, log):
    """Median wall seconds and largest peak RSS (bytes, 0 if unknown) over `runs` runs."""
    walls, rss = [], []
    for _ in range(runs):
        w, r = timed(cmd, log)
        walls.append(w)
        rss.append(r or 0)
    return statistics.median(walls), max(rss)
