"""Complex arrays (complex64, complex128) for strata.array_api. strata's engine holds real
values, so a complex array is a float32/float64 array with a trailing axis of 2 (real,
imaginary): NumPy's own layout of complex memory, so wrapping a NumPy complex array and
computing one back are views, not copies. Indexing, transposes, reshapes, concatenation and
broadcasting act on the logical axes of that storage (lazily); sums and means reduce it
component by component; other functions run NumPy's complex functions block by block
(blockwise) or, for LAPACK, sort-like and set functions, on the evaluated array. Assignment
into a complex array evaluates it."""
from __future__ import annotations

import numpy as np

from . import _core
from ._array import Array, _axes, _chunks

COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128)}
REAL_OF = {c: r for r, c in COMPLEX_OF.items()}


def is_complex(x) -> bool:
    return isinstance(x, ComplexArray)


class ComplexArray(Array):
    """A lazy complex array; `_h` is its real storage, shape + (2,)."""

    _complex = True

    @property
    def shape(self) -> tuple:
        return tuple(self._h.shape)[:-1]

    @property
    def dtype(self) -> np.dtype:
        return COMPLEX_OF[np.dtype(self._h.dtype)]

    @property
    def chunksize(self) -> tuple:
        return tuple(self._h.chunks)[:-1]

    @property
    def storage(self) -> Array:
        return Array(self._h)

    @property
    def T(self) -> "ComplexArray":
        return self.transpose(tuple(reversed(range(self.ndim))))

    def __repr__(self):
        return f"strata.Array<shape={self.shape}, dtype={self.dtype}, chunksize={self.chunksize}>"

    def transpose(self, *axes) -> "ComplexArray":
        perm = list(axes[0]) if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else list(axes)
        perm = [int(a) % self.ndim for a in perm] if perm else list(reversed(range(self.ndim)))
        return ComplexArray(_core.transpose(self._h, perm + [self.ndim]))

    def rechunk(self, chunks) -> "ComplexArray":
        return ComplexArray(_core.rechunk(self._h, _chunks(chunks, list(self.shape)) + [2]))

    def astype(self, dtype) -> Array:
        dtype = np.dtype(dtype)
        if dtype.kind == "c":
            return ComplexArray(_core.astype(self._h, REAL_OF[dtype].str))
        return self.real_part().astype(dtype)

    def real_part(self) -> Array:
        return self.storage[(slice(None),) * self.ndim + (0,)]

    def _reduce(self, op, axis=None, keepdims=False, ddof=0) -> Array:
        axes = list(range(self.ndim)) if axis is None else _axes(axis, self.ndim)
        if op in ("sum", "mean") and not axes:  # nothing to reduce (0-d, or axis=())
            return self
        if op in ("sum", "mean"):
            return ComplexArray(_core.reduce(op, self._h, axes, bool(keepdims), 0))
        if op == "count_nonzero":
            from .array_api import not_equal

            return not_equal(self, 0)._reduce(op, axes, keepdims)
        raise TypeError(f"{op} is not defined for complex arrays")

    def compute(self, *, threads=None, memory=None, progress=None, context=None) -> np.ndarray:
        s = Array(self._h).compute(threads=threads, memory=memory, progress=progress, context=context)
        return np.ascontiguousarray(s).view(self.dtype)[..., 0]

    def __getitem__(self, key) -> Array:
        from ._xp_index import _expand, _is_mask, getitem

        if _is_mask(key) or (isinstance(key, tuple) and len(key) == 1 and _is_mask(key[0])):
            mask = key[0] if isinstance(key, tuple) else key
            return wrap_complex(self.compute()[mask.compute() if isinstance(mask, Array) else mask])
        return ComplexArray(getitem(self.storage, _expand(key, self.ndim) + (slice(None),))._h)

    def __setitem__(self, key, value) -> None:
        """Evaluates the array (complex assignment has no block kernel yet)."""
        a = self.compute().copy()
        k = tuple(v.compute() if isinstance(v, Array) and v.ndim else v for v in (key if isinstance(key, tuple) else (key,)))
        a[k] = value.compute() if isinstance(value, Array) else value
        self._set(wrap_complex(a))

    def to_zarr(self, *args, **kwargs):
        raise TypeError("strata writes real arrays to Zarr; store the real and imaginary parts separately")

    def to_dask(self):
        raise TypeError("a complex strata.Array has no Dask form; compute() it first")


def wrap_complex(a: np.ndarray, chunks=None) -> ComplexArray:
    """A NumPy complex array as a ComplexArray over its memory (C order: a view)."""
    from ._array import asarray

    a = np.asarray(a)
    if a.dtype not in REAL_OF:
        raise ValueError(f"strata holds complex64 and complex128 values, not {a.dtype}")
    if not a.flags.c_contiguous or not a.dtype.isnative:
        a = np.array(a, dtype=a.dtype.newbyteorder("="), order="C")
    storage = a.reshape(-1).view(REAL_OF[a.dtype]).reshape(a.shape + (2,))
    s = asarray(storage, None if chunks is None else list(_chunks(chunks, list(a.shape))) + [2])
    out = ComplexArray(s._h)
    out._host = a
    return out


def complex_from_real(x: Array, dtype) -> ComplexArray:
    """x + 0j, lazily: the pair axis is (x, 0)."""
    from ._xp_core import insert_axes

    real = x.astype(REAL_OF[np.dtype(dtype)])
    first = _core.from_buffer(np.array([True, False]), "|b1", [2])
    pair = Array(_core.where(first, insert_axes(real, [real.ndim])._h, _core.scalar_float(0.0)))
    return ComplexArray(pair.astype(REAL_OF[np.dtype(dtype)])._h)
