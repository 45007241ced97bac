"""Probe cases from real cohorts: sex chromosomes, pedigrees, `.fam`/`.bim` variants plink2 reads
(or refuses), and degenerate distance inputs. Answers are checked against plink2 / plink 1.9 run
on the same files in the case directory."""

import os
import subprocess

import numpy as np

from probe_harness import add, write

C = "cohort"
PLINK2 = "/usr/bin/plink2"
PLINK19 = "/usr/bin/plink1.9"
BED_CODE = {2: 0b00, 1: 0b10, 0: 0b11, -1: 0b01}  # ALT dosage -> .bed bits


def cohort(n=203, children=False, names=None, seed=7):
    """(fam, bim, bed) text/bytes: 22 autosomes, X, Y, XY, MT; males haploid on X/Y with a few
    heterozygous haploid calls; females with noise on Y; 2 % missing; N mod 4 != 0."""
    rng = np.random.default_rng(seed)
    sex = rng.choice([1, 2, 0], size=n, p=[0.48, 0.48, 0.04])
    blocks = [(str(c), 30) for c in range(1, 23)] + [("X", 150), ("Y", 40), ("XY", 30), ("MT", 30)]
    names = names or {}
    rows, bim = [], []
    for c, m in blocks:
        for j in range(m):
            p = rng.uniform(0.05, 0.95)
            g = rng.binomial(2, p, size=n)
            hap = rng.binomial(1, p, size=n) * 2
            if c == "X":
                g = np.where(sex == 1, np.where(rng.uniform(size=n) < 0.01, 1, hap), g)
            elif c == "Y":
                g = np.where(sex == 1, hap, np.where((sex == 2) & (rng.uniform(size=n) < 0.2), g, -1))
            elif c == "MT":
                g = np.where(rng.uniform(size=n) < 0.01, 1, hap)
            g = np.where(rng.uniform(size=n) < 0.02, -1, g)
            rows.append(g)
            name = names.get(c, [c])[j % len(names.get(c, [c]))]
            bim.append("%s\tv%d\t0\t%d\tA\tG" % (name, len(bim), 1000 * (j + 1)))
    nb = (n + 3) // 4
    bed = bytearray(b"\x6c\x1b\x01")
    for g in rows:
        b = bytearray(nb)
        for i, x in enumerate(g):
            b[i // 4] |= BED_CODE[int(x)] << (2 * (i % 4))
        bed += b
    fam = "".join("F%d\tI%d\t%s\t%d\t%d\n" % (i, i, "I0\tI1" if children and i % 5 == 4 else "0\t0", sex[i],
                                               1 + (i % 2)) for i in range(n))
    return fam, "\n".join(bim) + "\n", bytes(bed)


def setup_cohort(prefix="c", **kw):
    def f(d):
        fam, bim, bed = cohort(**kw)
        write(os.path.join(d, prefix + ".fam"), fam)
        write(os.path.join(d, prefix + ".bim"), bim)
        write(os.path.join(d, prefix + ".bed"), bed, "wb")
    return f


def edit(prefix, ext, fn):
    """Setup: rewrite PREFIX.EXT through fn(text)."""
    def f(d):
        path = os.path.join(d, prefix + "." + ext)
        write(path, fn(open(path).read()))
    return f


def chain(*fs):
    def f(d):
        for g in fs:
            g(d)
    return f


def plink2(d, args):
    r = subprocess.run([PLINK2] + args + ["--threads", "1"], cwd=d, capture_output=True)
    return None if r.returncode == 0 else "plink2 failed: %s" % r.stdout.decode(errors="replace")[-300:]


def same_files(*pairs):
    def f(d):
        for a, b in pairs:
            if open(os.path.join(d, a), "rb").read() != open(os.path.join(d, b), "rb").read():
                return "%s differs from plink2's %s" % (a, b)
        return None
    return f


def freq_vs_plink2(prefix="c", extra=()):
    def check(d, p):
        why = plink2(d, ["--bfile", prefix, "--freq", "--missing", "variant-only", "--out", "p2"] + list(extra))
        return why or same_files(("s.afreq", "p2.afreq"), ("s.vmiss", "p2.vmiss"))(d)
    return check


def numbers(path):
    return np.array([float(x) for line in open(path) for x in line.split()])


def close_to_plink2(ours, plink_args, theirs, tol, rel=False):
    def check(d, p):
        why = plink2(d, plink_args)
        if why:
            return why
        a, b = numbers(os.path.join(d, ours)), numbers(os.path.join(d, theirs))
        if a.shape != b.shape:
            return "%s has %d values, plink2's %s %d" % (ours, a.size, theirs, b.size)
        err = np.abs(a - b) / (np.abs(b) if rel else 1)
        return None if err.max() <= tol else "%s differs from plink2 by %.3g" % (ours, err.max())
    return check


def cases_cohort():
    have2 = os.path.exists(PLINK2)
    gate2 = (lambda: None) if have2 else (lambda: "plink2 absent (%s)" % PLINK2)
    freq_out = ["s.afreq", "s.vmiss"]
    # Sex chromosomes, pedigrees, names.
    add(C, "freq-X-Y-XY-MT-vs-plink2", ["freq", "c", "--out", "s", "-q"], 0, setup=setup_cohort(),
        allowed=freq_out, check=freq_vs_plink2(), gate=gate2)
    add(C, "freq-non-founders-vs-plink2", ["freq", "c", "--out", "s", "-q"], 0, setup=setup_cohort(children=True),
        allowed=freq_out, check=freq_vs_plink2(), gate=gate2)
    spellings = {"1": ["chr1"], "2": ["Chr2"], "X": ["chrX", "23"], "Y": ["chrY", "24"], "XY": ["25"],
                 "MT": ["chrM", "M", "26"]}
    add(C, "freq-chromosome-spellings-vs-plink2", ["freq", "c", "--out", "s", "-q"], 0,
        setup=setup_cohort(names=spellings), allowed=freq_out, check=freq_vs_plink2(), gate=gate2)
    n_non_auto = 150 + 40 + 30
    for cmd, calc, args, outs in [
            ("king", "KING-robust calculation", ["king", "c", "--out", "s"], ["s.king", "s.king.id"]),
            ("grm", "GRM construction", ["grm", "c", "--out", "s"], ["s.rel", "s.rel.id"]),
            ("pca", "PCA", ["pca", "c", "-k", "3", "--method", "exact", "--out", "s"],
             ["s.eigenvec", "s.eigenval", "s.eigenvec.var", "s.afreq", "s.zarr", "s.svg"]),
            ("distance", "the distance calculation", ["distance", "c", "--metric", "ibs", "--out", "s"],
             ["s.dist", "s.dist.id"])]:
        check = None
        if cmd == "king":
            check = close_to_plink2("s.king", ["--bfile", "c", "--make-king", "triangle", "--out", "p2"], "p2.king", 5e-7)
        elif cmd == "grm":
            check = close_to_plink2("s.rel", ["--bfile", "c", "--make-rel", "triangle", "--out", "p2"], "p2.rel", 2e-6)
        elif cmd == "pca":
            check = close_to_plink2("s.eigenval", ["--bfile", "c", "--pca", "3", "meanimpute", "--out", "p2"],
                                    "p2.eigenval", 1e-5, rel=True)
        add(C, "%s-skips-X-Y-MT-as-plink2" % cmd, args, 0, setup=setup_cohort(), allowed=outs, check=check,
            stderr_must="Excluding %d variants on non-autosomes from %s." % (n_non_auto, calc),
            gate=gate2 if check else None)
    def snplist_check(flags):
        def check(d, p):
            why = plink2(d, ["--bfile", "c"] + flags + ["--write-snplist", "--out", "p2"])
            if why:
                return why
            ours = [l.split("\t")[1] for l in open(os.path.join(d, "s.afreq")).read().splitlines()[1:]]
            theirs = open(os.path.join(d, "p2.snplist")).read().split()
            return None if ours == theirs else "kept %d variants, plink2 %d" % (len(ours), len(theirs))
        return check
    for flags in (["--maf", "0.2"], ["--geno", "0.02"], ["--hwe", "0.01"], ["--hwe", "0.3"], ["--mind", "0.02"]):
        add(C, "freq%s-on-X-Y-MT-vs-plink2" % "".join(flags), ["freq", "c", "--out", "s", "-q"] + flags, 0,
            setup=setup_cohort(children=True), allowed=freq_out, check=snplist_check(flags), gate=gate2)
    def gwas_setup(d):
        setup_cohort()(d)
        rows = ["#FID\tIID\tQ\tB"] + ["F%d\tI%d\t%.6f\t%d" % (i, i, np.sin(1.3 * i), 1 + (i % 3 == 0)) for i in range(203)]
        write(os.path.join(d, "ph.txt"), "\n".join(rows) + "\n")

    def gwas_check(d, p):
        why = plink2(d, ["--bfile", "c", "--pheno", "ph.txt", "--glm", "allow-no-covars", "hide-covar", "--out", "p2"])
        if why:
            return why
        for f, est in ((".Q.glm.linear", 8), (".B.glm.logistic.hybrid", 9)):
            a = [l.split("\t") for l in open(os.path.join(d, "s" + f)).read().splitlines()]
            b = [l.split("\t") for l in open(os.path.join(d, "p2" + f)).read().splitlines()]
            if len(a) != len(b):
                return "%s: %d rows, plink2 %d" % (f, len(a), len(b))
            for x, y in zip(a[1:], b[1:]):
                if x[0] not in ("X", "Y", "MT", "XY"):
                    continue
                if x[:est] != y[:est] or x[-1] != y[-1]:
                    return "%s: row %s differs from plink2's: %s vs %s" % (f, x[2], x[:est], y[:est])
                if y[est] != "NA" and abs(float(x[est]) - float(y[est])) > 1e-4 * abs(float(y[est])):
                    return "%s: row %s estimate %s, plink2 %s" % (f, x[2], x[est], y[est])
        return None
    add(C, "gwas-X-Y-MT-models-vs-plink2", ["gwas", "c", "--pheno", "ph.txt", "--out", "s", "-q"], 0,
        setup=gwas_setup, allowed=["s.Q.glm.linear", "s.B.glm.logistic.hybrid"], check=gwas_check, gate=gate2)
    def covar_setup(d):
        gwas_setup(d)
        r = np.random.default_rng(2)
        rows = ["#FID\tIID\tPOP\tAGE\tEMPTY"] + ["F%d\tI%d\t%s\t%.2f\tNA" % (i, i, r.choice(["EUR", "AFR", "EAS"]),
                                                                            r.normal(50, 10)) for i in range(203)]
        write(os.path.join(d, "cv.txt"), "\n".join(rows) + "\n")

    def covar_check(d, p):
        why = plink2(d, ["--bfile", "c", "--pheno", "ph.txt", "--pheno-name", "Q", "--covar", "cv.txt", "--glm",
                         "hide-covar", "--out", "p2"])
        if why:
            return why
        a, b = open(os.path.join(d, "s.Q.glm.linear")).read().splitlines(), open(os.path.join(d, "p2.Q.glm.linear")).read().splitlines()
        if len(a) != len(b):
            return "%d rows, plink2 %d" % (len(a), len(b))
        for x, y in zip(a, b):
            x, y = x.split("\t"), y.split("\t")
            if x[:11] != y[:11]:
                return "row %s differs from plink2's: %s vs %s" % (x[2], x[:11], y[:11])
        return None
    add(C, "gwas-categorical-and-empty-covariates-vs-plink2", ["gwas", "c", "--pheno", "ph.txt", "--pheno-name", "Q",
                                                               "--covar", "cv.txt", "--out", "s"], 0,
        setup=covar_setup, allowed=["s.Q.glm.linear"], check=covar_check, stderr_must="'POP' is categorical", gate=gate2)

    def bom_setup(d):
        gwas_setup(d)
        t = open(os.path.join(d, "ph.txt")).read()
        write(os.path.join(d, "ph.txt"), "\ufeff##exported\n" + t)
    add(C, "gwas-pheno-with-bom-and-comment", ["gwas", "c", "--pheno", "ph.txt", "--pheno-name", "Q", "--out", "s", "-q"], 0,
        setup=bom_setup, allowed=["s.Q.glm.linear"], check=lambda d, p: None if os.path.exists(os.path.join(d, "s.Q.glm.linear"))
        else "no s.Q.glm.linear (the header was not read as one)")
    def headerless_setup(d):
        gwas_setup(d)
        t = open(os.path.join(d, "ph.txt")).read().splitlines()[1:]
        write(os.path.join(d, "ph.txt"), "\n".join("\t".join(l.split("\t")[:3]) for l in t) + "\n")

    def headerless_check(d, p):
        why = plink2(d, ["--bfile", "c", "--pheno", "ph.txt", "--glm", "allow-no-covars", "hide-covar", "--out", "p2"])
        if why:
            return why
        theirs = sorted(f[3:] for f in os.listdir(d) if f.startswith("p2.") and ".glm." in f and "PHENO1" not in f)
        ours = sorted(f[2:] for f in os.listdir(d) if f.startswith("s.") and ".glm." in f)
        return None if ours == theirs else "outputs %s, plink2 %s (its PHENO1 is the .fam's phenotype)" % (ours, theirs)
    add(C, "gwas-headerless-pheno-named-as-plink2", ["gwas", "c", "--pheno", "ph.txt", "--out", "s", "-q"], 0,
        setup=headerless_setup, allowed=["s.PHENO2.glm.linear"], check=headerless_check, gate=gate2)
    def sheet_setup(d):
        setup_cohort()(d)
        rows = ["FID\tIID\tdad\tmom\tsex\tpheno\tpopulation"] + [
            "F%d\tI%d\t0\t0\t1\t0\t%s" % (i, i, ("EUR", "AFR", "EAS")[i % 3]) for i in range(203)]
        write(os.path.join(d, "sheet.txt"), "\n".join(rows) + "\n")

    def sheet_check(d, p):
        svg = open(os.path.join(d, "s.svg")).read()
        for pop in ("EUR (68)", "AFR (68)", "EAS (67)"):
            if pop not in svg:
                return "legend lacks %r (the population column was not the one read)" % pop
        return None
    add(C, "pca-pop-file-sample-sheet-by-column-name", ["pca", "c", "-k", "2", "--method", "exact", "--pop-file",
                                                        "sheet.txt", "--out", "s", "-q"], 0, setup=sheet_setup,
        allowed=["s.eigenvec", "s.eigenval", "s.eigenvec.var", "s.afreq", "s.zarr", "s.svg"], check=sheet_check)
    add(C, "king-on-X-only-refused", ["king", "c", "--chr", "X", "--out", "s", "-q"], 1, setup=setup_cohort())
    add(C, "freq-autosome", ["freq", "c", "--autosome", "--out", "s"], 0, setup=setup_cohort(), allowed=freq_out,
        stderr_must="--autosome: 660 variants remaining.")
    add(C, "freq-autosome-xy", ["freq", "c", "--autosome-xy", "--out", "s"], 0, setup=setup_cohort(), allowed=freq_out,
        stderr_must="--autosome-xy: 690 variants remaining.")
    # .fam headers and columns (N = 203: a header read as a sample shifts every ID silently).
    hdr = "#FID\tIID\tPAT\tMAT\tSEX\tPHENO1\n"
    add(C, "fam-header-line-vs-plink2", ["freq", "c", "--out", "s", "-q"], 0,
        setup=chain(setup_cohort(), edit("c", "fam", lambda t: hdr + t)), allowed=freq_out,
        check=freq_vs_plink2(), gate=gate2)
    add(C, "fam-iid-sex-header-vs-plink2", ["freq", "c", "--out", "s", "-q"], 0,
        setup=chain(setup_cohort(), edit("c", "fam", lambda t: "##made by hand\n#IID\tSEX\n" + "".join(
            "%s\t%s\n" % (f[1], f[4]) for f in (l.split() for l in t.splitlines())))),
        allowed=freq_out, check=freq_vs_plink2(), gate=gate2)
    add(C, "fam-7-columns-vs-plink2", ["freq", "c", "--out", "s", "-q"], 0,
        setup=chain(setup_cohort(), edit("c", "fam", lambda t: t.replace("\n", "\textra\n"))), allowed=freq_out,
        check=freq_vs_plink2(), gate=gate2)
    add(C, "fam-header-after-samples", ["freq", "c", "--out", "s", "-q"], 1,
        setup=chain(setup_cohort(), edit("c", "fam", lambda t: t + hdr)))
    add(C, "fam-blank-line-inside", ["freq", "c", "--out", "s", "-q"], 1,
        setup=chain(setup_cohort(), edit("c", "fam", lambda t: t.replace("\n", "\n\n", 1))))
    # .bim columns and limits.
    add(C, "bim-5-columns-vs-plink2", ["freq", "c", "--out", "s", "-q"], 0,
        setup=chain(setup_cohort(), edit("c", "bim", lambda t: "".join(
            "\t".join(f[:2] + f[3:]) + "\n" for f in (l.split() for l in t.splitlines())))),
        allowed=freq_out, check=freq_vs_plink2(), gate=gate2)
    add(C, "bim-7-columns-vs-plink2", ["freq", "c", "--out", "s", "-q"], 0,
        setup=chain(setup_cohort(), edit("c", "bim", lambda t: t.replace("\n", "\tx\n"))), allowed=freq_out,
        check=freq_vs_plink2(), gate=gate2)

    def set_field(line_no, col, value):
        def fn(t):
            lines = t.splitlines()
            f = lines[line_no].split("\t")
            f[col] = value
            lines[line_no] = "\t".join(f)
            return "\n".join(lines) + "\n"
        return fn
    add(C, "bim-negative-position-skipped-vs-plink2", ["freq", "c", "--out", "s"], 0,
        setup=chain(setup_cohort(), edit("c", "bim", set_field(5, 3, "-7"))), allowed=freq_out,
        check=freq_vs_plink2(), stderr_must="negative position", gate=gate2)
    for name, col, value in [("chromosome-99", 0, "99"), ("position-2^31", 3, "2147483648"), ("hex-cM", 2, "0x1p3"),
                             ("inf-cM", 2, "inf")]:
        add(C, "bim-%s-refused" % name, ["freq", "c", "--out", "s", "-q"], 1,
            setup=chain(setup_cohort(), edit("c", "bim", set_field(5, col, value))))
    add(C, "bim-blank-line-inside", ["freq", "c", "--out", "s", "-q"], 1,
        setup=chain(setup_cohort(), edit("c", "bim", lambda t: t.replace("\n", "\n\n", 1))))
    # A VCF sample name a .fam cannot hold.
    vcf = ("##fileformat=VCFv4.2\n##contig=<ID=1>\n##FORMAT=<ID=GT,Number=1,Type=String,Description=\"g\">\n"
           "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\ta b\tc\n1\t10\t.\tA\tG\t.\t.\t.\tGT\t0/1\t1/1\n")
    add(C, "convert-vcf-sample-with-space-to-bed", ["convert", "sp.vcf", "o.bed", "-q"], 1,
        setup=lambda d: write(os.path.join(d, "sp.vcf"), vcf))
    # Distances: an infinity in a numeric array; an all-missing sample's diagonal.

    def inf_array(d):
        import zarr
        x = np.ones((5, 4))
        x[3, 2] = np.inf
        zarr.open_array(os.path.join(d, "inf.zarr"), mode="w", shape=x.shape, dtype="f8")[:] = x
    add(C, "distance-numeric-inf-refused", ["distance", "inf.zarr", "--metric", "euclidean", "--out", "s", "-q"], 1,
        setup=inf_array)

    def all_missing(d):
        setup_cohort(n=11)(d)
        b = bytearray(open(os.path.join(d, "c.bed"), "rb").read())
        for r in range(3, len(b), 3):
            b[r + 1] = (b[r + 1] & 0xF3) | 0x04  # sample 5 missing everywhere
        write(os.path.join(d, "c.bed"), bytes(b), "wb")

    def diag_check(d, p):
        a = [np.array(l.split(), dtype=float) for l in open(os.path.join(d, "s.dist"))]
        if a[5][5] != 1.0:
            return "diagonal of the all-missing sample is %r, plink 1.9 writes 1" % a[5][5]
        if os.path.exists(PLINK19):
            r = subprocess.run([PLINK19, "--bfile", "c", "--distance", "square", "ibs", "flat-missing", "--out", "p1",
                                "--autosome-xy"], cwd=d, capture_output=True)
            if r.returncode != 0:
                return "plink1.9 failed"
            b = [np.array(l.split(), dtype=float) for l in open(os.path.join(d, "p1.mibs"))]
            if not all(np.allclose(x, y, atol=1e-6, rtol=0, equal_nan=True) for x, y in zip(a, b)):
                return "s.dist differs from plink 1.9's .mibs"
        return None
    add(C, "distance-ibs-all-missing-sample-diagonal", ["distance", "c", "--metric", "ibs", "--format", "square",
                                                        "--out", "s", "-q"], 0,
        setup=all_missing, allowed=["s.dist", "s.dist.id"], check=diag_check)
