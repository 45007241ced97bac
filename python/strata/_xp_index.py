"""Indexing of strata.Array (the Array API's rules): integers, slices (any step), Ellipsis and
None lazily; a boolean mask (the only index) evaluates the array, as its result's length
depends on the mask. Assignment is lazy for integer/slice keys (a block function writes the
value into the blocks it touches) and for boolean masks with a scalar value."""
from __future__ import annotations

import numpy as np

from . import _core
from ._array import Array, _handle
from ._xp_core import as_array, broadcast_to, from_numpy, insert_axes


def _is_mask(k):
    return (isinstance(k, Array) or isinstance(k, np.ndarray)) and k.dtype == np.bool_


def _expand(key, ndim):
    """The key as a tuple without Ellipsis (one entry per axis, plus Nones)."""
    if not isinstance(key, tuple):
        key = (key,)
    if sum(k is Ellipsis for k in key) > 1:
        raise IndexError("an index can only have one Ellipsis")
    used = sum(k is not None and k is not Ellipsis for k in key)
    if used > ndim:
        raise IndexError(f"too many indices: {used} for {ndim} axes")
    if Ellipsis in key:
        i = next(i for i, k in enumerate(key) if k is Ellipsis)
        key = key[:i] + (slice(None),) * (ndim - used) + key[i + 1:]
    else:
        key = key + (slice(None),) * (ndim - used)
    return key


def _int(k):
    if isinstance(k, (bool, np.bool_)):
        raise IndexError("a bool is not an integer index")
    if isinstance(k, (int, np.integer)):
        return int(k)
    if isinstance(k, Array) and k.ndim == 0 and k.dtype.kind in "iu":
        return int(k)
    return None


def getitem(x: Array, key) -> Array:
    if _is_mask(key) or (isinstance(key, tuple) and len(key) == 1 and _is_mask(key[0])):
        mask = key[0] if isinstance(key, tuple) else key
        m = mask.compute() if isinstance(mask, Array) else mask
        if m.shape != x.shape[:m.ndim]:
            raise IndexError(f"a boolean mask of shape {m.shape} does not match the array's {x.shape}")
        return from_numpy(x.compute()[m])
    key = _expand(key, x.ndim)
    spec, drop, new_axes, out_pos, ax = [], [], [], 0, 0
    for k in key:
        if k is None:
            new_axes.append(out_pos)
            out_pos += 1
            continue
        n = x.shape[ax]
        if isinstance(k, slice):
            step = 1 if k.step is None else int(k.step)
            if step == 0:
                raise IndexError("slice step cannot be zero")
            start, stop, step = slice(k.start, k.stop, step).indices(n)
            count = len(range(start, stop, step))
            if step < 0 and count and stop < 0:
                stop = None
            spec.append((start, stop, step) if count else (0, 0, 1))
            out_pos += 1
        else:
            i = _int(k)
            if i is None:
                raise IndexError(f"strata.Array takes integer, slice, Ellipsis and None indices (or one boolean "
                                 f"mask), got {type(k).__name__}")
            if i < -n or i >= n:
                raise IndexError(f"index {i} is out of bounds for axis {ax} with size {n}")
            i %= n
            spec.append((i, i + 1, 1))
            drop.append(ax)
        ax += 1
    out = Array(_core.slice(x._h, spec)) if spec else x
    if drop:  # an integer index removes its axis: the max of one element is that element
        out = Array(_core.reduce("max", out._h, drop, False))
    return insert_axes(out, new_axes) if new_axes else out


def _value(x: Array, value):
    if isinstance(value, Array):
        return value.compute().astype(x.dtype, copy=False)
    return np.asarray(value, dtype=x.dtype)


def setitem(x: Array, key, value) -> Array:
    """x with x[key] = value, as a new expression (x's dtype and shape)."""
    if _is_mask(key) or (isinstance(key, tuple) and len(key) == 1 and _is_mask(key[0])):
        mask = as_array(key[0] if isinstance(key, tuple) else key)
        given = mask
        if mask.shape != x.shape[:mask.ndim]:
            raise IndexError(f"a boolean mask of shape {mask.shape} does not match the array's {x.shape}")
        if mask.ndim < x.ndim:
            mask = insert_axes(mask, list(range(mask.ndim, x.ndim)))
        if isinstance(value, (bool, int, float)) or (getattr(value, "ndim", 1) == 0):
            mask = broadcast_to(mask, x.shape).rechunk(x.chunksize)  # the result keeps x's blocks
            v = _value(x, value)
            out = Array(_core.where(mask._h, _handle(from_numpy(v)), x._h))
            return out if out.dtype == x.dtype else out.astype(x.dtype)
        a = x.compute().copy()  # an array value: its elements go where the mask is true
        a[given.compute()] = _value(x, value)
        return from_numpy(a)
    key = _expand(key, x.ndim)
    if any(k is None for k in key):
        raise IndexError("None (newaxis) is not allowed in an assignment's index")
    picks, region, kept = [], [], []
    for ax, k in enumerate(key):
        n = x.shape[ax]
        if isinstance(k, slice):
            idx = np.arange(n)[k]
            kept.append(len(idx))
        else:
            i = _int(k)
            if i is None:
                raise IndexError(f"strata.Array assignment takes integer and slice indices, got {type(k).__name__}")
            if i < -n or i >= n:
                raise IndexError(f"index {i} is out of bounds for axis {ax} with size {n}")
            idx = np.array([i % n])
        picks.append(idx)
        region.append(len(idx))
    vals = np.broadcast_to(_value(x, value), tuple(kept)).reshape(tuple(region))
    dtype = x.dtype

    def call(views, bshape, origin, out):
        dst = np.frombuffer(out, dtype).reshape(tuple(bshape))
        dst[...] = np.frombuffer(views[0], dtype).reshape(tuple(bshape))
        local, where = [], []
        for idx, o, s in zip(picks, origin, bshape):
            inside = np.nonzero((idx >= o) & (idx < o + s))[0]
            local.append(idx[inside] - o)
            where.append(inside)
        if all(len(w) for w in where):
            dst[np.ix_(*local)] = vals[np.ix_(*where)]

    if x.ndim == 0:
        return from_numpy(np.array(vals.reshape(()), dtype=dtype))
    return Array(_core.map_blocks([x._h], dtype.str, call))
