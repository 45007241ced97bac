"""strata.glm: dask-glm's GLM families, penalties and solvers, run out of core by strata."""
from __future__ import annotations

import dataclasses
import os
import warnings

import numpy as np

from . import _core
from ._context import library_defaults, resolve
from ._dask import distributed_client
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
    # The report fields of the fit, as ``strata glm --report`` writes them for the same fit
    # (linalg::glm_result_summary: family, solver, ..., iteration_log, warnings).
    summary: dict = dataclasses.field(default_factory=dict, repr=False)


class GlmWarning(UserWarning):
    """A degenerate fit: collinear columns, separation, an unusable covariance, no convergence."""


# The library's parameter struct holds the defaults (linalg::GlmParams, as `strata glm`).
_DEFAULT = library_defaults(_core.GlmParams())


def _glm_params(family, solver, penalty, lam, alpha, intercept, max_iter, tol, ftol, rho, abstol, reltol):
    """The library's GlmParams for strata.glm's arguments (max_iter/tol None = the solver's default)."""
    p = _core.GlmParams()
    p.family, p.solver, p.penalty = family, solver, penalty
    p.lam, p.alpha, p.intercept = float(lam), float(alpha), bool(intercept)
    p.max_iter = None if max_iter is None else int(max_iter)
    p.tol = None if tol is None else float(tol)
    p.ftol, p.rho, p.abstol, p.reltol = float(ftol), float(rho), float(abstol), float(reltol)
    return p


def glm(x, y, family: str = _DEFAULT.family, solver: str = _DEFAULT.solver, *, penalty: str = _DEFAULT.penalty,
        lam: float = _DEFAULT.lam, alpha: float = _DEFAULT.alpha, intercept: bool = _DEFAULT.intercept,
        max_iter: int | None = None, tol: float | None = None, ftol: float = _DEFAULT.ftol, rho: float = _DEFAULT.rho,
        abstol: float = _DEFAULT.abstol, reltol: float = _DEFAULT.reltol, threads=None, memory=None, progress=None,
        context=None) -> GlmResult:
    """Fit y ~ x as ``strata glm`` does (docs/architecture.md, "GLM").

    ``x``: a 2-D numpy array (C-order float64 is read in place), a Zarr array path (streamed in
    row blocks, resident when it fits half of ``memory``) or a strata.Array; a Dask array is
    computed here, unless a dask.distributed client is active: then X's row blocks stay on the
    workers and every pass runs there as Dask tasks, with the same result bits
    (python/strata/_dask_glm.py). ``y``: a 1-D array
    or a ``.npy`` path. ``family``: normal, logistic, poisson; ``solver``: newton, lbfgs, admm,
    gradient-descent, proximal-gradient; ``penalty``: none, l1, l2, elastic-net with weight
    ``lam`` (dask-glm's lamduh) and l1 share ``alpha``. ``intercept`` appends a column of ones
    (last coefficient). ``max_iter``/``tol`` default to dask-glm's per-solver values. Defaults
    are the library's (``strata._core.GlmParams()``).
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
    params = _glm_params(family, solver, penalty, lam, alpha, intercept, max_iter, tol, ftol, rho, abstol, reltol)
    client = distributed_client(x)
    if client is not None:  # the passes as tasks on the cluster, same bits as a local fit
        from ._dask_glm import distributed_glm

        r = distributed_glm(client, x, y, ctx, params)
    else:
        zarr = isinstance(x, (str, os.PathLike))
        x = os.fspath(x) if zarr else _matrix(x)
        r = (_core.glm_zarr if zarr else _core.glm_dense)(ctx._core, x, y, params)
    result = GlmResult(**r)
    for w in result.warnings:
        warnings.warn(f"strata.glm: {w}", GlmWarning, stacklevel=2)
    return result
