"""strata.Array's Array API namespace: lazy where strata is, a clear TypeError elsewhere."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import strata
from strata import array_api as xp


@pytest.fixture
def pair():
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(60, 40)), rng.normal(size=(60, 40))
    return a, b, strata.asarray(a, chunks=(16, 16)), strata.asarray(b, chunks=(16, 16))


def test_namespace_of_an_array():
    x = strata.asarray(np.ones((3, 2)))
    assert x.__array_namespace__() is xp
    assert x.__array_namespace__(api_version="2023.12") is xp
    assert xp.__array_api_version__ == "2023.12"
    with pytest.raises(ValueError, match="2023.12"):
        x.__array_namespace__(api_version="1999.01")


def test_array_api_compat_finds_it():
    compat = pytest.importorskip("array_api_compat")
    x = strata.asarray(np.ones((3, 2)))
    assert compat.array_namespace(x) is xp


def test_elementwise_and_statistics_stay_lazy_and_match_numpy(pair):
    a, b, x, y = pair
    cases = [
        (xp.add(x, y), a + b), (xp.subtract(x, 2), a - 2), (xp.multiply(x, y), a * b),
        (xp.divide(x, y), a / b), (xp.maximum(x, y), np.maximum(a, b)), (xp.abs(x), np.abs(a)),
        (xp.exp(x), np.exp(a)), (xp.sqrt(xp.abs(x)), np.sqrt(np.abs(a))), (xp.square(x), a * a),
        (xp.where(xp.greater(x, 0), x, y), np.where(a > 0, a, b)), (xp.clip(x, min=-0.5, max=0.5), np.clip(a, -0.5, 0.5)),
        (xp.sum(x, axis=0), a.sum(axis=0)), (xp.mean(x), a.mean()), (xp.max(x, axis=1, keepdims=True), a.max(1, keepdims=True)),
        (xp.var(x, axis=0, correction=1), a.var(axis=0, ddof=1)), (xp.std(x, correction=0), a.std()),
        (xp.matmul(x, xp.matrix_transpose(y)), a @ b.T), (xp.permute_dims(x, (1, 0)), a.T),
        (xp.astype(x, xp.float32), a.astype(np.float32)),
        (xp.linalg.vector_norm(x, axis=1), np.linalg.norm(a, axis=1)), (xp.linalg.matmul(x, xp.matrix_transpose(x)), a @ a.T),
    ]
    for got, want in cases:
        assert isinstance(got, strata.Array), type(got)
        np.testing.assert_allclose(got.compute(), want, rtol=1e-6, atol=1e-9)


def test_creation(pair):
    np.testing.assert_array_equal(xp.zeros((2, 3)).compute(), np.zeros((2, 3)))
    np.testing.assert_array_equal(xp.full((2, 2), 7, dtype=xp.int32).compute(), np.full((2, 2), 7, np.int32))
    np.testing.assert_array_equal(xp.arange(5).compute(), np.arange(5))
    np.testing.assert_allclose(xp.linspace(0, 1, num=11).compute(), np.linspace(0, 1, 11))
    assert isinstance(xp.asarray([1.0, 2.0]), strata.Array)


def test_linalg_svd_and_qr(pair):
    a, _, x, _ = pair
    s = xp.linalg.svd(x, full_matrices=False)[1]
    np.testing.assert_allclose(np.asarray(s), np.linalg.svd(a, compute_uv=False), rtol=1e-10)
    q, r = xp.linalg.qr(x)
    np.testing.assert_allclose(np.asarray(q) @ np.asarray(r), a, atol=1e-10)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_blockwise_elementwise_functions_are_lazy_chunked_and_numpys(pair):
    a, b, x, y = pair
    a = a.copy()
    a[0, :4] = [0.0, -0.0, np.inf, np.nan]
    x = strata.asarray(a, chunks=(16, 16))
    cases = [(xp.sin(x), np.sin(a)), (xp.floor_divide(x, y), np.floor_divide(a, b)), (xp.atan2(x, y), np.arctan2(a, b)),
             (xp.copysign(1.0, x), np.copysign(1.0, a)), (xp.isnan(x), np.isnan(a)), (xp.signbit(x), np.signbit(a)),
             (xp.logaddexp(x, 0.5), np.logaddexp(a, 0.5)), (xp.remainder(x, 3), np.remainder(a, 3)),
             (xp.round(x), np.round(a)), (x // 2, a // 2), (x % 2, a % 2)]
    for got, want in cases:
        assert isinstance(got, strata.Array) and got.chunksize == (16, 16), (type(got), got)
        np.testing.assert_array_equal(got.compute(), want)
        assert got.dtype == want.dtype
    # the special cases survive: copysign sees the sign of -0.0, sign(nan) is nan
    assert np.signbit(xp.copysign(1.0, x).compute()[0, 1])


def test_python_scalars_are_weak_and_operators_follow_the_namespace():
    i8 = xp.asarray(np.array([1, -2, 3], dtype=np.int8))
    for got in (i8 + 1, 1 + i8, i8 * 2, i8 // 2, i8 % 2, i8 & 1, i8 << 1, -i8, ~i8):
        assert got.dtype == np.int8, got
    f32 = xp.asarray(np.ones(3, np.float32))
    assert (f32 * 2.5).dtype == np.float32 and (f32 > 0).dtype == np.bool_
    np.testing.assert_array_equal((i8 << 1).compute(), [2, -4, 6])
    z = xp.asarray(np.int64(7))
    assert z.shape == () and z.compute().shape == () and int(z) == 7 and bool(z) and z.__index__() == 7
    with pytest.raises(TypeError):
        xp.asarray([1.5]).__index__()


def test_indexing_and_assignment(pair):
    a, _, x, _ = pair
    for key in [(None, Ellipsis, slice(None, None, -3)), (5, None), (Ellipsis, -1), (slice(50, 5, -7), 3),
                (slice(100, 200),)]:
        np.testing.assert_array_equal(x[key].compute(), a[key])
    with pytest.raises(IndexError):
        x[60]
    mask = a > 0.5
    np.testing.assert_array_equal(x[xp.asarray(mask)].compute(), a[mask])  # eager: data-dependent length
    y, want = strata.asarray(a.copy(), chunks=(16, 16)), a.copy()
    before = y
    snapshot = y[:2]
    y[3:40:4, 1] = -1.0
    y[xp.asarray(mask)] = 9.0
    y[0] = xp.arange(40, dtype=xp.float64)
    want[3:40:4, 1], want[mask], want[0] = -1.0, 9.0, np.arange(40)
    assert y is before and y.chunksize == (16, 16)
    np.testing.assert_array_equal(y.compute(), want)
    np.testing.assert_array_equal(snapshot.compute(), a[:2])  # made before: keeps the old values
    i = xp.asarray(np.arange(6, dtype=np.int16))
    i += 3
    i *= 2
    assert i.dtype == np.int16
    np.testing.assert_array_equal(i.compute(), (np.arange(6) + 3) * 2)


def test_statistics_searching_sorting(pair):
    a, _, x, _ = pair
    r = np.round(a * 3)
    xr = strata.asarray(r, chunks=(16, 16))
    np.testing.assert_allclose(xp.prod(x, axis=1).compute(), np.prod(a, axis=1))
    np.testing.assert_allclose(xp.cumulative_sum(x, axis=0).compute(), np.cumsum(a, axis=0))
    np.testing.assert_array_equal(xp.cumulative_sum(xp.asarray([1, 2, 3]), include_initial=True).compute(),
                                  [0, 1, 3, 6])
    assert xp.sum(xp.asarray(np.ones(3, np.int8))).dtype == np.int64
    np.testing.assert_array_equal(xp.argmax(x, axis=0).compute(), np.argmax(a, axis=0))
    assert int(xp.argmin(x)) == np.argmin(a)
    np.testing.assert_array_equal(xp.sort(xr, axis=0, descending=True).compute(), -np.sort(-r, axis=0))
    want = r.shape[1] - 1 - np.flip(np.argsort(np.flip(r, 1), axis=1, kind="stable"), 1)
    np.testing.assert_array_equal(xp.argsort(xr, descending=True).compute(), want)
    np.testing.assert_array_equal(xp.argsort(xr, axis=0).compute(), np.argsort(r, axis=0, kind="stable"))
    assert bool(xp.all(xp.isfinite(x))) and not bool(xp.any(xp.isnan(x)))
    np.testing.assert_array_equal(xp.any(x > 2, axis=1).compute(), (a > 2).any(axis=1))
    np.testing.assert_allclose(xp.var(x, axis=0, correction=0.5).compute(), a.var(axis=0) * 60 / 59.5)
    np.testing.assert_array_equal(xp.searchsorted(xp.asarray([1.0, 2.0, 3.0]), xp.asarray([0.5, 2.0, 9.0])).compute(),
                                  [0, 1, 3])


def test_sets_and_nonzero_are_eager_with_nan_distinct():
    v = np.array([3.0, np.nan, 1.0, 3.0, np.nan])
    u = xp.unique_all(xp.asarray(v))
    assert u.values.shape == (4,)  # the two NaNs are distinct
    np.testing.assert_array_equal(u.values.compute()[:2], [1.0, 3.0])
    np.testing.assert_array_equal(u.counts.compute(), [1, 2, 1, 1])
    np.testing.assert_array_equal(u.values.compute()[u.inverse_indices.compute()][[0, 2, 3]], v[[0, 2, 3]])
    (nz,) = xp.nonzero(xp.asarray([0, 2, 0, 5]))
    np.testing.assert_array_equal(nz.compute(), [1, 3])
    with pytest.raises(ValueError):
        xp.nonzero(xp.asarray(1))


def test_manipulation(pair):
    a, b, x, y = pair
    host = np.arange(12.0)
    view = xp.reshape(xp.asarray(host), (3, 4))
    host[5] = -1.0  # a reshape of numpy memory is a view of it, not a copy
    assert view.compute()[1, 1] == -1.0
    lazy = x + 1
    np.testing.assert_array_equal(xp.reshape(xp.expand_dims(lazy, axis=1), (60, 40)).compute(), a + 1)
    np.testing.assert_array_equal(xp.reshape(lazy, (40, 60)).compute(), (a + 1).reshape(40, 60))
    np.testing.assert_array_equal(xp.squeeze(x[:, :1], axis=1).compute(), a[:, 0])
    with pytest.raises(ValueError):
        xp.squeeze(x, axis=0)
    np.testing.assert_array_equal(xp.flip(x, axis=1).compute(), np.flip(a, 1))
    np.testing.assert_array_equal(xp.moveaxis(xp.expand_dims(x, axis=0), 0, -1).compute(), a[..., None])
    np.testing.assert_array_equal(xp.concat([x, y], axis=1).compute(), np.concatenate([a, b], 1))
    np.testing.assert_array_equal(xp.stack([x, y]).compute(), np.stack([a, b]))
    np.testing.assert_array_equal(xp.roll(x, 3, axis=0).compute(), np.roll(a, 3, 0))
    np.testing.assert_array_equal(xp.broadcast_to(x[:1], (5, 60, 40)).compute(), np.broadcast_to(a[:1], (5, 60, 40)))
    np.testing.assert_array_equal(xp.unstack(x, axis=1)[7].compute(), a[:, 7])
    np.testing.assert_array_equal(xp.take(x, xp.asarray([3, 1]), axis=0).compute(), a[[3, 1]])


def test_creation_data_types_and_inspection():
    big = xp.zeros((100_000, 100_000), dtype=xp.float32)  # lazy: nothing of that size is allocated
    assert big.shape == (100_000, 100_000) and float(xp.sum(big[:10, :10])) == 0.0
    np.testing.assert_array_equal(xp.eye(3, 4, k=1, dtype=xp.int8).compute(), np.eye(3, 4, k=1, dtype=np.int8))
    np.testing.assert_array_equal(xp.triu(xp.ones((3, 3)), k=1).compute(), np.triu(np.ones((3, 3)), 1))
    gx, gy = xp.meshgrid(xp.arange(3), xp.arange(2))
    np.testing.assert_array_equal(gx.compute(), np.meshgrid(np.arange(3), np.arange(2))[0])
    assert xp.full((2,), True).dtype == xp.bool and xp.full((2,), 1).dtype == xp.int64
    f = xp.finfo(xp.float32)
    assert type(f.eps) is float and f.bits == 32 and xp.iinfo(xp.int8).min == -128
    assert xp.isdtype(xp.int16, "signed integer") and not xp.isdtype(xp.uint8, ("signed integer", "real floating"))
    assert xp.result_type(xp.int8, xp.asarray(np.ones(2, np.int16))) == xp.int16
    assert xp.can_cast(xp.int8, xp.int16) and not xp.can_cast(xp.float64, xp.int64)
    info = xp.__array_namespace_info__()
    assert info.default_dtypes()["integral"] == xp.int64 and "float32" in info.dtypes(kind="real floating")
    assert info.default_dtypes()["complex floating"] == xp.complex128


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_complex_arrays_view_numpy_memory_and_follow_numpy():
    c = np.array([[1 + 2j, complex(-0.0, np.inf), 3 - 1j], [0j, 2j, complex(np.nan, 0.0)]])
    x = strata.asarray(c)
    assert x.dtype == xp.complex128 and x.shape == (2, 3)
    c[1, 0] = 5 + 5j  # a view of the numpy memory, like real arrays
    np.testing.assert_array_equal(x.compute(), c)
    for got, want in [(xp.exp(x), np.exp(c)), (x * x + 1, c * c + 1), (xp.abs(x), np.abs(c)), (xp.real(x), c.real),
                      (xp.conj(x), np.conj(c)), (x == c, x.compute() == c), (xp.sum(x, axis=1), c.sum(1)),
                      (x[:, ::-1][1], c[:, ::-1][1]), (x.T, c.T), (xp.reshape(x + 0, (3, 2)), c.reshape(3, 2)),
                      (xp.concat([x, x[:1]]), np.concatenate([c, c[:1]])), (xp.isnan(x), np.isnan(c))]:
        assert isinstance(got, strata.Array)
        np.testing.assert_array_equal(got.compute(), want)
        assert got.dtype == np.asarray(want).dtype
    assert complex(xp.acos(xp.asarray(complex(-0.0, 0.0)))) == complex(np.pi / 2, -0.0)
    r = xp.astype(xp.asarray([1.0, 2.0], dtype=xp.float32), xp.complex64)
    assert r.dtype == xp.complex64
    np.testing.assert_array_equal(r.compute(), [1 + 0j, 2 + 0j])
    y = xp.zeros((2, 2), dtype=xp.complex64)
    y[0, 1] = 1j
    np.testing.assert_array_equal(y.compute(), [[0, 1j], [0, 0]])
    with pytest.raises(TypeError, match="not defined for complex"):
        xp.max(x)


def test_linalg_extension(pair):
    a, b, x, y = pair
    np.testing.assert_allclose(xp.linalg.outer(x[0], y[1]).compute(), np.outer(a[0], b[1]))
    np.testing.assert_allclose(xp.linalg.vecdot(x, y).compute(), (a * b).sum(-1))
    np.testing.assert_allclose(xp.linalg.cross(x[:, :3], y[:, :3]).compute(), np.cross(a[:, :3], b[:, :3]))
    np.testing.assert_allclose(xp.matmul(x, y[0]).compute(), a @ b[0])
    np.testing.assert_allclose(xp.linalg.vector_norm(x, ord=3, axis=0).compute(), np.linalg.norm(a, 3, axis=0))
    m = a[:5, :5] @ a[:5, :5].T + np.eye(5)
    np.testing.assert_allclose(xp.linalg.inv(xp.asarray(m)).compute(), np.linalg.inv(m))
    np.testing.assert_allclose(xp.linalg.det(xp.asarray(m)).compute(), np.linalg.det(m))


def test_numpy_ufuncs_stay_lazy_block_by_block(pair):
    a, _, x, _ = pair
    got = np.arctan(x)
    assert isinstance(got, strata.Array)
    np.testing.assert_allclose(got.compute(), np.arctan(a))


def test_a_failing_block_function_raises_its_error(pair):
    _, _, x, _ = pair
    from strata import _xp_core

    def boom(v):
        if v.size and v.size < 10**9:
            raise ZeroDivisionError("no")
        return v

    bad = _xp_core.blockwise(boom, x, dtype=np.float64)
    with pytest.raises(ValueError, match="ZeroDivisionError: no"):
        bad.compute()


SUITE = os.environ.get("ARRAY_API_TESTS_DIR", "")  # a git clone of github.com/data-apis/array-api-tests
SPEC = os.environ.get("ARRAY_API_SPEC_DIR", "")  # and of github.com/data-apis/array-api (its submodule)


def test_a_deterministic_slice_of_the_public_suite(tmp_path):
    """A few modules of data-apis/array-api-tests (the bench runs all of it) with 3 examples."""
    pytest.importorskip("hypothesis", reason="the Array API suite needs hypothesis (see requirements.txt)")
    pytest.importorskip("ndindex", reason="the Array API suite needs ndindex (see requirements.txt)")
    pytest.importorskip("pytest_jsonreport", reason="the Array API suite needs pytest-json-report")
    if not SUITE or not Path(SUITE).exists() or not SPEC or not Path(SPEC).exists():
        pytest.skip("no array-api-tests / array-api clones (set ARRAY_API_TESTS_DIR and ARRAY_API_SPEC_DIR)")
    bench = Path(__file__).resolve().parents[2] / "bench" / "array_api_conformance.py"
    pkg = str(Path(os.path.abspath(strata.__file__)).parents[1])
    out = subprocess.run([sys.executable, str(bench), "--libs", "strata", "--suite", SUITE, "--spec", SPEC, "--work", str(tmp_path),
                          "--pythonpath", pkg, "--max-examples", "3", "--json", str(tmp_path / "c.json"),
                          "--modules", "test_constants", "test_inspection_functions", "test_searching_functions"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    counts = json.loads((tmp_path / "c.json").read_text())["results"]["strata"]
    failed = {m: c for m, c in counts.items() if c.get("failed", 0) or c.get("errors", 0)}
    assert not failed, out.stdout
    assert sum(c.get("passed", 0) for c in counts.values()) >= 15
