"""strata.project: samples projected onto the PCs of a reference ``strata pca --out P``."""
from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from . import _core
from ._context import resolve


@dataclass
class Projection:
    """What strata.project returns (rows: the target's samples, columns: PC1..PCk).

    ``projection``: on the reference ``P.eigenvec``'s scale (a reference sample reproduces its
    row), OADP-corrected when asked. ``scores``: Σ z·v, the reference's U·d scale.
    ``sscore``: plink2's ``PCj_AVG`` of ``--score P.eigenvec.var 2 3 header-read
    no-mean-imputation variance-standardize --read-freq P.afreq`` (= −scores / allele_ct).
    ``report``: the variant matching counts, as ``strata project --report`` writes them."""

    sample_ids: list
    projection: np.ndarray
    scores: np.ndarray
    allele_ct: np.ndarray
    named_allele_dosage_sum: np.ndarray
    report: dict

    @property
    def sscore(self) -> np.ndarray:
        return -self.scores / self.allele_ct[:, None]

    def to_pandas(self):
        """The projection as a DataFrame indexed by sample ID, columns PC1..PCk."""
        import pandas as pd

        cols = [f"PC{j + 1}" for j in range(self.projection.shape[1])]
        return pd.DataFrame(self.projection, index=pd.Index(self.sample_ids, name="IID"), columns=cols)


def project(target, ref_prefix, k: int | None = None, correction: str | None = None, *,
            drop_ambiguous: bool = False, threads=None, memory=None, progress=None, context=None) -> Projection:
    """Project ``target`` (what strata.pca takes: a genotype path, strata.Genotypes, ...) onto the
    reference PCA written by ``strata pca --out ref_prefix`` (reads ``.eigenvec.var``, ``.afreq``,
    ``.eigenval``), as ``strata project`` does. ``k``: PCs (None = all); ``correction``: None or
    "oadp" (online augmentation, decomposition and Procrustes: no shrinkage towards 0)."""
    from ._pca import as_genotypes

    g = as_genotypes(target)
    ctx = resolve(context, threads, memory, progress)
    proj, scores, ct, dosage, report = _core.project(ctx._core, g._view, os.fspath(ref_prefix),
                                                     0 if k is None else int(k), correction or "none",
                                                     bool(drop_ambiguous))
    ids = [str(s) for s in g.sample_ids]
    return Projection(ids, proj, scores, ct, dosage, report)
