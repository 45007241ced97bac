"""strata.Array's Array API namespace: lazy where strata is, a clear TypeError elsewhere."""
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


def test_what_is_not_lazy_says_so(pair):
    _, _, x, _ = pair
    for f in (xp.reshape, xp.argmax, xp.sin, xp.concat, xp.linalg.inv):
        with pytest.raises(TypeError, match=r"is not lazy in strata yet; call \.compute\(\) first"):
            f(x)
    with pytest.raises(TypeError, match="not lazy"):
        xp.linalg.vector_norm(x, ord=3)
    with pytest.raises(AttributeError):
        xp.not_a_standard_function  # noqa: B018
