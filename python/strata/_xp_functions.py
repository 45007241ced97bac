"""The Array API's statistical, searching, sorting, set, manipulation and utility functions for
strata.Array. Lazy unless listed in EAGER: those evaluate their inputs (an explicit compute
inside the function) because strata's engine has no node for them yet (concatenation, general
reshapes, gathers) or their output shape depends on the values (nonzero, unique_*)."""
from __future__ import annotations

from collections import namedtuple

import builtins

import numpy as np

from . import _core
from ._array import Array
from ._xp_core import (along_axes, as_array, blockwise, broadcast_to, drop_axes, from_numpy, insert_axes, lanes,
                       normalize_axes)

EAGER = ["concat", "stack", "reshape (of a computed expression, other than adding or dropping length-1 axes)",
         "roll", "repeat", "tile", "take", "nonzero", "unique_all", "unique_counts", "unique_inverse",
         "unique_values", "cumulative_sum (include_initial=True)", "searchsorted (its sorted x1)",
         "boolean-mask indexing"]


def _computed(x) -> np.ndarray:
    return x.compute() if isinstance(x, Array) else np.asarray(x)


# ---- statistics ----------------------------------------------------------------------------
def _sum_dtype(x: Array, dtype):
    if dtype is not None:
        return np.dtype(dtype)
    k = x.dtype.kind
    return np.dtype(np.int64 if k in "bi" else np.uint64 if k == "u" else x.dtype)


def sum(x, /, *, axis=None, dtype=None, keepdims=False):  # noqa: A001
    x = as_array(x)
    want = _sum_dtype(x, dtype)
    if dtype is not None and x.dtype != want:
        x = x.astype(want)
    out = x._reduce("sum", normalize_axes(axis, x.ndim), keepdims)
    return out if out.dtype == want else out.astype(want)


def prod(x, /, *, axis=None, dtype=None, keepdims=False):
    x = as_array(x)
    want, axes = _sum_dtype(x, dtype), normalize_axes(axis, x.ndim)
    out_shape = tuple(1 if a in axes else n for a, n in enumerate(x.shape))
    if builtins.any(x.shape[a] == 0 for a in axes):  # the empty product
        out = broadcast_to(from_numpy(np.ones((), want)), out_shape)
    else:
        out = along_axes(lambda b: np.prod(b, axis=tuple(axes), keepdims=True, dtype=want), x, axes, want)
    return out if keepdims else drop_axes(out, axes)


def _keepdims_or_not(out: Array, axes, keepdims):
    return out if keepdims else drop_axes(out, axes)


def mean(x, /, *, axis=None, keepdims=False):
    x = as_array(x)
    return x._reduce("mean", normalize_axes(axis, x.ndim), keepdims)


def _moment(op, x, axis, correction, keepdims):
    x = as_array(x)
    axes = normalize_axes(axis, x.ndim)
    if float(correction) == int(correction):
        return x._reduce(op, axes, keepdims, int(correction))
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    v = x._reduce("var", axes, keepdims, 0) * (n / (n - float(correction)))
    return Array(_core.unary("sqrt", v._h)) if op == "std" else v


def var(x, /, *, axis=None, correction=0.0, keepdims=False):
    return _moment("var", x, axis, correction, keepdims)


def std(x, /, *, axis=None, correction=0.0, keepdims=False):
    return _moment("std", x, axis, correction, keepdims)


def min(x, /, *, axis=None, keepdims=False):  # noqa: A001
    x = as_array(x)
    return x._reduce("min", normalize_axes(axis, x.ndim), keepdims)


def max(x, /, *, axis=None, keepdims=False):  # noqa: A001
    x = as_array(x)
    return x._reduce("max", normalize_axes(axis, x.ndim), keepdims)


def count_nonzero(x, /, *, axis=None, keepdims=False):
    x = as_array(x)
    return x._reduce("count_nonzero", normalize_axes(axis, x.ndim), keepdims)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    x = as_array(x)
    if axis is None:
        if x.ndim != 1:
            raise ValueError("cumulative_sum: axis is required for arrays of more than one dimension")
        axis = 0
    axis = normalize_axes(axis, x.ndim)[0]
    want = _sum_dtype(x, dtype)
    out = lanes(lambda b, ax: np.cumsum(b, axis=ax, dtype=want), x, axis, want)
    if include_initial:
        zero_shape = tuple(1 if a == axis else n for a, n in enumerate(x.shape))
        return from_numpy(np.concatenate([np.zeros(zero_shape, want), out.compute()], axis=axis))
    return out


