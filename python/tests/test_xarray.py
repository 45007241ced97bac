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
    for fn in (sgkit.count_call_alleles, sgkit.count_variant_alleles, sgkit.sample_stats, sgkit.variant_stats,
               sgkit.hardy_weinberg_test, sgkit.individual_heterozygosity):
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


_REDUCTIONS = {  # xarray call -> numpy reference over axis 0 of the values (NaN skipped where xarray skips)
    "sum": (lambda d, s: d.sum("x", skipna=s), lambda v, s: (np.nansum if s else np.sum)(v, axis=0)),
    "mean": (lambda d, s: d.mean("x", skipna=s), lambda v, s: (np.nanmean if s else np.mean)(v, axis=0)),
    "std": (lambda d, s: d.std("x", skipna=s), lambda v, s: (np.nanstd if s else np.std)(v, axis=0)),
    "var": (lambda d, s: d.var("x", skipna=s), lambda v, s: (np.nanvar if s else np.var)(v, axis=0)),
    "min": (lambda d, s: d.min("x", skipna=s), lambda v, s: (np.nanmin if s else np.min)(v, axis=0)),
    "max": (lambda d, s: d.max("x", skipna=s), lambda v, s: (np.nanmax if s else np.max)(v, axis=0)),
    "prod": (lambda d, s: d.prod("x", skipna=s), lambda v, s: (np.nanprod if s else np.prod)(v, axis=0)),
    "cumsum": (lambda d, s: d.cumsum("x", skipna=s), lambda v, s: (np.nancumsum if s else np.cumsum)(v, axis=0)),
    "cumprod": (lambda d, s: d.cumprod("x", skipna=s), lambda v, s: (np.nancumprod if s else np.cumprod)(v, axis=0)),
    "median": (lambda d, s: d.median("x", skipna=s), lambda v, s: (np.nanmedian if s else np.median)(v, axis=0)),
    "quantile": (lambda d, s: d.quantile([0.1, 0.5, 0.9], dim="x", skipna=s),
                 lambda v, s: (np.nanquantile if s else np.quantile)(v, [0.1, 0.5, 0.9], axis=0)),
    "any": (lambda d, s: (d > 1).any("x"), lambda v, s: np.any(v > 1, axis=0)),
    "all": (lambda d, s: (d < 3).all("x"), lambda v, s: np.all(v < 3, axis=0)),
    "argmin": (lambda d, s: d.argmin("y", skipna=s), lambda v, s: (np.nanargmin if s else np.argmin)(v, axis=1)),
    "argmax": (lambda d, s: d.argmax("y", skipna=s), lambda v, s: (np.nanargmax if s else np.argmax)(v, axis=1)),
    "count": (lambda d, s: d.count("x"), lambda v, s: np.sum(~np.isnan(v), axis=0)),
    "dot": (lambda d, s: xr.dot(d, d, dim="y"), lambda v, s: np.einsum("ij,ij->i", v, v)),
}


@pytest.mark.parametrize("skipna", [True, False])
@pytest.mark.parametrize("name", sorted(_REDUCTIONS))
def test_no_xarray_reduction_silently_returns_numpy(name, skipna):
    """Every reduction in the list stays a strata.Array (never a NumPy copy made behind the
    user's back) with numpy's values, with NaN in the data (a whole column of it) or without."""
    v = _values(5)
    v[:, 3] = v[:, 0]  # argmin/argmax of an all-NaN lane raise in numpy: keep every row with a value
    v[0, :] = np.abs(v[0, :]) + 0.5  # so no row is all NaN either
    on_xr, on_np = _REDUCTIONS[name]
    r = on_xr(_data_array(v, chunks=(16, 3)), skipna)
    assert _is_strata(r), f"{name}(skipna={skipna}) came back as {type(r.variable._data).__name__}"
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = on_np(v, skipna)
    np.testing.assert_allclose(np.asarray(r.values, dtype=float), np.asarray(expected, dtype=float), rtol=1e-12,
                               atol=1e-12, equal_nan=True, err_msg=f"{name}(skipna={skipna})")


