"""strata's BGEN reader against an independent one, bgen-reader (PyPI `bgen-reader`, pin 4.0.9).

bgen-reader is not in requirements.txt yet: the test skips until it is installed. It reads the
probabilities without plink2's quantization, so the expected hard calls are derived here:
ALT dosage = P(het) + 2 P(hom ALT) with the first allele as REF (plink2's `ref-first`), called
when within 0.1 of 0/1/2 (plink2's default --hard-call-threshold) and compared away from the
threshold, where 1/16384 rounding cannot move a call.
"""
import subprocess

import numpy as np
import pytest

import strata

bgen_reader = pytest.importorskip("bgen_reader", reason="bgen-reader (pin 4.0.9) is not installed")


def make_bgen(plink2, tmp_path, spec):
    subprocess.run([plink2, "--dummy", "31", "120", "0.05", "acgt", "dosage-freq=0.5",
                    "--make-pgen", "--out", str(tmp_path / "d"), "--seed", "5"],
                   check=True, capture_output=True)
    subprocess.run([plink2, "--pfile", str(tmp_path / "d"), "--export", *spec.split(), "ref-first",
                    "--out", str(tmp_path / "e")], check=True, capture_output=True)
    return str(tmp_path / "e.bgen")


@pytest.mark.parametrize("spec", ["bgen-1.1", "bgen-1.2 bits=8", "bgen-1.3 bits=16"])
def test_hard_calls_equal_bgen_reader(plink2, tmp_path, spec):
    path = make_bgen(plink2, tmp_path, spec)
    bgen = bgen_reader.open_bgen(path, verbose=False)
    probs = bgen.read()  # (samples, variants, 3): P(AA), P(AB), P(BB); NaN when missing
    alt = probs[:, :, 1] + 2 * probs[:, :, 2]
    nearest = np.round(alt)
    called = np.abs(alt - nearest) <= 0.1
    clear = np.isnan(alt) | (np.abs(np.abs(alt - nearest) - 0.1) > 1e-3)
    expected = np.where(np.isnan(alt) | ~called, -1, nearest).T  # variants x samples
    got = np.asarray(strata.open_genotypes(path)[:, :])
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got[clear.T], expected[clear.T].astype(np.int8))
    assert list(strata.open_genotypes(path).sample_ids) == list(bgen.samples)
