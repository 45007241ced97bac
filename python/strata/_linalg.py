"""strata.svd and strata.qr on numpy arrays (read in place), Zarr arrays and strata.Array."""
from __future__ import annotations

import os

import numpy as np

from . import _core
from ._context import resolve


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


def svd(a, k: int | None = None, method: str = "auto", *, iterations: int | None = None,
        tolerance: float | None = None, seed: int = 0, compute_u: bool = True, threads=None, memory=None,
        progress=False, context=None):
    """(U, S, Vt) of a 2-D array: numpy (C-order float64 is read in place), a Zarr array path
    ("store.zarr/x"), or a strata.Array. ``k=None`` = all components (exact method). Signs:
    the largest-magnitude entry of each row of Vt is positive (U for short-and-fat exact)."""
    ctx = resolve(context, threads, memory, progress)
    if isinstance(k, bool) or (k is not None and not isinstance(k, (int, np.integer))):
        raise TypeError(f"k must be an integer or None, got {type(k).__name__}")
    args = (0 if k is None else int(k), method, -1 if iterations is None else int(iterations),
            float(tolerance or 0.0), int(seed), bool(compute_u))
    if isinstance(a, (str, os.PathLike)):
        u, s, v, _, _ = _core.svd_zarr(ctx._core, os.fspath(a), *args)
    else:
        u, s, v, _, _ = _core.svd_dense(ctx._core, _matrix(a), *args)
    return u, s, v.T


def qr(a, *, threads=None, memory=None, context=None):
    """Thin QR (Q, R) of a 2-D array: TSQR for tall input (rows ≥ columns), Householder otherwise."""
    ctx = resolve(context, threads, memory)
    return _core.qr(ctx._core, _matrix(a))