def all(x, /, *, axis=None, keepdims=False):  # noqa: A001
    x = as_array(x)
    axes = normalize_axes(axis, x.ndim)
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    return Array(_core.binary("equal", x._reduce("count_nonzero", axes, keepdims)._h, _core.scalar_int(n)))


def any(x, /, *, axis=None, keepdims=False):  # noqa: A001
    x = as_array(x)
    axes = normalize_axes(axis, x.ndim)
    return Array(_core.binary("greater", x._reduce("count_nonzero", axes, keepdims)._h, _core.scalar_int(0)))


# ---- searching and sorting -----------------------------------------------------------------
def _arg_reduce(fn, x, axis, keepdims):
    x = as_array(x)
    if x.size == 0:
        raise ValueError(f"{fn.__name__} of an empty array")
    if axis is None:
        axes = list(range(x.ndim))
        out = along_axes(lambda b: np.reshape(fn(b), (1,) * b.ndim), x, axes, np.int64)
    else:
        axes = normalize_axes(axis, x.ndim)
        out = along_axes(lambda b: fn(b, axis=axes[0], keepdims=True), x, axes, np.int64)
    return _keepdims_or_not(out, axes, keepdims)


def argmax(x, /, *, axis=None, keepdims=False):
    return _arg_reduce(np.argmax, x, axis, keepdims)


def argmin(x, /, *, axis=None, keepdims=False):
    return _arg_reduce(np.argmin, x, axis, keepdims)


def nonzero(x, /):
    """Eager (the result's length depends on the values)."""
    x = as_array(x)
    if x.ndim == 0:
        raise ValueError("nonzero: not defined for 0-d arrays")
    return tuple(from_numpy(i.astype(np.int64)) for i in np.nonzero(x.compute()))


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """Lazy in x2; the sorted x1 (and sorter) are evaluated once."""
    a = _computed(x1)
    if sorter is not None:
        a = a[_computed(sorter)]
    return blockwise(lambda v: np.searchsorted(a, v, side=side), as_array(x2), dtype=np.int64, name="searchsorted")


def _axis(axis, ndim):
    return normalize_axes(axis, ndim)[0]


def sort(x, /, *, axis=-1, descending=False, stable=True):
    x = as_array(x)
    axis = _axis(axis, x.ndim)

    def f(b, ax):
        s = np.sort(b, axis=ax, kind="stable")
        return np.flip(s, axis=ax) if descending else s

    return lanes(f, x, axis, x.dtype)


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    x = as_array(x)
    axis = _axis(axis, x.ndim)

    def f(b, ax):
        if not descending:
            return np.argsort(b, axis=ax, kind="stable")
        n = b.shape[ax]  # stable descending: sort the reversed lane, then map the indices back
        return n - 1 - np.flip(np.argsort(np.flip(b, axis=ax), axis=ax, kind="stable"), axis=ax)

    return lanes(f, x, axis, np.int64)


# ---- sets (eager: the output length depends on the values) ---------------------------------
UniqueAll = namedtuple("UniqueAll", ["values", "indices", "inverse_indices", "counts"])
UniqueCounts = namedtuple("UniqueCounts", ["values", "counts"])
UniqueInverse = namedtuple("UniqueInverse", ["values", "inverse_indices"])


def _unique(x):
    a = as_array(x).compute()
    flat = a.reshape(-1)
    values, index, inverse, counts = np.unique(flat, return_index=True, return_inverse=True, return_counts=True,
                                               equal_nan=False)
    return a, values, index, inverse.reshape(a.shape), counts


def unique_all(x, /):
    _, v, i, inv, c = _unique(x)
    return UniqueAll(*(from_numpy(t) for t in (v, i.astype(np.int64), inv.astype(np.int64), c.astype(np.int64))))


def unique_counts(x, /):
    _, v, _, _, c = _unique(x)
    return UniqueCounts(from_numpy(v), from_numpy(c.astype(np.int64)))


def unique_inverse(x, /):
    _, v, _, inv, _ = _unique(x)
    return UniqueInverse(from_numpy(v), from_numpy(inv.astype(np.int64)))


def unique_values(x, /):
    return from_numpy(_unique(x)[1])


# ---- manipulation --------------------------------------------------------------------------
def broadcast_arrays(*arrays):
    arrays = [as_array(a) for a in arrays]
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    return [broadcast_to(a, shape) for a in arrays]


def _result_dtype(arrays):
    return np.result_type(*(a.dtype for a in arrays))


def concat(arrays, /, *, axis=0):
    arrays = [as_array(a) for a in arrays]
    dt = _result_dtype(arrays)
    if axis is None:
        return from_numpy(np.concatenate([_computed(a).reshape(-1) for a in arrays]).astype(dt, copy=False))
    return from_numpy(np.concatenate([_computed(a) for a in arrays], axis=axis).astype(dt, copy=False))


