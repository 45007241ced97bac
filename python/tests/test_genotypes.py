"""strata.open_genotypes as a duck array: shape, ids, slicing, Dask, against plink2 --export A."""
import subprocess

import numpy as np
import pytest

import strata


def plink2_dosages(plink2, prefix, out):
    """ALT dosages (variants x samples, -1 missing) from `plink2 --export A` (which counts REF)."""
    subprocess.run([plink2, "--bfile", prefix, "--export", "A", "--out", str(out)], check=True,
                   capture_output=True)
    with open(str(out) + ".raw") as f:
        header = f.readline().split()
        rows = [line.split()[6:] for line in f]
    ref = np.array([[-1 if v == "NA" else int(v) for v in row] for row in rows], dtype=np.int8)
    alt = np.where(ref < 0, -1, 2 - ref).astype(np.int8)
    return alt.T, header


def test_shape_dtype_ids(hapmap3):
    g = strata.open_genotypes(hapmap3)
    assert g.shape == (14079, 957)
    assert g.dtype == np.int8 and g.ndim == 2
    assert g.sample_ids[0] == "NA19916" and len(g.sample_ids) == 957
    assert g.variant_ids[0] == "rs4970383" and len(g.variant_ids) == 14079


def test_dask_from_array_equals_plink2_export(hapmap3, plink2, tmp_path):
    import dask.array as da

    g = strata.open_genotypes(hapmap3)
    expected, header = plink2_dosages(plink2, hapmap3, tmp_path / "hm3")
    got = da.from_array(g, chunks=(1000, 400)).compute()
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, expected)
    assert (got == -1).any(), "HapMap3 has missing calls; the test must see some"


def test_slices_and_steps_match_numpy(hm3_dosages, hapmap3):
    g = strata.open_genotypes(hapmap3)
    for key in [(slice(10, 20), slice(5, 9)), (slice(None, None, 7), slice(None, None, -3)), (3, slice(None)),
                (slice(100, 90, -2), 17), (-1, -1), (Ellipsis, slice(2, 4)), (slice(5, 5), slice(None))]:
        np.testing.assert_array_equal(g[key], hm3_dosages[key], err_msg=str(key))


def test_xarray_wraps_genotypes_lazily(hapmap3):
    g = strata.open_genotypes(hapmap3)
    x = g.to_xarray(chunks=(5000, -1))
    assert x.dims == ("variants", "samples") and x.shape == g.shape
    np.testing.assert_array_equal(x[:10].values, g[:10, :])
    assert x.sample_id.values[0] == "NA19916"
