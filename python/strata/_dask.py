"""strata.pca on a Dask array with a dask.distributed client active: the cluster packs."""
from __future__ import annotations

import numpy as np

from . import _core


def distributed_client(x):
    """The active dask.distributed client when `x` is a Dask array (or a Dataset of them)."""
    mod = type(x).__module__.split(".")[0]
    if mod not in ("dask", "xarray"):
        return None
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


def distributed_pca(client, x, ctx, k, method, scale, tolerance, iterations, block, precision, seed, maf, geno,
                    loadings):
    """Every row block of dosages is packed to 2-bit codes by a task on the cluster (strata's
    packer, on the workers that hold the block); only the packed codes — a quarter of int8,
    an eighth of float — travel to this process, which runs the PCA passes on them."""
    import dask.array as da

    from ._genotypes import Genotypes
    from ._pca import _dosage_from_call_genotype, _result

    ids = None
    if type(x).__name__ == "Dataset":
        ids = [str(s) for s in x["sample_id"].values] if "sample_id" in x else None
        if "call_dosage" in x:
            x = x["call_dosage"].transpose("variants", "samples").data
        else:
            x = x["call_genotype"].data.map_blocks(_dosage_from_call_genotype, drop_axis=2, dtype=np.int8)
    if not isinstance(x, da.Array) or x.ndim != 2:
        raise ValueError("distributed strata.pca needs a 2-D (variants x samples) Dask array")
    x = x.rechunk({1: -1})
    packed = x.map_blocks(_pack_block, dtype=np.uint8, chunks=(x.chunks[0], ((x.shape[1] + 3) // 4,)))
    builder = _core.DosageBuilder(int(x.shape[0]), int(x.shape[1]))
    starts = np.concatenate([[0], np.cumsum(x.chunks[0])[:-1]])
    futures = client.compute(packed.to_delayed().ravel().tolist())
    for start, fut in zip(starts, futures):
        builder.add_codes(int(start), np.ascontiguousarray(fut.result()))
    g = Genotypes(builder.finish(ids), "<dask.distributed>")
    r = _core.pca(ctx._core, g._view, k, method, scale, float(tolerance or 0.0),
                  -1 if iterations is None else int(iterations), int(block), precision, int(seed), float(maf),
                  float(geno), bool(loadings))
    return _result(r, g, ctx)
