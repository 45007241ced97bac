"""strata.pca from every input kind equals `strata pca` (same bits); pca_dataset vs sgkit.pca."""
import numpy as np
import pytest

import strata


def assert_same_bits(r, cli):
    np.testing.assert_array_equal(r.eigenvalues, cli["eigenvalues"])
    np.testing.assert_array_equal(r.eigenvectors, cli["eigenvectors"])
    np.testing.assert_array_equal(r.loadings, cli["loadings"])


def test_path(hapmap3, cli_pca):
    r = strata.pca(hapmap3, k=4)
    assert_same_bits(r, cli_pca)
    np.testing.assert_array_equal(r.sample_ids, cli_pca["sample_id"])
    assert r.eigenvectors.shape == (957, 4)
    assert r.report["threads"] >= 1 and any(p["name"] == "svd" for p in r.report["phases"])


def test_genotype_object(hapmap3, cli_pca):
    assert_same_bits(strata.pca(strata.open_genotypes(hapmap3), k=4, threads=2), cli_pca)


def test_numpy_dosages(hm3_dosages, cli_pca):
    assert_same_bits(strata.pca(hm3_dosages, k=4), cli_pca)
    # Float dosages with NaN for missing, Fortran order: read in place, same codes.
    f = np.asfortranarray(np.where(hm3_dosages < 0, np.nan, hm3_dosages).astype(np.float32))
    assert_same_bits(strata.pca(f, k=4), cli_pca)


def test_dask_array(hm3_dosages, cli_pca):
    import dask.array as da

    x = da.from_array(hm3_dosages, chunks=(3000, 500))
    assert_same_bits(strata.pca(x, k=4), cli_pca)


def sgkit_dataset(dosages, sample_ids, chunks=None):
    import xarray as xr

    gt = np.zeros(dosages.shape + (2,), dtype=np.int8)
    gt[..., 0] = dosages >= 1
    gt[..., 1] = dosages == 2
    gt[dosages < 0] = -1
    ds = xr.Dataset({"call_genotype": (("variants", "samples", "ploidy"), gt),
                     "sample_id": (("samples",), np.asarray(sample_ids, dtype=object))})
    return ds.chunk({"variants": chunks}) if chunks else ds


def test_sgkit_dataset_call_genotype_and_dosage(hm3_dosages, cli_pca):
    ds = sgkit_dataset(hm3_dosages, cli_pca["sample_id"], chunks=4000)
    r = strata.pca(ds, k=4)
    assert_same_bits(r, cli_pca)
    np.testing.assert_array_equal(r.sample_ids, cli_pca["sample_id"])
    ds2 = ds.assign(call_dosage=(("variants", "samples"), hm3_dosages)).drop_vars("call_genotype")
    assert_same_bits(strata.pca(ds2, k=4), cli_pca)


def test_pca_dataset_matches_sgkit_tsqr(hm3_dosages):
    sg = pytest.importorskip("sgkit")
    # No missing calls and no monomorphic variants, so both sides standardize the same data.
    keep = ((hm3_dosages >= 0).all(axis=1)) & (hm3_dosages.min(axis=1) != hm3_dosages.max(axis=1))
    d = hm3_dosages[keep][:4000]
    ds = sgkit_dataset(d, [f"s{i}" for i in range(d.shape[1])])
    ds["call_alternate_allele_count"] = (("variants", "samples"), d.astype(np.uint8))
    ds = ds.chunk({"variants": 1000, "samples": -1})
    ref = sg.pca(ds, n_components=4, algorithm="tsqr", merge=False).compute()
    ours = strata.pca_dataset(ds, 4, scale="binom", method="exact", merge=False)
    ev_ref = ref.sample_pca_explained_variance.values.astype(np.float64)
    ev = ours.sample_pca_explained_variance.values
    np.testing.assert_allclose(ev, ev_ref, rtol=1e-6)
    np.testing.assert_allclose(ours.sample_pca_explained_variance_ratio.values,
                               ref.sample_pca_explained_variance_ratio.values, rtol=1e-6)
    # Same subspace: the projections agree up to the sign of each component.
    p, q = ours.sample_pca_projection.values, ref.sample_pca_projection.values.astype(np.float64)
    signs = np.sign((p * q).sum(axis=0))
    np.testing.assert_allclose(p * signs, q, atol=1e-6 * np.abs(q).max())
