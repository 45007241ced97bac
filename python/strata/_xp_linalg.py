"""The Array API linalg extension for strata.Array. matmul (2-d, and vectors), matrix_transpose,
vector_norm, vecdot, outer, cross, and svd/qr of a matrix are lazy or run in strata's engine;
the functions in EAGER evaluate their input and run NumPy's LAPACK routine on it (they act on
stacks of small matrices, which strata has no kernel for yet)."""
from __future__ import annotations

import types

import numpy as np

from . import _core
from ._array import Array
from ._xp_core import as_array, blockwise, drop_axes, from_numpy, insert_axes, normalize_axes
from ._xp_functions import _sum_dtype, sum as _sum

EAGER = ["linalg.cholesky", "det", "diagonal", "eigh", "eigvalsh", "inv", "matrix_norm", "matrix_power",
         "matrix_rank", "pinv", "slogdet", "solve", "svdvals", "trace", "tensordot",
         "matmul (of stacks of matrices)", "svd/qr (of stacks, or svd with full_matrices of a non-square matrix)"]


def _numpy(x):
    return x.compute() if isinstance(x, Array) else np.asarray(x)


def _wrap_all(out):
    if isinstance(out, tuple):
        return type(out)(*(_wrap_all(o) for o in out)) if hasattr(out, "_fields") else tuple(
            _wrap_all(o) for o in out)
    return from_numpy(out)


def matmul(x1, x2, /):
    a, b = as_array(x1), as_array(x2)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: 0-d operands are not allowed")
    if a.ndim <= 2 and b.ndim <= 2 and not (_is_complex(a) or _is_complex(b)):
        a2 = insert_axes(a, [0]) if a.ndim == 1 else a
        b2 = insert_axes(b, [1]) if b.ndim == 1 else b
        if a2.shape[1] != b2.shape[0]:
            raise ValueError(f"matmul: shapes {a.shape} and {b.shape} do not align")
        out = Array(_core.binary("matmul", a2._h, b2._h))
        drop = ([0] if a.ndim == 1 else []) + ([out.ndim - 1] if b.ndim == 1 else [])
        return drop_axes(out, drop)
    return from_numpy(np.matmul(a.compute(), b.compute()))


def _is_complex(x) -> bool:
    return getattr(x, "_complex", False)


def matrix_transpose(x, /):
    x = as_array(x)
    if x.ndim < 2:
        raise ValueError("matrix_transpose needs at least 2 dimensions")
    perm = list(range(x.ndim))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return x.transpose(perm)


def vecdot(x1, x2, /, *, axis=-1):
    a, b = as_array(x1), as_array(x2)
    n = np.broadcast_shapes(a.shape, b.shape)
    ax = normalize_axes(axis, len(n))[0] - len(n)
    if a.shape[ax] != b.shape[ax]:
        raise ValueError("vecdot: the contracted axes differ in length")
    if _is_complex(a) or _is_complex(b):  # conj(x1) . x2 on the evaluated arrays
        return from_numpy(np.asarray(np.vecdot(a.compute(), b.compute(), axis=ax)))
    prod = Array(_core.binary("multiply", a._h, b._h))
    out = _sum(prod, axis=ax)
    return out if out.dtype == prod.dtype else out.astype(prod.dtype)


def outer(x1, x2, /):
    a, b = as_array(x1), as_array(x2)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError("outer: needs two 1-d arrays")
    from ._xp_elementwise import multiply

    return multiply(insert_axes(a, [1]), insert_axes(b, [0]))


def cross(x1, x2, /, *, axis=-1):
    a, b = as_array(x1), as_array(x2)
    shape = np.broadcast_shapes(a.shape, b.shape)
    ax = normalize_axes(axis, len(shape))[0] - len(shape)
    if a.shape[ax] != 3 or b.shape[ax] != 3:
        raise ValueError("cross: the axis must have length 3")

    def whole(x):  # the 3 components of a vector in one block
        chunks = list(x.chunksize)
        chunks[ax] = 3
        return x.rechunk(chunks)

    return blockwise(lambda u, v: np.cross(u, v, axis=ax), whole(a), whole(b), name="cross",
                     dtype=np.result_type(a.dtype, b.dtype))


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):  # noqa: A002
    """Lazy for every ord: max/min of |x| for ±inf, the count of nonzeros for 0, else
    (sum |x|^ord)^(1/ord)."""
    x = as_array(x)
    if _is_complex(x):
        x = blockwise(np.abs, x)
    dt = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    a = Array(_core.unary("abs", x._h)).astype(dt)
    axes = normalize_axes(axis, x.ndim)
    if ord == np.inf:
        return a._reduce("max", axes, keepdims)
    if ord == -np.inf:
        return a._reduce("min", axes, keepdims)
    if ord == 0:
        return a._reduce("count_nonzero", axes, keepdims).astype(dt)
    if ord == 1:
        return a._reduce("sum", axes, keepdims)
    if ord == 2:
        return Array(_core.unary("sqrt", Array(_core.binary("multiply", a._h, a._h))._reduce("sum", axes,
                                                                                               keepdims)._h))
    p = float(ord)
    s = Array(_core.binary("power", a._h, _core.scalar_float(p)))._reduce("sum", axes, keepdims)
    return Array(_core.binary("power", s._h, _core.scalar_float(1.0 / p)))


