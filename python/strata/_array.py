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
        return None if getattr(x, "_complex", False) else x._h  # complex: no engine kernel
    if isinstance(x, (bool, np.bool_)):
        return _core.scalar_bool(bool(x))
    if isinstance(x, (int, np.integer)):
        return _core.scalar_int(int(x))
    if isinstance(x, (float, np.floating)):
        return _core.scalar_float(float(x))
    if isinstance(x, np.ndarray) or hasattr(x, "__array__") or hasattr(x, "dask"):
        return _handle(asarray(x))
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
    _host = None  # the numpy array this one reads as is, if any

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

    @property
    def mT(self) -> "Array":
        from .array_api import matrix_transpose

        return matrix_transpose(self)

    @property
    def device(self) -> str:
        return "cpu"

    def to_device(self, device, /, *, stream=None) -> "Array":
        if device != "cpu":
            raise ValueError(f"strata arrays live on the CPU, not {device!r}")
        return self

    def __copy__(self) -> "Array":
        out = Array(self._h)
        out._host = self._host
        return out

    def __deepcopy__(self, memo) -> "Array":
        # An expression is immutable (__setitem__ gives an Array a new expression, it never
        # changes one), so a copy is a new Array on the same expression; xarray deep-copies the
        # data it hands to Dask (sgkit's pc_relate does).
        return self.__copy__()

    def __len__(self) -> int:
        return self.shape[0]

    def __repr__(self):
        return f"strata.Array<shape={self.shape}, dtype={self.dtype}, chunksize={self.chunksize}>"

    # ---- structure --------------------------------------------------------------------------
    def __getitem__(self, key) -> "Array":
        from ._xp_index import getitem

        return getitem(self, key)

    def __setitem__(self, key, value) -> None:
        """Replaces this array's expression by one with the selected elements set (lazy for
        integer/slice keys and for boolean masks with a scalar value); other arrays made from
        it before keep the old values."""
        from ._xp_index import setitem

        self._set(setitem(self, key, value))

    def _set(self, other: "Array") -> None:
        self._h, self._host = other._h, other._host

    def astype(self, dtype) -> "Array":
        if np.dtype(dtype).kind == "c":
            from ._xp_complex import complex_from_real

            return complex_from_real(self, dtype)
        return Array(_core.astype(self._h, np.dtype(dtype).str))

    def rechunk(self, chunks) -> "Array":
        return Array(_core.rechunk(self._h, _chunks(chunks, list(self.shape))))

    def reshape(self, *shape, order="C") -> "Array":
        """numpy's method (Dask calls it on the blocks of a Dask array over strata.Arrays)."""
        if order != "C":
            raise NotImplementedError(f"strata reshapes in C order only, not order={order!r}")
        from ._xp_functions import reshape

        return reshape(self, tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape)

    def round(self, decimals=0) -> "Array":
        """numpy's method (xarray's DataArray.round calls it): array_api.round with `decimals`."""
        from .array_api import round as _round

        return _round(self, decimals)

    def transpose(self, *axes) -> "Array":
        perm = list(axes[0]) if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else list(axes)
        return Array(_core.transpose(self._h, [int(a) for a in perm]))

    # ---- reductions -------------------------------------------------------------------------
    def _reduce(self, op, axis=None, keepdims=False, ddof=0) -> "Array":
        axes = _axes(axis, self.ndim)
        if not axes and axis is not None and self.ndim:  # axis=(): nothing is reduced
            return _reduce_no_axes(self, op, ddof)
        return Array(_core.reduce(op, self._h, axes, bool(keepdims), int(ddof)))

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

    def _scalar(self, kind):
        if self.size != 1:
            raise TypeError(f"only arrays of one element convert to Python {kind.__name__}, not shape {self.shape}")
        return kind(self.compute().reshape(()))

    def __float__(self):
        return self._scalar(float)

    def __int__(self):
        return self._scalar(int)

    def __bool__(self):
        return self._scalar(bool)

    def __complex__(self):
        return self._scalar(complex)

    def __index__(self):
        if self.dtype.kind not in "iu":
            raise TypeError(f"only integer arrays are indices, not {self.dtype}")
        return self._scalar(int)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        return self.compute().__dlpack__()

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU

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
        """The Array API namespace (strata.array_api, 2023.12): lazy functions, and the few that
        evaluate their input listed in strata.array_api.EAGER."""
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
        if any(getattr(x, "_complex", False) for x in inputs):
            handles = [None]  # complex operands: NumPy's function block by block, below
        elif any(h is None for h in handles):
            return NotImplemented
        if None not in handles and ufunc in _BINARY and len(handles) == 2:
            return Array(_core.binary(_BINARY[ufunc], *handles))
        if None not in handles and ufunc in _UNARY and len(handles) == 1:
            return Array(_core.unary(_UNARY[ufunc], handles[0]))
        if ufunc.nout == 1 and ufunc.signature is None:  # other elementwise ufuncs: NumPy's, block by block
            from ._xp_core import blockwise

            try:
                return blockwise(ufunc, *[asarray(x) if isinstance(x, np.ndarray) else x for x in inputs])
            except TypeError:
                pass
        # Anything else: numpy computes on the evaluated operands.
        return ufunc(*[np.asarray(x) if isinstance(x, Array) else x for x in inputs])

    def __array_function__(self, func, types, args, kwargs):
        impl = _FUNCTIONS.get(func)
        if impl is not None:
            out = impl(*args, **kwargs)
            if out is not NotImplemented:
                return out
        return func(*_to_numpy(args), **_to_numpy(kwargs))


