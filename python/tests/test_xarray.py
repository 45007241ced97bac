"""xarray over strata.Array: the "strata" chunk manager keeps arithmetic and reductions lazy
(asserted by type: the result's data is a strata.Array) and their values equal numpy's."""
import warnings

import numpy as np
import pytest

import strata

xr = pytest.importorskip("xarray")
from xarray.namedarray.parallelcompat import get_chunked_array_type, list_chunkmanagers  # noqa: E402


def _values(seed=0, missing=True):
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(60, 7))
    if missing:
        v[rng.random(v.shape) < 0.15] = np.nan
        v[:, 3] = np.nan  # an all-missing column: numpy gives NaN (min/max/mean/var) or 0 (sum)
    return v


def _data_array(v, chunks=(16, 7)):
    return xr.DataArray(strata.asarray(v, chunks=chunks), dims=("x", "y"))


def _is_strata(r):
    return isinstance(r.variable._data, strata.Array)


def test_the_entry_point_registers_strata_and_dask_stays_the_default():
    managers = list_chunkmanagers()
    assert "strata" in managers
    assert get_chunked_array_type(strata.asarray(np.ones((2, 2)))) is managers["strata"]
    # a plain .chunk() still makes Dask arrays when Dask is installed
    if "dask" in managers:
        assert not _is_strata(xr.DataArray(np.ones((4, 2)), dims=("a", "b")).chunk({"a": 2}))


