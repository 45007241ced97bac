"""`strata convert` VCF/BCF -> VCF Zarr against bio2zarr's vcf2zarr on the shared edge-case VCFs
and a VCF with every kind of field: every array bio2zarr writes (fixed fields, QUAL, FILTER, IDs,
contigs, samples, calls, each INFO and FORMAT field) must hold the same values with the same
dtype, dimensions and fill value; floats are compared bit for bit (missing/fill NaNs included).
sgkit must load the store with integer calls, and strata.pca of the loaded Dataset must equal
strata.pca of the .bed it came from."""
import os
import subprocess

import numpy as np
import pytest

bio2zarr_vcf = pytest.importorskip("bio2zarr.vcf", reason="bio2zarr is not installed (requirements.txt pins it)")
zarr = pytest.importorskip("zarr")

# bio2zarr reads only indexed files when they hold several contigs; the unindexed multi-contig
# files (field_type_combos, sample_all_missing_gts) are indexed in a temporary copy (bcftools).
FILES = ["sample.vcf.gz", "sample.bcf", "chr22.vcf.gz", "1kg_2020_chrM.vcf.gz", "multi_contig.vcf.gz",
         "mixed_ploidy.vcf.gz", "field_type_combos.vcf.gz", "sample_all_missing_gts.vcf.gz"]

# bio2zarr arrays strata does not write: region_index is bio2zarr's own index of chunk regions
# (not in the VCF Zarr spec; readers do not need it).
NOT_WRITTEN = {"region_index"}


def values(group, name):
    a = group[name][:]
    if a.dtype.kind in "OTU":  # vlen / StringDType / fixed strings alike
        return np.array([str(x) for x in a.ravel()], dtype=object).reshape(a.shape)
    return a


def indexed(vcf, tmp_path):
    """`vcf`, or a bgzipped, indexed copy when bio2zarr needs one (bcftools)."""
    import shutil

    if vcf.suffix == ".bcf" or any(vcf.with_name(vcf.name + x).exists() for x in (".tbi", ".csi")):
        return vcf
    bcftools = shutil.which("bcftools")
    if bcftools is None:
        pytest.skip(f"{vcf.name} has no index and bcftools is not installed to make one")
    out = tmp_path / (vcf.name.split(".")[0] + ".vcf.gz")
    subprocess.run([bcftools, "view", "-Oz", "-o", str(out), str(vcf)], check=True)
    subprocess.run([bcftools, "index", str(out)], check=True)
    return out


def compare_stores(ours, theirs):
    """Every array bio2zarr writes (but NOT_WRITTEN) has the same values (floats bit for bit),
    dtype, shape, chunks, fill value and dimension names in strata's store."""
    a, b = zarr.open_group(ours, mode="r"), zarr.open_group(theirs, mode="r")
    assert a.attrs["vcf_zarr_version"] == "0.4"
    names = sorted(set(b.array_keys()) - NOT_WRITTEN)
    extra = set(a.array_keys()) - set(b.array_keys())
    assert not extra, f"strata writes arrays bio2zarr does not: {extra}"
    for k in names:
        assert k in a, f"{k}: bio2zarr writes it, strata does not"
        x, y = values(a, k), values(b, k)
        assert x.shape == y.shape, (k, x.shape, y.shape)
        assert a[k].dtype == b[k].dtype or (x.dtype.kind == "O" and y.dtype.kind == "O"), (k, a[k].dtype, b[k].dtype)
        if x.dtype.kind == "f":
            bits = np.uint32 if x.itemsize == 4 else np.uint64
            np.testing.assert_array_equal(x.view(bits), y.view(bits), err_msg=k)
        else:
            np.testing.assert_array_equal(x, y, err_msg=k)
        assert list(a[k].attrs["_ARRAY_DIMENSIONS"]) == list(b[k].attrs["_ARRAY_DIMENSIONS"]), k
        if y.dtype.kind != "O" and y.ndim and "samples" not in b[k].attrs["_ARRAY_DIMENSIONS"]:
            assert a[k].chunks == b[k].chunks, (k, a[k].chunks, b[k].chunks)
        assert (a[k].fill_value is None) == (b[k].fill_value is None), (k, a[k].fill_value, b[k].fill_value)
        if b[k].fill_value is not None:
            assert a[k].fill_value == b[k].fill_value, (k, a[k].fill_value, b[k].fill_value)
    return names


