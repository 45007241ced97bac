"""strata: genotype-scale linear algebra for numpy, Dask, xarray and sgkit users.

    import strata
    g = strata.open_genotypes("cohort.bed")          # (variants, samples) int8 duck array
    r = strata.pca(g, k=10)                          # or a path, numpy/Dask dosages, sgkit Dataset
    u, s, vt = strata.svd(x, k=20)
    fit = strata.glm(x, y, family="logistic", solver="lbfgs")   # numpy or a Zarr path, out of core
    res = strata.gwas("cohort.bed", "pheno.txt", covar_df)  # {pheno: GwasResult}, plink2 --glm tables
    k = strata.king(g); d = strata.pairwise_distance(g, "ibs")   # (samples, samples) numpy
    strata.asarray(numpy_array)                      # wraps the numpy memory, no copy
    x = strata.random.normal(10, 1, shape=(40000, 40000), chunks=(10000, 10000), seed=0)
    ((x + 1)[::2, ::2]).sum().compute()

Every call takes ``threads=`` (default: all cores) and releases the GIL while it computes;
errors raise ValueError (invalid arguments or data), OSError (files) or RuntimeError.
"""
from . import _core

_core.check_cpu_pin()  # a misspelt STRATA_CPU raises here rather than run other kernels than asked
from . import array_api, random
from ._array import Array, asarray, open_zarr
from ._context import Context
from ._genotypes import Genotypes, from_dosages, open_genotypes
from ._glm import GlmResult, GlmWarning, glm
from ._gwas import GwasResult, gwas
from ._linalg import qr, svd
from ._pca import PcaResult, pca, pca_dataset
from ._project import Projection, project
from ._relatedness import grm, king, pairwise_distance

__version__ = _core.__version__


def cpu_level():
    """The CPU instruction-set level strata's kernels run at: ``{"level": "avx2", "detected":
    "avx512-vnni", "pinned": "avx2"}``. ``STRATA_CPU`` (portable, avx2, avx2-vnni, avx512,
    avx512-vnni, avx512-amx, neon), set before import, caps it for the whole process."""
    return dict(_core.cpu_level())


__all__ = ["Array", "Context", "array_api", "Genotypes", "GlmResult", "GlmWarning", "GwasResult", "PcaResult", "Projection", "asarray", "cpu_level", "from_dosages", "glm", "grm", "gwas", "king",
           "open_genotypes",
           "open_zarr", "pairwise_distance", "project", "pca", "pca_dataset", "qr", "random", "svd", "__version__"]
