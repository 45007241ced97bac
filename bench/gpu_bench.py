#!/usr/bin/python3
"""The CUDA backend's goals (issue 17) in one run on a GPU machine, beside the CPU figure of the
same binary and CuPy in the same process tree.

  seed 004   (x + 1)[::2, ::2].sum() of normal(10, 1): `strata bench random-sum --device cuda` at
             --sum-n (goal: 500,000^2 in <= 2 s), the CPU figure at --cpu-sum-n, CuPy at --cupy-n
             (goal: strata >= 5x CuPy there); results compared (1e-12 relative).
  seed 000   randomized SVD k = 10 of randint(0, 3) made on the fly: `strata bench svd --device cuda`
             at --svd-shape (goal: 10,000,000 x 20,000 in <= 5 s) and the CPU at --cpu-svd-shape.
  PCA        `strata simulate` --pca-samples x --pca-variants, then `strata pca` on cpu and cuda:
             wall time, eigenvalues (the int16 route must be the same bits), converged route.
  KING       `strata king` on the first --king-samples samples, cpu and cuda: wall time, the
             same output bytes.

Every step has a time limit (--step-timeout) and prints what it got; a failed step does not stop
the others. The defaults fit in ~10 minutes of an H100 machine; --full uses the issue's sizes.

  /usr/bin/python3 bench/gpu_bench.py --strata build/tools/cli/strata
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

CUPY_SUM = r"""
import json, sys, time
import cupy as cp
n = int(sys.argv[1])
def run():
    x = cp.random.normal(10, 1, (n, n))
    r = float(((x + 1)[::2, ::2]).sum())
    cp.cuda.Device().synchronize()
    return r
