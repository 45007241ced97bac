"""strata.pca and strata.pca_dataset: genotype PCA from a path, genotypes, numpy, Dask or sgkit."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from . import _core
from ._context import library_defaults, resolve
from ._genotypes import Genotypes, from_dosages, open_genotypes


@dataclass
class PcaResult:
    """Result of strata.pca. Eigenvalues are on plink2's GRM scale (XᵀX / M), eigenvectors are
    unit-norm per sample (plink2 ``.eigenvec``), loadings unit-norm per used variant."""

    eigenvalues: np.ndarray        # (k,)
    eigenvectors: np.ndarray       # (samples, k)
    loadings: np.ndarray | None    # (variants used, k)
    sample_ids: np.ndarray         # (samples,)
    variants_used: np.ndarray      # (variants used,) indices into the input
    variance_ratio: np.ndarray     # (k,) eigenvalue / GRM trace
    error_estimate: np.ndarray     # (k,) relative error estimate of each eigenvalue
    grm_variants: int              # M of the eigenvalue scale
    converged: bool
    method: str
    route: str                     # what ran: "grm", "tsqr", "krylov-converged" (exact), "krylov", "subspace"
    passes: int
    report: dict = field(repr=False, default_factory=dict)
    # The report fields of the run, as ``strata pca --report`` writes them for the same run
    # (genomics::pca_result_summary: method, route, k, scale, passes, stop, converged,
    # tolerance, eigenvalues, variance_ratio, ...; then samples, variants_input and, when the
    # selection removed something, "selection").
    summary: dict = field(repr=False, default_factory=dict)

    @property
    def singular_values(self) -> np.ndarray:
        """Singular values of the standardized (variants × samples) matrix: sqrt(M · λ)."""
        return np.sqrt(self.eigenvalues * self.grm_variants)


def _is_dask(x) -> bool:
    return type(x).__module__.split(".")[0] == "dask" and hasattr(x, "chunks") and hasattr(x, "dask")


def _dosage_from_call_genotype(g, mask=None):
    """ALT dosage of (variants, samples, ploidy) allele indices; any missing allele → -1.

    xarray decodes an integer call_genotype whose Zarr fill value is -1 as float with NaN
    for -1 (CF masking, as older VCF Zarr writers' stores load in sgkit): NaN, any negative
    index and a set ``call_genotype_mask`` all mean missing."""
    g = np.asarray(g)
    if g.dtype.kind == "f":
        finite = g[np.isfinite(g)]
        if finite.size and not np.array_equal(finite, np.round(finite)):
            raise ValueError("call_genotype holds non-integer values: it must hold allele indices "
                             "(NaN or negative for missing)")
        missing_allele = np.isnan(g) | (g < 0)
    elif g.dtype.kind in "iu":
        missing_allele = g < 0
    else:
        raise ValueError(f"call_genotype must hold integer allele indices, not {g.dtype}")
    if mask is not None:
        missing_allele = missing_allele | np.asarray(mask, dtype=bool)
    missing = missing_allele.any(axis=-1)
    d = ((g > 0) & ~missing_allele).sum(axis=-1, dtype=np.int8)
    d[missing] = -1
    return d


def _call_genotype_dosages(ds):
    """ALT dosages (variants, samples) from a Dataset's call_genotype (and call_genotype_mask)."""
    g = ds["call_genotype"]
    mask = ds["call_genotype_mask"] if "call_genotype_mask" in ds else None
    if mask is not None and mask.shape != g.shape:
        raise ValueError(f"call_genotype_mask has shape {mask.shape}, call_genotype {g.shape}")
    if _is_dask(g.data):
        import dask.array as da

        if mask is None:
            return g.data.map_blocks(_dosage_from_call_genotype, drop_axis=2, dtype=np.int8)
        m = da.asarray(mask.data).rechunk(g.data.chunks)
        return da.map_blocks(_dosage_from_call_genotype, g.data, m, drop_axis=2, dtype=np.int8)
    return _dosage_from_call_genotype(g.values, None if mask is None else mask.values)


class _BuilderTarget:
    """A da.store target packing row blocks of dosages into a strata DosageBuilder."""

    def __init__(self, builder, shape):
        self._builder = builder
        self.shape = shape
        self.dtype = np.dtype(np.int8)

    def __setitem__(self, key, value):
        rows, cols = key
        if cols.start not in (None, 0) or (cols.stop is not None and cols.stop != self.shape[1]):
            raise ValueError("internal: dosage blocks must span all samples")
        self._builder.add_rows(rows.start or 0, np.asarray(value))


def _from_dask(x, sample_ids=None):
    import dask.array as da

    if x.ndim != 2:
        raise ValueError(f"dosages must be a 2-D (variants x samples) array, got {x.ndim} dimensions")
    from ._dask import distributed_client, gather_genotypes

    ids = None if sample_ids is None else [str(s) for s in sample_ids]
    client = distributed_client(x)
    if client is not None:  # the blocks are read and packed on the workers
        return Genotypes(gather_genotypes(client, x, ids), "<dask>")
    x = x.rechunk({1: -1})
    builder = _core.DosageBuilder(int(x.shape[0]), int(x.shape[1]))
    da.store(x, _BuilderTarget(builder, x.shape), lock=False)
    return Genotypes(builder.finish(ids), "<dask>")


def _from_dataset(ds):
    ids = ds["sample_id"].values if "sample_id" in ds else None
    if "call_dosage" in ds:
        d = ds["call_dosage"]
        if d.dims[:2] != ("variants", "samples"):
            d = d.transpose("variants", "samples")
        data = d.data
    elif "call_genotype" in ds:
        data = _call_genotype_dosages(ds)
    else:
        raise ValueError("the Dataset has neither call_dosage nor call_genotype")
    if _is_dask(data):
        return _from_dask(data, ids)
    return from_dosages(np.asarray(data), ids)


def as_genotypes(x) -> Genotypes:
    """Genotypes from a path, Genotypes, numpy / Dask dosages or an sgkit xarray Dataset."""
    if isinstance(x, Genotypes):
        return x
    if isinstance(x, (str, os.PathLike)):
        return open_genotypes(x)
    if type(x).__name__ == "Dataset" and hasattr(x, "data_vars"):
        return _from_dataset(x)
    if _is_dask(x):
        return _from_dask(x)
    if hasattr(x, "__array__") or isinstance(x, (list, tuple)):
        a = np.asarray(x)
        if a.ndim != 2:
            raise ValueError(f"dosages must be a 2-D (variants x samples) array, got {a.ndim} dimensions")
        return from_dosages(a)
    raise TypeError(f"pca takes a path, strata.Genotypes, a numpy or Dask array or an xarray Dataset, "
                    f"not {type(x).__name__}")


# The library's parameter struct holds the defaults (genomics::PcaParams, as `strata pca`).
_DEFAULT = library_defaults(_core.PcaParams())


def _params(k, method, scale, tolerance, iterations, block, precision, seed, loadings, missing="meanimpute",
            check_errors=True):
    """The library's PcaParams for strata.pca's arguments (None = the library's default)."""
    if missing not in ("meanimpute", "pairwise"):
        raise ValueError(f"missing must be 'meanimpute' or 'pairwise' (strata pca --pca-missing), got {missing!r}")
    p = _core.PcaParams()
    p.meanimpute, p.check_errors = missing == "meanimpute", bool(check_errors)
    p.k = int(k)
    p.method, p.scale, p.precision = method, scale, precision
    if tolerance is not None:
        p.tolerance = float(tolerance)
    if iterations is not None:
        p.iterations = int(iterations)
    p.block_columns, p.seed, p.compute_loadings = int(block), int(seed), bool(loadings)
    return p


def _selection(maf, geno):
    """plink2's --maf and --geno as `strata pca` applies them (None = not given)."""
    s = _core.SelectionOptions()
    s.maf = None if maf is None else float(maf)
    s.geno = None if geno is None else float(geno)
    return s


def pca(x, k: int = _DEFAULT.k, method: str = _DEFAULT.method, scale: str = _DEFAULT.scale,
        tolerance: float | None = None, *, iterations: int | None = None, block: int = _DEFAULT.block_columns,
        precision: str = _DEFAULT.precision, seed: int = _DEFAULT.seed, maf: float | None = None,
        geno: float | None = None, loadings: bool = _DEFAULT.compute_loadings,
        missing: str = "meanimpute" if _DEFAULT.meanimpute else "pairwise",
        check_errors: bool = _DEFAULT.check_errors, threads: int | None = None, memory=None, progress=None,
        context=None) -> PcaResult:
    """PCA of a (variants × samples) genotype matrix, as ``strata pca`` computes it (same bits).

    ``x``: a path (PLINK prefix / .bed, VCF/BCF, VCF Zarr, dosage Zarr), ``strata.Genotypes``, a
    numpy or Dask array of dosages (ints with -1 missing, or floats with NaN missing), or an sgkit
    ``xarray.Dataset`` (``call_dosage`` or ``call_genotype``). ``method``: auto, exact,
    randomized; ``scale``: binom2, binom, center, none; ``tolerance``: run the randomized
    method until every eigenvalue error estimate is below it; ``maf``/``geno``: plink2's
    ``--maf``/``--geno``, applied as ``strata pca`` applies them; ``missing``: ``meanimpute`` or
    ``pairwise`` (``--pca-missing``: plink2's default ``--pca``, exact route only);
    ``check_errors``: the randomized routes' closing float64 pass, which turns the error
    estimates into bounds and reports its Rayleigh–Ritz pairs (on a ``distributed`` cluster it
    runs on the workers too: a cluster run equals the local run bit for bit). Defaults are the library's
    (``strata._core.PcaParams()``). ``threads`` (None = all cores), ``memory`` (budget, e.g.
    "4G"; None = half the physical memory, as ``strata pca``), ``progress`` (None = a tqdm bar in a terminal or notebook)
    and ``context`` as in strata.Context. The GIL is released while it computes. The result's
    ``summary`` holds the report fields ``strata pca --report`` writes for the same run."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be an integer, got {type(k).__name__}")
    from ._dask import distributed_client

    params = _params(k, method, scale, tolerance, iterations, block, precision, seed, loadings, missing, check_errors)
    selection = _selection(maf, geno)
    ctx = resolve(context, threads, memory, progress)
    client = distributed_client(x)
    if client is not None:
        from ._dask import distributed_pca

        return distributed_pca(client, x, ctx, params, selection)
    g = as_genotypes(x)
    return _result(_core.pca(ctx._core, g._view, params, selection), g, ctx)


def _result(r: dict, g: Genotypes, ctx) -> PcaResult:
    return PcaResult(eigenvalues=r["eigenvalues"], eigenvectors=r["eigenvectors"], loadings=r["loadings"],
                     sample_ids=g.sample_ids, variants_used=r["variants_used"], variance_ratio=r["variance_ratio"],
                     error_estimate=r["error_estimate"], grm_variants=r["grm_variants"],
                     converged=r["converged"], method=r["method"], route=r["route"], passes=r["passes"],
                     report=ctx.report(), summary=r["summary"])


def pca_dataset(ds, k: int = _DEFAULT.k, *, scale: str = _DEFAULT.scale, merge: bool = True, **kwargs):
    """strata.pca of an sgkit Dataset, returned with sgkit's variable names:
    ``sample_pca_projection`` (samples, components) = eigenvector · singular value,
    ``sample_pca_component`` (variants, components) = unit variant loadings (0 for variants
    not used), ``sample_pca_explained_variance`` = s² / samples (the variance of each
    projection column, as sgkit's estimators define it), ``…_ratio``, ``sample_pca_loading``.
    sgkit's own default scaling ("patterson") is ``scale="binom"`` here."""
    import xarray as xr

    r = pca(ds, k, scale=scale, **kwargs)
    n_samples, n_variants = r.eigenvectors.shape[0], ds.sizes["variants"]
    s = r.singular_values
    component = np.zeros((n_variants, s.size))
    if r.loadings is not None:
        component[r.variants_used] = r.loadings
    explained = s ** 2 / n_samples
    new = xr.Dataset({
        "sample_pca_projection": (("samples", "components"), r.eigenvectors * s),
        "sample_pca_component": (("variants", "components"), component),
        "sample_pca_explained_variance": (("components",), explained),
        "sample_pca_explained_variance_ratio": (("components",), r.variance_ratio),
        "sample_pca_loading": (("variants", "components"), component * np.sqrt(explained)),
    })
    return ds.merge(new) if merge else new
