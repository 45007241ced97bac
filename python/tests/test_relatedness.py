"""strata.king, strata.grm and strata.pairwise_distance against scipy and the CLI's outputs."""
import json
import subprocess

import numpy as np
import pytest

import strata

scipy_distance = pytest.importorskip("scipy.spatial.distance")

METRICS = ["euclidean", "sqeuclidean", "cityblock", "chebyshev", "minkowski:3", "cosine", "correlation", "hamming"]


def _scipy(a, metric):
    if metric.startswith("minkowski"):
        return scipy_distance.squareform(scipy_distance.pdist(a, "minkowski", p=float(metric.split(":")[1])))
    return scipy_distance.squareform(scipy_distance.pdist(a, metric))


@pytest.mark.parametrize("metric", METRICS)
def test_numeric_rows_match_scipy_pdist(metric):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((150, 37))
    if metric == "hamming":
        a = rng.integers(0, 3, size=(150, 37)).astype(np.float64)
    d = strata.pairwise_distance(a, metric)
    assert d.shape == (150, 150) and d.dtype == np.float64
    np.testing.assert_allclose(d, _scipy(a, metric), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(strata.pairwise_distance(a.astype(np.float32), metric),
                               _scipy(a.astype(np.float32).astype(np.float64), metric), rtol=1e-9, atol=1e-12)


def test_integer_and_dask_rows_and_missing_values():
    rng = np.random.default_rng(2)
    a = rng.integers(-5, 5, size=(90, 20)).astype(np.int32)
    np.testing.assert_allclose(strata.pairwise_distance(a), _scipy(a.astype(float), "euclidean"), rtol=1e-12)
    da = pytest.importorskip("dask.array")
    np.testing.assert_allclose(strata.pairwise_distance(da.from_array(a, chunks=(30, 20)), "cityblock"),
                               _scipy(a.astype(float), "cityblock"), rtol=1e-12)
    f = a.astype(np.float64)
    f[3, 4] = np.nan
    d = strata.pairwise_distance(f, "cityblock")
    keep = ~np.isnan(f[3]) & ~np.isnan(f[7])  # each pair uses the coordinates both have
    assert d[3, 7] == pytest.approx(np.abs(f[3, keep] - f[7, keep]).sum())
    with pytest.raises(ValueError, match="genotype"):
        strata.pairwise_distance(f, "ibs")
    with pytest.raises(ValueError, match="metric|euclidean"):
        strata.pairwise_distance(f, "nope")


def test_genotype_distance_equals_the_cli(hapmap3, strata_cli, tmp_path, hm3_dosages):
    zarr = pytest.importorskip("zarr")
    for metric in ("ibs", "euclidean", "correlation"):
        out = tmp_path / metric
        subprocess.run([strata_cli, "distance", str(hapmap3), "--metric", metric, "--format", "zarr", "--out", str(out),
                        "-q"], check=True)
        want = zarr.open_group(str(out) + ".dist.zarr", mode="r")["distance"][...]
        np.testing.assert_array_equal(strata.pairwise_distance(hapmap3, metric), want)
        np.testing.assert_array_equal(strata.pairwise_distance(strata.open_genotypes(hapmap3), metric), want)
    # samples are the observations of genotypes: complete dosages equal scipy on the transpose
    sub = hm3_dosages[:4000]
    complete = sub[(sub >= 0).all(axis=1)]
    np.testing.assert_allclose(strata.pairwise_distance(strata.from_dosages(complete), "cityblock"),
                               _scipy(complete.T.astype(float), "cityblock"), rtol=1e-12)


def test_king_equals_the_cli(hapmap3, strata_cli, tmp_path):
    out = tmp_path / "k"
    subprocess.run([strata_cli, "king", str(hapmap3), "--out", str(out), "-q"], check=True)
    k = strata.king(hapmap3)
    n = k.shape[0]
    lines = open(str(out) + ".king").read().splitlines()
    assert len(lines) == n - 1
    for i in (1, 2, n // 2, n - 1):
        want = np.array([float(v) for v in lines[i - 1].split("\t")])
        np.testing.assert_allclose(k[i, :i], want, rtol=5e-6, atol=1e-6)  # the file has 6 digits
    np.testing.assert_array_equal(k, k.T)
    assert np.nanmax(np.abs(np.diag(k) - 0.5)) == 0


def test_grm_equals_the_cli(hapmap3, strata_cli, tmp_path):
    zarr = pytest.importorskip("zarr")
    out = tmp_path / "g"
    subprocess.run([strata_cli, "grm", str(hapmap3), "--format", "zarr", "--out", str(out), "-q"], check=True)
    want = zarr.open_group(str(out) + ".zarr", mode="r")["grm"][...]
    got = strata.grm(hapmap3)
    lower = np.tril_indices(got.shape[0])
    np.testing.assert_array_equal(got[lower], want[lower])
    np.testing.assert_array_equal(got, got.T)
    assert strata.grm(strata.open_genotypes(hapmap3), meanimpute=True).shape == got.shape
    with pytest.raises(ValueError):
        strata.king(np.zeros((10, 1), dtype=np.int8))


def test_grm_maf_and_geno_are_the_cli_selection(strata_cli, tmp_path):
    """maf=/geno= go through the same selection as `strata grm --maf/--geno` (plink2's order,
    MAF among founders), so the values are the CLI's, and something was in fact removed."""
    zarr = pytest.importorskip("zarr")
    data = str(tmp_path / "miss")
    subprocess.run([strata_cli, "simulate", "--samples", "120", "--variants", "3000", "--pops", "2", "--missing",
                    "0.03", "--out", data, "-q"], check=True)
    # Parents for a few samples: founders-only MAF differs from the all-samples MAF.
    fam = open(data + ".fam").read().split("\n")
    rows = [line.split() for line in fam if line.strip()]
    for child in range(0, 30, 3):
        rows[child][2], rows[child][3] = rows[child + 1][1], rows[child + 2][1]
    open(data + ".fam", "w").write("\n".join(" ".join(r) for r in rows) + "\n")
    d = strata.open_genotypes(data)[:, :].astype(float)
    d[d < 0] = np.nan

    def maf(cols):
        f = np.nanmean(d[:, cols], axis=1) / 2
        return np.minimum(f, 1 - f)

    founders = np.ones(d.shape[1], bool)
    founders[0:30:3] = False
    # Some variant is on the other side of 0.05 among the founders: an all-samples MAF would differ.
    assert ((maf(slice(None)) < 0.05) != (maf(founders) < 0.05)).any()
    for flags, kw in (([], {}), (["--maf", "0.05"], dict(maf=0.05)), (["--maf", "0.1", "--geno", "0.035"],
                                                                      dict(maf=0.1, geno=0.035))):
        out = str(tmp_path / ("g" + "".join(flags)))
        subprocess.run([strata_cli, "grm", data, "--format", "zarr", "--out", out, "-q", "--report", out + ".json",
                        *flags], check=True)
        want = zarr.open_group(out + ".zarr", mode="r")["grm"][...]
        got = strata.grm(data, **kw)
        lower = np.tril_indices(got.shape[0])
        np.testing.assert_array_equal(got[lower], want[lower])
        report = json.load(open(out + ".json"))
        if flags:
            assert report["selection"]["removed_maf"] > 0  # the flag did something
            assert report["grm_variants"] < 3000


def _sex_chromosome_cohort(prefix, n=61, seed=3):
    """A .bed/.bim/.fam with autosomes, X, Y, XY and MT (males haploid on X and Y)."""
    rng = np.random.default_rng(seed)
    sex = rng.choice([1, 2], size=n)
    names = [("1", 80), ("chr2", 80), ("chrX", 60), ("Y", 30), ("XY", 20), ("MT", 20)]
    rows, bim = [], []
    for chrom, m in names:
        for j in range(m):
            p = rng.uniform(0.1, 0.9)
            g = rng.binomial(2, p, size=n)
            if chrom in ("chrX", "Y", "MT"):
                hap = 2 * rng.binomial(1, p, size=n)
                g = hap if chrom == "MT" else np.where(sex == 1, hap, g if chrom == "chrX" else 0)
            rows.append(g)
            bim.append(f"{chrom}\tv{len(bim)}\t0\t{1000 * (j + 1)}\tA\tG")
    code = np.array([0b11, 0b10, 0b00])  # ALT dosage 0, 1, 2 -> .bed bits
    nb = (n + 3) // 4
    bed = bytearray(b"\x6c\x1b\x01")
    for g in rows:
        b = np.full(nb * 4, 0b01, dtype=np.uint8)
        b[:n] = code[g]
        b = b.reshape(nb, 4)
        bed += (b[:, 0] | b[:, 1] << 2 | b[:, 2] << 4 | b[:, 3] << 6).astype(np.uint8).tobytes()
    open(prefix + ".bed", "wb").write(bytes(bed))
    open(prefix + ".bim", "w").write("\n".join(bim) + "\n")
    open(prefix + ".fam", "w").write("".join(f"F{i} I{i} 0 0 {sex[i]} -9\n" for i in range(n)))
    return 160  # autosomal variants (XY is kept as well)


def test_python_skips_x_y_mt_as_the_cli(strata_cli, tmp_path):
    # strata.king/grm/pca on a path read the genotypes as `strata king/grm/pca` do: X, Y and MT
    # skipped (plink2's rule); before, the Python API used them and the CLI did not.
    prefix = str(tmp_path / "c")
    _sex_chromosome_cohort(prefix)
    subprocess.run([strata_cli, "king", prefix, "--out", prefix + "_k", "-q"], check=True)
    k = strata.king(prefix)
    lines = open(prefix + "_k.king").read().splitlines()
    for i in range(1, k.shape[0]):
        np.testing.assert_allclose(k[i, :i], [float(v) for v in lines[i - 1].split("\t")], rtol=5e-6, atol=1e-6)
    zarr = pytest.importorskip("zarr")
    subprocess.run([strata_cli, "grm", prefix, "--format", "zarr", "--out", prefix + "_g", "-q"], check=True)
    want = zarr.open_group(prefix + "_g.zarr", mode="r")["grm"][...]
    got = strata.grm(prefix)
    lower = np.tril_indices(got.shape[0])
    np.testing.assert_array_equal(got[lower], want[lower])
    subprocess.run([strata_cli, "pca", prefix, "-k", "3", "--method", "exact", "--out", prefix + "_p", "-q"], check=True)
    r = strata.pca(prefix, k=3, method="exact")
    np.testing.assert_allclose(r.eigenvalues, np.loadtxt(prefix + "_p.eigenval"), rtol=1e-5)
    used = np.asarray(r.variants_used)  # indices of the input's variants: autosomes and XY only
    assert used.max() < 270 and not np.any((used >= 160) & (used < 250))
