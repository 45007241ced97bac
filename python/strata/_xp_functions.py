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

EAGER = ["nonzero", "unique_all", "unique_counts", "unique_inverse", "unique_values", "boolean-mask indexing",
         "repeat (with an array of repeats)", "take (its indices; x stays lazy unless they form over 256 runs)",
         "searchsorted (its sorted x1)"]


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


# ddof: numpy's (and Dask's) name for the correction, which xarray passes to every namespace.
def var(x, /, *, axis=None, correction=0.0, keepdims=False, ddof=None):
    return _moment("var", x, axis, correction if ddof is None else ddof, keepdims)


def std(x, /, *, axis=None, correction=0.0, keepdims=False, ddof=None):
    return _moment("std", x, axis, correction if ddof is None else ddof, keepdims)


def min(x, /, *, axis=None, keepdims=False):  # noqa: A001
    x = as_array(x)
    return x._reduce("min", normalize_axes(axis, x.ndim), keepdims)


def max(x, /, *, axis=None, keepdims=False):  # noqa: A001
    x = as_array(x)
    return x._reduce("max", normalize_axes(axis, x.ndim), keepdims)


def count_nonzero(x, /, *, axis=None, keepdims=False):
    x = as_array(x)
    return x._reduce("count_nonzero", normalize_axes(axis, x.ndim), keepdims)


def _axis_or_only(name, x, axis) -> int:
    """The axis of a function whose axis may be omitted for 1-d arrays only."""
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"{name}: axis is required for arrays of more than one dimension")
        axis = 0
    return normalize_axes(axis, x.ndim)[0]


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    x = as_array(x)
    axis = _axis_or_only("cumulative_sum", x, axis)
    want = _sum_dtype(x, dtype)
    out = lanes(lambda b, ax: np.cumsum(b, axis=ax, dtype=want), x, axis, want)
    if include_initial:
        zero_shape = tuple(1 if a == axis else n for a, n in enumerate(x.shape))
        return _join([broadcast_to(from_numpy(np.zeros((), want)), zero_shape), out], axis)
    return out


def all(x, /, *, axis=None, keepdims=False):  # noqa: A001
    x = as_array(x)
    if getattr(x, "_complex", False):
        x = x != 0
    axes = normalize_axes(axis, x.ndim)
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    return Array(_core.binary("equal", x._reduce("count_nonzero", axes, keepdims)._h, _core.scalar_int(n)))


def any(x, /, *, axis=None, keepdims=False):  # noqa: A001
    x = as_array(x)
    if getattr(x, "_complex", False):
        x = x != 0
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


def _join(arrays, axis):
    """Lazy concatenation (strata's concatenate node) of arrays of one dtype."""
    arrays = [a for a in arrays if a.shape[axis] > 0] or arrays[:1]
    if len(arrays) == 1:
        return arrays[0]
    return type(arrays[0])(_core.concatenate([a._h for a in arrays], axis))  # complex: their storage


def concat(arrays, /, *, axis=0):
    arrays = [as_array(a) for a in arrays]
    dt = _result_dtype(arrays)
    arrays = [a if a.dtype == dt else a.astype(dt) for a in arrays]
    if axis is None:
        return _join([reshape(a, (-1,)) for a in arrays], 0)
    ndim = arrays[0].ndim
    if ndim == 0 or builtins.any(a.ndim != ndim for a in arrays):
        raise ValueError("concat: arrays need the same number of dimensions (at least 1)")
    axis = normalize_axes(axis, ndim)[0]
    for a in arrays:
        if builtins.any(n != m for d, (n, m) in enumerate(zip(a.shape, arrays[0].shape)) if d != axis):
            raise ValueError(f"concat: shapes {arrays[0].shape} and {a.shape} differ off axis {axis}")
    return _join(arrays, axis)


def stack(arrays, /, *, axis=0):
    arrays = [as_array(a) for a in arrays]
    if builtins.any(a.shape != arrays[0].shape for a in arrays):
        raise ValueError("stack: arrays need the same shape")
    ndim = arrays[0].ndim + 1
    if not -ndim <= axis < ndim:
        raise IndexError(f"stack: axis {axis} is out of range for {ndim} dimensions")
    return concat([insert_axes(a, [axis]) for a in arrays], axis=axis % ndim)


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
    """A view of the numpy memory x wraps, or lazy: length-1 axes added or dropped by indexing,
    any other reshape by strata's reshape node."""
    x = as_array(x)
    shape = _target_shape(shape, x.size)
    if shape == x.shape:
        return x if not copy else Array(x._h)
    if x._host is not None and copy is not True:
        return from_numpy(x._host.reshape(shape))
    if x.size == 0:  # nothing to read (Dask reshapes empty "meta" blocks)
        return from_numpy(np.empty(shape, x.dtype))
    core_in = [n for n in x.shape if n != 1]
    if core_in == [n for n in shape if n != 1]:
        y = drop_axes(x, [a for a, n in enumerate(x.shape) if n == 1])
        return insert_axes(y, [a for a, n in enumerate(shape) if n == 1]) if y.ndim != len(shape) else y
    if getattr(x, "_complex", False):
        return type(x)(_core.reshape(x._h, list(shape) + [2]))
    return Array(_core.reshape(x._h, list(shape)))


