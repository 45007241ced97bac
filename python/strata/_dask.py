"""strata.pca on a Dask array with a dask.distributed client active: the passes run on the cluster.

The dosages are packed to 2-bit codes by one task per row block and the packed blocks stay on
the workers (persisted). The variant counts are computed there too. Once the used variants are
known, each group of 3,072 of them (the library's fixed unit of summation) is gathered into one
array on the workers, consecutive groups batched together, one batch per worker thread. Then
every PCA pass — each product of the standardized genotypes with a dense block — runs as one
task per batch, computing each of its groups' partial products with strata's kernels; the
driver adds the partials in group order, exactly as the local operator does. The closing
float64 check pass (``check_errors``) runs there too, one task per batch, in the blocks of the
local check operator (a fixed function of the shape): each task returns its blocks' partials
already summed in the library's fixed tree (a few nodes), and the driver continues that tree.
So the result, error bounds included, is the same bits as ``strata.pca`` of the same dosages on
this machine. Only the dense blocks (samples × 8 float64) travel to the workers and the
partials back.

The exact method's GRM and TSQR routes (small cohorts: auto picks them below 5,000 samples or
variants) need the codes in one place: the packed blocks (a quarter of int8) are then fetched
to the driver, which runs those routes locally.
"""
from __future__ import annotations

import numpy as np

from . import _core

GROUP_VARIANTS = _core.GENOTYPE_GRAM_GROUP_VARIANTS  # the library's unit of summation


def distributed_client(x):
    """The active dask.distributed client when `x` is a Dask array (or a Dataset of them)."""
    mod = type(x).__module__.split(".")[0]
    if mod not in ("dask", "xarray"):
        return None
    return active_client()


def active_client():
    """The active dask.distributed client (None without one, or without distributed)."""
    try:
        from distributed import default_client
    except ImportError:
        return None
    try:
        return default_client()
    except ValueError:
        return None


def _pack_block(block):
    from strata import _core as core

    return core.pack_dosages(np.asarray(block))


def _count_block(codes, samples):
    from strata import _core as core

    return core.code_counts(np.ascontiguousarray(codes), samples)


def _group_codes(blocks, rows):
    """A group's packed rows, gathered from the blocks holding them."""
    return np.ascontiguousarray(np.concatenate([b[r] for b, r in zip(blocks, rows)]))


def _batch_codes(blocks, groups):
    """A batch's groups, each gathered once: [(codes, counts)]; `groups` holds, per group, the
    indices into `blocks` it reads, their rows and the group's counts."""
    return [(_group_codes([blocks[i] for i in used], rows), counts) for used, rows, counts in groups]


def _task_context():
    from strata import _core as core

    # One thread per task: Dask runs the groups in parallel; the bits do not depend on it.
    return core.make_context(1, None, None)


def _gram_task(batch, samples, scale, arithmetic, q):
    from strata import _core as core

    ctx = _task_context()
    return [core.gram_group(ctx, codes, counts, samples, scale, arithmetic, q) for codes, counts in batch]


def _batch_rows(batch, lo, hi):
    """Rows [lo, hi) of a batch (numbered from its first), as (codes, counts) pieces: views."""
    pieces, row0 = [], 0
    for codes, counts in batch:
        a, b = max(lo, row0), min(hi, row0 + codes.shape[0])
        if a < b:
            pieces.append((codes[a - row0:b - row0], counts[a - row0:b - row0]))
        row0 += codes.shape[0]
    return pieces


def _check_task(batch, skip, heads, row0, total, samples, scale, block_rows, q):
    """The float64 check pass's blocks starting in this batch: its rows from `skip` on, then the
    heads of the next batches (`heads`: their pieces) up to the end of its last block."""
    from strata import _core as core

    pieces = _batch_rows(batch, skip, float("inf")) + [p for head in heads for p in head]
    return core.check_blocks(_task_context(), [c for c, _ in pieces], [n for _, n in pieces], row0, total, samples,
                             scale, block_rows, q)


def _project_task(batch, samples, scale, x):
    from strata import _core as core

    ctx = _task_context()
    return [core.project_group(ctx, codes, counts, samples, scale, x) for codes, counts in batch]


