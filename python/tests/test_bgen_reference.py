"""strata's BGEN reader against an independent one: cbgen (PyPI `cbgen` 1.0.6, the BGEN C library).

cbgen reads the probabilities without plink2's quantization, so the expected values are derived
here: ALT dosage = P(het) + 2 P(hom ALT) with the first allele as REF (plink2's `ref-first`);
dosages agree to plink2's 1/16384 grid, and hard calls (within 0.1 of 0/1/2, plink2's default
--hard-call-threshold) are compared away from the threshold, where that rounding cannot move a call.
"""
import subprocess

import numpy as np
import pytest

import strata

cbgen = pytest.importorskip("cbgen", reason="cbgen (pin 1.0.6) is not installed")


def make_bgen(plink2, tmp_path, spec):
    subprocess.run([plink2, "--dummy", "31", "120", "0.05", "acgt", "dosage-freq=0.5",
                    "--make-pgen", "--out", str(tmp_path / "d"), "--seed", "5"],
                   check=True, capture_output=True)
    subprocess.run([plink2, "--pfile", str(tmp_path / "d"), "--export", *spec.split(), "ref-first",
                    "--out", str(tmp_path / "e")], check=True, capture_output=True)
    return str(tmp_path / "e.bgen")


def read_with_cbgen(path, tmp_path):
    """(variants x samples) ALT dosages (NaN missing) and the sample IDs, read by cbgen."""
    with cbgen.bgen_file(path) as bgen:
        samples = None  # layout 1 (bgen-1.1) stores no sample IDs
        if bgen.contain_samples:
            samples = [s.decode() if isinstance(s, bytes) else str(s) for s in bgen.read_samples()]
        meta_path = tmp_path / "e.metafile"
        bgen.create_metafile(meta_path, verbose=False)
        rows = []
        with cbgen.bgen_metafile(meta_path) as meta:
            for p in range(meta.npartitions):
                for offset in meta.read_partition(p).variants.offset:
                    g = bgen.read_genotype(int(offset))
                    prob = np.asarray(g.probability, dtype=np.float64)  # samples x 3 (unphased diploid)
                    rows.append(prob[:, 1] + 2 * prob[:, 2])
    return np.vstack(rows), samples


# cbgen cannot index layout 1 (bgen-1.1): its metafile creation fails there; the C++ tests hold
# layout 1 to plink2's own reading.
@pytest.mark.parametrize("spec", ["bgen-1.2 bits=8", "bgen-1.3 bits=16", "bgen-1.3 bits=5"])
def test_bgen_equals_cbgen(plink2, tmp_path, spec):
    path = make_bgen(plink2, tmp_path, spec)
    alt, samples = read_with_cbgen(path, tmp_path)
    g = strata.open_genotypes(path)
    got = np.asarray(g[:, :])
    assert got.shape == alt.shape
    nearest = np.round(alt)
    called = np.abs(alt - nearest) <= 0.1
    clear = np.isnan(alt) | (np.abs(np.abs(alt - nearest) - 0.1) > 1e-3)
    expected = np.where(np.isnan(alt) | ~called, -1, nearest)
    np.testing.assert_array_equal(got[clear], expected[clear].astype(np.int8))
    assert (~called[~np.isnan(alt)]).any(), "the data must hold fractional dosages"
    if samples is not None:
        assert list(g.sample_ids) == samples
