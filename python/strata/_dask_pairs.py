"""strata.king, strata.grm and strata.pairwise_distance (genotypes) on a Dask array, or an sgkit
Dataset of Dask arrays, with a dask.distributed client active: the pair passes run as tasks on
the cluster, split by variants.

The dosages are packed to 2-bit codes by one task per row block, and the packed blocks stay on
the workers. Then one task per worker thread takes a contiguous range of variants (its codes
gathered on the workers from the blocks that hold them) and computes that range's partial:

- king and the genotype distances: the pairs' joint genotype counts (int32, fields × pairs of
  the lower triangle), which add exactly in any order;
- grm: the float64 sums of each block of strata.grm's pass (the library's fixed unit of
  summation, grm_block_variants(n) selected variants: the pass sums a block's products apart,
  then adds the blocks in order), with the both-missing counts of its pairs. The ranges start
  at block boundaries; the selection (maf, geno) comes from the variant counts, computed on
  the workers too.

The partials are combined on the workers by a chain of tasks, in range order (counts summed,
block sums added one block at a time from zeros, as the local pass adds them), and the driver
receives the combined sums alone (never the codes) and finishes them with the library's own
finish (the kinship or distance of each pair's counts; the GRM's division by M or M_ab). The
result is the same bits as the local call on the same dosages.

Memory: each task holds one partial — king 5, a distance 9 int32 per pair, grm 8 bytes per
pair and block of its range (plus 8 per pair with missing calls) — about 10 N² bytes for king
at N samples (40 MB at 2,000), and for grm N²/2 · 8 · (blocks of the range): a cluster holds
N²/2 · 8 · M / grm_block_variants(N) bytes of GRM partials at once (320 MB at 2,000 × 20,000),
sized for the cohorts a LocalCluster handles (up to ~10,000 samples).
"""
from __future__ import annotations

import numpy as np

from . import _core
from ._dask import _count_block, _pack_block, _task_context


def dask_input(x):
    """(the client, the 2-D Dask dosage array) when `x` is a Dask array or a
    Dataset of them and a dask.distributed client is active; None otherwise (the local route)."""
    from ._dask import distributed_client

    client = distributed_client(x)
    if client is None:
        return None
    import dask.array as da

    from ._pca import _call_genotype_dosages

    if type(x).__name__ == "Dataset":
        if "call_dosage" in x:
            data = x["call_dosage"].transpose("variants", "samples").data
        elif "call_genotype" in x:
            data = _call_genotype_dosages(x)
        else:
            return None  # the local route raises its error
    else:
        data = x
    if not isinstance(data, da.Array) or data.ndim != 2:
        return None
    return client, data.rechunk({1: -1})


def _range_codes(blocks, rows):
    """A range's packed rows, gathered from the blocks holding them."""
    return np.ascontiguousarray(np.concatenate([b[r] for b, r in zip(blocks, rows)]))


def _pair_task(blocks, rows, samples, king_only):
    from strata import _core as core

    return core.pair_count_partial(_task_context(), _range_codes(blocks, rows), samples, king_only)


def _grm_task(blocks, rows, counts, samples, meanimpute):
    from strata import _core as core

    return core.grm_partial(_task_context(), _range_codes(blocks, rows), counts, samples, meanimpute)


def _add_counts(acc, part):
    return part if acc is None else acc + part  # int32: every count is below 2^31 (checked)


def _add_grm(acc, part, pairs):
    """acc's sums plus each of the range's block sums, in order (acc None: zeros, as the local
    pass's accumulators start), and the both-missing counts summed (exact)."""
    sums, both = (np.zeros(pairs), None) if acc is None else (acc[0].copy(), acc[1])
    block_sums, part_both = part
    for b in block_sums:
        sums += b
    if part_both is not None:
        both = part_both if both is None else both + part_both
    return sums, both


class _Cluster:
    """The packed blocks of a Dask dosage array, held on the workers."""

    def __init__(self, client, x, what):
        self.client = client
        self.m, self.n = int(x.shape[0]), int(x.shape[1])
        if self.n < 2:  # as the local route words it
            raise ValueError(f"<dask>: {self.n} sample{'s' if self.n != 1 else ''}: {what} at least two samples "
                             "(there is no pair)")
        packed = x.map_blocks(_pack_block, dtype=np.uint8, chunks=(x.chunks[0], ((self.n + 3) // 4,)))
        self.blocks = client.compute(packed.to_delayed().ravel().tolist())  # stay on the workers
        self.starts = np.concatenate([[0], np.cumsum(x.chunks[0])[:-1]]).astype(np.int64)
        self.threads = max(1, sum(client.nthreads().values()))

    def counts(self):
        c = self.client
        return np.ascontiguousarray(
            np.concatenate(c.gather([c.submit(_count_block, b, self.n, pure=False) for b in self.blocks])),
            dtype=np.int64)

    def inputs(self, idx):
        """The block futures and rows a range of variant indices reads."""
        block_of = np.searchsorted(self.starts, idx, side="right") - 1
        used = np.unique(block_of)
        return [self.blocks[b] for b in used], [idx[block_of == b] - self.starts[b] for b in used]

    def fold(self, parts, add, *args):
        """The parts combined on the workers, in order, by a chain of tasks: the result."""
        acc = None
        for p in parts:
            acc = self.client.submit(add, acc, p, *args, pure=False)
        return acc.result()


def _ranges(count, parts):
    bounds = np.linspace(0, count, min(parts, count) + 1).round().astype(np.int64)
    return list(zip(bounds[:-1], bounds[1:]))


def _pair_counts(client, x, king_only, what):
    cl = _Cluster(client, x, what)
    if cl.m >= 2**31:
        raise ValueError(f"<dask>: {cl.m} variants: the pair counts of a cluster run take fewer than 2^31")
    if cl.m == 0:
        raise ValueError("<dask>: no variants: kinship and distances need at least one")
    parts = [client.submit(_pair_task, *cl.inputs(np.arange(v0, v1)), cl.n, king_only, pure=False)
             for v0, v1 in _ranges(cl.m, cl.threads)]
    return cl.fold(parts, _add_counts), cl.n


def king(client, x):
    counts, n = _pair_counts(client, x, True, "kinship needs")
    return _core.king_from_counts(counts, n)


def genotype_distance(client, x, metric):
    _core.distance_metric_name(metric)  # a bad metric fails before the cluster runs
    counts, n = _pair_counts(client, x, False, "distances need")
    return _core.distance_from_counts(counts, n, metric)


def grm(client, x, meanimpute, selection):
    cl = _Cluster(client, x, "a GRM needs")
    counts = cl.counts()
    kept = _core.select_by_counts(selection, counts)
    m, n = len(kept), cl.n
    per_block = _core.grm_block_variants(n)
    blocks = -(-m // per_block)
    parts = []
    for b0, b1 in _ranges(blocks, cl.threads):  # ranges of whole blocks
        idx = kept[b0 * per_block:b1 * per_block]
        parts.append(client.submit(_grm_task, *cl.inputs(idx), np.ascontiguousarray(counts[idx]), n,
                                   bool(meanimpute), pure=False))
    sums, both = cl.fold(parts, _add_grm, n * (n + 1) // 2)
    pairwise = not meanimpute and bool((counts[kept, 3] > 0).any())
    if pairwise and both is None:
        both = np.zeros_like(sums)
    return _core.grm_from_sums(sums, both if pairwise else None, n, m)
