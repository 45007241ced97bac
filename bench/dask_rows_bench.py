#!/usr/bin/python3
"""strata.pairwise_distance of a plain Dask array (rows = observations, NaN = missing) on a
dask.distributed LocalCluster of worker processes, against the local call and sgkit.

A --rows x --cols float64 array (standard normal, --missing of it NaN; sgkit gets the same
array with the NaN set to 0, as it takes none) is chunked (--chunk-rows, --chunk-cols) and
generated on the workers; with a Client on a LocalCluster(--workers processes, 1 thread each)
active it times, per --metrics,

  strata.pairwise_distance(x, metric)          tasks over tiles of row bands on the cluster
  strata.pairwise_distance(x.compute(), metric) the local call (this process's threads)
  sgkit.pairwise_distance(x, metric)            on the cluster (--sgkit-rows x --sgkit-cols;
                                                euclidean and correlation, its metrics)

and prints the wall times (median of --runs) and whether the cluster's matrix is the bytes of
the local one.

  PYTHONPATH=build/python:python .venv/bin/python bench/dask_rows_bench.py
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from python_bench import timed  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--cols", type=int, default=20000)
    ap.add_argument("--missing", type=float, default=0.01)
    ap.add_argument("--chunk-rows", type=int, default=500)
    ap.add_argument("--chunk-cols", type=int, default=5000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--metrics", default="euclidean,cityblock,correlation")
    ap.add_argument("--sgkit-rows", type=int, default=500)
    ap.add_argument("--sgkit-cols", type=int, default=5000)
    ap.add_argument("--sgkit-runs", type=int, default=1, help="0: skip sgkit")
    a = ap.parse_args()

    import dask.array as da
    import distributed

    import strata

    with distributed.LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        rs = da.random.RandomState(1)
        x = rs.standard_normal((a.rows, a.cols), chunks=(a.chunk_rows, a.chunk_cols))
        x = da.where(rs.random_sample(x.shape, chunks=x.chunks) < a.missing, np.nan, x).persist()
        local_x = x.compute()
        for metric in a.metrics.split(","):
            t_cluster, remote = timed(lambda: strata.pairwise_distance(x, metric), a.runs)
            t_local, local = timed(lambda: strata.pairwise_distance(local_x, metric), a.runs)
            same = remote.tobytes() == local.tobytes()
            print(f"{metric}: {a.rows} x {a.cols}: cluster {t_cluster:.2f} s, local {t_local:.2f} s, "
                  f"cluster == local bytes: {same}", flush=True)
            if a.sgkit_runs and metric in ("euclidean", "correlation"):  # sgkit's metrics
                import sgkit

                small = da.nan_to_num(x[:a.sgkit_rows, :a.sgkit_cols]).persist()
                t_sg, _ = timed(lambda: sgkit.pairwise_distance(small, metric).compute(), a.sgkit_runs)
                t_st, _ = timed(lambda: strata.pairwise_distance(small, metric), a.runs)
                print(f"{metric}: {a.sgkit_rows} x {a.sgkit_cols}: sgkit {t_sg:.2f} s, strata (cluster) {t_st:.2f} s, "
                      f"{t_sg / t_st:.0f}x", flush=True)


if __name__ == "__main__":
    main()
