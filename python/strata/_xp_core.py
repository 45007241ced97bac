"""Building blocks of strata.array_api: NumPy kernels run block by block by strata's engine
(lazy, chunked), lazy broadcasting and axis insertion, and the few eager results the standard
allows (data-dependent shapes), each an explicit, documented computation."""
from __future__ import annotations

import numpy as np

from . import _core
from ._array import Array, _axes
from ._array import asarray as _wrap

_SMALL = 1 << 16  # elements: a constant this small is built in memory at once


def as_array(x) -> Array:
    if isinstance(x, Array):
        return x
    return _wrap(np.asarray(x))


def from_numpy(values) -> Array:
    """A computed result (or values built in memory) as a strata.Array, without another copy."""
    return _wrap(np.asarray(values))


def zeros_lazy(shape, dtype) -> Array:
    """Zeros of `shape`: in memory if small, else the broadcast of one zero row per axis (memory
    proportional to the sum of the extents, not their product)."""
    shape = tuple(int(s) for s in shape)
    if int(np.prod(shape, dtype=np.int64)) <= _SMALL or len(shape) < 2:
        return _wrap(np.zeros(shape, dtype))
    out = None
    for ax, n in enumerate(shape):
        part = _wrap(np.zeros(tuple(n if a == ax else 1 for a in range(len(shape))), dtype))
        out = part if out is None else Array(_core.where(_core.scalar_bool(True), out._h, part._h))
    return out


def broadcast_to(x: Array, shape) -> Array:
    shape = tuple(int(s) for s in shape)
    x = as_array(x)
    if x.shape == shape:
        return x
    if getattr(x, "_complex", False):  # broadcast the storage, its pair axis kept
        from ._xp_complex import ComplexArray

        return ComplexArray(broadcast_to(x.storage, shape + (2,))._h)
    try:
        ok = np.broadcast_shapes(x.shape, shape) == shape
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"cannot broadcast an array of shape {x.shape} to {shape}")
    return Array(_core.where(_core.scalar_bool(True), x._h, zeros_lazy(shape, x.dtype)._h))


def result_dtype(fn, args) -> np.dtype:
    """The dtype fn gives for these operands (NumPy's rules, Python scalars weak), by a trial on
    empty arrays."""
    trial = [np.empty((0,), a.dtype) if isinstance(a, Array) else a for a in args]
    with np.errstate(all="ignore"):
        return np.asarray(fn(*trial)).dtype


def blockwise(fn, *args, dtype=None, name="") -> Array:
    """fn (a NumPy elementwise function) over the broadcast array operands, block by block in
    strata's engine; Python scalars are passed to fn as they are."""
    arrays = [a for a in args if isinstance(a, Array)]
    if not arrays:
        raise TypeError(f"{name or fn.__name__}: needs an array operand")
    out_dtype = np.dtype(dtype) if dtype is not None else result_dtype(fn, args)
    if out_dtype.kind == "c" or any(getattr(a, "_complex", False) for a in arrays):
        return _complex_blockwise(fn, args, out_dtype)
    if out_dtype.kind not in "biuf":
        raise TypeError(f"{name or fn.__name__}: strata arrays cannot hold {out_dtype} values")
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    inputs = [broadcast_to(a, shape) for a in arrays]
    dtypes = [a.dtype for a in arrays]
    consts = [None if isinstance(a, Array) else a for a in args]
    is_array = [isinstance(a, Array) for a in args]

    def call(views, bshape, origin, out):
        bshape = tuple(bshape)
        blocks = iter([np.frombuffer(v, d).reshape(bshape) for v, d in zip(views, dtypes)])
        vals = [next(blocks) if arr else c for arr, c in zip(is_array, consts)]
        with np.errstate(all="ignore"):
            res = fn(*vals)
        np.frombuffer(out, out_dtype).reshape(bshape)[...] = res

    return Array(_core.map_blocks([a._h for a in inputs], out_dtype.str, call))