@pytest.mark.parametrize("name", ["mean", "sum", "std", "var", "min", "max"])
@pytest.mark.parametrize("dim", ["x", "y", None])
def test_skipna_reductions_stay_strata_and_match_numpy(name, dim):
    v = _values()
    axis = {"x": 0, "y": 1, None: None}[dim]
    with warnings.catch_warnings():  # numpy warns of the all-NaN column
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = getattr(np, "nan" + name)(v, axis=axis)
    r = getattr(_data_array(v), name)(dim)
    assert _is_strata(r), f"{name}({dim}) came back as {type(r.variable._data).__name__}"
    np.testing.assert_allclose(r.values, expected, rtol=1e-12, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("name", ["mean", "sum", "std", "var", "min", "max"])
def test_reductions_without_skipna_propagate_nan_as_numpy(name):
    v = _values()
    r = getattr(_data_array(v), name)("x", skipna=False)
    assert _is_strata(r)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(r.values, getattr(np, name)(v, axis=0), rtol=1e-12, equal_nan=True)


def test_ddof_count_any_all_and_integer_reductions():
    v = _values()
    d = _data_array(v)
    r = d.std("x", ddof=1)
    assert _is_strata(r)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(r.values, np.nanstd(v, axis=0, ddof=1), rtol=1e-12, equal_nan=True)
    for name, expected in (("count", np.sum(~np.isnan(v), axis=0)), ("any", np.any(v > 1, axis=0)),
                           ("all", np.all(v < 3, axis=0))):
        r = {"count": lambda: d.count("x"), "any": lambda: (d > 1).any("x"), "all": lambda: (d < 3).all("x")}[name]()
        assert _is_strata(r), name
        np.testing.assert_array_equal(r.values, expected, err_msg=name)
    ints = np.arange(42, dtype=np.int32).reshape(6, 7) - 20
    di = xr.DataArray(strata.asarray(ints), dims=("x", "y"))
    for name in ("mean", "sum", "min", "max"):
        r = getattr(di, name)("x")
        assert _is_strata(r), name
        np.testing.assert_allclose(r.values, getattr(np, name)(ints, axis=0), err_msg=name)


def test_arithmetic_where_and_ufuncs_stay_lazy():
    v = _values(1)
    d = _data_array(v)
    cases = {
        "arith": (lambda a: (a * 2 - a / 3 + 1) ** 2, lambda a: (a * 2 - a / 3 + 1) ** 2),
        "where": (lambda a: a.where(a > 0), lambda a: np.where(a > 0, a, np.nan)),
        "where other": (lambda a: a.where(a > 0, -1.0), lambda a: np.where(a > 0, a, -1.0)),
        "fillna": (lambda a: a.fillna(0.5), lambda a: np.where(np.isnan(a), 0.5, a)),
        "isnull": (lambda a: a.isnull(), np.isnan),
        "exp": (np.exp, np.exp),
        "abs": (abs, np.abs),
        "transpose": (lambda a: a.T, lambda a: a.T),
        "isel": (lambda a: a.isel(x=slice(3, 40, 2), y=slice(0, 2)), lambda a: a[3:40:2, 0:2]),
        "anomaly": (lambda a: a - a.mean("x"), lambda a: a - np.nanmean(a, axis=0)),
    }
    for name, (on_xr, on_np) in cases.items():
        r = on_xr(d)
        assert _is_strata(r), f"{name} came back as {type(r.variable._data).__name__}"
        with np.errstate(all="ignore"):
            np.testing.assert_allclose(np.asarray(r.values, dtype=float), np.asarray(on_np(v), dtype=float),
                                       rtol=1e-12, equal_nan=True, err_msg=name)


def test_chunk_compute_load_and_persist():
    v = _values(2, missing=False)
    d = xr.DataArray(v, dims=("x", "y")).chunk({"x": 10}, chunked_array_type="strata")
    assert _is_strata(d) and d.chunks == ((10,) * 6, (7,))
    # xarray's .chunk() picks the manager by name (default: its chunk_manager option), not by the data
    d2 = d.chunk({"x": 25}, chunked_array_type="strata")
    assert _is_strata(d2) and d2.chunks == ((25, 25, 10), (7,))
    with xr.set_options(chunk_manager="strata"):
        assert _is_strata(d.chunk({"x": 30})) and d.chunk({"x": 30}).chunks == ((30, 30), (7,))
    mean = d2.mean("y")
    assert _is_strata(mean)
    computed = mean.compute()
    assert isinstance(computed.variable._data, np.ndarray) and _is_strata(mean)  # compute returns a new object
    np.testing.assert_allclose(computed.values, v.mean(axis=1), rtol=1e-12)
    loaded = (d2 + 1).load()
    assert isinstance(loaded.variable._data, np.ndarray)
    np.testing.assert_allclose(loaded.values, v + 1, rtol=1e-15)
    persisted = (d2 * 3).persist()
    assert _is_strata(persisted)
    np.testing.assert_allclose(persisted.values, v * 3, rtol=1e-15)


def test_dataset_round_trip_through_zarr(tmp_path):
    pytest.importorskip("zarr")
    v = _values(3, missing=False)
    ids = np.arange(60, dtype=np.int32)
    xr.Dataset({"a": (("x", "y"), v), "i": (("x",), ids)}).to_zarr(tmp_path / "in.zarr", zarr_format=3,
                                                                    consolidated=False)
    ds = xr.open_zarr(tmp_path / "in.zarr", chunked_array_type="strata", chunks={"x": 20}, consolidated=False)
    assert _is_strata(ds["a"]) and _is_strata(ds["i"])
    assert ds["a"].chunks == ((20, 20, 20), (7,))
    m = ds["a"].mean("x")
    assert _is_strata(m)
    np.testing.assert_allclose(m.values, v.mean(axis=0), rtol=1e-12)
    # xarray's to_zarr hands strata's arrays to the chunk manager's store(), block by block
    (ds["a"] * 2).to_dataset(name="b").to_zarr(tmp_path / "out.zarr", zarr_format=3, consolidated=False)
    back = xr.open_zarr(tmp_path / "out.zarr", consolidated=False)["b"].values
    np.testing.assert_array_equal(back, v * 2)


def test_per_block_python_says_it_is_not_lazy():
    d = _data_array(_values(4, missing=False))
    with pytest.raises(NotImplementedError, match="apply_ufunc"):
        xr.apply_ufunc(np.cumsum, d, kwargs={"axis": -1}, dask="parallelized", output_dtypes=[float])


def test_sgkit_dataset_functions_run_on_strata_backed_variables():
    """sgkit wraps each variable with da.asarray: strata computes the blocks, the values are those
    of the numpy-backed Dataset."""
    sgkit = pytest.importorskip("sgkit")
    ds = sgkit.simulate_genotype_call_dataset(n_variant=120, n_sample=40, seed=1, missing_pct=0.05).compute()
    s = ds.copy()
    for name in ("call_genotype", "call_genotype_mask"):
        s[name] = (ds[name].dims, strata.asarray(np.ascontiguousarray(ds[name].values)))
    assert isinstance(s["call_genotype"].variable._data, strata.Array)
    for fn in (sgkit.count_call_alleles, sgkit.count_variant_alleles, sgkit.sample_stats, sgkit.hardy_weinberg_test,
               sgkit.individual_heterozygosity):
        got, expected = fn(s, merge=False).compute(), fn(ds, merge=False).compute()
        for name in expected.data_vars:
            np.testing.assert_allclose(got[name].values, expected[name].values, equal_nan=True,
                                       err_msg=f"{fn.__name__}: {name}")
    full = sgkit.simulate_genotype_call_dataset(n_variant=120, n_sample=40, seed=2).compute()  # sgkit's pca: no missing
    pcs = sgkit.pca(full, n_components=3, merge=True)
    g = strata.asarray(np.ascontiguousarray(full["call_genotype"].values))
    phi = sgkit.pc_relate(pcs.assign(call_genotype=(full["call_genotype"].dims, g)), merge=False)["pc_relate_phi"].values
    np.testing.assert_allclose(phi, sgkit.pc_relate(pcs, merge=False)["pc_relate_phi"].values, equal_nan=True)


def test_dask_and_masked_operands_keep_their_masks():
    """strata never drops a mask: with a masked operand numpy's masked semantics apply, with a
    Dask operand Dask runs the graph (sgkit's pc_relate mixes both with xarray's strata data)."""
    import dask.array as da

    v = np.arange(12.0).reshape(3, 4)
    mask = v % 5 == 0
    r = strata.asarray(v) - np.ma.masked_array(v * 2, mask=mask)
    assert isinstance(r, np.ma.MaskedArray)
    np.testing.assert_array_equal(r.mask, mask)
    np.testing.assert_array_equal(r.data[~mask], -v[~mask])
    lazy = strata.asarray(v, chunks=(2, 4)) - da.ma.masked_array(da.from_array(v * 2, chunks=(2, 2)), mask=mask)
    assert isinstance(lazy, da.Array)
    out = lazy.compute()
    np.testing.assert_array_equal(np.ma.getmaskarray(out), mask)
    np.testing.assert_array_equal(np.asarray(out)[~mask], -v[~mask])