def roll(x, /, shift, *, axis=None):
    """Lazy: each rolled axis is the concatenation of its two slices."""
    x = as_array(x)
    if axis is None:
        return reshape(roll(reshape(x, (-1,)), shift, axis=0), x.shape)
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    shifts = [shift] * len(axes) if isinstance(shift, (int, np.integer)) else list(shift)
    if len(shifts) != len(axes):
        raise ValueError("roll: shift and axis need the same length")
    for ax, sh in zip(normalize_axes(axes, x.ndim) if len(set(axes)) == len(axes) else axes, shifts):
        ax = int(ax) % x.ndim
        n = x.shape[ax]
        k = int(sh) % n if n else 0
        if k:
            head = (slice(None),) * ax
            x = _join([x[head + (slice(n - k, None),)], x[head + (slice(0, n - k),)]], ax)
    return x


def repeat(x, repeats, /, *, axis=None):
    """Lazy for an integer count (a broadcast along a new axis, then a reshape); an array of
    counts is evaluated (the output length depends on it)."""
    x = as_array(x)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    axis = normalize_axes(axis, x.ndim)[0]
    if isinstance(repeats, Array) or np.ndim(repeats) > 0:
        r = repeats.compute() if isinstance(repeats, Array) else np.asarray(repeats)
        if r.ndim == 0:
            repeats = int(r)
        else:
            return from_numpy(np.repeat(x.compute(), r, axis=axis))
    r = int(repeats)
    if r < 0:
        raise ValueError("repeat: repeats must be non-negative")
    wide = broadcast_to(insert_axes(x, [axis + 1]), x.shape[:axis + 1] + (r,) + x.shape[axis + 1:])
    return reshape(wide, x.shape[:axis] + (x.shape[axis] * r,) + x.shape[axis + 1:])


def tile(x, repetitions, /):
    """Lazy: concatenations of x with itself along each axis."""
    x = as_array(x)
    reps = tuple(int(r) for r in repetitions)
    if len(reps) > x.ndim:
        x = reshape(x, (1,) * (len(reps) - x.ndim) + x.shape)
    reps = (1,) * (x.ndim - len(reps)) + reps
    for ax, r in enumerate(reps):
        if r != 1:
            x = _join([x] * r, ax) if r else x[(slice(None),) * ax + (slice(0, 0),)]
    return x


def unstack(x, /, *, axis=0):
    x = as_array(x)
    axis = _axis(axis, x.ndim)
    return tuple(x[(slice(None),) * axis + (i,)] for i in range(x.shape[axis]))


def take(x, indices, /, *, axis=None):
    """Lazy in x: the (evaluated) indices become runs of consecutive positions, sliced and
    concatenated; more than 256 runs gather from the evaluated x."""
    x = as_array(x)
    axis = _axis_or_only("take", x, axis)
    idx = _computed(indices).astype(np.int64).reshape(-1)
    n = x.shape[axis]
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise IndexError(f"take: an index is out of bounds for axis {axis} with size {n}")
    idx = idx % n if n else idx
    breaks = np.nonzero(np.diff(idx) != 1)[0] + 1 if idx.size else np.array([], np.int64)
    runs = np.split(idx, breaks) if idx.size else []
    head = (slice(None),) * axis
    if not runs:
        return x[head + (slice(0, 0),)]
    if len(runs) > 256:
        return from_numpy(np.take(x.compute(), idx, axis=axis))
    return _join([x[head + (slice(int(r[0]), int(r[-1]) + 1),)] for r in runs], axis)


NAMES = ["sum", "prod", "mean", "var", "std", "min", "max", "count_nonzero", "cumulative_sum", "all", "any",
         "argmax", "argmin", "nonzero", "searchsorted", "sort", "argsort", "unique_all", "unique_counts",
         "unique_inverse", "unique_values", "broadcast_arrays", "concat", "stack", "expand_dims", "squeeze",
         "flip", "moveaxis", "permute_dims", "reshape", "roll", "repeat", "tile", "unstack", "take"]