def _complex_blockwise(fn, args, out_dtype) -> Array:
    """blockwise with complex operands or result: every array operand in the storage form
    (shape + pair axis; a real one repeated along it), NumPy's complex view of each block."""
    from ._xp_complex import REAL_OF, ComplexArray

    arrays = [a for a in args if isinstance(a, Array)]
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    store, kinds = [], []
    for a in arrays:
        cplx = getattr(a, "_complex", False)
        s = a.storage if cplx else insert_axes(a, [a.ndim])
        store.append(broadcast_to(s, shape + (2,)))
        kinds.append((cplx, s.dtype, a.dtype))
    if store[0].chunksize[-1] != 2:  # blocks follow the first input: the pair axis whole
        store[0] = store[0].rechunk(list(store[0].chunksize[:-1]) + [2])
    out_complex = out_dtype.kind == "c"
    out_store = REAL_OF[out_dtype] if out_complex else out_dtype
    if not out_complex and out_dtype.kind not in "biuf":
        raise TypeError(f"strata arrays cannot hold {out_dtype} values")
    consts = [None if isinstance(a, Array) else a for a in args]
    is_array = [isinstance(a, Array) for a in args]

    def call(views, bshape, origin, out):
        bshape = tuple(bshape)
        blocks = iter(zip(views, kinds))
        vals = []
        for arr, c in zip(is_array, consts):
            if not arr:
                vals.append(c)
                continue
            view, (cplx, sdt, dt) = next(blocks)
            raw = np.frombuffer(view, sdt).reshape(bshape)
            vals.append(raw.view(dt)[..., 0] if cplx else raw[..., 0])
        with np.errstate(all="ignore"):
            res = np.asarray(fn(*vals))
        dst = np.frombuffer(out, out_store).reshape(bshape)
        if out_complex:
            dst.view(out_dtype)[..., 0] = res
        else:
            dst[...] = res[..., None]

    h = _core.map_blocks([a._h for a in store], out_store.str, call)
    return ComplexArray(h) if out_complex else drop_axes(Array(h), [len(shape)])


def along_axes(fn, x: Array, axes, out_dtype) -> Array:
    """A reduction by NumPy over whole lanes of `axes` (keepdims shape): the array is rechunked
    so those axes are whole in each block (a block then holds full lanes), fn(block) gives the
    reduced block, written at position 0 of the reduced axes and sliced out lazily."""
    x = as_array(x)
    if getattr(x, "_complex", False):  # no complex block kernel: on the evaluated array
        with np.errstate(all="ignore"):
            return from_numpy(np.asarray(fn(x.compute())))
    axes = sorted(axes)
    chunks = [x.shape[a] if a in axes else c for a, c in enumerate(x.chunksize)]
    y = x.rechunk(chunks) if list(x.chunksize) != chunks else x
    out_dtype = np.dtype(out_dtype)

    def call(views, bshape, origin, out):
        block = np.frombuffer(views[0], x.dtype).reshape(tuple(bshape))
        dst = np.frombuffer(out, out_dtype).reshape(tuple(bshape))
        with np.errstate(all="ignore"):
            res = fn(block)
        dst[tuple(slice(0, 1) if a in axes else slice(None) for a in range(len(bshape)))] = res

    full = Array(_core.map_blocks([y._h], out_dtype.str, call))
    return full[tuple(slice(0, 1) if a in axes else slice(None) for a in range(x.ndim))]


def lanes(fn, x: Array, axis: int, out_dtype) -> Array:
    """fn(block, axis) keeping the shape (sort, cumulative sums) with `axis` whole in each block."""
    x = as_array(x)
    if getattr(x, "_complex", False):  # no complex block kernel: on the evaluated array
        with np.errstate(all="ignore"):
            return from_numpy(np.asarray(fn(x.compute(), axis)))
    chunks = list(x.chunksize)
    chunks[axis] = max(1, x.shape[axis])
    y = x.rechunk(chunks) if list(x.chunksize) != chunks else x
    out_dtype = np.dtype(out_dtype)

    def call(views, bshape, origin, out):
        block = np.frombuffer(views[0], x.dtype).reshape(tuple(bshape))
        with np.errstate(all="ignore"):
            np.frombuffer(out, out_dtype).reshape(tuple(bshape))[...] = fn(block, axis)

    return Array(_core.map_blocks([y._h], out_dtype.str, call))


def drop_axes(x: Array, axes) -> Array:
    """Remove length-1 axes (lazily: an integer index per axis)."""
    axes = set(axes)
    if not axes:
        return x
    return x[tuple(0 if a in axes else slice(None) for a in range(x.ndim))]


def insert_axes(x: Array, axes) -> Array:
    """Insert length-1 axes at the given positions of the result (lazily: a broadcast to new
    leading axes, then a transpose that moves them into place)."""
    n = x.ndim + len(axes)
    axes = sorted(a % n for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError("repeated axis")
    y = broadcast_to(x, (1,) * len(axes) + x.shape)
    rest = iter(range(len(axes), n))
    new = iter(range(len(axes)))
    perm = [next(new) if a in axes else next(rest) for a in range(n)]
    return y.transpose(perm) if perm != list(range(n)) else y


def normalize_axes(axis, ndim) -> list[int]:
    """Axes of a reduction: all for None."""
    if axis is None:
        return list(range(ndim))
    axes = _axes(axis, ndim)
    if len(set(axes)) != len(axes):
        raise ValueError("repeated axis")
    return axes
