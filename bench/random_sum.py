#!/usr/bin/python3
"""Random-sum benchmark ("GPU Dask Arrays, first steps"): strata vs Dask in the same run.

Runs `strata bench random-sum` and ../shared/bench/dask_randsum.py on the same shape and chunks,
then numpy's generator vs `strata bench random-gen` (single-thread generation throughput), and
prints the ratios. Medians over --repeat runs, because the machines are shared.

    bench/random_sum.py --strata build/tools/cli/strata --n 40000 --chunk 10000 --threads 2
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DASK = os.path.join(HERE, "..", "..", "shared", "bench", "dask_randsum.py")


def run_strata(strata, n, chunk, threads, seed):
    out = subprocess.run([strata, "bench", "random-sum", "--shape", f"{n},{n}", "--chunks", f"{chunk},{chunk}",
                          "--threads", str(threads), "--seed", str(seed), "--json", "-q"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def run_dask(n, chunk):
    out = subprocess.run(["/usr/bin/python3", DASK, str(n), str(chunk)], check=True, capture_output=True,
                         text=True).stdout.split()
    return float(out[out.index("wall_s") + 1]), float(out[out.index("result") + 1])


NUMPY_GEN = r"""
import numpy as np, time, json, sys
n = int(sys.argv[1]); rng = np.random.default_rng(0); out = np.empty(n)
res = {}
for name, f in [("normal float64", lambda: rng.standard_normal(n, out=out)),
                ("uniform float64", lambda: rng.random(n, out=out))]:
    f(); t = time.perf_counter(); f(); res[name] = n / (time.perf_counter() - t)
print(json.dumps(res))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--strata", default=os.path.join(HERE, "..", "build", "tools", "cli", "strata"))
    ap.add_argument("--n", type=int, default=40000)
    ap.add_argument("--chunk", type=int, default=10000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--gen-n", type=int, default=20_000_000)
    ap.add_argument("--skip-dask", action="store_true")
    args = ap.parse_args()

    strata_runs = [run_strata(args.strata, args.n, args.chunk, args.threads, s) for s in range(args.repeat)]
    st = statistics.median(r["seconds"] for r in strata_runs)
    print(f"strata  (x + 1)[::2, ::2].sum()  {args.n}^2 chunks {args.chunk}^2, {args.threads} threads: "
          f"median {st:.3f} s over {args.repeat} ({[round(r['seconds'], 3) for r in strata_runs]}), "
          f"generated {strata_runs[0]['elements_generated']}, result {strata_runs[0]['result']:.6g}")
    if not args.skip_dask:
        dask_runs = [run_dask(args.n, args.chunk) for _ in range(args.repeat)]
        dt = statistics.median(d[0] for d in dask_runs)
        print(f"dask    same expression, threaded scheduler: median {dt:.2f} s ({[d[0] for d in dask_runs]}), "
              f"result {dask_runs[0][1]:.6g}")
        print(f"ratio   dask / strata = {dt / st:.1f}x")

    gen = subprocess.run([args.strata, "bench", "random-gen", "--n", str(args.gen_n), "--json"], check=True,
                         capture_output=True, text=True).stdout
    ours = {j["source"]: j["elements_per_second"] for j in map(json.loads, gen.strip().splitlines())}
    np_rates = json.loads(subprocess.run(["/usr/bin/python3", "-c", NUMPY_GEN, str(args.gen_n)], check=True,
                                         capture_output=True, text=True).stdout)
    for name, rate in np_rates.items():
        print(f"generation 1 thread  {name:16s} strata {ours[name] / 1e6:8.1f} M/s   numpy default_rng "
              f"{rate / 1e6:8.1f} M/s   ratio {ours[name] / rate:.2f}x")
    print(f"generation 1 thread  normal [:, ::2]   strata {ours['normal float64 [:, ::2]'] / 1e6:8.1f} M/s "
          f"(the slice pattern of the benchmark)")


if __name__ == "__main__":
    sys.exit(main())
