"""strata.svd and strata.qr on numpy arrays (read in place), Zarr arrays and strata.Array."""
from __future__ import annotations

import os

import numpy as np

from . import _core
from ._context import library_defaults, resolve


def _matrix(a) -> np.ndarray:
    from ._array import Array

    if isinstance(a, Array):
        a = a.compute()
    a = np.asarray(a)
    if a.ndim != 2:
        raise ValueError(f"expected a 2-D array, got {a.ndim} dimensions")
    if a.dtype.kind not in "biuf":
        raise ValueError(f"expected a numeric array, got dtype {a.dtype}")
    return np.ascontiguousarray(a, dtype=np.float64)  # no copy for C-order float64


# The library's parameter struct holds the defaults (linalg::SvdParams, as `strata svd`).
_DEFAULT = library_defaults(_core.SvdParams())


def _svd_params(k, method, iterations, tolerance, seed, compute_u):
    """The library's SvdParams for strata.svd's arguments (None = the library's default)."""
    if isinstance(k, bool) or (k is not None and not isinstance(k, (int, np.integer))):
        raise TypeError(f"k must be an integer or None, got {type(k).__name__}")
    p = _core.SvdParams()
    if k is not None:
        p.k = int(k)
    p.method = method
    if iterations is not None:
        p.iterations = int(iterations)
    if tolerance is not None:
        p.tolerance = float(tolerance)
    p.seed, p.compute_u = int(seed), bool(compute_u)
    return p


def svd(a, k: int | None = None, method: str = _DEFAULT.method, *, iterations: int | None = None,
        tolerance: float | None = None, seed: int = _DEFAULT.seed, compute_u: bool = _DEFAULT.compute_u,
        threads=None, memory=None, progress=None, context=None):
    """(U, S, Vt) of a 2-D array: numpy (C-order float64 is read in place), a Zarr array path
    ("store.zarr/x"), or a strata.Array. ``k=None`` = all components (exact method). Signs:
    the largest-magnitude entry of each row of Vt is positive (U for short-and-fat exact).
    Defaults are the library's (``strata._core.SvdParams()``, as ``strata svd``): ``method``
    auto, exact or randomized; ``iterations``/``tolerance`` None = the method's own."""
    ctx = resolve(context, threads, memory, progress)
    params = _svd_params(k, method, iterations, tolerance, seed, compute_u)
    if isinstance(a, (str, os.PathLike)):
        u, s, v, _, _ = _core.svd_zarr(ctx._core, os.fspath(a), params)
    else:
        u, s, v, _, _ = _core.svd_dense(ctx._core, _matrix(a), params)
    return u, s, v.T


def qr(a, *, threads=None, memory=None, context=None):
    """Thin QR (Q, R) of a 2-D array: TSQR for tall input (rows ≥ columns), Householder otherwise."""
    ctx = resolve(context, threads, memory)
    return _core.qr(ctx._core, _matrix(a))
