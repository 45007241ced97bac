#!/usr/bin/env python3
"""A server that accepts connections and never answers must not hold strata for long.

Before: `zarr export http://...` waited 5 attempts x 30 s stall (152 s). Now a request has a
total deadline (--http-deadline / STRATA_HTTP_DEADLINE_SECONDS, default 120 s) and an attempt
that stalls for a whole --http-stall period (default 15 s) is retried once only.
Needs only the standard library. Usage: silent_server_test.py --strata PATH
"""
import argparse
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

FAILS = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILS.append(what)


def silent_server():
    """Listen on 127.0.0.1, accept every connection, read what comes, never write."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    held = []

    def serve():
        while True:
            try:
                c, _ = s.accept()
            except OSError:
                return
            held.append(c)  # kept open, never answered

    threading.Thread(target=serve, daemon=True).start()
    return s, "http://127.0.0.1:%d" % s.getsockname()[1]


def run(strata, args, env):
    e = dict(os.environ)
    for k in ("STRATA_HTTP_DEADLINE_SECONDS", "STRATA_HTTP_STALL_SECONDS"):
        e.pop(k, None)
    e.update(env)
    t0 = time.monotonic()
    r = subprocess.run([strata] + args, capture_output=True, text=True, env=e, timeout=120)
    return r, time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--strata", required=True)
    a = ap.parse_args()
    srv, base = silent_server()
    tmp = tempfile.mkdtemp(prefix="strata-silent-")
    out = os.path.join(tmp, "o.npy")
    cases = [
        # (how the limit is set, extra args, env, the bound on wall time, words in the error)
        ("--http-deadline 2", ["--http-deadline", "2"], {}, 15.0, "2 s deadline per request"),
        ("STRATA_HTTP_DEADLINE_SECONDS=2", [], {"STRATA_HTTP_DEADLINE_SECONDS": "2"}, 15.0, "2 s deadline per request"),
        ("--http-stall 1", ["--http-stall", "1"], {}, 15.0, "stalled for 1 s each time"),
    ]
    for name, extra, env, bound, words in cases:
        r, secs = run(a.strata, ["zarr", "export", base + "/s.zarr", out, "-q"] + extra, env)
        first = (r.stderr.splitlines() or [""])[0]
        check(r.returncode == 1 and first.startswith("strata: error:") and words in first and base in first
              and secs < bound and not os.path.exists(out),
              "silent server, %s: exit %d after %.1f s (< %.0f s): %s" % (name, r.returncode, secs, bound, first[:200]))
    r, secs = run(a.strata, ["zarr", "info", base + "/s.zarr", "--http-deadline", "1"], {})
    check(r.returncode == 1 and "1 s deadline" in r.stderr and secs < 10,
          "zarr info honours --http-deadline (%.1f s): %s" % (secs, r.stderr.strip()[:160]))
    h = subprocess.run([a.strata, "zarr", "export", "--help"], capture_output=True, text=True).stdout
    check("--http-deadline" in h and "default 120" in h and "--http-stall" in h and "default 15" in h,
          "zarr export --help states both limits and their defaults")
    r, _ = run(a.strata, ["zarr", "export", base + "/s.zarr", out, "--http-deadline", "0"], {})
    check(r.returncode == 2 and "--http-deadline" in r.stderr, "--http-deadline 0 is a usage error")
    srv.close()
    if FAILS:
        print("%d check(s) failed" % len(FAILS))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
