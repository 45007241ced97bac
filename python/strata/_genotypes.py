"""strata.open_genotypes: a genotype source as a read-only (variants × samples) int8 duck array."""
from __future__ import annotations

import os

import numpy as np

from . import _core


def _axis_range(key, n: int):
    """(start, stop, step, keep_axis) of a basic index along an axis of length n."""
    if isinstance(key, slice):
        start, stop, step = key.indices(n)
        return start, stop, step, True
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        i = int(key)
        if i < -n or i >= n:
            raise IndexError(f"index {i} is out of bounds for axis with size {n}")
        i %= n
        return i, i + 1, 1, False
    raise TypeError(f"genotypes take integer and slice indices, got {type(key).__name__}")


class Genotypes:
    """Genotypes from any source strata reads (PLINK .bed, VCF Zarr, dosage Zarr, VCF), or from
    dosages packed in memory. ``g[i:j, a:b]`` reads that box as int8 dosages (ALT allele counts,
    -1 = missing); ``dask.array.from_array(g, chunks=...)`` reads it lazily."""

    dtype = np.dtype(np.int8)
    ndim = 2

    def __init__(self, view, source: str):
        self._view = view
        self._source = source
        self.shape = (view.num_variants, view.num_samples)

    @property
    def size(self) -> int:
        return self.shape[0] * self.shape[1]

    @property
    def sample_ids(self) -> np.ndarray:
        return np.asarray(self._view.sample_ids(), dtype=object)

    @property
    def variant_ids(self) -> np.ndarray:
        return np.asarray(self._view.variant_ids(0, self.shape[0]), dtype=object)

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, key) -> np.ndarray:
        if not isinstance(key, tuple):
            key = (key,)
        if any(k is Ellipsis for k in key):
            i = key.index(Ellipsis)
            key = key[:i] + (slice(None),) * (2 - len(key) + 1) + key[i + 1:]
        if len(key) > 2:
            raise IndexError(f"too many indices for genotypes: {len(key)} given, 2 axes")
        key = key + (slice(None),) * (2 - len(key))
        ranges = [_axis_range(k, n) for k, n in zip(key, self.shape)]
        # Read the smallest contiguous box holding the selected indices, then step through it.
        box_range, local = [], []
        for start, stop, step, _ in ranges:
            r = range(start, stop, step)
            if len(r) == 0:
                box_range.append((0, 0))
                local.append(slice(0, 0))
                continue
            lo, hi = min(r[0], r[-1]), max(r[0], r[-1]) + 1
            last = r[-1] - lo + (1 if step > 0 else -1)
            box_range.append((lo, hi))
            local.append(slice(r[0] - lo, None if last < 0 else last, step))
        (v0, v1), (s0, s1) = box_range
        out = self._view.read(v0, v1, s0, s1)[tuple(local)]
        keep_v, keep_s = ranges[0][3], ranges[1][3]
        if not keep_v:
            out = out[0]
        if not keep_s:
            out = out[..., 0]
        return out

    def __array__(self, dtype=None, copy=None):
        a = self[:, :]
        return a if dtype is None else a.astype(dtype)

    def to_dask(self, chunks=(10_000, -1)):
        import dask.array as da

        return da.from_array(self, chunks=chunks, asarray=False, name=f"strata-genotypes-{id(self):x}")

    def to_xarray(self, chunks=(10_000, -1)):
        """An xarray DataArray (dims variants, samples) over ``to_dask(chunks)``."""
        import xarray as xr

        return xr.DataArray(self.to_dask(chunks), dims=("variants", "samples"),
                            coords={"sample_id": ("samples", self.sample_ids),
                                    "variant_id": ("variants", self.variant_ids)},
                            name="call_dosage")

    def __repr__(self):
        return f"strata.Genotypes({self._source!r}, shape={self.shape}, dtype=int8)"


def open_genotypes(path) -> Genotypes:
    """Open a genotype source: a PLINK prefix or .bed, a VCF/BCF (.vcf, .vcf.gz, .bcf; decoded
    into memory once), a VCF Zarr / scikit-allel / dosage Zarr store. Raises OSError for missing
    or unreadable inputs, with the library's message."""
    path = os.fspath(path)
    return Genotypes(_core.open_genotypes(path), path)


def from_dosages(dosages, sample_ids=None) -> Genotypes:
    """Genotypes packed from an in-memory (variants × samples) dosage array (ints with negative =
    missing, or floats with NaN = missing); the array is read in place, never copied whole."""
    a = np.asarray(dosages)
    ids = None if sample_ids is None else [str(s) for s in sample_ids]
    return Genotypes(_core.dosage_view(a, ids), "<memory>")