_LARGE = 1 << 20  # elements: svd/qr of a matrix this big runs in strata, smaller ones in LAPACK


def _as_dtype(out, dtype):
    return type(out)(*(o if o.dtype == dtype else o.astype(dtype) for o in out))


def svd(x, /, *, full_matrices=True):
    """A large matrix: strata's exact SVD (its U, S, Vh as strata.Arrays, in x's dtype); small
    matrices and stacks: LAPACK on the evaluated input."""
    x = as_array(x)
    if x.ndim == 2 and x.size >= _LARGE and not _is_complex(x) and (not full_matrices or x.shape[0] == x.shape[1]):
        out = np.linalg.svd(x, full_matrices=full_matrices)
        if out is not NotImplemented and isinstance(out[0], Array):
            return _as_dtype(out, x.dtype)
    return _wrap_all(np.linalg.svd(x.compute(), full_matrices=full_matrices))


def qr(x, /, *, mode="reduced"):
    """A large tall matrix: strata's QR; small matrices and stacks: LAPACK on the evaluated input."""
    x = as_array(x)
    if x.ndim == 2 and x.size >= _LARGE and not _is_complex(x) and mode == "reduced" and x.shape[0] >= x.shape[1]:
        return _as_dtype(np.linalg.qr(x), x.dtype)
    return _wrap_all(np.linalg.qr(x.compute(), mode=mode))


def trace(x, /, *, offset=0, dtype=None):
    x = as_array(x)
    want = _sum_dtype(x, dtype)
    return from_numpy(np.asarray(np.trace(x.compute(), offset=offset, axis1=-2, axis2=-1, dtype=want)))


def diagonal(x, /, *, offset=0):
    return from_numpy(np.diagonal(_numpy(x), offset=offset, axis1=-2, axis2=-1).copy())


def matrix_norm(x, /, *, keepdims=False, ord="fro"):  # noqa: A002
    return from_numpy(np.asarray(np.linalg.matrix_norm(_numpy(x), keepdims=keepdims, ord=ord)))


def tensordot(x1, x2, /, *, axes=2):
    a, b = _numpy(x1), _numpy(x2)
    return from_numpy(np.asarray(np.tensordot(a, b, axes=axes)).astype(np.result_type(a, b), copy=False))


def namespace() -> types.ModuleType:
    ns = types.ModuleType("strata.array_api.linalg", "The Array API linalg extension of strata.")
    for f in (matmul, matrix_transpose, vecdot, outer, cross, vector_norm, svd, qr, trace, diagonal, matrix_norm,
              tensordot):
        setattr(ns, f.__name__, f)
    la = np.linalg
    eager = {"det": la.det, "eigh": la.eigh, "eigvalsh": la.eigvalsh, "inv": la.inv, "slogdet": la.slogdet,
             "svdvals": la.svdvals}
    for name, fn in eager.items():
        setattr(ns, name, _one_matrix(fn, name))
    for f in (cholesky, matrix_power, matrix_rank, pinv, solve):
        setattr(ns, f.__name__, f)
    return ns


def _one_matrix(fn, name):
    def f(x, /):
        return _wrap_all(fn(_numpy(x)))

    f.__name__ = name
    return f


def cholesky(x, /, *, upper=False):
    return from_numpy(np.linalg.cholesky(_numpy(x), upper=upper))


def matrix_power(x, n, /):
    return from_numpy(np.linalg.matrix_power(_numpy(x), n))


def matrix_rank(x, /, *, rtol=None):
    return from_numpy(np.asarray(np.linalg.matrix_rank(_numpy(x), rtol=rtol)))


def pinv(x, /, *, rtol=None):
    return from_numpy(np.linalg.pinv(_numpy(x), rtol=rtol))


def solve(x1, x2, /):
    return from_numpy(np.linalg.solve(_numpy(x1), _numpy(x2)))
