"""strata.array_api: the Array API (2023.12) namespace of strata.Array (``x.__array_namespace__()``).

The functions strata evaluates lazily and chunked are here; every other function of the standard
raises TypeError("... is not lazy in strata yet; call .compute() first") rather than silently
turning the array into NumPy. Creation functions (zeros, ones, full, arange, linspace, eye) build
the values in memory once and wrap them without a copy."""
from __future__ import annotations

import types

import numpy as np

from . import _core
from ._array import Array, _handle
from ._array import asarray as _asarray

__array_api_version__ = "2023.12"

bool = np.dtype("bool")  # noqa: A001 - the standard's names
int8, int16, int32, int64 = (np.dtype(t) for t in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (np.dtype(t) for t in ("uint8", "uint16", "uint32", "uint64"))
float32, float64 = np.dtype("float32"), np.dtype("float64")
e, inf, nan, pi = np.e, np.inf, np.nan, np.pi
newaxis = None


def _array(x) -> Array:
    return x if isinstance(x, Array) else _asarray(np.asarray(x))


# ---- elementwise ---------------------------------------------------------------------------
def _binary(op):
    def f(x1, x2, /):
        h1, h2 = _handle(x1), _handle(x2)
        if h1 is None or h2 is None:
            raise TypeError(f"{op}: operands must be arrays or Python scalars")
        return Array(_core.binary(op, h1, h2))

    f.__name__ = op
    return f


def _unary(op, name=None):
    def f(x, /):
        return Array(_core.unary(op, _array(x)._h))

    f.__name__ = name or op
    return f


add, subtract, multiply, divide = (_binary(o) for o in ("add", "subtract", "multiply", "divide"))
pow = _binary("power")  # noqa: A001
maximum, minimum = _binary("maximum"), _binary("minimum")
equal, not_equal, less, less_equal, greater, greater_equal = (
    _binary(o) for o in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"))
logical_and, logical_or = _binary("logical_and"), _binary("logical_or")
abs = _unary("abs")  # noqa: A001
negative, sqrt, exp, log, logical_not = (_unary(o) for o in ("negative", "sqrt", "exp", "log", "logical_not"))


def positive(x, /):
    return _array(x)


def square(x, /):
    return multiply(x, x)


def clip(x, /, min=None, max=None):  # noqa: A002
    x = _array(x)
    lo = -np.inf if min is None else min
    hi = np.inf if max is None else max
    return Array(_core.clip(x._h, _handle(lo), _handle(hi)))


def where(condition, x1, x2, /):
    return Array(_core.where(_handle(condition), _handle(x1), _handle(x2)))


# ---- statistics ----------------------------------------------------------------------------
def _reducer(op):
    def f(x, /, *, axis=None, keepdims=False, dtype=None):
        x = _array(x)
        if dtype is not None:
            x = x.astype(dtype)
        return x._reduce(op, axis, keepdims)

    f.__name__ = op
    return f


sum, mean = _reducer("sum"), _reducer("mean")  # noqa: A001
min, max = _reducer("min"), _reducer("max")  # noqa: A001


def var(x, /, *, axis=None, correction=0.0, keepdims=False, ddof=None):
    # ddof: numpy's (and Dask's) name, which xarray passes to every namespace
    return _array(x)._reduce("var", axis, keepdims, int(correction if ddof is None else ddof))


def std(x, /, *, axis=None, correction=0.0, keepdims=False, ddof=None):
    return _array(x)._reduce("std", axis, keepdims, int(correction if ddof is None else ddof))


def count_nonzero(x, /, *, axis=None, keepdims=False):
    return _array(x)._reduce("count_nonzero", axis, keepdims)


# ---- linear algebra and manipulation -------------------------------------------------------
def matmul(x1, x2, /):
    return Array(_core.binary("matmul", _array(x1)._h, _array(x2)._h))


def matrix_transpose(x, /):
    x = _array(x)
    if x.ndim < 2:
        raise ValueError("matrix_transpose needs at least 2 dimensions")
    perm = list(range(x.ndim))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return x.transpose(perm)


def permute_dims(x, /, axes):
    return _array(x).transpose(tuple(axes))


def astype(x, dtype, /, *, copy=True, device=None):
    return _array(x).astype(dtype)


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    if device not in (None, "cpu"):
        raise ValueError(f"strata arrays live on the CPU, not {device!r}")
    a = _array(obj)
    return a if dtype is None or np.dtype(dtype) == a.dtype else a.astype(dtype)


def _created(values) -> Array:
    return _asarray(np.ascontiguousarray(values))


def zeros(shape, *, dtype=None, device=None):
    return _created(np.zeros(shape, dtype=dtype or float64))


def ones(shape, *, dtype=None, device=None):
    return _created(np.ones(shape, dtype=dtype or float64))


def full(shape, fill_value, *, dtype=None, device=None):
    return _created(np.full(shape, fill_value, dtype=dtype))


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    return _created(np.arange(start, stop, step, dtype=dtype))


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    return _created(np.linspace(start, stop, num, dtype=dtype, endpoint=endpoint))


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    return _created(np.eye(n_rows, n_cols, k=k, dtype=dtype or float64))


def isdtype(dtype, kind):
    return np.isdtype(np.dtype(dtype), kind)


# ---- linalg extension ----------------------------------------------------------------------
def _svd(x, /, *, full_matrices=True):
    out = np.linalg.svd(_array(x), full_matrices=full_matrices)
    if out is NotImplemented:
        raise TypeError("linalg.svd of this shape is not lazy in strata yet; call .compute() first")
    return out


def _qr(x, /, *, mode="reduced"):
    if mode != "reduced":
        raise TypeError(f"linalg.qr(mode={mode!r}) is not lazy in strata yet; call .compute() first")
    return np.linalg.qr(_array(x))


def _vector_norm(x, /, *, axis=None, keepdims=False, ord=2):  # noqa: A002
    x = _array(x)
    if ord == 2:
        return sqrt(sum(multiply(x, x), axis=axis, keepdims=keepdims))
    if ord == 1:
        return sum(abs(x), axis=axis, keepdims=keepdims)
    if ord == np.inf:
        return max(abs(x), axis=axis, keepdims=keepdims)
    raise TypeError(f"linalg.vector_norm(ord={ord!r}) is not lazy in strata yet; call .compute() first")


linalg = types.ModuleType("strata.array_api.linalg", "The Array API linalg extension, as far as strata is lazy.")
linalg.svd, linalg.qr, linalg.matmul, linalg.vector_norm = _svd, _qr, matmul, _vector_norm
linalg.matrix_transpose = matrix_transpose

# The rest of the standard (2023.12): named so they fail clearly, not as a missing attribute.
_NOT_LAZY = """acos acosh asin asinh atan atan2 atanh bitwise_and bitwise_left_shift bitwise_invert
bitwise_or bitwise_right_shift bitwise_xor ceil conj copysign cos cosh expm1 floor floor_divide hypot
imag isfinite isinf isnan log1p log2 log10 logaddexp logical_xor real remainder round sign signbit sin
sinh tan tanh trunc cumulative_sum prod argmax argmin nonzero searchsorted unique_all unique_counts
unique_inverse unique_values argsort sort broadcast_arrays broadcast_to concat expand_dims flip moveaxis
repeat reshape roll squeeze stack tile unstack take all any tensordot vecdot diff empty empty_like
full_like ones_like zeros_like meshgrid tril triu from_dlpack can_cast finfo iinfo result_type""".split()
_NOT_LAZY_LINALG = """cholesky cross det diagonal eigh eigvalsh inv matrix_norm matrix_power matrix_rank
outer pinv slogdet solve svdvals tensordot trace vecdot""".split()


def _not_lazy(name):
    def f(*args, **kwargs):
        raise TypeError(f"strata.array_api.{name} is not lazy in strata yet; call .compute() first "
                        f"(numpy.{name} then works on the result)")

    f.__name__ = name.rsplit(".", 1)[-1]
    return f


for _name in _NOT_LAZY:
    globals()[_name] = _not_lazy(_name)
for _name in _NOT_LAZY_LINALG:
    setattr(linalg, _name, _not_lazy(f"linalg.{_name}"))
del _name


def __array_namespace_info__():
    return types.SimpleNamespace(
        capabilities=lambda: {"boolean indexing": False, "data-dependent shapes": False},
        default_device=lambda: "cpu", devices=lambda: ["cpu"],
        default_dtypes=lambda device=None: {"real floating": float64, "integral": int64, "indexing": int64})


# ---- what xarray's reductions and where() call (lazy, from the functions above) -------------
def isnan(x, /):
    x = _array(x)
    return not_equal(x, x)


def isinf(x, /):
    return equal(abs(x), inf)


def isfinite(x, /):
    return less(abs(x), inf)  # NaN compares false


def any(x, /, *, axis=None, keepdims=False):  # noqa: A001
    return greater(count_nonzero(x, axis=axis, keepdims=keepdims), 0)


def all(x, /, *, axis=None, keepdims=False):  # noqa: A001
    return equal(count_nonzero(logical_not(astype(x, bool)), axis=axis, keepdims=keepdims), 0)


def full_like(x, /, fill_value, *, dtype=None, device=None):
    """x's shape and chunks, every element fill_value: a lazy expression (x itself is not read
    for its values: its own comparison with itself is always true or NaN-false, so both sides
    of the where() are the fill value)."""
    x = _array(x)
    dtype = x.dtype if dtype is None else np.dtype(dtype)
    return astype(where(equal(x, x), fill_value, fill_value), dtype)


def zeros_like(x, /, *, dtype=None, device=None):
    return full_like(x, 0, dtype=dtype)


def ones_like(x, /, *, dtype=None, device=None):
    return full_like(x, 1, dtype=dtype)


def result_type(*arrays_and_dtypes):
    return np.result_type(*(a.dtype if isinstance(a, Array) else a for a in arrays_and_dtypes))