run()  # warm-up: kernels compiled, pool grown
t = time.perf_counter(); r = run(); s = time.perf_counter() - t
print(json.dumps({"seconds": s, "result": r, "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}))
"""


def step(name, cmd, timeout):
    """Run cmd; return (seconds, stdout), or (None, None) after printing why it failed."""
    shown = " ".join(c if len(c) < 80 else c[:40] + "…" for c in cmd)
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        print(f"[{name}] timed out after {timeout} s: {shown}", flush=True)
        return None, None
    secs = time.monotonic() - t0
    if p.returncode != 0:
        print(f"[{name}] failed (exit {p.returncode}): {shown}\n{(p.stdout + p.stderr)[-1500:]}", flush=True)
        return None, None
    return secs, p.stdout


def last_json(text):
    lines = [l for l in text.strip().splitlines() if l.startswith("{")]
    return json.loads(lines[-1]) if lines else {}


def random_sum(a):
    print("== seed 004: (x + 1)[::2, ::2].sum(), x = normal(10, 1)", flush=True)
    res = {}
    for dev, n in (("cuda", a.sum_n), ("cuda", a.cupy_n), ("cpu", a.cpu_sum_n)):
        cmd = [a.strata, "bench", "random-sum", "--device", dev, "--shape", f"{n},{n}", "--json", "-q"]
        if dev == "cpu":
            cmd += ["--threads", str(os.cpu_count()), "--chunks", "10000,10000"]
        _, out = step(f"random-sum {dev} {n}", cmd, a.step_timeout)
        if not out or not out.startswith("{"):
            continue
        j = last_json(out)
        res[(dev, n)] = j
        print(f"strata {dev:4s} {n:>7}^2: {j['seconds']:.3f} s  result {j['result']:.17g}  "
              f"device {j.get('device', 'cpu')}", flush=True)
    if ("cuda", a.cpu_sum_n) not in res and a.cpu_sum_n not in (a.sum_n, a.cupy_n):
        _, out = step("random-sum cuda (cpu size)", [a.strata, "bench", "random-sum", "--device", "cuda", "--shape",
                                                     f"{a.cpu_sum_n},{a.cpu_sum_n}", "--json", "-q"], a.step_timeout)
        if out and out.startswith("{"):
            res[("cuda", a.cpu_sum_n)] = last_json(out)
    g, c = res.get(("cuda", a.cpu_sum_n)), res.get(("cpu", a.cpu_sum_n))
    if g and c:
        rel = abs(g["result"] - c["result"]) / abs(c["result"])
        print(f"cuda vs cpu at {a.cpu_sum_n}^2: relative difference {rel:.3g} (goal <= 1e-12)  "
              f"speed-up {c['seconds'] / g['seconds']:.1f}x", flush=True)
    _, out = step(f"cupy {a.cupy_n}", [a.python, "-c", CUPY_SUM, str(a.cupy_n)], a.step_timeout)
    if out:
        cp = last_json(out)
        g = res.get(("cuda", a.cupy_n))
        print(f"cupy   {a.cupy_n:>7}^2: {cp['seconds']:.3f} s  result {cp['result']:.17g}  ({cp['device']})")
        if g:
            print(f"strata / cupy speed-up at {a.cupy_n}^2: {cp['seconds'] / g['seconds']:.1f}x (goal >= 5x)", flush=True)


def svd(a):
    print("== seed 000: randomized SVD k = 10 of randint(0, 3) generated on the fly", flush=True)
    print("   (cuda: BenchSource::randint3_product generates A on the device per 65,536-row block, float64;"
          " the CPU runs float32 products on host-generated rows)", flush=True)
    got = {}
    for dev, shape in (("cuda", a.cpu_svd_shape), ("cpu", a.cpu_svd_shape), ("cuda", a.svd_shape)):
        cmd = [a.strata, "bench", "svd", "--device", dev, "--shape", shape, "--threads", str(os.cpu_count()), "--json"]
        _, out = step(f"svd {dev} {shape}", cmd, a.step_timeout)
        if out and "{" in out:
            j = last_json(out)
            got[(dev, shape)] = j
            print(f"strata {dev:4s} {shape:>16}: {j['seconds']:.2f} s  passes {j['passes']}  "
                  f"s[0] {j['singular_values'][0]:.10g}  device {j.get('device')}  "
                  f"products: {j.get('products')}", flush=True)
    c, g = got.get(("cpu", a.cpu_svd_shape)), got.get(("cuda", a.cpu_svd_shape))
    if c and g:
        rel = max(abs(x - y) / abs(c["singular_values"][0])
                  for x, y in zip(c["singular_values"], g["singular_values"]))
        print(f"svd {a.cpu_svd_shape}: largest |s_cpu - s_cuda| / s_cpu[0] = {rel:.2e} (float32 CPU products: "
              f"expect <= ~1e-6)", flush=True)
    big = got.get(("cuda", a.svd_shape))
    if big and a.svd_shape == "10000000,20000":
        print(f"seed 000 goal: {big['seconds']:.2f} s (goal <= 5 s)", flush=True)


def pca(a, work):
    print("== PCA of simulated genotypes", flush=True)
    prefix = os.path.join(work, "sim")
    if step("simulate", [a.strata, "simulate", "--samples", str(a.pca_samples), "--variants", str(a.pca_variants),
                         "--out", prefix, "-q"], a.step_timeout)[0] is None:
        return
    vals = {}
    for route, extra in (("default", []), ("converged", ["--tolerance", "1e-6"])):
        for dev in ("cpu", "cuda"):
            out = os.path.join(work, f"pca-{route}-{dev}")
            rep = out + ".json"
            secs, _ = step(f"pca {route} {dev}", [a.strata, "pca", prefix, "-k", "10", "--out", out, "-q", "--device",
                                                  dev, "--report", rep] + extra, a.step_timeout)
            if secs is None:
                continue
            r = json.load(open(rep))
            phases = {p.get("name"): p.get("seconds") for p in r.get("phases", []) if isinstance(p, dict)}
            vals[(route, dev)] = open(out + ".eigenval").read()
            print(f"pca {route:9s} {dev:4s}: wall {secs:.2f} s  backend {r.get('backend')}  phases {phases}", flush=True)
        if (route, "cpu") in vals and (route, "cuda") in vals:
            same = vals[(route, "cpu")] == vals[(route, "cuda")]
            c, g = ([float(x) for x in vals[(route, d)].split()] for d in ("cpu", "cuda"))
            rel = max((abs(x - y) / abs(x) for x, y in zip(c, g)), default=0.0)
            print(f"pca {route}: eigenvalues cpu vs cuda {'IDENTICAL' if same else 'DIFFER'} "
                  f"(largest relative difference {rel:.3g})", flush=True)
    return prefix


def king(a, work, prefix):
    print("== KING-robust kinship", flush=True)
    ran = 0
    n = a.pca_samples
    pair_variants = n * (n + 1) / 2 * a.pca_variants
    for dev in ("cpu", "cuda"):
        out = os.path.join(work, f"king-{dev}")
        rep = out + ".report.json"
        secs, _ = step(f"king {dev}", [a.strata, "king", prefix, "--out", out, "-q", "--device", dev, "--report", rep],
                       a.step_timeout)
        if secs is None:
            continue
        ran += 1
        phases = {p.get("name"): p.get("seconds") for p in json.load(open(rep)).get("phases", [])}
        counts = phases.get("pair counts") or secs
        rate = pair_variants / counts
        print(f"king {dev:4s}: wall {secs:.2f} s  pair counts {counts:.2f} s = {rate:.3g} pair-variants/s = "
              f"{rate / a.king_cpu2_rate:.1f}x the 2-core CPU rate (goal >= 20x on the GPU)", flush=True)
    if ran == 2:
        files = [f for f in os.listdir(work) if f.startswith("king-cpu") and not f.endswith(".json")]
        same = all(open(os.path.join(work, f), "rb").read() ==
                   open(os.path.join(work, f.replace("king-cpu", "king-cuda")), "rb").read() for f in files)
        print(f"king: outputs cpu vs cuda {'IDENTICAL' if same else 'DIFFER'}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--strata", default=os.path.join(HERE, "..", "build", "tools", "cli", "strata"))
    ap.add_argument("--sum-n", type=int, default=500_000)
    ap.add_argument("--cupy-n", type=int, default=40_000)
    ap.add_argument("--cpu-sum-n", type=int, default=20_000)
    ap.add_argument("--svd-shape", default="10000000,20000")
    ap.add_argument("--cpu-svd-shape", default="100000,20000")
    ap.add_argument("--pca-samples", type=int, default=10_000)
    ap.add_argument("--pca-variants", type=int, default=100_000)
    ap.add_argument("--step-timeout", type=int, default=240)
    ap.add_argument("--python", default=sys.executable, help="a Python with CuPy (for the CuPy figure)")
    ap.add_argument("--king-cpu2-rate", type=float, default=2.7e11,
                    help="KING pair-variants/s of strata on 2 CPU cores (NOTES, issue 17: 4,000 x 100,000)")
    ap.add_argument("--full", action="store_true", help="the issue's sizes (the SVD default already is)")
    ap.add_argument("--only", default="sum,svd,pca,king")
    a = ap.parse_args()
    if a.full:
        a.svd_shape = "10000000,20000"
    print(subprocess.run([a.strata, "--version"], capture_output=True, text=True).stdout.strip())
    if shutil.which("nvidia-smi"):
        print(subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                             capture_output=True, text=True).stdout.strip())
    print(f"host: {os.cpu_count()} CPUs", flush=True)
    only = set(a.only.split(","))
    work = tempfile.mkdtemp(prefix="strata-gpu-bench-")
    try:
        if "sum" in only:
            random_sum(a)
        if "svd" in only:
            svd(a)
        prefix = pca(a, work) if "pca" in only or "king" in only else None
        if "king" in only and prefix:
            king(a, work, prefix)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
