#!/usr/bin/env python3
"""Remote Zarr reads: strata over HTTP (loopback server, injected latency per request) and S3
(moto's server) against local disk, and zarr-python (fsspec HTTP / s3fs) reading the same arrays.

    .venv/bin/python bench/remote_zarr_bench.py --strata build/tools/cli/strata \
        [--samples 2000] [--variants 20000] [--latency-ms 20] [--runs 1] [--skip pca]

Rows: strata zarr verify (decodes every chunk) and pca -k 10 of a simulated VCF Zarr cohort,
local vs http(+latency) vs s3 (moto, no injected latency); zarr-python reading call_genotype
whole over the same endpoints. Prints wall seconds and the request counts of strata's reports.
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "remote"))


def wall(cmd, env=None):
    e = dict(os.environ)
    e.update(env or {})
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=e)
    dt = time.monotonic() - t0
    if p.returncode:
        sys.exit("failed: %s\n%s%s" % (" ".join(cmd), p.stdout, p.stderr[-2000:]))
    return dt


def best(f, runs):
    return min(f() for _ in range(runs))


def strata_row(name, strata, args, runs, env=None):
    rep = tempfile.mktemp(suffix=".json")
    t = best(lambda: wall([strata, *args, "-q", "--report", rep], env), runs)
    net = json.load(open(rep)).get("network", {})
    print("%-44s %8.2f s   requests %6s  MB %7.1f" % (name, t, net.get("requests", "-"),
                                                      net.get("bytes_received", 0) / 1e6), flush=True)
    return t


def py_row(name, code, runs, env=None):
    t = best(lambda: wall([sys.executable, "-c", code], env), runs)
    print("%-44s %8.2f s" % (name, t), flush=True)
    return t


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--strata", required=True)
    p.add_argument("--samples", type=int, default=2000)
    p.add_argument("--variants", type=int, default=20000)
    p.add_argument("--latency-ms", type=float, default=20.0)
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--skip", action="append", default=[], help="pca, s3, zarr-python")
    a = p.parse_args()
    strata = os.path.abspath(a.strata)
    tmp = tempfile.mkdtemp(prefix="strata-remote-bench-")
    root = os.path.join(tmp, "srv")
    os.makedirs(root)
    wall([strata, "simulate", "--samples", str(a.samples), "--variants", str(a.variants), "--format", "vcz",
          "--out", os.path.join(root, "cohort"), "-q"])
    local = os.path.join(root, "cohort.vcz")
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(local) for f in fs)
    print("cohort %d samples x %d variants, VCF Zarr %.1f MB; latency %.0f ms per HTTP request" %
          (a.samples, a.variants, size / 1e6, a.latency_ms))
    port_file = os.path.join(tmp, "port")
    srv = subprocess.Popen([sys.executable, os.path.join(HERE, "..", "tests", "remote", "remote_server.py"),
                            "--root", root, "--port-file", port_file, "--latency-ms", str(a.latency_ms)])
    moto = None
    try:
        while not os.path.exists(port_file):
            time.sleep(0.05)
        http = "http://127.0.0.1:%s/cohort.vcz" % open(port_file).read()
        strata_row("strata zarr verify, local", strata, ["zarr", "verify", local], a.runs)
        strata_row("strata zarr verify, http +%gms" % a.latency_ms, strata, ["zarr", "verify", http], a.runs)
        if "pca" not in a.skip:
            out = os.path.join(tmp, "p")
            strata_row("strata pca -k 10, local", strata, ["pca", local, "-k", "10", "--out", out, "--overwrite"],
                       a.runs)
            strata_row("strata pca -k 10, http +%gms" % a.latency_ms, strata,
                       ["pca", http, "-k", "10", "--out", out, "--overwrite"], a.runs)
        if "zarr-python" not in a.skip:
            py_row("zarr-python read call_genotype, local",
                   "import zarr; zarr.open_group(%r, mode='r')['call_genotype'][:]" % local, a.runs)
            py_row("zarr-python read call_genotype, http +%gms" % a.latency_ms,
                   "import zarr; s = zarr.storage.FsspecStore.from_url(%r, read_only=True); "
                   "zarr.open_group(s, mode='r', zarr_format=2)['call_genotype'][:]" % http, a.runs)
        if "s3" not in a.skip:
            port = free_port()
            moto = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            endpoint = "http://127.0.0.1:%d" % port
            env = {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_REGION": "us-east-1",
                   "AWS_ENDPOINT_URL": endpoint}
            for _ in range(100):
                try:
                    socket.create_connection(("127.0.0.1", port), 0.2).close()
                    break
                except OSError:
                    time.sleep(0.1)
            up = ("import boto3, os\n"
                  "c = boto3.client('s3', endpoint_url=%r, region_name='us-east-1', aws_access_key_id='bench',"
                  " aws_secret_access_key='bench')\n"
                  "c.create_bucket(Bucket='bench')\n"
                  "root = %r\n"
                  "for d, _, fs in os.walk(root):\n"
                  "    for f in fs:\n"
                  "        full = os.path.join(d, f)\n"
                  "        c.upload_file(full, 'bench', 'cohort.vcz/' + os.path.relpath(full, root))\n" % (endpoint, local))
            wall([sys.executable, "-c", up])
            s3 = "s3://bench/cohort.vcz"
            strata_row("strata zarr verify, s3 (moto)", strata, ["zarr", "verify", s3], a.runs, env)
            if "pca" not in a.skip:
                strata_row("strata pca -k 10, s3 (moto)", strata,
                           ["pca", s3, "-k", "10", "--out", os.path.join(tmp, "q"), "--overwrite"], a.runs, env)
            if "zarr-python" not in a.skip:
                py_row("zarr-python + s3fs read call_genotype, s3",
                       "import zarr, s3fs; fs = s3fs.S3FileSystem(key='bench', secret='bench', "
                       "client_kwargs={'endpoint_url': %r, 'region_name': 'us-east-1'}, asynchronous=True); "
                       "s = zarr.storage.FsspecStore(fs, path='bench/cohort.vcz', read_only=True); "
                       "zarr.open_group(s, mode='r', zarr_format=2)['call_genotype'][:]" % endpoint, a.runs)
    finally:
        srv.terminate()
        if moto:
            moto.terminate()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
