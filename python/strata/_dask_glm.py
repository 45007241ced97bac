"""strata.glm on a Dask array with a dask.distributed client active: the passes run on the cluster.

The library fixes X's grid of row blocks from its shape alone (about 16 MiB of float64 rows per
block, ``_core.glm_block_grid``). X is rechunked to that grid, each block converted to C-order
float64 (the intercept's ones appended) by a task on the workers, and consecutive blocks are
gathered with their rows of y into one batch per worker thread, held there. Then every pass of
the solver, the statistics and the design checks is one task per batch: it computes each of its
blocks' partials with the library's block function (``_core.glm_block_partial``, what the
local fit runs on each block) and returns them in block order; the driver sums them in the
library's fixed tree. So the fit is the same bits as ``strata.glm`` of the same X on this
machine. Only β (p values), the partials (p² for a Hessian) and, for gradient descent, the
linear predictor's rows travel per pass; ADMM's per-block state (2 × blocks × p) travels too.
"""
from __future__ import annotations

import numpy as np

from . import _core
from ._dask import _task_context


def _block(x, intercept):
    """A block as the library reads it: C-order float64 rows, with a column of ones last."""
    x = np.asarray(x, dtype=np.float64)
    if intercept:
        x = np.concatenate([x, np.ones((x.shape[0], 1))], axis=1)
    return np.ascontiguousarray(x)


def _batch(blocks, y):
    """A batch's blocks, each with its rows of y (the batch's y, split at the blocks' heights)."""
    cuts = np.cumsum([b.shape[0] for b in blocks])[:-1]
    return [(b, np.ascontiguousarray(part)) for b, part in zip(blocks, np.split(y, cuts))]


def _pass_task(batch, task, eta, u, betas):
    """One pass over a batch: each block's (partial, rows, beta, x_abs_max), in block order."""
    from strata import _core as core

    ctx = _task_context()
    out, row = [], 0
    for i, (x, y) in enumerate(batch):
        n = x.shape[0]
        out.append(core.glm_block_partial(ctx, x, y, task, None if eta is None else eta[row:row + n],
                                          None if u is None else u[i], None if betas is None else betas[i]))
        row += n
    return out


class _Runner:
    """The library's GlmBlockRunner for a Dask cluster: one task per batch of blocks per pass."""

    def __init__(self, client, x, y, intercept):
        self._client, self._x, self._y, self._intercept = client, x, y, intercept
        self._batches = []   # futures of the batches, held on the workers
        self._blocks = []    # (first block, end block) of each batch
        self._rows = []      # (first row, end row) of each batch

    def plan(self, block_rows, num_blocks, p):
        c = self._client
        x = self._x.rechunk({0: int(block_rows), 1: -1})
        if x.numblocks[0] != num_blocks:
            raise RuntimeError(f"internal: X rechunked to {x.numblocks[0]} row blocks, the plan has {num_blocks}")
        blocks = x.map_blocks(_block, self._intercept, dtype=np.float64, chunks=(x.chunks[0], (int(p),)))
        futures = c.compute(blocks.to_delayed().ravel().tolist())  # each worker computes its blocks
        threads = max(1, sum(c.nthreads().values()))
        bounds = np.linspace(0, num_blocks, min(threads, num_blocks) + 1).round().astype(int)
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            r0, r1 = int(lo) * int(block_rows), min(int(hi) * int(block_rows), len(self._y))
            [y] = c.scatter([self._y[r0:r1]])
            self._batches.append(c.submit(_batch, futures[lo:hi], y, pure=False))
            self._blocks.append((int(lo), int(hi)))
            self._rows.append((r0, r1))
        del futures  # the batches hold the blocks now
        self._x = None

    def run(self, task, eta, u, betas):
        c = self._client
        if u is not None:
            u, betas = u.reshape(len(u) // len(task[7]), -1), betas.reshape(len(betas) // len(task[7]), -1)
        futures = [c.submit(_pass_task, batch, task, None if eta is None else eta[r0:r1],
                            None if u is None else u[b0:b1], None if betas is None else betas[b0:b1], pure=False)
                   for batch, (b0, b1), (r0, r1) in zip(self._batches, self._blocks, self._rows)]
        try:
            return [out for batch in c.gather(futures) for out in batch]  # in block order
        finally:
            del futures


def distributed_glm(client, x, y, ctx, params):
    """strata.glm's result dict for a 2-D Dask array x and y (numpy, on this machine)."""
    import dask.array as da

    if not isinstance(x, da.Array) or x.ndim != 2:
        raise ValueError("distributed strata.glm needs a 2-D Dask array")
    if x.dtype.kind not in "biuf":
        raise ValueError(f"expected a numeric array, got dtype {x.dtype}")
    rows, cols = (int(s) for s in x.shape)
    runner = _Runner(client, x, y, bool(params.intercept))
    try:
        return _core.glm_remote(ctx._core, rows, cols, y, params, runner.plan, runner.run)
    finally:
        runner._batches = []
