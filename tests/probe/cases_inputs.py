"""Probe cases about what strata is given: usage errors, bad data, answers checked against oracles."""

import os
import random
import shutil
import signal
import subprocess
import sys
import time

import numpy as np

import probe_harness as h
from probe_harness import *  # noqa: F401,F403 (helpers, Case list)

# ---- class 4: usage ----------------------------------------------------------


def cases_usage():
    C = "usage"
    cmds = {
        "pca": (["pca", "base", "-k", "2", "--out", "u"], BASE),
        "svd": (["svd", "small.zarr", "-k", "2", "--out", "u.zarr"], ["small.zarr"]),
        "freq": (["freq", "base", "--out", "u"], BASE),
        "convert": (["convert", "base", "u.vcz"], BASE),
        "simulate": (["simulate", "--samples", "5", "--variants", "5", "--out", "u"], []),
        "import": (["zarr", "import", "small.npy", "u.zarr"], ["small.npy"]),
        "export": (["zarr", "export", "small.zarr", "u.npy"], ["small.zarr"]),
        "verify": (["zarr", "verify", "small.zarr"], ["small.zarr"]),
    }
    common = [["--threads", "-1"], ["--threads", "5000"], ["--threads", "abc"], ["--threads", "1.5"],
              ["--report", ""], ["--bogus-flag"]]
    specific = {
        "pca": [["-k", "0"], ["-k", "-1"], ["-k", "abc"], ["-k", "99999999999"], ["--tolerance", "-1"],
                ["--tolerance", "0"], ["--tolerance", "nan"], ["--iterations", "0"], ["--out", ""], ["--maf", "2"],
                ["--maf", "-0.1"], ["--maf", "nan"], ["--geno", "-0.5"], ["--geno", "1.5"], ["--memory", "abc"],
                ["--memory", "1.2.3G"], ["--memory", "-2G"], ["--memory", "0"], ["--memory", "99999999999999T"],
                ["--scale", "zscore"], ["--method", "magic"], ["--precision", "int8"], ["--block", "-3"],
                ["--block", "5000"], ["--oversampling", "-1"], ["--seed", "-1"]],
        "svd": [["-k", "0"], ["--iterations", "0"], ["--scheme", "weird"], ["--precision", "half"],
                ["--method", "fast"], ["--oversampling", "-5"], ["--out", ""]],
        "freq": [["--out", ""], ["--multiallelic", "maybe"]],
        "convert": [["--variants-chunk", "0"], ["--samples-chunk", "-1"], ["--codec", "zstd:abc"],
                    ["--codec", "rot13"], ["--multiallelic", "x"]],
        "simulate": [["--samples", "0"], ["--variants", "-1"], ["--fst", "1"], ["--fst", "-0.1"],
                     ["--missing", "2"], ["--pops", "0"], ["--pops", "9"], ["--format", "cram"], ["--out", ""]],
        "import": [["--chunks", "0,0"], ["--chunks", "abc"], ["--chunks", "10"], ["--codec", "blosc:zstd:5:twist"],
                   ["--codec", "zstd:99"], ["--zarr-format", "4"], ["--shard", "7,7"]],
        "export": [],
        "verify": [],
    }
    for cname, (args, files) in cmds.items():
        for extra in specific[cname] + common:
            a = list(args)
            # replace an option given in the base args, else append
            if extra[0] in a and extra[0] not in ("--threads",):
                i = a.index(extra[0])
                a = a[:i] + extra + a[i + 2:]
            else:
                a = a + extra
            add(C, "%s %s" % (cname, " ".join(shlex.quote(x) for x in extra)), a + ["-q"] if cname != "verify" or True else a,
                2, files=files)
    add(C, "unknown-subcommand", ["frobnicate"], 2)
    add(C, "unknown-zarr-subcommand", ["zarr", "frobnicate", "x"], 2)
    add(C, "no-subcommand", [], 2)
    add(C, "pca-missing-k", ["pca", "base", "--out", "u"], 2, files=BASE)
    add(C, "pca-missing-out", ["pca", "base", "-k", "2"], 2, files=BASE)
    add(C, "pca-missing-input", ["pca", "-k", "2", "--out", "u"], 2, files=BASE)
    add(C, "pca-input-and-bfile", ["pca", "base", "--bfile", "base", "-k", "2", "--out", "u"], 2, files=BASE)
    add(C, "svd-missing-k", ["svd", "small.zarr", "--out", "u.zarr"], 2, files=["small.zarr"])
    add(C, "simulate-missing-samples", ["simulate", "--variants", "5", "--out", "u"], 2)
    add(C, "convert-bad-output-ext", ["convert", "base", "u.txt"], 2, files=BASE)
    add(C, "export-missing-out", ["zarr", "export", "small.zarr"], 2, files=["small.zarr"])
    add(C, "import-v2-with-shard", ["zarr", "import", "small.npy", "u.zarr", "--zarr-format", "2", "--shard", "20,20",
                                    "--chunks", "10,10"], 2, files=["small.npy"])