def stack(arrays, /, *, axis=0):
    arrays = [as_array(a) for a in arrays]
    return from_numpy(np.stack([_computed(a) for a in arrays], axis=axis).astype(_result_dtype(arrays), copy=False))


def expand_dims(x, /, axis=0):
    x = as_array(x)
    if not -x.ndim - 1 <= axis <= x.ndim:
        raise IndexError(f"expand_dims: axis {axis} is out of range for {x.ndim + 1} dimensions")
    return insert_axes(x, [axis])


def squeeze(x, /, axis):
    x = as_array(x)
    axes = normalize_axes(axis, x.ndim)
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} has length {x.shape[a]}, not 1")
    return drop_axes(x, axes)


def flip(x, /, *, axis=None):
    x = as_array(x)
    axes = normalize_axes(axis, x.ndim)
    if x.ndim == 0:
        return x
    return x[tuple(slice(None, None, -1) if a in axes else slice(None) for a in range(x.ndim))]


def moveaxis(x, source, destination, /):
    x = as_array(x)
    src = normalize_axes(source, x.ndim)
    dst = normalize_axes(destination, x.ndim)
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination need the same number of axes")
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return x.transpose(order)


def permute_dims(x, /, axes):
    x = as_array(x)
    if sorted(int(a) % builtins.max(x.ndim, 1) for a in axes) != list(range(x.ndim)) or len(axes) != x.ndim:
        raise ValueError(f"permute_dims: {tuple(axes)} is not a permutation of the {x.ndim} axes")
    return x.transpose(tuple(int(a) % x.ndim for a in axes))


def _target_shape(shape, size):
    shape = [int(s) for s in shape]
    if shape.count(-1) > 1:
        raise ValueError("reshape: at most one -1")
    known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
    if -1 in shape:
        if known == 0 or size % known:
            raise ValueError(f"reshape: cannot reshape {size} elements into {tuple(shape)}")
        shape[shape.index(-1)] = size // known
    if int(np.prod(shape, dtype=np.int64)) != size:
        raise ValueError(f"reshape: cannot reshape {size} elements into {tuple(shape)}")
    return tuple(shape)


def reshape(x, /, shape, *, copy=None):
    """Lazy when x reads numpy memory as is (a view of it) or only gains or loses length-1 axes;
    otherwise x is evaluated (strata's engine has no reshape node yet)."""
    x = as_array(x)
    shape = _target_shape(shape, x.size)
    if shape == x.shape:
        return x if not copy else Array(x._h)
    if x._host is not None and copy is not True:
        return from_numpy(x._host.reshape(shape))
    core_in = [n for n in x.shape if n != 1]
    if core_in == [n for n in shape if n != 1]:
        y = drop_axes(x, [a for a, n in enumerate(x.shape) if n == 1])
        return insert_axes(y, [a for a, n in enumerate(shape) if n == 1]) if y.ndim != len(shape) else y
    if copy is False:
        raise ValueError("reshape: this reshape of a computed expression needs a copy (copy=False)")
    return from_numpy(x.compute().reshape(shape))


def roll(x, /, shift, *, axis=None):
    return from_numpy(np.roll(_computed(as_array(x)), shift, axis=axis))


def repeat(x, repeats, /, *, axis=None):
    r = _computed(repeats) if isinstance(repeats, Array) else repeats
    return from_numpy(np.repeat(_computed(as_array(x)), r, axis=axis))


def tile(x, repetitions, /):
    return from_numpy(np.tile(_computed(as_array(x)), repetitions))


def unstack(x, /, *, axis=0):
    x = as_array(x)
    axis = _axis(axis, x.ndim)
    return tuple(x[(slice(None),) * axis + (i,)] for i in range(x.shape[axis]))


def take(x, indices, /, *, axis=None):
    x = as_array(x)
    if axis is None:
        if x.ndim != 1:
            raise ValueError("take: axis is required for arrays of more than one dimension")
        axis = 0
    return from_numpy(np.take(x.compute(), _computed(indices), axis=axis))


NAMES = ["sum", "prod", "mean", "var", "std", "min", "max", "count_nonzero", "cumulative_sum", "all", "any",
         "argmax", "argmin", "nonzero", "searchsorted", "sort", "argsort", "unique_all", "unique_counts",
         "unique_inverse", "unique_values", "broadcast_arrays", "concat", "stack", "expand_dims", "squeeze",
         "flip", "moveaxis", "permute_dims", "reshape", "roll", "repeat", "tile", "unstack", "take"]
