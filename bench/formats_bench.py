#!/usr/bin/python3
"""File-format speed goals of issue 35: strata and its peer in the same run, 2 threads.

  gwas   strata gwas X.bgen (8-bit dosages, 10 covariates)  vs  plink2 --bgen X.bgen ref-first --glm
         (plink2's BGEN → pgen import is part of its command and of its time)      goal: >= 10x
         and the file's inflate floor (bench/bgen_inflate_floor.c): the best ratio any reader could reach
  freq   strata freq X.pgen                                 vs  plink2 --pfile X --freq       goal: >= 1x
  pca    strata pca X.vcf.gz                                vs  strata pca X.bed              goal: <= 1.5x time
  vcz    strata convert X.vcf.gz X.vcz (every INFO/FORMAT)  vs  vcf2zarr convert           goal: >= 3x

Each prints wall and CPU (user + system) seconds (medians of --repeats, runs alternating; on a
shared machine the CPU ratio is the steadier figure), peak RSS, the ratios and an
accuracy check: the outputs against the peer's to the peer's printed digits (gwas BETA/SE/P,
freq ALT_FREQS), eigenvalues (pca), every array of both stores (vcz). Data are generated once
under --data-dir and reused: gwas by `plink2 --dummy … dosage-freq=` (fractional dosages) and
`--export bgen-1.2 bits=8 ref-first`; the others by `strata simulate` and plink2's
`--make-pgen` / `--export vcf bgz` (vcz: plus `bcftools +fill-tags` INFO fields).

  /usr/bin/python3 bench/formats_bench.py gwas --samples 10000 --variants 100000
  /usr/bin/python3 bench/formats_bench.py freq pca vcz
"""
import argparse
import functools
import math
import os
import random
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_common  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
timed = functools.partial(bench_common.timed, missing_rss=0)
GOALS = {"gwas": (10.0, "peer/strata >= 10"), "freq": (1.0, "peer/strata >= 1"),
         "pca": (1 / 1.5, "bed/vcf >= 0.67"), "vcz": (3.0, "peer/strata >= 3")}


def run(cmd, **kw):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, **kw)


def cpu_seconds(log):
    """User + system seconds from a /usr/bin/time -v log (0 without it)."""
    text = open(log).read()
    return sum(float(m) for m in re.findall(r"(?:User|System) time \(seconds\): ([0-9.]+)", text))


def same_run(cmds, repeats, log):
    """Run each command `repeats` times, alternating; return [(median wall, peak RSS, median CPU s)] per command."""
    walls, cpus = [[] for _ in cmds], [[] for _ in cmds]
    rss = [0] * len(cmds)
    for _ in range(repeats):
        for i, (cmd, before) in enumerate(cmds):
            if before:
                before()
            w, r = timed(cmd, log)
            walls[i].append(w)
            cpus[i].append(cpu_seconds(log))
            rss[i] = max(rss[i], r)
    med = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
    return [(med(w), r, med(c)) for w, r, c in zip(walls, rss, cpus)]


def columns(path, names):
    with open(path) as f:
        head = f.readline().lstrip("#").rstrip("\n").split("\t")
        ks = [head.index(n) for n in names]
        rows = [line.rstrip("\n").split("\t") for line in f]
    return {n: [r[k] for r in rows] for n, k in zip(names, ks)}


def printed_ulp(text):
    """One unit in the last printed significant digit of a number written with %g-style digits."""
    mant = text.lower().split("e")[0].lstrip("+-")
    exp = int(text.lower().split("e")[1]) if "e" in text.lower() else 0
    decimals = len(mant.split(".")[1]) if "." in mant else 0
    return 10.0 ** (exp - decimals)


def compare_printed(ours, peer):
    """(values differing by more than one unit in the peer's last printed digit, largest relative difference)."""
    bad, worst = 0, 0.0
    for x, y in zip(ours, peer):
        if x == y:
            continue
        if "NA" in (x, y) or "." in (x, y) and not x[0].isdigit():
            bad += 1
            continue
        fx, fy = float(x), float(y)
        worst = max(worst, abs(fx - fy) / max(abs(fy), 1e-300))
        bad += abs(fx - fy) > 1.0001 * max(printed_ulp(y), printed_ulp(x))
    return bad + abs(len(ours) - len(peer)), worst


