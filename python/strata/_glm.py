"""strata.glm: dask-glm's GLM families, penalties and solvers, run out of core by strata."""
from __future__ import annotations

import dataclasses
import os
import warnings

import numpy as np

from . import _core
from ._context import resolve
from ._linalg import _matrix


@dataclasses.dataclass
class GlmResult:
    """A fitted GLM. ``se``/``stat``/``p`` are NaN for penalized fits (``has_stats`` False);
    ``stat`` is t (normal family, ``df_resid`` degrees of freedom) or z. ``log`` holds one dict
    per iteration (objective, change, step, passes over X). ``design_check`` is ``"."`` or
    plink2's ERRCODE for the design (CORR_TOO_HIGH, VIF_INFINITE, VIF_TOO_HIGH, INVALID_RESULT)
    and ``separation`` tells a logistic fit that predicts rows with certainty; collinear,
    invalid and separated fits have NaN statistics. Every entry of ``warnings`` is also issued
    as a ``strata.GlmWarning``."""

    terms: list
    coef: np.ndarray
    se: np.ndarray
    stat: np.ndarray
    p: np.ndarray
    has_stats: bool
    t_stat: bool
    df_resid: float
    objective: float
    iterations: int
    passes: int
    converged: bool
    resident: bool
    log: list
    warnings: list
    design_check: str = "."
    separation: bool = False


class GlmWarning(UserWarning):
    """A degenerate fit: collinear columns, separation, an unusable covariance, no convergence."""


def glm(x, y, family: str = "logistic", solver: str = "newton", *, penalty: str = "none", lam: float = 1.0,
        alpha: float = 0.5, intercept: bool = False, max_iter: int | None = None, tol: float | None = None,
        ftol: float = 1e7 * np.finfo(float).eps, rho: float = 1.0, abstol: float = 1e-4, reltol: float = 1e-2,
        threads=None, memory=None, progress=False, context=None) -> GlmResult:
    """Fit y ~ x as ``strata glm`` does (docs/architecture.md, "GLM").

    ``x``: a 2-D numpy array (C-order float64 is read in place), a Zarr array path (streamed in
    row blocks, resident when it fits half of ``memory``) or a strata.Array. ``y``: a 1-D array
    or a ``.npy`` path. ``family``: normal, logistic, poisson; ``solver``: newton, lbfgs, admm,
    gradient-descent, proximal-gradient; ``penalty``: none, l1, l2, elastic-net with weight
    ``lam`` (dask-glm's lamduh) and l1 share ``alpha``. ``intercept`` appends a column of ones
    (last coefficient). ``max_iter``/``tol`` default to dask-glm's per-solver values.
    """
    ctx = resolve(context, threads, memory, progress)
    if isinstance(y, (str, os.PathLike)):
        y = np.load(os.fspath(y))
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D (or n x 1), got shape {y.shape}")
    if y.dtype.kind not in "iuf":
        raise ValueError(f"y must be numeric, got dtype {y.dtype}")
    y = np.ascontiguousarray(y, dtype=np.float64)
    opts = dict(family=family, solver=solver, penalty=penalty, lam=float(lam), alpha=float(alpha),
                intercept=bool(intercept), max_iter=None if max_iter is None else int(max_iter),
                tol=None if tol is None else float(tol), ftol=float(ftol), rho=float(rho), abstol=float(abstol),
                reltol=float(reltol))
    if isinstance(x, (str, os.PathLike)):
        r = _core.glm_zarr(ctx._core, os.fspath(x), y, opts)
    else:
        r = _core.glm_dense(ctx._core, _matrix(x), y, opts)
    result = GlmResult(**r)
    for w in result.warnings:
        warnings.warn(f"strata.glm: {w}", GlmWarning, stacklevel=2)
    return result
