"""strata.asarray reads numpy / buffer-protocol / DLPack memory in place; other layouts copy."""
import gc
import weakref

import numpy as np
import pytest

import strata


def test_c_contiguous_numpy_is_not_copied():
    a = np.arange(12_000, dtype=np.float64).reshape(120, 100)
    x = strata.asarray(a, chunks=(50, 40))
    s = a.sum()
    assert float(x.sum().compute()) == s
    a[7, 3] += 1000.0  # the strata.Array reads this memory, so it sees the change
    assert float(x.sum().compute()) == s + 1000.0
    np.testing.assert_array_equal(np.asarray(x), a)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                   np.uint32, np.uint64, np.float32, np.float64])
def test_every_dtype_in_place(dtype):
    rng = np.random.default_rng(1)
    a = (rng.integers(0, 5, size=(64, 33)) > 1) if dtype is np.bool_ else rng.integers(0, 100, size=(64, 33)).astype(dtype)
    x = strata.asarray(a, chunks=(16, 16))
    assert x.dtype == a.dtype
    np.testing.assert_array_equal(np.asarray(x), a)
    a[0, 0] = 0 if dtype is np.bool_ else 99
    a[-1, -1] = True if dtype is np.bool_ else 7
    np.testing.assert_array_equal(np.asarray(x), a)


def test_keeps_the_array_alive():
    a = np.full((300, 200), 2.5)
    ref = weakref.ref(a)
    x = strata.asarray(a)
    del a
    gc.collect()
    assert ref() is not None  # held by the strata.Array
    assert float(x.sum().compute()) == 2.5 * 60_000
    del x
    gc.collect()
    assert ref() is None  # and released with it


def test_buffer_protocol_and_dlpack_in_place():
    buf = bytearray(np.arange(64, dtype=np.int32).tobytes())
    x = strata.asarray(np.frombuffer(buf, dtype=np.int32).reshape(8, 8))
    buf[0:4] = np.int32(1000).tobytes()
    assert int(x.sum().compute()) == sum(range(64)) + 1000

    class DLPackOnly:  # exposes only __dlpack__, as a CPU tensor of another library does
        def __init__(self, a):
            self._a = a

        def __dlpack__(self, **kw):
            return self._a.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self._a.__dlpack_device__()

    a = np.ones((50, 20), dtype=np.float32)
    x = strata.asarray(DLPackOnly(a))
    a[:] = 3
    assert float(x.sum().compute()) == 3000.0


def test_results_unchanged_against_numpy():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((257, 129))
    x = strata.asarray(a, chunks=(64, 50))
    np.testing.assert_allclose(np.asarray(((x + 1) * 2)[::3, 1::2].sum(axis=0)), ((a + 1) * 2)[::3, 1::2].sum(axis=0),
                               rtol=1e-12)
    np.testing.assert_allclose(np.asarray(x @ x.T), a @ a.T, rtol=1e-10, atol=1e-10)


def test_other_layouts_are_copied():
    base = np.arange(200 * 100, dtype=np.float64).reshape(200, 100)
    for a in (base[::2, ::3], np.asfortranarray(base), base.astype(">f8"), base.astype(np.float16)):
        want = np.asarray(a, dtype=np.float64).copy()
        x = strata.asarray(a, chunks=(30, 30))
        a[...] = 0  # a copy was taken: the strata.Array does not see this
        np.testing.assert_array_equal(np.asarray(x).astype(np.float64), want)
    assert strata.asarray(base.astype(np.float16)).dtype == np.float32
    assert strata.asarray(np.ones(3, dtype=np.complex128)).dtype == np.complex128  # (a view, see test_array_api)
    with pytest.raises(ValueError):
        strata.asarray(np.array(["a", "b"]))
    with pytest.raises(ValueError):
        strata.asarray(np.ones(3, dtype=np.clongdouble))
