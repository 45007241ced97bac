#!/usr/bin/python3
"""strata.gwas here vs on a dask.distributed LocalCluster of worker processes, same data.

A .bed of --variants x --samples (1 % missing calls), a quantitative phenotype and --covariates
covariates; it times (median of --runs)

  strata.gwas(bed, pheno, covar, client=None, threads=--workers)   here
  strata.gwas(bed, pheno, covar)            with a Client on LocalCluster(--workers processes, 1 thread each)

and prints both wall times and whether the cluster's tables are the local tables' bits. Then the
Python layer's per-call overhead on a tiny input (--tiny-samples x --tiny-variants): strata.gwas
vs the library call under it (strata._core.gwas, same options), with file and in-memory tables.

  PYTHONPATH=build/python:python .venv/bin/python bench/gwas_cluster_bench.py
"""
import argparse
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from python_bench import timed  # noqa: E402


def write_cohort(d, m, n, k, seed):
    """d/c.bed (A1 = ALT), d/pheno.txt (Y), d/covar.txt (C1..Ck); returns the in-memory tables."""
    rng = np.random.default_rng(seed)
    dos = rng.binomial(2, rng.uniform(0.05, 0.5, (m, 1)), (m, n)).astype(np.int8)
    codes = np.array([0b11, 0b10, 0b00], np.uint8)[dos]
    codes[rng.random((m, n)) < 0.01] = 0b01  # missing
    padded = np.zeros((m, -(-n // 4) * 4), np.uint8)
    padded[:, :n] = codes
    q = padded.reshape(m, -1, 4)
    with open(f"{d}/c.bed", "wb") as f:
        f.write(bytes([0x6C, 0x1B, 0x01]) + (q[..., 0] | q[..., 1] << 2 | q[..., 2] << 4 | q[..., 3] << 6).tobytes())
    with open(f"{d}/c.bim", "w") as f:
        f.writelines(f"1\trs{i}\t0\t{1000 + 10 * i}\tA\tG\n" for i in range(m))
    with open(f"{d}/c.fam", "w") as f:
        f.writelines(f"F{j}\tS{j}\t0\t0\t0\t-9\n" for j in range(n))
    cov = rng.normal(size=(n, k))
    y = cov @ rng.normal(size=k) + rng.normal(size=n)
    with open(f"{d}/pheno.txt", "w") as f:
        f.write("#FID IID Y\n")
        f.writelines(f"F{j} S{j} {float(y[j])!r}\n" for j in range(n))
    with open(f"{d}/covar.txt", "w") as f:
        f.write("#FID IID " + " ".join(f"C{i + 1}" for i in range(k)) + "\n")
        f.writelines(f"F{j} S{j} " + " ".join(repr(float(v)) for v in cov[j]) + "\n" for j in range(n))
    return {"Y": y}, cov


def same_bits(a, b):
    for name in a:
        ta, tb = a[name].table, b[name].table
        for col in ta.columns:
            x, y = ta[col].to_numpy(), tb[col].to_numpy()
            if x.dtype == np.float64 and x.view(np.int64).tobytes() != y.view(np.int64).tobytes():
                return False
            if x.dtype != np.float64 and list(x) != list(y):
                return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--variants", type=int, default=20000)
    ap.add_argument("--covariates", type=int, default=10)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tiny-samples", type=int, default=50)
    ap.add_argument("--tiny-variants", type=int, default=20)
    a = ap.parse_args()

    import distributed

    import strata

    with tempfile.TemporaryDirectory() as d:
        write_cohort(d, a.variants, a.samples, a.covariates, 1)
        args = (f"{d}/c.bed", f"{d}/pheno.txt", f"{d}/covar.txt")
        local_s, local = timed(lambda: strata.gwas(*args, client=None, threads=a.workers), a.runs)
        with distributed.LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster, distributed.Client(cluster):
            strata.gwas(*args)  # the workers import strata once
            cluster_s, remote = timed(lambda: strata.gwas(*args), a.runs)
        print(f"gwas {a.samples} samples x {a.variants} variants, linear + {a.covariates} covariates:")
        print(f"  local ({a.workers} threads)             {local_s:8.3f} s")
        print(f"  LocalCluster ({a.workers} x 1 thread)   {cluster_s:8.3f} s   bits equal: {same_bits(local, remote)}")

    with tempfile.TemporaryDirectory() as d:
        pheno, cov = write_cohort(d, a.tiny_variants, a.tiny_samples, 2, 2)
        args = (f"{d}/c.bed", f"{d}/pheno.txt", f"{d}/covar.txt")
        ctx = strata.Context(threads=1)
        options = {"pheno": args[1], "covar": args[2], "model": "auto", "firth": "auto", "ci": 0.0}
        runs = max(20, 10 * a.runs)
        core_s, _ = timed(lambda: strata._core.gwas(ctx._core, args[0], options, "", None), runs)
        files_s, _ = timed(lambda: strata.gwas(*args, context=ctx, client=None), runs)
        memory_s, _ = timed(lambda: strata.gwas(args[0], pheno, cov, context=ctx, client=None), runs)
        print(f"per call on {a.tiny_samples} samples x {a.tiny_variants} variants (median of {runs}):")
        print(f"  library (_core.gwas)                {core_s * 1e3:8.2f} ms")
        print(f"  strata.gwas, file tables            {files_s * 1e3:8.2f} ms   (+{(files_s - core_s) * 1e3:.2f} ms)")
        print(f"  strata.gwas, in-memory tables       {memory_s * 1e3:8.2f} ms   (+{(memory_s - core_s) * 1e3:.2f} ms)")


if __name__ == "__main__":
    main()
