"""strata.array_api: the Array API (2023.12) namespace of strata.Array (``x.__array_namespace__()``).

Every function of the standard is here. Results are lazy strata.Arrays evaluated chunk by chunk
in strata's engine; elementwise functions strata has no kernel for run NumPy's function on each
block inside the engine. The functions in EAGER evaluate their inputs (an explicit compute inside
the function: data-dependent output shapes, or an operation the engine has no node for yet).
Creation functions build small values in memory once and wrap them without a copy; zeros, ones,
full and eye of any size are lazy constants. strata holds bool, int8-64, uint8-64, float32 and
float64: complex64/complex128 exist as dtype objects (the standard names them) but arrays of them
are refused with a ValueError."""
from __future__ import annotations

import builtins
import types
from builtins import abs as builtins_abs
from collections import namedtuple

import numpy as np

from . import _core
from ._array import Array
from ._array import asarray as _wrap
from ._xp_core import as_array, broadcast_to, from_numpy, insert_axes
from . import _xp_elementwise as _ew
from . import _xp_functions as _fn
from . import _xp_fft, _xp_linalg
from . import _xp_numpy_names as _np_names

__array_api_version__ = "2023.12"

bool = np.dtype("bool")  # noqa: A001 - the standard's names
int8, int16, int32, int64 = (np.dtype(t) for t in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (np.dtype(t) for t in ("uint8", "uint16", "uint32", "uint64"))
float32, float64 = np.dtype("float32"), np.dtype("float64")
complex64, complex128 = np.dtype("complex64"), np.dtype("complex128")
e, inf, nan, pi = np.e, np.inf, np.nan, np.pi
newaxis = None

EAGER = list(_fn.EAGER) + list(_xp_linalg.EAGER) + list(_xp_fft.EAGER)

for _name in _ew.NAMES:
    globals()[_name] = _ew.FUNCTIONS[_name] if _name in _ew.FUNCTIONS else getattr(_ew, _name)
for _name in _fn.NAMES:
    globals()[_name] = getattr(_fn, _name)
for _name in _np_names.NAMES:  # beyond the standard: the NumPy names xarray calls on a namespace
    globals()[_name] = getattr(_np_names, _name)
del _name


def round(x, decimals=0, /):  # noqa: A001 - the standard's name
    """The standard's round (half to even); `decimals` as numpy.round takes it (xarray passes it):
    rint(x · 10^d) / 10^d, or rint(x / 10^-d) · 10^-d below zero, as NumPy computes it."""
    x = as_array(x)
    rint = _ew.FUNCTIONS["round"]
    if decimals == 0 or (x.dtype.kind in "biu" and decimals > 0):
        return rint(x)
    f = 10.0 ** builtins_abs(int(decimals))
    if decimals > 0:
        return rint(x * f) / f
    out = rint(x / f) * f
    return astype(out, x.dtype) if x.dtype.kind in "biu" else out

linalg = _xp_linalg.namespace()
fft = _xp_fft.namespace()
matmul, matrix_transpose, tensordot, vecdot = linalg.matmul, linalg.matrix_transpose, linalg.tensordot, linalg.vecdot


# ---- data types ----------------------------------------------------------------------------
def _dtype(d):
    return d.dtype if isinstance(d, Array) else np.dtype(d)


def astype(x, dtype, /, *, copy=True, device=None):
    x = as_array(x)
    _check_device(device)
    dtype = np.dtype(dtype)
    if dtype == x.dtype:
        return Array(x._h) if copy else x
    return x.astype(dtype)


def can_cast(from_, to, /):
    return builtins.bool(np.can_cast(_dtype(from_), np.dtype(to), casting="safe"))


def result_type(*arrays_and_dtypes):
    if not arrays_and_dtypes:
        raise ValueError("result_type: needs at least one array or dtype")
    # Python scalars take part as NumPy's weak scalars (the 2024.12 rule; xarray passes them).
    return np.result_type(*(a if type(a) in (bool, int, float, complex) else _dtype(a) for a in arrays_and_dtypes))


def isdtype(dtype, kind):
    return builtins.bool(np.isdtype(np.dtype(dtype), kind))


finfo_object = namedtuple("finfo_object", ["bits", "eps", "max", "min", "smallest_normal", "dtype"])
iinfo_object = namedtuple("iinfo_object", ["bits", "max", "min", "dtype"])


def finfo(type, /):  # noqa: A002
    f = np.finfo(_dtype(type))
    return finfo_object(int(f.bits), float(f.eps), float(f.max), float(f.min), float(f.smallest_normal),
                        np.dtype(f.dtype))


def iinfo(type, /):  # noqa: A002
    i = np.iinfo(_dtype(type))
    return iinfo_object(int(i.bits), int(i.max), int(i.min), np.dtype(i.dtype))


# ---- creation ------------------------------------------------------------------------------
def _check_device(device):
    if device not in (None, "cpu"):
        raise ValueError(f"strata arrays live on the CPU, not {device!r}")


def _shape(shape):
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    _check_device(device)
    if isinstance(obj, Array):
        out = obj if dtype is None or np.dtype(dtype) == obj.dtype else obj.astype(dtype)
        if copy is False and out is not obj:
            raise ValueError("asarray: converting the dtype needs a copy (copy=False)")
        return Array(out._h) if copy and out is obj else out
    if copy is False and not hasattr(obj, "__array__") and not hasattr(obj, "__buffer__"):
        raise ValueError("asarray: a Python sequence cannot be wrapped without a copy (copy=False)")
    if isinstance(obj, (list, tuple)) and builtins.any(isinstance(v, Array) for v in np.ravel(np.array(obj, dtype=object))):
        obj = np.array([v.compute() if isinstance(v, Array) else v for v in obj])
    values = np.array(obj, dtype=dtype, copy=True if copy else None)
    if copy is False and isinstance(obj, np.ndarray) and not np.shares_memory(values, obj):
        raise ValueError("asarray: this conversion needs a copy (copy=False)")
    return _wrap(values)


def _full(shape, value, dtype) -> Array:
    shape = _shape(shape)
    dtype = np.asarray(value).dtype if dtype is None else np.dtype(dtype)
    return broadcast_to(from_numpy(np.full((), value, dtype)), shape)


def zeros(shape, *, dtype=None, device=None):
    _check_device(device)
    return _full(shape, 0, dtype or float64)


def ones(shape, *, dtype=None, device=None):
    _check_device(device)
    return _full(shape, 1, dtype or float64)


def empty(shape, *, dtype=None, device=None):
    return zeros(shape, dtype=dtype, device=device)


def full(shape, fill_value, *, dtype=None, device=None):
    _check_device(device)
    if dtype is None and isinstance(fill_value, (Array, np.ndarray)):
        dtype = fill_value.dtype
    if isinstance(fill_value, Array):
        fill_value = fill_value.compute()
    return _full(shape, fill_value, dtype)


def zeros_like(x, /, *, dtype=None, device=None):
    return zeros(as_array(x).shape, dtype=dtype or as_array(x).dtype, device=device)


def ones_like(x, /, *, dtype=None, device=None):
    return ones(as_array(x).shape, dtype=dtype or as_array(x).dtype, device=device)


def empty_like(x, /, *, dtype=None, device=None):
    return zeros_like(x, dtype=dtype, device=device)


def full_like(x, /, fill_value, *, dtype=None, device=None):
    return full(as_array(x).shape, fill_value, dtype=dtype or as_array(x).dtype, device=device)


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    _check_device(device)
    return from_numpy(np.arange(start, stop, step, dtype=dtype))


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    _check_device(device)
    return from_numpy(np.linspace(start, stop, num, dtype=dtype or float64, endpoint=endpoint))


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    """Lazy: (row + k == column), converted to dtype."""
    _check_device(device)
    n_cols = n_rows if n_cols is None else n_cols
    rows = from_numpy(np.arange(n_rows, dtype=np.int64).reshape(n_rows, 1) + int(k))
    cols = from_numpy(np.arange(n_cols, dtype=np.int64).reshape(1, n_cols))
    return Array(_core.binary("equal", rows._h, cols._h)).astype(dtype or float64)


def _triangle(x, k, lower):
    x = as_array(x)
    if x.ndim < 2:
        raise ValueError("tril/triu need at least 2 dimensions")
    n, m = x.shape[-2:]
    rows = from_numpy(np.arange(n, dtype=np.int64).reshape(n, 1) + int(k))
    cols = from_numpy(np.arange(m, dtype=np.int64).reshape(1, m))
    keep = Array(_core.binary("greater_equal" if lower else "less_equal", rows._h, cols._h))
    out = where(keep, x, from_numpy(np.zeros((), x.dtype)))
    return broadcast_to(out, x.shape) if out.shape != x.shape else out


def tril(x, /, *, k=0):
    return _triangle(x, k, True)


def triu(x, /, *, k=0):
    return _triangle(x, k, False)


def meshgrid(*arrays, indexing="xy"):
    arrays = [as_array(a) for a in arrays]
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', not {indexing!r}")
    shape = [a.size for a in arrays]
    if indexing == "xy" and len(arrays) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, a in enumerate(arrays):
        ax = i if indexing == "ij" or len(arrays) < 2 or i > 1 else 1 - i
        out.append(broadcast_to(insert_axes(a, [d for d in range(len(shape)) if d != ax]), shape))
    return out


def from_dlpack(x, /, *, device=None, copy=None):
    _check_device(device)
    return _wrap(np.from_dlpack(x))


# ---- inspection ----------------------------------------------------------------------------
_KINDS = {"bool": [bool], "signed integer": [int8, int16, int32, int64],
          "unsigned integer": [uint8, uint16, uint32, uint64], "real floating": [float32, float64],
          "complex floating": [complex64, complex128], "integral": [int8, int16, int32, int64, uint8, uint16, uint32, uint64]}
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


def _dtypes(device=None, kind=None):
    _check_device(device)
    if kind is None:
        chosen = [bool] + _KINDS["numeric"]
    else:
        chosen = [d for k in ((kind,) if isinstance(kind, str) else kind) for d in _KINDS[k]]
    return {d.name: d for d in chosen}


def __array_namespace_info__():
    return types.SimpleNamespace(
        capabilities=lambda: {"boolean indexing": True, "data-dependent shapes": True},
        default_device=lambda: "cpu", devices=lambda: ["cpu"],
        default_dtypes=lambda *, device=None: {"real floating": float64, "complex floating": complex128,
                                               "integral": int64, "indexing": int64},
        dtypes=lambda *, device=None, kind=None: _dtypes(device, kind))
