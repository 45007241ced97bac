"""strata.king, strata.grm and strata.pairwise_distance: N × N matrices as numpy arrays."""
from __future__ import annotations

import os

import numpy as np

from . import _core
from ._context import resolve


def _genotypes(x):
    from ._pca import as_genotypes

    return as_genotypes(x)


def _on_cluster(x):
    """(client, Dask dosages) when `x` is a Dask array or a Dataset of them and a
    dask.distributed client is active: the pass then runs as tasks on the cluster
    (_dask_pairs.py), the same bits as here; None otherwise."""
    from ._dask_pairs import dask_input

    return dask_input(x)


def king(x, *, threads=None, memory=None, progress=None, context=None) -> np.ndarray:
    """KING-robust kinship of every pair of samples (``strata king``, plink2's
    ``--make-king``), an (samples × samples) float64 array. ``x`` is what strata.pca takes
    (a path, strata.Genotypes, (variants × samples) dosages, an sgkit Dataset). Each pair uses
    the variants both samples have observed; the diagonal is 0.5 (NaN for a sample without a
    heterozygous call). Variants on X, Y and MT are skipped, as ``strata king`` and plink2 do.
    With a dask.distributed client active, a Dask array (or a Dataset of them) runs as tasks
    on the cluster, split by variants (the same bits)."""
    ctx = resolve(context, threads, memory, progress)  # checked here too; the tasks run one thread each
    cluster = _on_cluster(x)
    if cluster is not None:
        from . import _dask_pairs

        return _dask_pairs.king(*cluster)
    g = _genotypes(x)
    return _core.king(ctx._core, g._view)


def grm(x, *, meanimpute: bool = False, maf: float | None = None, geno: float | None = None, threads=None,
        memory=None, progress=None, context=None) -> np.ndarray:
    """Genomic relationship matrix (``strata grm``, plink2's ``--make-rel``), (samples × samples)
    float64: (1/M_ab) Σ x_a x_b with x = (g − 2f) / √(2f(1 − f)); M_ab = variants both samples
    observe, or all variants passing ``maf``/``geno`` with ``meanimpute=True``. ``maf``/``geno``
    are plink2's ``--maf``/``--geno`` (None = not given), applied as ``strata grm`` applies them
    (the same selection as strata.pca: ``--geno`` first, MAF among founders). Variants on X, Y
    and MT are skipped, as ``strata grm`` and plink2 do. With a dask.distributed client active,
    a Dask array (or a Dataset of them) runs as tasks on the cluster, split by variants (the
    same bits)."""
    from ._pca import _selection

    ctx = resolve(context, threads, memory, progress)
    cluster = _on_cluster(x)
    if cluster is not None:
        from . import _dask_pairs

        return _dask_pairs.grm(*cluster, bool(meanimpute), _selection(maf, geno))
    g = _genotypes(x)
    out, _ = _core.grm(ctx._core, g._view, bool(meanimpute), _selection(maf, geno))
    return out


def pairwise_distance(x, metric: str = "euclidean", *, threads=None, memory=None, progress=None,
                      context=None) -> np.ndarray:
    """Distances between observations as ``strata distance --metric`` computes them, an
    (observations × observations) float64 array. As sgkit's ``pairwise_distance``, a 2-D numeric
    array (numpy, Dask, or a Zarr array path) has one observation per **row** (NaN = missing
    coordinate); genotypes (a genotype path, strata.Genotypes, an sgkit Dataset) have the
    samples as observations. Each pair uses the coordinates both have observed; on complete data
    the values equal ``scipy.spatial.distance.pdist``'s. Metrics: euclidean, sqeuclidean,
    cityblock, chebyshev, minkowski:P, cosine, correlation, hamming, and for genotypes ibs and
    allele-sharing. With a dask.distributed client active, a Dataset of Dask arrays runs as
    tasks on the cluster, split by variants (the same bits); so does a Dask array (its rows
    the observations), as tasks over tiles of row bands (the same bits)."""
    from ._genotypes import Genotypes

    ctx = resolve(context, threads, memory, progress)
    metric = str(metric)
    if isinstance(x, (str, os.PathLike)):
        out = _core.zarr_row_distance(ctx._core, os.fspath(x), metric)
        if out is not None:
            return out
        return _core.genotype_distance(ctx._core, _genotypes(x)._view, metric)
    if isinstance(x, Genotypes) or (type(x).__name__ == "Dataset" and hasattr(x, "data_vars")):
        cluster = _on_cluster(x) if not isinstance(x, Genotypes) else None
        if cluster is not None:
            from . import _dask_pairs

            return _dask_pairs.genotype_distance(*cluster, metric)
        return _core.genotype_distance(ctx._core, _genotypes(x)._view, metric)
    if hasattr(x, "dask") and hasattr(x, "compute"):
        from . import _dask_rows

        client = _dask_rows.dask_rows_input(x)
        if client is not None:
            return _dask_rows.pairwise_distance(client, x, metric)
        x = x.compute()
    a = np.asarray(x)
    if a.ndim != 2:
        raise ValueError(f"pairwise_distance takes a 2-D (observations x coordinates) array, got {a.ndim} dimensions")
    if a.dtype.kind not in "iuf" or a.dtype == np.float16:
        a = a.astype(np.float64)
    a = np.ascontiguousarray(a.astype(a.dtype.newbyteorder("="), copy=False))
    return _core.row_distance(ctx._core, a, metric)
