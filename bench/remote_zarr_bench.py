#!/usr/bin/env python3
"""Remote Zarr reads: strata over HTTP (loopback server) and S3 (moto's server behind a latency
proxy), both with an injected latency per request, against local disk; and zarr-python +
s3fs reading the same arrays through the same proxy.

    .venv/bin/python bench/remote_zarr_bench.py --strata build/tools/cli/strata \\
        [--samples 2000] [--variants 20000] [--cohort EXISTING.vcz] [--latency-ms 20] [--runs 3] \\
        [--skip pca|http|s3|zarr-python|cache]

Rows (median of --runs rounds, min beside it; each round runs every row once, so the load of a
shared machine falls on all rows alike, and ratios are the median of per-round ratios): strata zarr verify (decodes every chunk of every array)
and pca -k 10 of a simulated VCF Zarr cohort, local vs http and s3 (+latency); pca on s3 with a
chunk cache a third of the store (STRATA_REMOTE_CACHE_BYTES) to show what re-reading costs;
zarr-python + s3fs reading every array of the store, and call_genotype alone, through the proxy.
Requests and MB are strata's reports (network) or the proxy's log (zarr-python); cpu is the
process's user + system seconds (the servers' not included). Ratios: remote / local for strata
(wall time, and its own CPU), zarr-python / strata for the peers.
"""
import argparse
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REMOTE = os.path.join(HERE, "..", "tests", "remote")
sys.path.insert(0, REMOTE)
import remote_server  # noqa: E402  (wait_port)


def wall(cmd, env=None, cpu=None):
    """Seconds `cmd` took; its user + system CPU seconds are appended to `cpu` when given."""
    e = dict(os.environ)
    e.update(env or {})
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=e)
    dt = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode:
        sys.exit("failed: %s\n%s%s" % (" ".join(cmd), p.stdout, p.stderr[-2000:]))
    if cpu is not None:
        cpu.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    return dt


def show(name, times, requests="-", mb=None, extra="", cpu=()):
    print("%-52s %8.2f s (min %6.2f)  cpu %6s s  requests %6s  MB %7s" %
          (name, statistics.median(times), min(times), "%.2f" % statistics.median(cpu) if cpu else "-", requests,
           "-" if mb is None else "%.1f" % mb), flush=True)
    if extra:
        print("    " + extra, flush=True)


class Case:
    """One row: a command timed once per round (rounds interleave every row, so load changes on
    a shared machine fall on all of them alike); requests and MB from strata's report or from
    the proxy's log."""

    def __init__(self, key, name, cmd, env=None, report=False, log=None):
        self.key, self.name, self.cmd, self.env, self.log = key, name, cmd, env, log
        self.report = tempfile.mktemp(suffix=".json") if report else None
        self.times, self.cpu, self.requests, self.mb, self.extra = [], [], "-", None, ""

    def run(self):
        if self.log:
            open(self.log, "w").close()
        cmd = self.cmd + (["-q", "--report", self.report] if self.report else [])
        self.times.append(wall(cmd, self.env, self.cpu))
        if self.report:
            r = json.load(open(self.report))
            net = r.get("network", {})
            ahead = r.get("read_ahead")
            if net:
                self.requests, self.mb = net.get("requests", "-"), net.get("bytes_received", 0) / 1e6
            parts = []
            if net.get("prefetched"):
                parts.append("read ahead %d objects, %d hits, peak %.0f MB held" % (
                    net["prefetched"], net.get("prefetch_hits", 0), net.get("prefetch_peak_bytes", 0) / 1e6))
            if ahead:
                parts.append("pass window %d blocks / %.0f MB" % (ahead["blocks"], ahead["bytes"] / 1e6))
            parts.append("peak RSS %.0f MB" % (r.get("peak_rss_bytes", 0) / 1e6))
            self.extra = "; ".join(parts)
        elif self.log:
            n, b = log_counts(self.log)
            self.requests, self.mb = n, b / 1e6


def log_counts(log):
    n = b = 0
    with open(log) as f:
        for line in f:
            parts = line.split()
            n += 1
            b += int(parts[-1]) if parts and parts[-1].isdigit() else 0
    return n, b


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port):
    if not remote_server.wait_port(port):
        sys.exit("nothing listens on port %d" % port)


