"""strata.pairwise_distance of a plain Dask array (one observation per row) with a
dask.distributed client active: tasks over tiles of row bands, on the cluster.

The local run (strata/genomics/row_distance.hpp) computes each pair of 64-row blocks by one
kernel call over all the coordinates of those two blocks' rows: a value depends on its two
blocks alone, never on how rows are banded. So the cluster splits the lower triangle into
tiles of row bands on that grid (each band whole 64-row blocks), one task per tile: the array
is rechunked to the bands (all coordinates of a band in one block, assembled on the workers
from the array's own chunks), each task reads its two bands and runs the library's tile
(row_distance_tile: the same kernels), and the driver receives the tiles alone and writes them
into the symmetric matrix. The result is the same bits as the local call on the same array.

The split is by rows rather than by coordinates: the local run sums all of a pair's
coordinates in one product (its Gram forms, the direct fallback where they cancel and
correlation's row centring need whole rows), so coordinate partials would change its bits.

Memory: a task holds two bands (8 bytes a value, four arrays for a Gram metric on floats) and
its tile; bands are sized to about 64 MB of values and to at least four tiles per worker
thread. The driver holds the N × N result.
"""
from __future__ import annotations

import numpy as np

from . import _core
from ._dask import _task_context

_BLOCK = 64            # the library's block grid (kRowDistanceBlock)
_BAND_BYTES = 64 << 20  # a band's values, at most (one block at least)


def dask_rows_input(x):
    """The active dask.distributed client when `x` is a Dask array; None otherwise."""
    from ._dask import distributed_client

    try:
        import dask.array as da
    except ImportError:
        return None
    if not isinstance(x, da.Array):
        return None
    return distributed_client(x)


def band_rows(n, d, threads):
    """Rows per band: whole blocks, at most _BAND_BYTES of values, and small enough for about
    four tiles per worker thread (k bands make k(k+1)/2 tiles)."""
    k = 1
    while k * (k + 1) // 2 < 4 * threads and k * _BLOCK < n:
        k += 1
    by_tiles = -(-n // k) + _BLOCK - 1  # whole blocks, rounded up
    by_memory = _BAND_BYTES // max(8 * d, 1)  # rounded down
    return max(_BLOCK, min(by_tiles, by_memory) // _BLOCK * _BLOCK)


def _native(a):
    return np.ascontiguousarray(a.astype(a.dtype.newbyteorder("="), copy=False))


def _tile_task(a, row0, b, col0, n, metric):
    from strata import _core as core

    return core.row_distance_tile(_task_context(), _native(a), row0, _native(b), col0, n, metric)


def pairwise_distance(client, x, metric):
    if x.ndim != 2:
        raise ValueError(f"pairwise_distance takes a 2-D (observations x coordinates) array, got {x.ndim} dimensions")
    if x.dtype.kind not in "iuf" or x.dtype == np.float16:
        x = x.astype(np.float64)
    n, d = (int(s) for s in x.shape)
    _core.row_distance_check(np.empty((0, d), x.dtype.newbyteorder("=")), n, metric)  # before the cluster runs
    threads = max(1, sum(client.nthreads().values()))
    band = band_rows(n, d, threads)
    bands = client.compute(x.rechunk({0: band, 1: -1}).to_delayed().ravel().tolist())  # stay on the workers
    starts = [i * band for i in range(len(bands))]
    tiles = {client.submit(_tile_task, bands[i], starts[i], bands[j], starts[j], n, metric, pure=False): (i, j)
             for i in range(len(bands)) for j in range(i + 1)}
    out = np.empty((n, n))
    from distributed import as_completed

    for fut, tile in as_completed(tiles, with_results=True):
        i, j = tiles[fut]
        r0, c0 = starts[i], starts[j]
        block = out[r0:r0 + tile.shape[0], c0:c0 + tile.shape[1]]
        block[...] = np.tril(tile) if i == j else tile  # a diagonal tile's upper part is mirrored below
    lower = np.tril_indices(n, -1)
    out.T[lower] = out[lower]
    return out
