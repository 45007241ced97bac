#!/usr/bin/python3
"""Pairwise distances: strata vs scikit-learn and scipy in the same run.

Simulates a cohort with `strata simulate`, then on the same 0/1/2 dosages (samples are rows):
  strata distance --metric euclidean  --format zarr   vs  sklearn pairwise_distances(euclidean, n_jobs=2)
  strata distance --metric cityblock  --format zarr   vs  scipy pdist(cityblock)
  strata distance --metric correlation --format zarr  vs  scipy pdist(correlation)
  sgkit pairwise_distance euclidean where sgkit is importable (--sgkit-python, else skipped with the reason)
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
elif metric == 'sgkit':
    import dask.array as da
    import sgkit.distance.api as sd
    d = np.asarray(sd.pairwise_distance(da.from_array(x, chunks=(1000, x.shape[1])), metric='euclidean').compute())
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
    ap.add_argument("--sgkit-python", default="", help="a python with sgkit (default: /work/wt-py/.venv or "
                    "../.venv when they import sgkit)")
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
    peers = {"euclidean": "sklearn(n_jobs=2)", "cityblock": "scipy pdist", "correlation": "scipy pdist"}
    inputs = [("genotypes", prefix)]
    if a.float:
        array = os.path.join(tmp, "x.zarr")
        subprocess.run(["/usr/bin/python3", "-c", PEER, prefix, "none", array], check=True,
                       stdout=subprocess.DEVNULL)
        inputs.append(("float64 zarr", array))
    for (kind, source), metric in [(i, m) for i in inputs for m in a.metrics.split(",")]:
        out = os.path.join(tmp, "d_" + metric)
        sw, srss = median_run([a.strata, "distance", source, "-q", "--threads", str(a.threads), "--metric", metric,
                               "--format", "zarr", "--overwrite", "--out", out], a.runs, os.path.join(tmp, "s.log"))
        peer_out = os.path.join(tmp, "peer_" + metric + ".npy")
        pw, prss = median_run(["/usr/bin/python3", "-c", PEER, prefix, metric, peer_out], a.peer_runs,
                              os.path.join(tmp, "p.log"))
        d = zarr.open_group(out + ".dist.zarr", mode="r")["distance"][:]
        r = np.load(peer_out)
        np.fill_diagonal(r, 0)
        diff = np.abs(d - r)
        rel = diff / np.maximum(np.abs(r), 1e-300)
        print(f"{kind[:8] + ' ' + metric:20s} {peers.get(metric, '?'):22s} {sw:9.2f} {pw:9.2f} {pw / sw:6.1f}x "
              f"{srss / 2**20:9.0f}MB {prss / 2**20:7.0f}MB {diff.max():9.2e} {rel[r != 0].max():9.2e}")
        os.remove(peer_out)
    sg = a.sgkit_python or next((p for p in ["/work/wt-py/.venv/bin/python",
                                              os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                                           ".venv", "bin", "python")]
                                  if os.path.exists(p) and subprocess.run([p, "-c", "import sgkit"],
                                                                          capture_output=True).returncode == 0), "")
    if sg:
        out = os.path.join(tmp, "d_euclidean")
        sw, _ = median_run([a.strata, "distance", prefix, "-q", "--threads", str(a.threads), "--metric", "euclidean",
                            "--format", "zarr", "--overwrite", "--out", out], a.runs, os.path.join(tmp, "s.log"))
        w, rss = median_run([sg, "-c", PEER, prefix, "sgkit", ""], a.peer_runs, os.path.join(tmp, "g.log"))
        print(f"sgkit pairwise_distance euclidean ({sg}): {w:.2f} s, peak {rss / 2**20:.0f} MB; "
              f"strata {sw:.2f} s -> {w / sw:.1f}x")
    else:
        print("sgkit: skipped (no python with sgkit: pass --sgkit-python)")
    subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
