"""`strata convert` VCF/BCF -> VCF Zarr against bio2zarr's vcf2zarr on the shared edge-case VCFs:
every array both write (fixed fields, QUAL, FILTER, IDs, contigs, samples, calls) must hold the
same values; float arrays are compared bit for bit (the spec's missing NaN included)."""
import subprocess

import numpy as np
import pytest

bio2zarr_vcf = pytest.importorskip("bio2zarr.vcf", reason="bio2zarr is not installed (requirements.txt pins it)")
zarr = pytest.importorskip("zarr")

# bio2zarr reads only indexed files when they hold several contigs; the shared data's unindexed
# multi-contig files (field_type_combos, sample_all_missing_gts) are left to strata's own tests.
FILES = ["sample.vcf.gz", "sample.bcf", "chr22.vcf.gz", "1kg_2020_chrM.vcf.gz", "multi_contig.vcf.gz",
         "mixed_ploidy.vcf.gz"]

ARRAYS = ["variant_position", "variant_contig", "variant_id", "variant_id_mask", "variant_allele",
          "variant_quality", "variant_filter", "filter_id", "filter_description", "contig_id", "contig_length",
          "sample_id", "call_genotype", "call_genotype_mask", "call_genotype_phased"]


def values(group, name):
    a = group[name][:]
    if a.dtype.kind in "OTU":  # vlen / StringDType / fixed strings alike
        return np.array([str(x) for x in a.ravel()], dtype=object).reshape(a.shape)
    return a


@pytest.mark.parametrize("name", FILES)
def test_convert_matches_bio2zarr(name, vcf_dir, strata_cli, tmp_path):
    vcf = vcf_dir / name
    if not vcf.exists():
        pytest.skip(f"{vcf} is not in the shared data")
    ours, theirs = tmp_path / "strata.vcz", tmp_path / "bio2zarr.vcz"
    subprocess.run([strata_cli, "convert", str(vcf), str(ours), "-q"], check=True)
    bio2zarr_vcf.convert([str(vcf)], str(theirs))
    a, b = zarr.open_group(ours, mode="r"), zarr.open_group(theirs, mode="r")
    assert a.attrs["vcf_zarr_version"] == "0.4"
    compared = []
    for k in ARRAYS:
        assert (k in a) == (k in b), f"{k}: strata writes it {k in a}, bio2zarr {k in b}"
        if k not in a:
            continue
        x, y = values(a, k), values(b, k)
        assert x.shape == y.shape, (k, x.shape, y.shape)
        if x.dtype.kind == "f":
            assert x.dtype == y.dtype, (k, x.dtype, y.dtype)
            bits = np.uint32 if x.itemsize == 4 else np.uint64
            np.testing.assert_array_equal(x.view(bits), y.view(bits), err_msg=k)
        else:
            np.testing.assert_array_equal(x, y, err_msg=k)
        assert list(a[k].attrs["_ARRAY_DIMENSIONS"]) == list(b[k].attrs["_ARRAY_DIMENSIONS"]), k
        compared.append(k)
    for k in ["variant_quality", "variant_filter", "filter_id", "filter_description", "variant_id_mask"]:
        assert k in compared, f"{k} was not written"


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