@pytest.mark.parametrize("name", FILES)
def test_convert_matches_bio2zarr(name, vcf_dir, strata_cli, tmp_path):
    vcf = vcf_dir / name
    if not vcf.exists():
        pytest.skip(f"{vcf} is not in the shared data")
    vcf = indexed(vcf, tmp_path)
    ours, theirs = tmp_path / "strata.vcz", tmp_path / "bio2zarr.vcz"
    subprocess.run([strata_cli, "convert", str(vcf), str(ours), "-q"], check=True)
    bio2zarr_vcf.convert([str(vcf)], str(theirs))
    compared = compare_stores(ours, theirs)
    for k in ["variant_quality", "variant_filter", "filter_id", "filter_description", "variant_id_mask",
              "variant_length"]:
        assert k in compared, f"{k} was not written"


FIELDS_VCF = """##fileformat=VCFv4.3
##contig=<ID=1,length=100000>
##FILTER=<ID=PASS,Description="All filters passed">
##FILTER=<ID=q10,Description="Quality below 10">
##INFO=<ID=FL,Number=0,Type=Flag,Description="A flag">
##INFO=<ID=NA,Number=A,Type=Integer,Description="Per ALT">
##INFO=<ID=NR,Number=R,Type=Float,Description="Per allele">
##INFO=<ID=ND,Number=.,Type=String,Description="Any count">
##INFO=<ID=BIG,Number=1,Type=Integer,Description="Needs int32">
##INFO=<ID=S1,Number=1,Type=String,Description="One string">
##INFO=<ID=C1,Number=1,Type=Character,Description="One character">
##INFO=<ID=END,Number=1,Type=Integer,Description="End position">
##FORMAT=<ID=GT,Number=1,Type=String,Description="Genotype">
##FORMAT=<ID=DP,Number=1,Type=Integer,Description="Depth">
##FORMAT=<ID=AD,Number=R,Type=Integer,Description="Allele depths">
##FORMAT=<ID=PL,Number=G,Type=Integer,Description="Likelihoods">
##FORMAT=<ID=GL,Number=G,Type=Float,Description="Log likelihoods">
##FORMAT=<ID=FT,Number=1,Type=String,Description="Sample filter">
##FORMAT=<ID=XS,Number=2,Type=String,Description="Two strings">
##FORMAT=<ID=HQ,Number=2,Type=Float,Description="Haplotype qualities">
#CHROM	POS	ID	REF	ALT	QUAL	FILTER	INFO	FORMAT	S1	S2	S3
1	10	rs1	A	C	30	PASS	FL;NA=3;NR=0.5,.;ND=x,y,z;BIG=70000;S1=hello;C1=q	GT:DP:AD:PL:GL:FT:XS:HQ	0/1:12:5,7:10,0,20:-1,-0.1,-2:PASS:a,b:1.5,2	1|1:.:.,3:.:.:.:c:.	./.:7:2:5,6:-3:lowdp:.:3
1	20	.	G	T,TT	.	q10	NA=1,.;NR=1,2,3;END=25	GT:DP:AD:PL	0/2:3:1,1,1:0,1,2,3,4,5	.:.:.:.	1/2:100:0,50,50:9,9,9
1	30	rs3	C	.	5.5	.	.	GT:FT	0:x	0:.	.:y
1	40	.	T	A	.	.	ND=only;S1=.	GT	0/0	0/1	1/1
"""


def test_every_field_matches_bio2zarr(strata_cli, tmp_path):
    """Number=A/R/G/./n, strings, characters, flags, END and missing values, against vcf2zarr."""
    import shutil

    bcftools = shutil.which("bcftools")
    if bcftools is None:
        pytest.skip("bcftools is not installed (needed to bgzip and index the test VCF)")
    plain = tmp_path / "f.vcf"
    plain.write_text(FIELDS_VCF)
    vcf = tmp_path / "f.vcf.gz"
    subprocess.run([bcftools, "view", "-Oz", "-o", str(vcf), str(plain)], check=True)
    subprocess.run([bcftools, "index", str(vcf)], check=True)
    ours, theirs = tmp_path / "strata.vcz", tmp_path / "bio2zarr.vcz"
    subprocess.run([strata_cli, "convert", str(vcf), str(ours), "-q"], check=True)
    bio2zarr_vcf.convert([str(vcf)], str(theirs))
    compared = compare_stores(ours, theirs)
    for k in ["variant_FL", "variant_NA", "variant_NR", "variant_ND", "variant_BIG", "variant_S1", "variant_C1",
              "call_DP", "call_AD", "call_PL", "call_GL", "call_FT", "call_XS", "call_HQ"]:
        assert k in compared, k
    g = zarr.open_group(ours, mode="r")
    assert g["variant_BIG"].dtype == np.int32 and g["call_DP"].dtype == np.int8
    assert g["call_AD"][1].tolist() == [[1, 1, 1], [-1, -2, -2], [0, 50, 50]]  # "." = missing, then vector end
    assert g["variant_length"][:].tolist() == [1, 6, 1, 1]
    assert values(g, "variant_ND")[0].tolist() == ["x", "y", "z"]


