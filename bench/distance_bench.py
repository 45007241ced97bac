#!/usr/bin/python3
"""Pairwise distances: strata vs scikit-learn and scipy in the same run.

Simulates a cohort with `strata simulate`, then on the same 0/1/2 dosages (samples are rows):
  strata distance --metric euclidean  --format zarr   vs  sklearn pairwise_distances(euclidean, n_jobs=2)
  strata distance --metric cityblock  --format zarr   vs  scipy pdist(cityblock)
  strata distance --metric correlation --format zarr  vs  scipy pdist(correlation)
  strata distance --metric euclidean|correlation  vs  sgkit pairwise_distance (the seed's map-reduce over
    Dask chunks of 1,000 samples x 10,000 variants, threads scheduler with --threads workers) where sgkit
    imports: --sgkit-python, else the checkout's .venv (scripts/install-python.sh); skipped with the reason
    otherwise. sgkit's first call compiles its numba kernels: that is in its time, as a user sees it.
With --float the same dosages (NaN for missing) are also written as a 2-D float64 Zarr array
(rows = samples) and `strata distance ARRAY.zarr` (the numeric-array route: Gram products and
direct kernels on doubles) runs against the same peers.
Prints the median wall time of --runs runs (the scipy peers run --peer-runs times: ~1 min each),
peak RSS (/usr/bin/time -v), the ratio peer/strata, and the largest absolute and relative
difference between strata's matrix and the peer's. strata writes its whole N x N output (Zarr);
the peers only compute theirs in memory.

  /usr/bin/python3 bench/distance_bench.py --samples 4000 --variants 20000
"""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import median_run  # noqa: E402

PEER = r'''
import sys, time, numpy as np

prefix, metric, out = sys.argv[1], sys.argv[2], sys.argv[3]
n = sum(1 for _ in open(prefix + '.fam')); rb = (n + 3) // 4
b = np.fromfile(prefix + '.bed', dtype=np.uint8)[3:].reshape(-1, rb)
c = np.stack([(b >> (2 * k)) & 3 for k in range(4)], axis=2).reshape(b.shape[0], -1)[:, :n]
x = np.ascontiguousarray(np.array([2.0, np.nan, 1.0, 0.0])[c].T)
t = time.monotonic()
if metric == 'none':
    d = None
elif metric == 'euclidean':
    from sklearn.metrics import pairwise_distances
    d = pairwise_distances(x, metric='euclidean', n_jobs=2)
elif metric.startswith('sgkit:'):
    import dask, dask.array as da
    import sgkit.distance.api as sd
    dask.config.set(scheduler='threads', num_workers=int(sys.argv[4]))
    xs = da.from_array(x, chunks=(1000, 10000))
    d = np.asarray(sd.pairwise_distance(xs, metric=metric[6:]).compute())
else:
    import scipy.spatial.distance as ssd
    d = ssd.squareform(ssd.pdist(x, metric))
print('compute_seconds', time.monotonic() - t)
if out.endswith('.zarr'):
    import zarr
    z = zarr.open_array(out, mode='w', shape=x.shape, chunks=(500, x.shape[1]), dtype='f8')
    z[:] = x
elif out:
    np.save(out, d)
'''


SGKIT_METRICS = ("euclidean", "correlation")  # what sgkit.distance.api.pairwise_distance offers


def find_sgkit(explicit):
    """(python, "") for a python that imports sgkit, else ("", why not)."""
    venv = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".venv", "bin", "python")
    candidates = [explicit] if explicit else [venv]
    for p in candidates:
        if not os.path.exists(p):
            continue
        r = subprocess.run([p, "-c", "import sgkit, numpy, dask"], capture_output=True, text=True)
        if r.returncode == 0:
            return p, ""
        return "", f"{p} cannot import sgkit: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else '?'}"
    return "", f"no {candidates[0]} (scripts/install-python.sh makes the checkout's .venv; or pass --sgkit-python)"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=4000)
    ap.add_argument("--variants", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--peer-runs", type=int, default=1, help="runs of each scipy/sklearn peer (default 1)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--strata", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build",
                                                      "tools", "cli", "strata"))
    ap.add_argument("--metrics", default="euclidean,cityblock,correlation")
    ap.add_argument("--float", action="store_true", help="also the float64 Zarr array route")
    ap.add_argument("--sgkit-python", default="", help="a python with sgkit and dask (default: the checkout's "
                    ".venv, from scripts/install-python.sh)")
    a = ap.parse_args()
    import numpy as np
    import zarr
    tmp = tempfile.mkdtemp(prefix="strata_distance_bench_")
    prefix = os.path.join(tmp, "cohort")
    subprocess.run([a.strata, "simulate", "-q", "--samples", str(a.samples), "--variants", str(a.variants),
                    "--out", prefix], check=True)
    print(f"{a.samples} samples x {a.variants} variants, {a.threads} threads; strata median of {a.runs}, "
          f"peers median of {a.peer_runs}")
    print(f"{'input metric':20s} {'peer':22s} {'strata_s':>9s} {'peer_s':>9s} {'ratio':>7s} {'strata_RSS':>11s} "
          f"{'peer_RSS':>9s} {'max_abs':>9s} {'max_rel':>9s}")
    peers = {"euclidean": "sklearn(n_jobs=2)", "cityblock": "scipy pdist", "correlation": "scipy pdist",
             "sgkit:euclidean": "sgkit pairwise_dist", "sgkit:correlation": "sgkit pairwise_dist"}
    inputs = [("genotypes", prefix)]
    if a.float:
        array = os.path.join(tmp, "x.zarr")
        subprocess.run(["/usr/bin/python3", "-c", PEER, prefix, "none", array], check=True,
                       stdout=subprocess.DEVNULL)
        inputs.append(("float64 zarr", array))
    sg, why = find_sgkit(a.sgkit_python)
    for (kind, source), metric in [(i, m) for i in inputs for m in a.metrics.split(",")]:
        out = os.path.join(tmp, "d_" + metric)
        sw, srss = median_run([a.strata, "distance", source, "-q", "--threads", str(a.threads), "--metric", metric,
                               "--format", "zarr", "--overwrite", "--out", out], a.runs, os.path.join(tmp, "s.log"))
        d = zarr.open_group(out + ".dist.zarr", mode="r")["distance"][:]
        rows = [(metric, "/usr/bin/python3")]
        if sg and kind == "genotypes" and metric in SGKIT_METRICS:
            rows.append(("sgkit:" + metric, sg))
        for peer, python in rows:
            peer_out = os.path.join(tmp, "peer_" + metric + ".npy")
            pw, prss = median_run([python, "-c", PEER, prefix, peer, peer_out, str(a.threads)], a.peer_runs,
                                  os.path.join(tmp, "p.log"))
            r = np.load(peer_out)
            np.fill_diagonal(r, 0)
            diff = np.abs(d - r)
            rel = diff / np.maximum(np.abs(r), 1e-300)
            print(f"{kind[:8] + ' ' + metric:20s} {peers.get(peer, '?'):22s} {sw:9.2f} {pw:9.2f} {pw / sw:6.1f}x "
                  f"{srss / 2**20:9.0f}MB {prss / 2**20:7.0f}MB {diff.max():9.2e} {rel[r != 0].max():9.2e}")
            os.remove(peer_out)
    if not sg:
        print(f"sgkit: skipped ({why})")
    subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
