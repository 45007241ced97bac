"""strata.pca straight from a .vcf.gz equals strata.pca of the .bed `strata convert` makes of it."""
import subprocess

import numpy as np


def test_pca_from_vcf_equals_its_converted_bed(vcf_dir, strata_cli, tmp_path):
    import strata

    vcf = vcf_dir / "chr22.vcf.gz"
    bed = tmp_path / "chr22.bed"
    # Commands keep multi-allelic sites as non-REF dosage; convert to .bed skips them by default.
    subprocess.run([strata_cli, "convert", "-q", str(vcf), str(bed), "--multiallelic", "nonref"], check=True)
    a = strata.pca(str(vcf), k=3, threads=2)
    b = strata.pca(str(bed), k=3, threads=2)
    np.testing.assert_array_equal(a.eigenvalues, b.eigenvalues)
    np.testing.assert_array_equal(a.eigenvectors, b.eigenvectors)
    np.testing.assert_array_equal(a.sample_ids, b.sample_ids)
    assert a.eigenvectors.shape == (100, 3)