def _reduce_no_axes(x: Array, op: str, ddof: int) -> Array:
    """A reduction over no axes: each element on its own (numpy's axis=())."""
    k = x.dtype.kind
    floating = x.dtype if k == "f" else np.dtype(np.float64)
    if op == "sum":
        return x.astype(np.int64 if k in "bi" else np.uint64 if k == "u" else x.dtype)
    if op == "mean":
        return x.astype(floating)
    if op in ("min", "max"):
        return x
    if op == "count_nonzero":
        return Array(_core.binary("not_equal", x._h, _core.scalar_int(0))).astype(np.int64)
    zero = Array(_core.binary("subtract", x._h, x._h)).astype(floating)  # 0, NaN where x is not finite
    return zero if ddof < 1 else zero * np.nan


def _operator(name, reflected=False):
    def method(self, other):
        if isinstance(other, np.ma.MaskedArray) or (hasattr(other, "dask") and hasattr(other, "chunks")):
            # A masked or Dask operand: NumPy's ufunc, which __array_ufunc__ hands to masked
            # semantics (the mask kept) or to Dask (its graph may be huge, or masked).
            ufunc = getattr(np, name)
            return ufunc(other, self) if reflected else ufunc(self, other)
        if not isinstance(other, (Array, bool, int, float, complex, np.ndarray, np.generic)):
            return NotImplemented
        from . import array_api

        f = getattr(array_api, name)
        return f(other, self) if reflected else f(self, other)

    return method


def _inplace(name):
    def method(self, other):
        from . import array_api

        out = getattr(array_api, name)(self, other)
        if out.shape != self.shape:
            raise ValueError(f"in-place {name} would change the shape {self.shape} to {out.shape}")
        self._set(out if out.dtype == self.dtype else out.astype(self.dtype))
        return self

    return method


def _unary_operator(name):
    def method(self):
        from . import array_api

        return getattr(array_api, name)(self)

    return method


# Python operators follow the Array API namespace (its dtype rules and special cases).
_OPERATORS = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide", "floordiv": "floor_divide",
              "mod": "remainder", "pow": "pow", "matmul": "matmul", "and": "bitwise_and", "or": "bitwise_or",
              "xor": "bitwise_xor", "lshift": "bitwise_left_shift", "rshift": "bitwise_right_shift"}
for _op, _name in _OPERATORS.items():
    setattr(Array, f"__{_op}__", _operator(_name))
    setattr(Array, f"__r{_op}__", _operator(_name, reflected=True))
    setattr(Array, f"__i{_op}__", _inplace(_name))
for _op, _name in {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal", "eq": "equal",
                   "ne": "not_equal"}.items():
    setattr(Array, f"__{_op}__", _operator(_name))
for _op, _name in {"neg": "negative", "pos": "positive", "abs": "abs", "invert": "bitwise_invert"}.items():
    setattr(Array, f"__{_op}__", _unary_operator(_name))
del _op, _name


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
    if a.dtype.kind == "c":
        from ._xp_complex import wrap_complex

        return wrap_complex(a, chunks)
    if a.dtype.kind not in "biuf":
        raise ValueError(f"strata arrays hold bool, integer, float32 or float64 values, not {a.dtype}")
    if a.dtype == np.float16:
        a = a.astype(np.float32)
    a = a.astype(a.dtype.newbyteorder("="), copy=False)
    if not a.flags.c_contiguous:  # (np.ascontiguousarray would also turn 0-d into 1-d)
        a = a.copy(order="C")
    out = Array(_core.from_buffer(a, a.dtype.str, _chunks(chunks, list(a.shape), a.itemsize)))
    out._host = a  # the memory it reads: reshapes of it are views, not computations
    return out


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
