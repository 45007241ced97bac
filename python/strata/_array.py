"""strata.Array: a lazy chunked array computed by strata, with numpy's protocols (NEP-13/18)."""
from __future__ import annotations

import os

import numpy as np

from . import _core
from ._context import resolve

_TARGET_CHUNK_BYTES = 16 << 20


def _shape(shape) -> list[int]:
    if shape is None:
        raise ValueError("shape is required")
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    out = [int(s) for s in shape]
    if any(s < 0 for s in out):
        raise ValueError(f"shape must be non-negative, got {tuple(out)}")
    return out


def _chunks(chunks, shape, itemsize: int = 8) -> list[int]:
    """Block shape: given, or whole trailing axes with ~16 MiB of leading rows."""
    if chunks is None:
        row = int(np.prod(shape[1:], dtype=np.int64)) * itemsize if len(shape) > 1 else itemsize
        lead = max(1, _TARGET_CHUNK_BYTES // max(row, 1)) if shape else 1
        return ([min(lead, shape[0]) or 1] + [max(s, 1) for s in shape[1:]]) if shape else []
    if isinstance(chunks, (int, np.integer)):
        chunks = (chunks,) * len(shape)
    out = []
    for c, s in zip(chunks, shape):
        if isinstance(c, tuple):  # dask-style: take the first block
            c = c[0] if c else s
        out.append(max(1, s if c in (-1, None) else int(c)))
    return out


def _axes(axis, ndim: int) -> list[int]:
    if axis is None:
        return []
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    out = []
    for a in axes:
        a = int(a)
        if a < -ndim or a >= ndim:
            raise np.exceptions.AxisError(a, ndim)
        out.append(a % ndim)
    return out


def _handle(x):
    """The _core handle of an operand (scalars stay weak, as numpy's Python scalars do)."""
    if isinstance(x, Array):
        return x._h
    if isinstance(x, (bool, np.bool_)):
        return _core.scalar_bool(bool(x))
    if isinstance(x, (int, np.integer)):
        return _core.scalar_int(int(x))
    if isinstance(x, (float, np.floating)):
        return _core.scalar_float(float(x))
    if isinstance(x, np.ndarray) or (hasattr(x, "__array__") and not hasattr(x, "dask")):
        return asarray(x)._h
    if hasattr(x, "dask"):
        return asarray(x)._h
    return None


_BINARY = {np.add: "add", np.subtract: "subtract", np.multiply: "multiply", np.true_divide: "divide",
           np.power: "power", np.maximum: "maximum", np.minimum: "minimum", np.equal: "equal",
           np.not_equal: "not_equal", np.less: "less", np.less_equal: "less_equal", np.greater: "greater",
           np.greater_equal: "greater_equal", np.logical_and: "logical_and", np.logical_or: "logical_or",
           np.matmul: "matmul"}
_UNARY = {np.absolute: "abs", np.negative: "negative", np.sqrt: "sqrt", np.exp: "exp", np.log: "log",
          np.logical_not: "logical_not"}
_REDUCTIONS = {np.sum: "sum", np.mean: "mean", np.var: "var", np.std: "std", np.min: "min", np.max: "max",
               np.amin: "min", np.amax: "max", np.count_nonzero: "count_nonzero"}


class Array(np.lib.mixins.NDArrayOperatorsMixin):
    """A lazy, chunked n-d array: operations build an expression that strata evaluates in one
    pass (fused elementwise kernels, slices pushed down to the sources) on ``.compute()``."""

    __array_priority__ = 20

    def __init__(self, handle):
        self._h = handle

    # ---- properties -------------------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        return tuple(self._h.shape)

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(self._h.dtype)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def chunksize(self) -> tuple:
        return tuple(self._h.chunks)

    @property
    def chunks(self) -> tuple:
        """Dask-style block extents along each axis."""
        out = []
        for n, c in zip(self.shape, self.chunksize):
            full, rest = divmod(n, c)
            out.append((c,) * full + ((rest,) if rest else ()))
        return tuple(out)

    @property
    def T(self) -> "Array":
        return Array(_core.transpose(self._h, []))

    def __copy__(self) -> "Array":
        return self

    def __deepcopy__(self, memo) -> "Array":
        # An expression is immutable (no operation changes an Array in place), so a copy is the
        # same expression; xarray deep-copies the data it hands to Dask (sgkit's pc_relate does).
        return self

    def __len__(self) -> int:
        return self.shape[0]

    def __repr__(self):
        return f"strata.Array<shape={self.shape}, dtype={self.dtype}, chunksize={self.chunksize}>"

    # ---- structure --------------------------------------------------------------------------
    def __getitem__(self, key) -> "Array":
        if not isinstance(key, tuple):
            key = (key,)
        if any(k is None for k in key):
            return _with_new_axes(self, key)
        if any(k is Ellipsis for k in key):
            i = key.index(Ellipsis)
            key = key[:i] + (slice(None),) * (self.ndim - len(key) + 1) + key[i + 1:]
        if len(key) > self.ndim:
            raise IndexError(f"too many indices: {len(key)} for {self.ndim} axes")
        spec, drop = [], []
        for ax, k in enumerate(key):
            if isinstance(k, slice):
                spec.append((k.start, k.stop, 1 if k.step is None else int(k.step)))
            elif isinstance(k, (int, np.integer)) and not isinstance(k, bool):
                n = self.shape[ax]
                if k < -n or k >= n:
                    raise IndexError(f"index {k} is out of bounds for axis {ax} with size {n}")
                k = int(k) % n
                spec.append((k, k + 1, 1))
                drop.append(ax)
            else:
                raise TypeError(f"strata.Array takes basic (integer and slice) indices, got {type(k).__name__}")
        out = Array(_core.slice(self._h, spec))
        if drop:  # an integer index removes its axis: the max of one element is that element
            out = Array(_core.reduce("max", out._h, drop, False))
        return out

    def astype(self, dtype) -> "Array":
        return Array(_core.astype(self._h, np.dtype(dtype).str))

    def rechunk(self, chunks) -> "Array":
        return Array(_core.rechunk(self._h, _chunks(chunks, list(self.shape))))

    def transpose(self, *axes) -> "Array":
        perm = list(axes[0]) if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else list(axes)
        return Array(_core.transpose(self._h, [int(a) for a in perm]))

    # ---- reductions -------------------------------------------------------------------------
    def _reduce(self, op, axis=None, keepdims=False, ddof=0) -> "Array":
        return Array(_core.reduce(op, self._h, _axes(axis, self.ndim), bool(keepdims), int(ddof)))

    def sum(self, axis=None, keepdims=False):
        return self._reduce("sum", axis, keepdims)

    def mean(self, axis=None, keepdims=False):
        return self._reduce("mean", axis, keepdims)

    def var(self, axis=None, ddof=0, keepdims=False):
        return self._reduce("var", axis, keepdims, ddof)

    def std(self, axis=None, ddof=0, keepdims=False):
        return self._reduce("std", axis, keepdims, ddof)

    def min(self, axis=None, keepdims=False):
        return self._reduce("min", axis, keepdims)

    def max(self, axis=None, keepdims=False):
        return self._reduce("max", axis, keepdims)

    # ---- evaluation -------------------------------------------------------------------------
    def compute(self, *, threads=None, memory=None, progress=None, context=None) -> np.ndarray:
        """Evaluate into a numpy array (0-d for full reductions). The GIL is released meanwhile."""
        ctx = resolve(context, threads, memory, progress)
        return _core.compute(ctx._core, self._h)

    def __array__(self, dtype=None, copy=None):
        a = self.compute()
        return a if dtype is None else a.astype(dtype)

    def __float__(self):
        return float(self.compute())

    def __int__(self):
        return int(self.compute())

    def to_dask(self):
        """A Dask array whose blocks strata computes (one strata pass per Dask block)."""
        import dask.array as da

        return da.from_array(self, chunks=self.chunksize, asarray=False, name=f"strata-{id(self):x}")

    def to_zarr(self, path, chunks=None, *, zarr_format: int = 2, compressor: str = "blosc:zstd:5:shuffle",
                dimension_names=None, overwrite: bool = False, threads=None, memory=None, progress=None,
                context=None) -> None:
        """Compute the array into a new Zarr store at ``path`` (the array at its root), blocks in
        parallel, each written once. ``chunks``: the stored chunk shape (default: this array's
        chunks); ``zarr_format``: 2 or 3; ``compressor``: a strata codec spec ("none",
        "zstd:3", "blosc:zstd:5:shuffle", "gzip:6", ...). The store is written beside ``path``
        and renamed into place when complete; an existing store is replaced only with
        ``overwrite=True``, and never a store this array reads from."""
        ctx = resolve(context, threads, memory, progress)
        chunk_shape = [] if chunks is None else _chunks(chunks, list(self.shape), self.dtype.itemsize)
        names = [] if dimension_names is None else [str(n) for n in dimension_names]
        _core.write_zarr(ctx._core, self._h, os.fspath(path), chunk_shape, int(zarr_format), str(compressor), names,
                         bool(overwrite))

    # ---- numpy protocols --------------------------------------------------------------------
    def __array_namespace__(self, *, api_version=None):
        """The Array API namespace (strata.array_api): what strata evaluates lazily; the rest of
        the standard raises TypeError instead of converting to NumPy."""
        if api_version not in (None, "2021.12", "2022.12", "2023.12"):
            raise ValueError(f"strata implements the Array API 2023.12, not {api_version!r}")
        from . import array_api

        return array_api

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method != "__call__" or kwargs.get("out") is not None:
            return NotImplemented
        if kwargs:
            return NotImplemented
        if any(hasattr(x, "dask") and hasattr(x, "chunks") for x in inputs):
            # With a Dask operand Dask runs the graph (it may be huge, or masked); strata
            # computes its own operands' blocks when Dask reads them.
            import dask.array as da

            return ufunc(*[da.from_array(x, chunks=x.chunksize, asarray=True) if isinstance(x, Array) else x
                           for x in inputs])
        if any(isinstance(x, np.ma.MaskedArray) for x in inputs):  # numpy's masked semantics, mask kept
            return ufunc(*[np.asarray(x) if isinstance(x, Array) else x for x in inputs])
        handles = [_handle(x) for x in inputs]
        if any(h is None for h in handles):
            return NotImplemented
        if ufunc in _BINARY and len(handles) == 2:
            return Array(_core.binary(_BINARY[ufunc], *handles))
        if ufunc in _UNARY and len(handles) == 1:
            return Array(_core.unary(_UNARY[ufunc], handles[0]))
        # Anything else: numpy computes on the evaluated operands.
        return ufunc(*[np.asarray(x) if isinstance(x, Array) else x for x in inputs])

    def __array_function__(self, func, types, args, kwargs):
        impl = _FUNCTIONS.get(func)
        if impl is not None:
            out = impl(*args, **kwargs)
            if out is not NotImplemented:
                return out
        return func(*_to_numpy(args), **_to_numpy(kwargs))


def _with_new_axes(x: Array, key: tuple) -> Array:
    """x[key] for a key holding None (numpy.newaxis), as xarray's broadcasting indexes: the key
    without them, then a length-1 axis at each None's place (a broadcast where() against a
    one-element mask adds them in front, a transpose moves them into place)."""
    if key.count(Ellipsis) == 1:
        i = key.index(Ellipsis)
        rest = sum(1 for k in key if k is not None and k is not Ellipsis)
        key = key[:i] + (slice(None),) * (x.ndim - rest) + key[i + 1:]
    out = x[tuple(k for k in key if k is not None)]
    positions, axis = [], 0  # each None's axis in the result
    for k in key:
        if k is None:
            positions.append(axis)
            axis += 1
        elif not isinstance(k, (int, np.integer)):
            axis += 1
    n_new = len(positions)
    mask = asarray(np.ones((1,) * (out.ndim + n_new), dtype=bool))
    grown = Array(_core.where(mask._h, out._h, out._h)).rechunk((1,) * n_new + out.chunksize)
    old_axes = iter(range(n_new, n_new + out.ndim))
    perm = [positions.index(i) if i in positions else next(old_axes) for i in range(out.ndim + n_new)]
    return grown if perm == sorted(perm) else grown.transpose(perm)


def _to_numpy(x):
    if isinstance(x, Array):
        return x.compute()
    if isinstance(x, (list, tuple)):
        return type(x)(_to_numpy(v) for v in x)
    if isinstance(x, dict):
        return {k: _to_numpy(v) for k, v in x.items()}
    return x


def _reduction(op):
    def impl(a, axis=None, dtype=None, out=None, keepdims=False, ddof=0, **kw):
        if dtype is not None or out is not None or kw or not isinstance(a, Array):
            return NotImplemented
        return a._reduce(op, axis, keepdims, ddof)

    return impl


def _svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    from ._linalg import svd

    if a.ndim != 2 or (full_matrices and compute_uv and a.shape[0] != a.shape[1]) or hermitian:
        return NotImplemented
    u, s, vt = svd(a, None, "exact", compute_u=compute_uv)
    if not compute_uv:
        return asarray(s)
    return np.linalg._linalg.SVDResult(asarray(u), asarray(s), asarray(np.ascontiguousarray(vt)))


def _qr(a, mode="reduced"):
    from ._linalg import qr

    if mode != "reduced" or a.ndim != 2:
        return NotImplemented
    q, r = qr(a)
    return np.linalg._linalg.QRResult(asarray(q), asarray(r))


def _matmul(a, b, **kw):
    if kw:
        return NotImplemented
    return Array(_core.binary("matmul", _handle(a), _handle(b)))


def _nan_reduction(op):
    """numpy's nan-skipping reduction `op` as a strata expression: NaN counts as absent (what
    xarray's skipna reductions call). Integer and bool arrays hold no NaN: the plain reduction."""

    def impl(a, axis=None, dtype=None, out=None, keepdims=False, ddof=0, **kw):
        if dtype is not None or out is not None or kw or not isinstance(a, Array):
            return NotImplemented
        if a.dtype.kind != "f":
            return a._reduce(op, axis, keepdims, ddof)
        valid = a == a
        n = valid._reduce("count_nonzero", axis, keepdims)
        if op in ("min", "max"):
            fill = np.inf if op == "min" else -np.inf
            r = Array(_core.where(valid._h, a._h, _handle(fill)))._reduce(op, axis, keepdims)
            return Array(_core.where((n > 0)._h, r._h, _handle(np.nan)))
        total = Array(_core.where(valid._h, a._h, _handle(0.0)))._reduce("sum", axis, keepdims)
        if op == "sum":
            return total
        if op == "mean":
            return total / n
        # var / std: squared deviations from the mean of the observed values, over n - ddof
        m = Array(_core.where(valid._h, a._h, _handle(0.0)))._reduce("sum", axis, True) / valid._reduce(
            "count_nonzero", axis, True)
        dev = Array(_core.where(valid._h, (a - m)._h, _handle(0.0)))
        dof = n - int(ddof)
        v = Array(_core.where((dof > 0)._h, ((dev * dev)._reduce("sum", axis, keepdims) / dof)._h, _handle(np.nan)))
        return v if op == "var" else np.sqrt(v)

    return impl


_FUNCTIONS = {f: _reduction(op) for f, op in _REDUCTIONS.items()}
_FUNCTIONS.update({f: _nan_reduction(op) for f, op in ((np.nansum, "sum"), (np.nanmean, "mean"), (np.nanvar, "var"),
                                                       (np.nanstd, "std"), (np.nanmin, "min"), (np.nanmax, "max"))})
_FUNCTIONS.update({
    np.linalg.svd: _svd,
    np.linalg.qr: _qr,
    np.matmul: _matmul,
    np.dot: lambda a, b, out=None: NotImplemented if out is not None or np.ndim(a) != 2 or np.ndim(b) != 2
    else _matmul(a, b),
    np.transpose: lambda a, axes=None: a.transpose(*(axes or ())),
    np.where: lambda c, x=None, y=None: NotImplemented if x is None
    else Array(_core.where(_handle(c), _handle(x), _handle(y))),
    np.clip: lambda a, a_min, a_max, out=None, **kw: NotImplemented if out is not None or kw
    else Array(_core.clip(_handle(a), _handle(a_min), _handle(a_max))),
    np.shape: lambda a: a.shape,
    np.ndim: lambda a: a.ndim,
})


def asarray(x, chunks=None) -> Array:
    """A strata.Array over a numpy array, anything with the buffer protocol or DLPack (CPU), a
    Dask array, a Zarr array or a strata.Array.

    A C-contiguous array of bool, int8–int64, uint8–uint64, float32 or float64 in native byte
    order is not copied: the strata.Array reads that memory (and keeps the object alive), so
    changing the array changes what later computations see, as with ``dask.array.from_array``.
    Anything else is copied once: non-contiguous arrays (to C order), other byte orders (to
    native), float16 (to float32). Dask arrays are computed first (their result is not copied)."""
    if isinstance(x, Array):
        return x if chunks is None else x.rechunk(chunks)
    if isinstance(x, (str, os.PathLike)):
        return open_zarr(x) if chunks is None else open_zarr(x).rechunk(chunks)
    zarr_path = _local_zarr_path(x)
    if zarr_path is not None:
        return asarray(zarr_path, chunks)
    if hasattr(x, "dask") and hasattr(x, "compute"):
        chunks = chunks if chunks is not None else tuple(c[0] for c in x.chunks)
        x = x.compute()
    a = _host_view(x)
    if a.dtype.kind not in "biuf":
        raise ValueError(f"strata arrays hold bool, integer, float32 or float64 values, not {a.dtype}")
    if a.dtype == np.float16:
        a = a.astype(np.float32)
    a = np.ascontiguousarray(a.astype(a.dtype.newbyteorder("="), copy=False))
    return Array(_core.from_buffer(a, a.dtype.str, _chunks(chunks, list(a.shape), a.itemsize)))


def _host_view(x) -> np.ndarray:
    """numpy's view of x's memory where it has one (buffer protocol, __array_interface__,
    DLPack on the CPU); a new array otherwise (lists, scalars)."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "__dlpack__") and not hasattr(x, "__array_interface__"):
        try:
            return np.from_dlpack(x)
        except (BufferError, RuntimeError, TypeError):
            pass  # not on the CPU, or not exportable: let __array__ copy it
    return np.asarray(x)


def _local_zarr_path(x):
    """The filesystem path of a zarr-python Array in a local store, else None."""
    if type(x).__module__.split(".")[0] != "zarr":
        return None
    store = getattr(x, "store", None)
    root = getattr(store, "root", None)
    if root is None:
        return None
    path = getattr(x, "path", "") or ""
    return os.path.join(str(root), path) if path else str(root)


def open_zarr(path) -> Array:
    """A Zarr (v2 or v3) array as a lazy strata.Array, read chunk by chunk: "store.zarr/x"."""
    return Array(_core.from_zarr(os.fspath(path)))