def report(goal, rows, accuracy):
    """One line per goal; the ratio is the second command's time over the first's (wall and CPU)."""
    (s, sr, sc), (p, pr, pc) = rows
    ratio, cpu_ratio = p / s, pc / max(sc, 1e-9)
    target, text = GOALS[goal]
    verdict = "met" if ratio >= target else "NOT met"
    print(f"{goal:>5s} {s:9.2f} {p:9.2f} {ratio:7.2f}x {sc:8.2f} {pc:8.2f} {cpu_ratio:7.2f}x "
          f"{sr / 1e9:9.2f}G {pr / 1e9:9.2f}G  {accuracy}  [goal {text}: {verdict}]", flush=True)
    return goal, ratio, cpu_ratio, verdict


# ---------------------------------------------------------------- gwas on BGEN dosages

def gwas_data(a):
    base = os.path.join(a.data_dir, f"dummy_{a.samples}x{a.variants}_ds")
    if not os.path.exists(base + ".bgen"):
        run([a.plink2, "--dummy", str(a.samples), str(a.variants), "0.01", "dosage-freq=0.3", "--threads",
             str(a.threads), "--export", "bgen-1.2", "bits=8", "ref-first", "--out", base + ".tmp"])
        for ext in (".bgen", ".sample"):
            os.replace(base + ".tmp" + ext, base + ext)
    pheno, covar = base + ".pheno", base + ".covar"
    if not os.path.exists(covar):
        rng = random.Random(1)
        ids = [line.split()[1] for line in open(base + ".sample").readlines()[2:]]
        with open(pheno + ".tmp", "w") as ph, open(covar + ".tmp", "w") as cv:
            ph.write("#IID Q1\n")
            cv.write("#IID " + " ".join(f"C{j + 1}" for j in range(10)) + "\n")
            for i, iid in enumerate(ids):
                c = [rng.gauss(0, 1) for _ in range(10)]
                q = 0.2 * c[0] + rng.gauss(0, 1)
                ph.write(f"{iid} {'NA' if i % 53 == 0 else repr(q)}\n")
                cv.write(f"{iid} {' '.join(repr(x) for x in c)}\n")
        os.replace(pheno + ".tmp", pheno)
        os.replace(covar + ".tmp", covar)
    return base, pheno, covar


def bench_gwas(a, work):
    base, pheno, covar = gwas_data(a)
    th = str(a.threads)
    s_out, p_out = os.path.join(work, "s_gwas"), os.path.join(work, "p_gwas")
    s_cmd = [a.strata, "gwas", base + ".bgen", "--pheno", pheno, "--pheno-name", "Q1", "--covar", covar,
             "--threads", th, "-q", "--out", s_out]
    p_cmd = [a.plink2, "--bgen", base + ".bgen", "ref-first", "--sample", base + ".sample", "--pheno", pheno,
             "--pheno-name", "Q1", "--covar", covar, "--glm", "hide-covar", "--threads", th, "--out", p_out]
    rows = same_run([(s_cmd, None), (p_cmd, None)], a.repeats, os.path.join(work, "gwas.log"))
    names = ["BETA", "SE", "P"]
    s, p = columns(s_out + ".Q1.glm.linear", names), columns(p_out + ".Q1.glm.linear", names)
    acc = ", ".join("%s %d off (max rel %.1e)" % ((n,) + compare_printed(s[n], p[n])) for n in names)
    result = report("gwas", rows, acc)
    inflate_floor(a, work, base + ".bgen", rows[1][0])
    return result