class _Runner:
    """The library's GenotypeGroupRunner for a Dask cluster: one task per variant group."""

    def __init__(self, client, packed, starts, last_rows, counts, samples, ids):
        self._client = client
        self._packed = packed      # futures of the persisted packed blocks, in row order
        self._starts = starts      # first variant of each block
        self._last_rows = last_rows
        self._counts = counts      # (variants, 4) of every variant
        self._samples = samples
        self._ids = ids
        self._groups = []

    def plan(self, kept, scale, arithmetic):
        """Each group's codes gathered once into a contiguous array held on the workers (the
        packed blocks are let go: the passes read only the groups). Consecutive groups form one
        batch per worker thread, held together: a pass is one task per batch (a round of few
        large tasks, not one per 3,072 variants), each returning its groups' partials in order."""
        self._scale, self._arithmetic = scale, arithmetic
        block_of = np.searchsorted(self._starts, kept, side="right") - 1
        groups = []
        for g0 in range(0, len(kept), GROUP_VARIANTS):
            idx = kept[g0:g0 + GROUP_VARIANTS]
            blocks = block_of[g0:g0 + GROUP_VARIANTS]
            used = np.unique(blocks)
            rows = [idx[blocks == b] - self._starts[b] for b in used]
            groups.append((used, rows, np.ascontiguousarray(self._counts[idx])))
        threads = max(1, sum(self._client.nthreads().values()))
        bounds = np.linspace(0, len(groups), min(threads, len(groups)) + 1).round().astype(int)
        self._rows = len(kept)
        # Each batch's used variants [first, end): the float64 check pass's blocks by batch.
        self._batch_bounds = [(int(lo) * GROUP_VARIANTS, min(self._rows, int(hi) * GROUP_VARIANTS))
                              for lo, hi in zip(bounds[:-1], bounds[1:])]
        self._groups = []
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            used = sorted(set(int(b) for g in groups[lo:hi] for b in g[0]))
            local = {b: i for i, b in enumerate(used)}
            spec = [([local[int(b)] for b in u], rows, counts) for u, rows, counts in groups[lo:hi]]
            self._groups.append(self._client.submit(_batch_codes, [self._packed[b] for b in used], spec, pure=False))
        self._packed = None

    def fetch(self):
        """The packed codes on this machine as a genotype view (the exact routes)."""
        if self._packed is None:
            raise RuntimeError("internal: the packed blocks were released after plan()")
        builder = _core.DosageBuilder(int(self._starts[-1] + self._last_rows), self._samples)
        for start, codes in zip(self._starts, self._client.gather(self._packed)):
            builder.add_codes(int(start), np.ascontiguousarray(codes))
        return builder.finish(self._ids)

    def _run(self, fn, operand, *args):
        c = self._client
        [op] = c.scatter([np.ascontiguousarray(operand)], broadcast=True)
        futures = [c.submit(fn, batch, self._samples, *args, op, pure=False) for batch in self._groups]
        try:
            return [part for batch in c.gather(futures) for part in batch]  # in group order
        finally:
            del futures, op

    def gram(self, q):
        return self._run(_gram_task, q, self._scale, self._arithmetic)

    def project(self, x):
        return self._run(_project_task, x, self._scale)

    def check(self, block_rows, q):
        """The float64 check pass in the library's blocks of `block_rows` used variants: one task per
        batch for the blocks starting in it, on the worker holding it; a block running past the
        batch takes the rows it lacks from the next batches (small slicing tasks where they are,
        so only those rows move). Each task returns its blocks' tree nodes, in block order."""
        c, m = self._client, self._rows
        [op] = c.scatter([np.ascontiguousarray(q)], broadcast=True)
        futures = []
        try:
            for i, (lo, hi) in enumerate(self._batch_bounds):
                first = -(-lo // block_rows) * block_rows   # the first block starting in the batch
                if first >= hi:
                    continue  # no block starts here: the previous batch's last block takes its rows
                end = min(m, -(-hi // block_rows) * block_rows)  # the end of the batch's last block
                heads = []
                for j in range(i + 1, len(self._batch_bounds)):
                    jlo, jhi = self._batch_bounds[j]
                    if jlo >= end:
                        break
                    heads.append(c.submit(_batch_rows, self._groups[j], 0, min(end, jhi) - jlo, pure=False))
                futures.append(c.submit(_check_task, self._groups[i], first - lo, heads, first, m, self._samples,
                                        self._scale, block_rows, op, pure=False))
            return c.gather(futures)  # per batch, in block order
        finally:
            del futures, op


def _dask_dosages(x):
    import dask.array as da

    from ._pca import _call_genotype_dosages

    ids = None
    if type(x).__name__ == "Dataset":
        ids = [str(s) for s in x["sample_id"].values] if "sample_id" in x else None
        if "call_dosage" in x:
            x = x["call_dosage"].transpose("variants", "samples").data
        else:
            x = _call_genotype_dosages(x)
    if not isinstance(x, da.Array) or x.ndim != 2:
        raise ValueError("distributed strata.pca needs a 2-D (variants x samples) Dask array")
    return x.rechunk({1: -1}), ids


def gather_genotypes(client, x, ids=None):
    """Genotypes on this machine from a 2-D Dask dosage array: each row block is read and packed
    to 2-bit codes on the workers, and only the codes (a quarter of int8) travel here."""
    x = x.rechunk({1: -1})
    n = int(x.shape[1])
    packed = x.map_blocks(_pack_block, dtype=np.uint8, chunks=(x.chunks[0], ((n + 3) // 4,)))
    starts = np.concatenate([[0], np.cumsum(x.chunks[0])[:-1]]).astype(np.int64)
    builder = _core.DosageBuilder(int(x.shape[0]), n)
    futures = client.compute(packed.to_delayed().ravel().tolist())
    index = {f.key: i for i, f in enumerate(futures)}
    from distributed import as_completed

    for f, codes in as_completed(futures, with_results=True):
        builder.add_codes(int(starts[index[f.key]]), np.ascontiguousarray(codes))
    return builder.finish(ids)


def distributed_pca(client, x, ctx, params, selection):
    from ._genotypes import Genotypes
    from ._pca import _result

    x, ids = _dask_dosages(x)
    n = int(x.shape[1])
    packed = x.map_blocks(_pack_block, dtype=np.uint8, chunks=(x.chunks[0], ((n + 3) // 4,)))
    blocks = client.compute(packed.to_delayed().ravel().tolist())  # held on the workers
    starts = np.concatenate([[0], np.cumsum(x.chunks[0])[:-1]]).astype(np.int64)
    counts = np.concatenate(client.gather([client.submit(_count_block, b, n, pure=False) for b in blocks]))
    runner = _Runner(client, blocks, starts, int(x.chunks[0][-1]), np.ascontiguousarray(counts, dtype=np.int64), n,
                     ids)
    del blocks
    r = _core.pca_remote(ctx._core, n, "<dask.distributed>", runner._counts, runner.plan, runner.gram, runner.project,
                         runner.check, runner.fetch, params, selection)
    return _result(r, _Ids(ids, n), ctx)


class _Ids:
    """What _result reads of a Genotypes: the sample IDs."""

    def __init__(self, ids, n):
        self.sample_ids = np.asarray(ids if ids is not None else [str(i) for i in range(n)], dtype=object)