def start(cmd, port_file=None, log=None):
    err = open(log, "w") if log else subprocess.DEVNULL
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
    if port_file:
        while not os.path.exists(port_file):
            time.sleep(0.05)
    return p


# zarr-python reading arrays of the store `s` (a StoreLike): every array, or call_genotype.
READ_ALL = ("g = zarr.open_group(s, mode='r', zarr_format=2)\n"
            "for name, a in g.arrays(): a[...]\n")
READ_GT = "zarr.open_group(s, mode='r', zarr_format=2)['call_genotype'][...]\n"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--strata", required=True)
    p.add_argument("--samples", type=int, default=2000)
    p.add_argument("--variants", type=int, default=20000)
    p.add_argument("--cohort", help="an existing VCF Zarr store to use instead of simulating one")
    p.add_argument("--latency-ms", type=float, default=20.0)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--moto-log", help="keep moto's stderr (tracebacks of its 500s) in this file")
    p.add_argument("--skip", action="append", default=[], help="pca, http, s3, zarr-python, cache")
    a = p.parse_args()
    strata = os.path.abspath(a.strata)
    tmp = tempfile.mkdtemp(prefix="strata-remote-bench-")
    root = os.path.join(tmp, "srv")
    os.makedirs(root)
    local = os.path.join(root, "cohort.vcz")
    if a.cohort:  # served from its own directory (the HTTP server follows no link out of its root)
        local = os.path.abspath(a.cohort).rstrip("/")
        root = os.path.dirname(local)
    else:
        wall([strata, "simulate", "--samples", str(a.samples), "--variants", str(a.variants), "--format", "vcz",
              "--out", os.path.join(root, "cohort"), "-q"])
    files = [os.path.join(d, f) for d, _, fs in os.walk(local) for f in fs]
    size = sum(os.path.getsize(f) for f in files)
    load = os.getloadavg()
    print("cohort %s: VCF Zarr %.1f MB in %d objects; latency %.0f ms per request; median of %d runs; "
          "load average %.1f %.1f %.1f; %d CPUs" % (local if a.cohort else "%d samples x %d variants" %
                                                    (a.samples, a.variants), size / 1e6, len(files), a.latency_ms,
                                                    a.runs, *load, os.cpu_count()), flush=True)
    procs = []
    cases = []

    def strata_case(key, name, args, env=None):
        cases.append(Case(key, name, [strata, *args], env, report=True))

    pca = ["pca", "-k", "10", "--out", os.path.join(tmp, "p"), "--overwrite"]
    try:
        strata_case("verify local", "strata zarr verify, local", ["zarr", "verify", local])
        if "pca" not in a.skip:
            strata_case("pca local", "strata pca -k 10, local", pca[:1] + [local] + pca[1:])
        if "http" not in a.skip:
            port_file = os.path.join(tmp, "http-port")
            procs.append(start([sys.executable, os.path.join(REMOTE, "remote_server.py"), "--root", root,
                                "--port-file", port_file, "--latency-ms", str(a.latency_ms)], port_file))
            http = "http://127.0.0.1:%s/%s" % (open(port_file).read(), os.path.basename(local))
            tag = "http +%gms" % a.latency_ms
            strata_case("verify http", "strata zarr verify, " + tag, ["zarr", "verify", http])
            if "pca" not in a.skip:
                strata_case("pca http", "strata pca -k 10, " + tag, pca[:1] + [http] + pca[1:])
        if "s3" not in a.skip:
            moto_port = free_port()
            procs.append(start([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(moto_port)],
                               log=a.moto_log))
            wait_port(moto_port)
            moto = "http://127.0.0.1:%d" % moto_port
            port_file, log = os.path.join(tmp, "proxy-port"), os.path.join(tmp, "proxy.log")
            procs.append(start([sys.executable, os.path.join(REMOTE, "latency_proxy.py"), "--upstream", moto,
                                "--port-file", port_file, "--latency-ms", str(a.latency_ms), "--log", log],
                               port_file))
            endpoint = "http://127.0.0.1:%s" % open(port_file).read()
            up = ("import boto3, os\n"
                  "c = boto3.client('s3', endpoint_url=%r, region_name='us-east-1', aws_access_key_id='bench',"
                  " aws_secret_access_key='bench')\n"
                  "c.create_bucket(Bucket='bench')\n"
                  "root = %r\n"
                  "for d, _, fs in os.walk(root):\n"
                  "    for f in fs:\n"
                  "        full = os.path.join(d, f)\n"
                  "        c.upload_file(full, 'bench', 'cohort.vcz/' + os.path.relpath(full, root))\n" % (moto, local))
            wall([sys.executable, "-c", up])
            env = {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_REGION": "us-east-1",
                   "AWS_ENDPOINT_URL": endpoint}
            s3 = "s3://bench/cohort.vcz"
            tag = "s3 (moto) +%gms" % a.latency_ms
            strata_case("verify s3", "strata zarr verify, " + tag, ["zarr", "verify", s3], env)
            if "pca" not in a.skip:
                strata_case("pca s3", "strata pca -k 10, " + tag, pca[:1] + [s3] + pca[1:], env)
                if "cache" not in a.skip:
                    small = dict(env, STRATA_REMOTE_CACHE_BYTES=str(size // 3))
                    strata_case("pca s3 small cache", "strata pca -k 10, %s, cache %.0f MB" % (tag, size / 3e6),
                                pca[:1] + [s3] + pca[1:], small)
            if "zarr-python" not in a.skip:
                fs = ("import zarr, s3fs\n"
                      "fs = s3fs.S3FileSystem(key='bench', secret='bench', asynchronous=True,"
                      " client_kwargs={'endpoint_url': %r, 'region_name': 'us-east-1'})\n"
                      "s = zarr.storage.FsspecStore(fs, path='bench/cohort.vcz', read_only=True)\n" % endpoint)
                cases.append(Case("py all s3", "zarr-python + s3fs, every array, " + tag,
                                  [sys.executable, "-c", fs + READ_ALL], log=log))
                cases.append(Case("py gt s3", "zarr-python + s3fs, call_genotype, " + tag,
                                  [sys.executable, "-c", fs + READ_GT], log=log))
        if "zarr-python" not in a.skip:
            cases.append(Case("py all local", "zarr-python, every array, local",
                              [sys.executable, "-c", "import zarr\ns = %r\n" % local + READ_ALL]))
        for r in range(a.runs):
            for c in cases:
                c.run()
            print("round %d of %d done (load average %.1f)" % (r + 1, a.runs, os.getloadavg()[0]), flush=True)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)

    for c in cases:
        show(c.name, c.times, c.requests, c.mb, c.extra, c.cpu)
    rows = {c.key: c.times for c in cases}
    cpu = {c.key: c.cpu for c in cases}

    def ratio(label, x, y):
        if x in rows and y in rows:
            per_round = [p / q for p, q in zip(rows[x], rows[y])]
            print("%-52s %6.2fx  (per round: %s)" % (label, statistics.median(per_round),
                                                     " ".join("%.2f" % v for v in per_round)))

    print("ratios, median of the rounds' ratios (each round runs every row once):")
    ratio("verify: http / local", "verify http", "verify local")
    ratio("verify: s3 / local", "verify s3", "verify local")
    ratio("pca: http / local", "pca http", "pca local")
    ratio("pca: s3 / local", "pca s3", "pca local")
    ratio("pca: s3 with the small cache / local", "pca s3 small cache", "pca local")
    ratio("zarr-python + s3fs every array / strata verify s3", "py all s3", "verify s3")
    ratio("zarr-python + s3fs call_genotype / strata verify s3", "py gt s3", "verify s3")
    ratio("zarr-python every array local / strata verify local", "py all local", "verify local")
    # The process's own CPU (user + system), not the servers': what reading remotely costs strata.
    print("strata's CPU seconds, remote / local (median of the rounds' ratios):")
    rows = cpu
    ratio("verify cpu: http / local", "verify http", "verify local")
    ratio("verify cpu: s3 / local", "verify s3", "verify local")
    ratio("pca cpu: http / local", "pca http", "pca local")
    ratio("pca cpu: s3 / local", "pca s3", "pca local")


if __name__ == "__main__":
    main()