def test_undeclared_filter_is_an_error(strata_cli, tmp_path):
    vcf = tmp_path / "u.vcf"
    vcf.write_text("##fileformat=VCFv4.2\n##contig=<ID=1,length=100>\n"
                   "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype\">\n"
                   "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tS1\n"
                   "1\t5\t.\tA\tC\t.\tlowq\t.\tGT\t0/1\n")
    out = tmp_path / "u.vcz"
    r = subprocess.run([strata_cli, "convert", str(vcf), str(out), "-q"], capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    assert "FILTER 'lowq' is not defined by a ##FILTER header line" in r.stderr
    assert "record 1" in r.stderr
    assert not out.exists()


@pytest.fixture(scope="module")
def hm3_vcf(hapmap3, plink2, tmp_path_factory):
    """3,000 HapMap3 variants as a .bed and as a bgzipped, indexed VCF (plink2)."""
    d = tmp_path_factory.mktemp("hm3vcf")
    sub = str(d / "sub")
    subprocess.run([plink2, "--bfile", hapmap3, "--thin-count", "3000", "--seed", "1", "--make-bed", "--out", sub,
                    "--silent"], check=True)
    subprocess.run([plink2, "--bfile", sub, "--export", "vcf", "bgz", "id-paste=iid", "--out", sub, "--silent"],
                   check=True)
    import shutil

    bcftools = shutil.which("bcftools")
    if bcftools:
        subprocess.run([bcftools, "index", sub + ".vcf.gz"], check=True)
    return sub


@pytest.mark.parametrize("writer", ["strata", "bio2zarr"])
def test_sgkit_loaded_store_pca_equals_bed(writer, hm3_vcf, strata_cli, tmp_path):
    """sgkit decodes the store's calls and positions as integers (no fill value to mask), its
    variant_stats runs, and strata.pca of the Dataset equals strata.pca of the .bed; a Dataset
    whose call_genotype was masked to float NaN (how xarray decodes a store with fill value -1)
    and a mask-only Dataset give the same eigenvalues too."""
    sgkit = pytest.importorskip("sgkit")
    import strata

    store = tmp_path / f"{writer}.vcz"
    if writer == "strata":
        subprocess.run([strata_cli, "convert", hm3_vcf + ".vcf.gz", str(store), "-q"], check=True)
    else:
        if not os.path.exists(hm3_vcf + ".vcf.gz.csi"):
            pytest.skip("bcftools is needed to index the VCF for bio2zarr")
        bio2zarr_vcf.convert([hm3_vcf + ".vcf.gz"], str(store))
    ds = sgkit.load_dataset(str(store))
    assert ds["call_genotype"].dtype == np.int8
    assert ds["variant_position"].dtype.kind == "i" and ds["variant_contig"].dtype.kind == "i"
    stats = sgkit.variant_stats(ds)
    assert stats["variant_call_rate"].values.min() >= 0
    ref = strata.pca(hm3_vcf + ".bed", k=4).eigenvalues
    np.testing.assert_allclose(strata.pca(ds, k=4).eigenvalues, ref, rtol=1e-9)
    # As xarray decodes a store whose call_genotype has fill value -1: float, NaN for -1.
    g = ds["call_genotype"]
    as_float = ds.assign(call_genotype=g.where(g != -1).astype(np.float32))
    assert np.isnan(as_float["call_genotype"].values).any()
    np.testing.assert_allclose(strata.pca(as_float, k=4).eigenvalues, ref, rtol=1e-9)
    # The mask alone marks missing calls (allele 0 underneath).
    masked = ds.assign(call_genotype=g.where(g >= 0, 0), call_genotype_mask=g < 0)
    np.testing.assert_allclose(strata.pca(masked, k=4).eigenvalues, ref, rtol=1e-9)


def test_pca_refuses_non_integer_calls():
    import strata
    import xarray as xr

    g = np.array([[[0, 1.5], [1, 1]], [[0, 0], [np.nan, 1]]], dtype=np.float32)
    ds = xr.Dataset({"call_genotype": (("variants", "samples", "ploidy"), g)})
    with pytest.raises(ValueError, match="non-integer values"):
        strata.pca(ds, k=1)