# ---- class 5: data errors ----------------------------------------------------


def trunc(src, dst, n):
    def f(d):
        data = open(os.path.join(h.FIX, src), "rb").read()
        if n < 0:
            cut = len(data) + n
        elif n < 1:
            cut = int(len(data) * n)
        else:
            cut = n
        write(os.path.join(d, dst), data[:cut], "wb")
    return f


def modify(rel, fn):
    def f(d):
        p = os.path.join(d, rel)
        data = open(p, "rb").read()
        write(p, fn(data), "wb")
    return f


def zmod(rel, fn):
    """Edit a JSON metadata file of a copied store."""
    def f(d):
        p = os.path.join(d, rel)
        meta = json.load(open(p))
        fn(meta)
        write(p, json.dumps(meta))
    return f


def first_chunk(d, arr):
    for n in sorted(os.listdir(os.path.join(d, arr))):
        if not n.startswith("."):
            return os.path.join(d, arr, n)
    raise RuntimeError("no chunk in " + arr)


def cases_data():
    C = "data-errors"
    # ---- VCF / BCF
    add(C, "convert-text-named-vcf", ["convert", "notvcf.vcf", "o.vcz", "-q"], 1,
        setup=lambda d: write(os.path.join(d, "notvcf.vcf"), "hello, this is not a VCF\n"))
    add(C, "convert-garbage-vcf.gz", ["convert", "g.vcf.gz", "o.vcz", "-q"], 1,
        setup=lambda d: write(os.path.join(d, "g.vcf.gz"), bytes(random.Random(1).getrandbits(8) for _ in range(5000)),
                              "wb"))
    add(C, "convert-garbage-bcf", ["convert", "g.bcf", "o.vcz", "-q"], 1,
        setup=lambda d: write(os.path.join(d, "g.bcf"), b"BCF\x02\x02" + b"\xff" * 3000, "wb"))
    add(C, "convert-empty-vcf", ["convert", "e.vcf", "o.vcz", "-q"], 1,
        setup=lambda d: write(os.path.join(d, "e.vcf"), ""))
    add(C, "convert-header-only-vcf", ["convert", "h.vcf", "o.vcz", "-q"], (0, 1),
        setup=lambda d: write(os.path.join(d, "h.vcf"), vcf_text(4, 0)), allowed=["o.vcz"])
    add(C, "convert-vcf-dup-samples", ["convert", "dup.vcf", "o.vcz", "-q"], 1,
        setup=lambda d: write(os.path.join(d, "dup.vcf"), vcf_text(6, 20, dup=True)))
    add(C, "convert-vcf-ragged-row", ["convert", "r.vcf", "o.vcz", "-q"], 1,
        setup=lambda d: write(os.path.join(d, "r.vcf"), vcf_text(6, 20).rstrip("\n").rsplit("\t", 2)[0] + "\n"))
    add(C, "convert-vcf-bad-gt", ["convert", "r.vcf", "o.vcz", "-q"], 1,
        setup=lambda d: write(os.path.join(d, "r.vcf"), vcf_text(6, 20).replace("0|1", "0|Q", 1)))
    gz_len = os.path.getsize(os.path.join(h.FIX, "v.vcf.gz"))
    for cut in [10, 18, 100, 0.25, 0.5, 0.75, -29, -40, -100]:
        add(C, "convert-truncated-vcf.gz@%s" % cut, ["convert", "t.vcf.gz", "o.vcz", "-q"], 1,
            setup=trunc("v.vcf.gz", "t.vcf.gz", cut))
    for cut in [5, 30, 0.3, 0.6, 0.9, -29, -40]:
        add(C, "convert-truncated-bcf@%s" % cut, ["convert", "t.bcf", "o.vcz", "-q"], 1,
            setup=trunc("v.bcf", "t.bcf", cut))
    add(C, "convert-truncated-vcf-text", ["convert", "t.vcf", "o.vcz", "-q"], 1,
        setup=lambda d: write(os.path.join(d, "t.vcf"), vcf_text(6, 20)[:-37]))
    # ---- PLINK
    plink_cmds = {"pca": ["pca", "base", "-k", "2", "--out", "o", "-q"], "freq": ["freq", "base", "--out", "o", "-q"],
                  "convert": ["convert", "base", "o.vcz", "-q"]}
    bad_plink = {
        "fam-dup-ids": modify("base.fam", lambda b: (lambda L: b"\n".join([L[0], L[0]] + L[2:]))(b.split(b"\n"))),
        "fam-nul": modify("base.fam", lambda b: b[:20] + b"\0" + b[21:]),
        "bim-nul": modify("base.bim", lambda b: b[:10] + b"\0\0" + b[12:]),
        "bed-wrong-magic": modify("base.bed", lambda b: b"\x6c\x1b\x00" + b[3:]),
        "bed-text": modify("base.bed", lambda b: b"this is not a bed file\n" * 10),
        "bed-trunc-2": modify("base.bed", lambda b: b[:2]),
        "bed-trunc-half": modify("base.bed", lambda b: b[:len(b) // 2]),
        "bed-trunc-1": modify("base.bed", lambda b: b[:-1]),
        "bed-extra-bytes": modify("base.bed", lambda b: b + b"\0" * 7),
        "bim-fewer-lines": modify("base.bim", lambda b: b"\n".join(b.split(b"\n")[:-11]) + b"\n"),
        "bim-more-lines": modify("base.bim", lambda b: b + b.split(b"\n", 1)[0].replace(b"v0", b"vX") + b"\n"),
        "fam-fewer-lines": modify("base.fam", lambda b: b"\n".join(b.split(b"\n")[:-5]) + b"\n"),
        "bim-bad-pos": modify("base.bim", lambda b: b.replace(b"\t101\t", b"\tabc\t", 1)),
        "bim-short-line": modify("base.bim", lambda b: b.replace(b"\t0\t101\tA\tG", b"", 1)),
        "empty-bed": modify("base.bed", lambda b: b""),
        "empty-bim": modify("base.bim", lambda b: b""),
        "empty-fam": modify("base.fam", lambda b: b""),
        "missing-fam": lambda d: os.remove(os.path.join(d, "base.fam")),
        "missing-bim": lambda d: os.remove(os.path.join(d, "base.bim")),
    }
    for bname, setup in bad_plink.items():
        for cname, args in plink_cmds.items():
            add(C, "%s-%s" % (cname, bname), args, 1, files=BASE, setup=setup)
    for cname, args in plink_cmds.items():
        a = [x if x != "base" else "nonexistent" for x in args]
        add(C, "%s-nonexistent-input" % cname, a, 1)
        a = [x if x != "base" else "somedir" for x in args]
        add(C, "%s-directory-input" % cname, a, 1, setup=lambda d: os.makedirs(os.path.join(d, "somedir")))
        a = [x if x != "base" else "bed.bed" for x in args]
        add(C, "%s-directory-named-bed" % cname, a, 1, setup=lambda d: os.makedirs(os.path.join(d, "bed.bed")))
    # ---- svd
    for nm, arr in [("nan", "nan.npy"), ("inf", "inf.npy"), ("bool", "bool.npy"), ("empty", "empty.npy"),
                    ("1d", "oned.npy"), ("3d", "threed.npy"), ("one-row", "onerow.npy")]:
        add(C, "svd-%s-array" % nm, ["svd", "a.zarr", "-k", "1", "--out", "s.zarr", "-q"], (1, 2) if nm in ("1d", "3d") else 1,
            setup=lambda d, arr=arr: shutil.copytree(os.path.join(h.FIX, arr + ".zarr"), os.path.join(d, "a.zarr")))

    def no_nan_s(d, p):
        import zarr
        g = zarr.open_group(os.path.join(d, "s.zarr"), mode="r")
        for k in ("U", "S", "Vt"):
            if not np.all(np.isfinite(np.asarray(g[k]))):
                return "all-zeros svd exited 0 but %s holds NaN/Inf" % k
        return None
    for m in ["exact", "randomized"]:
        add(C, "svd-all-zeros-%s" % m, ["svd", "a.zarr", "-k", "2", "--method", m, "--out", "s.zarr", "-q"], (0, 1),
            setup=lambda d: shutil.copytree(os.path.join(h.FIX, "zeros.npy.zarr"), os.path.join(d, "a.zarr")),
            allowed=["s.zarr"], check=lambda d, p: no_nan_s(d, p) if p.returncode == 0 else None)
        add(C, "svd-k-too-big-%s" % m, ["svd", "small.zarr", "-k", "20", "--method", m, "--out", "s.zarr", "-q"],
            (1, 2), files=["small.zarr"])
    # ---- pca data conditions
    add(C, "pca-k-equals-samples", ["pca", "base", "-k", "60", "--out", "o", "-q"], (1, 2), files=BASE)
    add(C, "pca-k-above-samples", ["pca", "base", "-k", "61", "--out", "o", "-q"], (1, 2), files=BASE)
    add(C, "pca-k-above-samples-randomized", ["pca", "base", "-k", "70", "--method", "randomized", "--out", "o", "-q"],
        (1, 2), files=BASE)
    # not `base`: its variants whose frequency is exactly 0.5 pass --maf 0.5
    add(C, "pca-all-filtered-maf", ["pca", "allmono", "-k", "2", "--maf", "0.5", "--out", "o", "-q"], 1,
        files=["allmono.bed", "allmono.bim", "allmono.fam"])
    # Fractional dosages are imputed data: PCA reads their hard calls (plink2's, within 0.1),
    # freq their dosages (variant 2 holds 0.37, rounded to 1/16384 as plink2 imports it).
    pca_out = ["o.eigenval", "o.eigenvec", "o.eigenvec.var", "o.afreq", "o.svg", "o.zarr"]  # a Zarr input adds o.zarr
    add(C, "pca-fractional-dosage-f64", ["pca", "frac.zarr", "-k", "2", "--out", "o", "-q"], 0, files=["frac.zarr"],
        allowed=pca_out)
    add(C, "pca-fractional-dosage-f32", ["pca", "frac32.zarr", "-k", "2", "--out", "o", "-q"], 0,
        files=["frac32.zarr"], allowed=pca_out)

    def dosage_freq(d, p):
        import zarr
        row = np.asarray(zarr.open(os.path.join(d, "frac.zarr"), mode="r")[2], dtype=np.float64)
        want = "%.6g" % (np.sum(np.floor(row * 16384 + 0.5) / 16384) / (2 * row.size))
        got = open(os.path.join(d, "o.afreq")).read().splitlines()[3].split("\t")[4]
        return None if got == want else "variant 2 ALT_FREQS %s, expected the dosages' %s" % (got, want)
    add(C, "freq-fractional-dosage", ["freq", "frac.zarr", "--out", "o", "-q"], 0, files=["frac.zarr"],
        allowed=["o.afreq", "o.vmiss"], check=lambda d, p: dosage_freq(d, p) if p.returncode == 0 else None)
    add(C, "pca-dosage-out-of-range", ["pca", "three.zarr", "-k", "2", "--out", "o", "-q"], 1, files=["three.zarr"])
    add(C, "pca-on-plain-float-matrix-nan", ["pca", "nan.npy.zarr", "-k", "2", "--out", "o", "-q"], 1,
        files=["nan.npy.zarr"])
    # ---- Zarr store corruption: info and verify
    def corrupt(setup_fn):
        def f(d):
            shutil.copytree(os.path.join(h.FIX, "x.zarr"), os.path.join(d, "c.zarr"))
            setup_fn(os.path.join(d, "c.zarr"))
        return f
    stores = {
        "bad-zarray-json": (lambda s: write(os.path.join(s, "a", ".zarray"), "{not json"), (0, 1), 1),
        "bad-zarray-fields": (lambda s: write(os.path.join(s, "a", ".zarray"), '{"zarr_format":2,"shape":"x"}'),
                              (0, 1), 1),
        "unknown-codec": (lambda s: zmod("a/.zarray", lambda m: m.update(compressor={"id": "rot13"}))(s), (0, 1), 1),
        "chunk-truncated": (lambda s: open(first_chunk(s, "a"), "r+b").truncate(7), (0,), 1),
        "chunk-garbage": (lambda s: write(first_chunk(s, "a"), b"\x00garbage" * 40, "wb"), (0,), 1),
        "chunk-fifo": (lambda s: (os.remove(first_chunk(s, "a")), os.mkfifo(os.path.join(s, "a", "0.0"))), (0, 1), 1),
        "chunk-sparse-1G": (lambda s: os.truncate(first_chunk(s, "a"), 1 << 30), (0, 1), 1),
        "chunk-is-dir": (lambda s: (os.remove(first_chunk(s, "a")), os.makedirs(os.path.join(s, "a", "0.0"))),
                         (0, 1), 1),
        "zattrs-deep-nesting": (lambda s: write(os.path.join(s, "a", ".zattrs"), "[" * 200000), (0, 1), (0, 1)),
        "zgroup-deep-nesting": (lambda s: write(os.path.join(s, ".zgroup"), "{\"a\":" * 100000), (0, 1), (0, 1)),
        "huge-chunk-grid": (lambda s: zmod("a/.zarray", lambda m: m.update(shape=[2 ** 62, 2 ** 62],
                                                                        chunks=[2 ** 31, 2 ** 31]))(s), (0, 1), (0, 1)),
        "huge-chunk-elements": (lambda s: zmod("a/.zarray", lambda m: m.update(shape=[2 ** 40, 2 ** 40],
                                                                            chunks=[2 ** 40, 2 ** 40]))(s), (0, 1), 1),
        "negative-shape": (lambda s: zmod("a/.zarray", lambda m: m.update(shape=[-5, 10]))(s), (0, 1), 1),
        "zero-chunk": (lambda s: zmod("a/.zarray", lambda m: m.update(chunks=[0, 10]))(s), (0, 1), 1),
        "chunks-rank-mismatch": (lambda s: zmod("a/.zarray", lambda m: m.update(chunks=[10]))(s), (0, 1), 1),
        "bad-dtype": (lambda s: zmod("a/.zarray", lambda m: m.update(dtype="<q99"))(s), (0, 1), 1),
        "empty-zarray": (lambda s: write(os.path.join(s, "a", ".zarray"), ""), (0, 1), 1),
    }
    for sname, (fn, info_ok, verify_ok) in stores.items():
        ms = 5 if "sparse" in sname or "fifo" in sname or "huge" in sname else None
        add(C, "info-%s" % sname, ["zarr", "info", "c.zarr"], info_ok, setup=corrupt(fn), max_seconds=ms,
            timeout=20 if ms else None)
        add(C, "verify-%s" % sname, ["zarr", "verify", "c.zarr", "-q"], verify_ok, setup=corrupt(fn), max_seconds=ms,
            timeout=20 if ms else None)
    # also via export/svd on a corrupt chunk
    add(C, "export-chunk-truncated", ["zarr", "export", "c.zarr/a", "o.npy", "-q"], 1,
        setup=corrupt(stores["chunk-truncated"][0]))
    add(C, "svd-chunk-fifo", ["svd", "c.zarr/a", "-k", "2", "--out", "s.zarr", "-q"], 1,
        setup=corrupt(stores["chunk-fifo"][0]), timeout=20)
    # arrays on disk but absent from .zmetadata
    def hidden_array(bad):
        def f(d):
            shutil.copytree(os.path.join(h.FIX, "cons.zarr"), os.path.join(d, "c.zarr"))
            if bad:
                write(first_chunk(os.path.join(d, "c.zarr"), "hidden"), b"\x01corrupt" * 30, "wb")
        return f

    def mentions_hidden(d, p):
        txt = (p.stdout + p.stderr).decode(errors="replace")
        return None if "hidden" in txt else "verify does not mention array 'hidden' (on disk, absent from .zmetadata)"
    add(C, "verify-array-not-in-zmetadata", ["zarr", "verify", "c.zarr"], (0, 1), setup=hidden_array(False),
        check=mentions_hidden)
    add(C, "verify-corrupt-array-not-in-zmetadata", ["zarr", "verify", "c.zarr"], 1, setup=hidden_array(True),
        check=mentions_hidden)
    add(C, "info-array-not-in-zmetadata", ["zarr", "info", "c.zarr"], (0, 1), setup=hidden_array(False),
        check=mentions_hidden)

# ---- class 6: wrong answers --------------------------------------------------


def read_s(d, name="s.zarr"):
    import zarr
    g = zarr.open_group(os.path.join(d, name), mode="r")
    return np.asarray(g["U"]), np.asarray(g["S"]), np.asarray(g["Vt"])


def svd_check(npyname, k, rtol, nan_check=False):
    def f(d, p):
        A = np.load(os.path.join(h.FIX, npyname))
        s_ref = np.linalg.svd(A, compute_uv=False)[:k]
        U, S, Vt = read_s(d)
        msg = []
        if nan_check and not (np.all(np.isfinite(U)) and np.all(np.isfinite(Vt))):
            msg.append("U/Vt hold NaN/Inf (%d NaN in U)" % int(np.isnan(U).sum()))
        S = np.asarray(S, dtype=np.float64)[:k]
        if S.shape != s_ref.shape or not np.all(np.isfinite(S)):
            msg.append("S=%r vs numpy %r" % (S, s_ref))
        else:
            rel = np.max(np.abs(S - s_ref) / np.abs(s_ref))
            if not rel <= rtol:
                msg.append("singular values off by %.3g relative (tol %g): %r vs numpy %r" % (rel, rtol, S, s_ref))
        return "; ".join(msg) or None
    return f


def read_eigval(path):
    return [l.strip() for l in open(path) if l.strip()]


def half_ulp(s):
    if "e" in s.lower():
        mant, exp = s.lower().split("e")
        dec = len(mant.split(".")[1]) if "." in mant else 0
        return 0.5 * 10 ** (int(exp) - dec)
    dec = len(s.split(".")[1]) if "." in s else 0
    return 0.5 * 10 ** (-dec)


def plink_check(prefix, k, strata_out="o"):
    def f(d, p):
        r = subprocess.run(["/usr/bin/plink2", "--bfile", prefix, "--pca", str(k), "meanimpute", "--out", "pl",
                            "--threads", "2", "--allow-extra-chr", "--bad-freqs"], cwd=d, capture_output=True)
        if r.returncode != 0:
            r = subprocess.run(["/usr/bin/plink2", "--bfile", prefix, "--pca", str(k), "meanimpute", "--out", "pl",
                                "--threads", "2", "--allow-extra-chr"], cwd=d, capture_output=True)
        if r.returncode != 0:
            return "oracle plink2 failed: " + r.stdout.decode(errors="replace")[-300:]
        pl = read_eigval(os.path.join(d, "pl.eigenval"))
        st = read_eigval(os.path.join(d, strata_out + ".eigenval"))
        if len(st) < k:
            return "strata wrote %d eigenvalues, want %d" % (len(st), k)
        bad = []
        for i in range(k):
            tol = half_ulp(pl[i]) + half_ulp(st[i]) + 1e-12
            if abs(float(pl[i]) - float(st[i])) > tol:
                bad.append("λ%d strata %s plink2 %s" % (i + 1, st[i], pl[i]))
        return ("eigenvalues differ from plink2 beyond printed precision: " + ", ".join(bad)) if bad else None
    return f


def cases_wrong():
    C = "wrong-answers"
    for m, extra in [("randomized", []), ("randomized", ["--iterations", "30"]), ("exact", []),
                     ("randomized", ["--scheme", "subspace", "--iterations", "30"])]:
        add(C, "svd-normal-60x20-k2-%s%s" % (m, "".join(extra)),
            ["svd", "small.zarr", "-k", "2", "--method", m, "--out", "s.zarr", "-q"] + extra, 0, files=["small.zarr"],
            allowed=["s.zarr"], check=svd_check("small.npy", 2, 1e-8))
    for m in ["randomized", "exact"]:
        add(C, "svd-subnormal-1e-310-%s" % m, ["svd", "tiny.zarr", "-k", "2", "--method", m, "--out", "s.zarr", "-q"],
            0, files=["tiny.zarr"], allowed=["s.zarr"], check=svd_check("tiny.npy", 2, 1e-6, nan_check=True))
    add(C, "svd-huge-1e300", ["svd", "hugev.zarr", "-k", "2", "--out", "s.zarr", "-q"], 0, files=["hugev.zarr"],
        allowed=["s.zarr"], check=svd_check("hugev.npy", 2, 1e-6, nan_check=True))
    outs = ["o.eigenvec", "o.eigenval", "o.eigenvec.var", "o.afreq", "o.svg", "o.zarr", "pl.eigenval", "pl.eigenvec", "pl.log",
            "pl.eigenvec.allele"]
    for m in ["exact", "randomized"]:
        extra = ["--tolerance", "1e-7"] if m == "randomized" else []
        add(C, "pca-monomorphic-every-10th-%s-vs-plink2" % m,
            ["pca", "mono", "-k", "5", "--method", m, "--out", "o", "-q"] + extra, 0, files=["mono.bed", "mono.bim",
                                                                                            "mono.fam"],
            allowed=outs, check=plink_check("mono", 5))
    add(C, "pca-exact-variants<samples-vs-plink2", ["pca", "wide", "-k", "5", "--method", "exact", "--out", "o", "-q"],
        0, files=["wide.bed", "wide.bim", "wide.fam"], allowed=outs, check=plink_check("wide", 5))
    add(C, "pca-base-default-vs-plink2", ["pca", "base", "-k", "4", "--out", "o", "-q"], 0, files=BASE,
        allowed=outs, check=plink_check("base", 4))

    def tol_check(d, p):
        err = p.stderr.decode(errors="replace")
        if "did not meet --tolerance" in err:
            return None
        try:
            rep = json.load(open(os.path.join(d, "r.json")))
        except Exception as e:
            return "no readable report: %s" % e
        found = {}

        def walk(x):
            if isinstance(x, dict):
                for k, v in x.items():
                    if k in ("converged", "error_estimate", "error_estimates", "max_error_estimate"):
                        found.setdefault(k, v)
                    walk(v)
            elif isinstance(x, list):
                for v in x:
                    walk(v)
        walk(rep)
        if found.get("converged") is not True:
            return "report says converged=%r and no 'did not meet --tolerance' warning on stderr" % found.get("converged")
        est = found.get("error_estimate", found.get("error_estimates", found.get("max_error_estimate")))
        vals = est if isinstance(est, list) else [est]
        if est is None or any(v is None or v > 1e-8 for v in vals):
            return "report says converged but estimates %r exceed --tolerance 1e-8" % (est,)
        return None
    add(C, "pca-randomized-tolerance-tiny-cohort", ["pca", "tinyc", "-k", "2", "--method", "randomized",
                                                    "--tolerance", "1e-8", "--out", "o", "--report", "r.json", "-q"],
        0, files=["tinyc.bed", "tinyc.bim", "tinyc.fam"], allowed=outs + ["r.json"], check=tol_check)
    add(C, "pca-randomized-tolerance-base", ["pca", "base", "-k", "3", "--method", "randomized",
                                             "--tolerance", "1e-8", "--out", "o", "--report", "r.json", "-q"],
        0, files=BASE, allowed=outs + ["r.json"], check=tol_check)