def inflate_floor(a, work, bgen, peer_wall):
    """The file's decompression floor (bench/bgen_inflate_floor.c: every block inflated by
    libdeflate on the same threads) and the largest peer/strata ratio it leaves any reader."""
    tool = os.path.join(work, "bgen_inflate_floor")
    if not os.path.exists(tool):
        cc = shutil.which("cc") or shutil.which("gcc")
        if cc is None or subprocess.run([cc, "-O2", os.path.join(HERE, "bgen_inflate_floor.c"), "-ldeflate",
                                         "-lpthread", "-o", tool], stderr=subprocess.DEVNULL).returncode != 0:
            print("inflate floor: not measured (needs a C compiler and libdeflate-dev)")
            return
    walls, cpus = [], []
    for _ in range(max(a.repeats, 1)):
        out = subprocess.run([tool, bgen, str(a.threads)], check=True, capture_output=True, text=True).stdout
        walls.append(float(re.search(r"wall ([0-9.]+)", out).group(1)))
        cpus.append(float(re.search(r"cpu ([0-9.]+)", out).group(1)))
    w, c = sorted(walls)[len(walls) // 2], sorted(cpus)[len(cpus) // 2]
    print(f"inflate floor (libdeflate, {a.threads} threads, inflate only): {w:.2f} s wall, {c:.2f} s CPU -> "
          f"no BGEN reader can beat the peer by more than {peer_wall / w:.2f}x here", flush=True)


# ---------------------------------------------------------------- shared simulated genotypes

def simulated(a, samples, variants):
    base = os.path.join(a.data_dir, f"sim_{samples}x{variants}")
    if not os.path.exists(base + ".bed"):
        run([a.strata, "simulate", "--samples", str(samples), "--variants", str(variants), "--missing", "0.01",
             "--pops", "3", "--out", base + ".tmp", "-q"])
        for ext in (".bed", ".bim", ".fam"):
            os.replace(base + ".tmp" + ext, base + ext)
    return base


def bench_freq(a, work):
    base = simulated(a, a.freq_samples, a.freq_variants)
    if not os.path.exists(base + ".pgen"):
        run([a.plink2, "--bfile", base, "--make-pgen", "--threads", str(a.threads), "--out", base])
    th = str(a.threads)
    s_out, p_out = os.path.join(work, "s_freq"), os.path.join(work, "p_freq")
    s_cmd = [a.strata, "freq", base + ".pgen", "--threads", th, "-q", "--out", s_out]
    p_cmd = [a.plink2, "--pfile", base, "--freq", "--threads", th, "--out", p_out]
    rows = same_run([(s_cmd, None), (p_cmd, None)], a.repeats, os.path.join(work, "freq.log"))
    names = ["ALT_FREQS", "OBS_CT"]
    s, p = columns(s_out + ".afreq", names), columns(p_out + ".afreq", names)
    acc = ", ".join("%s %d off (max rel %.1e)" % ((n,) + compare_printed(s[n], p[n])) for n in names)
    return report("freq", rows, acc)


def vcf_of(a, base):
    if not os.path.exists(base + ".vcf.gz"):
        run([a.plink2, "--bfile", base, "--export", "vcf", "bgz", "--threads", str(a.threads), "--out", base + ".tmp"])
        os.replace(base + ".tmp.vcf.gz", base + ".vcf.gz")
    return base + ".vcf.gz"


def bench_pca(a, work):
    base = simulated(a, a.pca_samples, a.pca_variants)
    vcf = vcf_of(a, base)
    common = ["-k", "10", "--threads", str(a.threads), "-q"]
    s_out, b_out = os.path.join(work, "s_pca_vcf"), os.path.join(work, "s_pca_bed")
    rows = same_run([([a.strata, "pca", vcf, "--out", s_out] + common, None),
                     ([a.strata, "pca", base + ".bed", "--out", b_out] + common, None)],
                    a.repeats, os.path.join(work, "pca.log"))
    ev = [[float(x) for x in open(o + ".eigenval").read().split()] for o in (s_out, b_out)]
    worst = max(abs(x - y) / abs(y) for x, y in zip(*ev)) if len(ev[0]) == len(ev[1]) else math.inf
    return report("pca", rows, f"eigenvalues max rel diff {worst:.1e} (vcf vs bed)")


def bench_vcz(a, work):
    base = simulated(a, a.vcz_samples, a.vcz_variants)
    vcf = base + ".tags.vcf.gz"
    if not os.path.exists(vcf + ".tbi"):
        run(["bcftools", "+fill-tags", vcf_of(a, base), "-Oz", "-o", vcf + ".tmp", "--",
             "-t", "AN,AC,AF,MAF,HWE,ExcHet,F_MISSING"])
        os.replace(vcf + ".tmp", vcf)
        run(["tabix", "-f", "-p", "vcf", vcf])
    s_out, p_out = os.path.join(work, "s.vcz"), os.path.join(work, "p.vcz")
    rm = functools.partial(shutil.rmtree, ignore_errors=True)
    rows = same_run([([a.strata, "convert", vcf, s_out, "--threads", str(a.threads), "-q", "--overwrite"],
                      lambda: rm(s_out)),
                     ([a.vcf2zarr, "convert", "-p", str(a.threads), "-f", vcf, p_out], lambda: rm(p_out))],
                    a.repeats, os.path.join(work, "vcz.log"))
    check = subprocess.run([a.python, "-c", COMPARE_STORES, s_out, p_out], capture_output=True, text=True)
    return report("vcz", rows, (check.stdout + check.stderr).strip()[-300:])


COMPARE_STORES = r"""
import sys, numpy as np, zarr
s, p = zarr.open(sys.argv[1], mode="r"), zarr.open(sys.argv[2], mode="r")
names = sorted(k for k in p.array_keys() if k != "region_index")
bad = [k for k in names if k not in s or not np.array_equal(np.asarray(s[k][:]).view(np.uint8) if s[k].dtype.kind == "f"
       else s[k][:], np.asarray(p[k][:]).view(np.uint8) if p[k].dtype.kind == "f" else p[k][:])]
print(f"{len(names) - len(bad)}/{len(names)} arrays equal" + (f" (differ: {', '.join(bad)})" if bad else ""))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("goals", nargs="*", default=["gwas", "freq", "pca", "vcz"], choices=list(GOALS))
    ap.add_argument("--samples", type=int, default=10000, help="gwas samples")
    ap.add_argument("--variants", type=int, default=100000, help="gwas variants")
    ap.add_argument("--freq-samples", type=int, default=5000)
    ap.add_argument("--freq-variants", type=int, default=100000)
    ap.add_argument("--pca-samples", type=int, default=2000)
    ap.add_argument("--pca-variants", type=int, default=50000)
    ap.add_argument("--vcz-samples", type=int, default=1000)
    ap.add_argument("--vcz-variants", type=int, default=10000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--data-dir", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "strata_formats_bench"),
                    help="generated inputs, reused across runs")
    ap.add_argument("--workdir", default=None, help="outputs (default: DATA_DIR/out)")
    ap.add_argument("--strata", default=os.path.join(HERE, "..", "build", "tools", "cli", "strata"))
    ap.add_argument("--plink2", default="/usr/bin/plink2")
    venv = os.path.join(HERE, "..", ".venv", "bin")
    venv = venv if os.path.isdir(venv) else "/work/main/.venv/bin"
    ap.add_argument("--vcf2zarr", default=os.path.join(venv, "vcf2zarr"))
    ap.add_argument("--python", default=os.path.join(venv, "python"), help="with zarr and numpy (vcz check)")
    a = ap.parse_args()
    os.makedirs(a.data_dir, exist_ok=True)
    work = a.workdir or os.path.join(a.data_dir, "out")
    os.makedirs(work, exist_ok=True)
    print(f"threads {a.threads}, median of {a.repeats}; data in {a.data_dir}")
    print(f"{'goal':>5s} {'strata s':>9s} {'peer s':>9s} {'ratio':>8s} {'s CPU':>8s} {'p CPU':>8s} {'CPU rat':>8s} "
          f"{'strata RSS':>10s} {'peer RSS':>10s}  accuracy")
    results = [globals()["bench_" + g](a, work) for g in a.goals]
    print("\n| goal | wall ratio | CPU-time ratio | verdict (wall) |\n|---|---|---|---|")
    for goal, ratio, cpu_ratio, verdict in results:
        print(f"| {goal} ({GOALS[goal][1]}) | {ratio:.2f}x | {cpu_ratio:.2f}x | {verdict} |")


if __name__ == "__main__":
    main()