def test_the_issue_examples_stay_strata_with_integer_and_chunked_data():
    v = np.arange(24.0).reshape(6, 4) + 1
    d = xr.DataArray(v, dims=("x", "y")).chunk({"x": 3}, chunked_array_type="strata")
    checks = {
        "prod": (d.prod("x"), v.prod(axis=0)),
        "median": (d.median("x"), np.median(v, axis=0)),
        "cumsum": (d.cumsum("x"), v.cumsum(axis=0)),
        "cumsum y": (d.cumsum("y"), v.cumsum(axis=1)),
        "dot": (xr.dot(d, d, dim="y"), (v * v).sum(axis=1)),
        "dot all": (xr.dot(d, d), (v * v).sum()),
        "quantile": (d.quantile(0.5, dim="x"), np.quantile(v, 0.5, axis=0)),
        "quantile all": (d.quantile([0.25, 0.75]), np.quantile(v, [0.25, 0.75])),
        "prod min_count": (d.where(d > 6).prod("x", min_count=5), np.where(np.sum(v > 6, axis=0) >= 5,
                                                                          np.nanprod(np.where(v > 6, v, np.nan), 0),
                                                                          np.nan)),
    }
    for name, (r, expected) in checks.items():
        assert _is_strata(r), f"{name} came back as {type(r.variable._data).__name__}"
        np.testing.assert_allclose(r.values, expected, rtol=1e-12, equal_nan=True, err_msg=name)
    ints = xr.DataArray(strata.asarray(np.arange(1, 13, dtype=np.int32).reshape(3, 4), chunks=(2, 4)), dims=("x", "y"))
    for name, r, expected in (("cumsum", ints.cumsum("x"), np.cumsum(np.arange(1, 13).reshape(3, 4), axis=0)),
                              ("prod", ints.prod("y"), np.prod(np.arange(1, 13).reshape(3, 4), axis=1)),
                              ("median", ints.median("y"), np.median(np.arange(1, 13).reshape(3, 4), axis=1))):
        assert _is_strata(r), name
        assert r.values.dtype == expected.dtype, name
        np.testing.assert_array_equal(r.values, expected, err_msg=name)


def test_dot_as_a_matrix_product_and_as_a_broadcast_product():
    rng = np.random.default_rng(7)
    a, b = rng.normal(size=(9, 5)), rng.normal(size=(5, 4))
    da_ = xr.DataArray(strata.asarray(a, chunks=(4, 5)), dims=("s", "v"))
    db = xr.DataArray(strata.asarray(b, chunks=(2, 4)), dims=("v", "k"))
    r = xr.dot(da_, db)  # '...ab,...bc->...ac': strata's matrix product
    assert _is_strata(r) and r.dims == ("s", "k")
    np.testing.assert_allclose(r.values, a @ b, rtol=1e-12)
    c = rng.normal(size=(3, 9, 5))
    dc = xr.DataArray(strata.asarray(c, chunks=(2, 4, 5)), dims=("t", "s", "v"))
    r = xr.dot(dc, da_, dim="v")  # a broadcast dimension s and a batch dimension t
    assert _is_strata(r)
    np.testing.assert_allclose(r.transpose("t", "s").values, np.einsum("tsv,sv->ts", c, a), rtol=1e-12)


def test_einsum_on_the_namespace_matches_numpy_and_refuses_diagonals_clearly():
    xp = strata.array_api
    rng = np.random.default_rng(8)
    a, b, v = rng.normal(size=(4, 3)), rng.normal(size=(3, 5)), rng.normal(size=3)
    sa, sb, sv = (strata.asarray(x, chunks=2) for x in (a, b, v))
    for subscripts, ops, np_ops in (("ij,jk->ik", (sa, sb), (a, b)), ("ij,jk", (sa, sb), (a, b)),
                                    ("ij,j->i", (sa, sv), (a, v)), ("ij->ji", (sa,), (a,)), ("ij->", (sa,), (a,)),
                                    ("i,i->", (sv, sv), (v, v)), ("...j,j->...", (sa, sv), (a, v)),
                                    ("ij,kj->ikj", (sa, sa), (a, a))):
        r = xp.einsum(subscripts, *ops)
        assert isinstance(r, strata.Array), subscripts
        np.testing.assert_allclose(r.compute(), np.einsum(subscripts, *np_ops), rtol=1e-12, err_msg=subscripts)
    with pytest.raises(TypeError, match="diagonal"):
        xp.einsum("ii->i", strata.asarray(np.eye(3)))
    with pytest.raises(ValueError, match="do not match"):
        xp.einsum("ijk->i", sa)
    np.testing.assert_array_equal(xp.transpose(sa).compute(), a.T)


def test_round_isin_pad_and_shift_stay_strata_and_match_numpy():
    """DataArray.round (with decimals, also below zero), isin, pad (constant) and shift run on
    strata and give NumPy's values; a pad mode strata lacks is refused by name."""
    x = np.arange(24, dtype=np.float64).reshape(6, 4) / 7 - 1.2
    da = xr.DataArray(strata.asarray(x), dims=("x", "y"))
    dn = xr.DataArray(x, dims=("x", "y"))
    cases = {
        "round2": lambda d: d.round(2), "round-1": lambda d: d.round(-1), "round": lambda d: d.round(),
        "isin": lambda d: d.isin([x[1, 2], x[3, 3]]), "pad": lambda d: d.pad(x=(1, 2), constant_values=0.0),
        "shift": lambda d: d.shift(x=1), "shift-fill": lambda d: d.shift(y=-2, fill_value=5.0),
    }
    for name, f in cases.items():
        got, want = f(da), f(dn)
        assert isinstance(got.data, strata.Array), name
        np.testing.assert_array_equal(np.asarray(got.data.compute()), want.data, err_msg=name)
    ints = np.arange(12).reshape(3, 4) * 7
    np.testing.assert_array_equal(np.asarray(strata.array_api.round(strata.asarray(ints), -1).compute()),
                                  np.round(ints, -1))
    with pytest.raises(NotImplementedError, match="mode='edge'"):
        da.pad(x=1, mode="edge")

