"""strata.open_genotypes: a genotype source as a read-only (variants × samples) int8 duck array."""
from __future__ import annotations

import atexit
import os
import threading

import numpy as np

from . import _core

# Views this process opened from a path, keyed by what reopens them: a worker unpickling many
# tasks' Genotypes of one file opens it once.
_OPENED: dict = {}
_OPENED_LOCK = threading.Lock()
atexit.register(_OPENED.clear)  # the views go before the module's types do (no exit-time leak report)


def _open_cached(path: str):
    """The process's GenotypeView of `path`, opened on first use."""
    with _OPENED_LOCK:
        view = _OPENED.get(path)
    if view is None:
        view = _core.open_genotypes(path)
        with _OPENED_LOCK:
            view = _OPENED.setdefault(path, view)
    return view


def _reopen(path: str, shape: tuple, source: str):
    """Genotypes of `path` unpickled in another process; the file is opened at the first read."""
    g = Genotypes.__new__(Genotypes)
    g._view_, g._path, g._source, g.shape = None, path, source, tuple(shape)
    g._float_dosages = None
    return g


def _from_pickled_dosages(dosages, sample_ids, source: str):
    g = from_dosages(dosages, sample_ids)
    g._source = source
    return g


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

    def __init__(self, view, source: str, path: str | None = None):
        self._view_ = view
        self._source = source
        self._path = path  # what reopens it in another process (None: the dosages travel)
        self._float_dosages = None  # from_dosages of floats: what travels (fractions kept)
        self.shape = (view.num_variants, view.num_samples)

    @property
    def _view(self):
        if self._view_ is None:
            view = _open_cached(self._path)
            if (view.num_variants, view.num_samples) != self.shape:
                raise OSError(f"{self._path}: has {view.num_variants} variants x {view.num_samples} samples here, "
                              f"{self.shape[0]} x {self.shape[1]} where it was opened")
            self._view_ = view
        return self._view_

    def __reduce__(self):
        """Pickles as the path it was opened from (Dask workers reopen it, once per process);
        in-memory genotypes travel as their dosages (float arrays as given, others as int8)."""
        if self._path is not None:
            return _reopen, (self._path, self.shape, self._source)
        ids = [str(s) for s in self.sample_ids]
        # Float dosages travel as given: the int8 reads are hard calls, and a worker must see the
        # fractions the local view keeps.
        dosages = self._float_dosages if self._float_dosages is not None else self[:, :]
        return _from_pickled_dosages, (dosages, ids if len(ids) == self.shape[1] else None, self._source)

    def __dask_tokenize__(self):
        if self._path is None:
            return ("strata.Genotypes", id(self))
        try:
            st = os.stat(self._path)
            stamp = (st.st_mtime_ns, st.st_size)
        except OSError:  # a URL or a store that os.stat does not see
            stamp = None
        return ("strata.Genotypes", self._path, self.shape, stamp)

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

        from dask.base import tokenize

        return da.from_array(self, chunks=chunks, asarray=False, name="strata-genotypes-" + tokenize(self, chunks))

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
    # Workers reopen it by the absolute path (their working folder may differ); URLs as given.
    reopen = path if "://" in path else os.path.abspath(path)
    return Genotypes(_core.open_genotypes(path), path, reopen)


def from_dosages(dosages, sample_ids=None) -> Genotypes:
    """Genotypes packed from an in-memory (variants × samples) dosage array (ints with negative =
    missing, or floats with NaN = missing); the array is read in place, never copied whole."""
    a = np.asarray(dosages)
    ids = None if sample_ids is None else [str(s) for s in sample_ids]
    g = Genotypes(_core.dosage_view(a, ids), "<memory>")
    if a.dtype.kind == "f":
        g._float_dosages = a
    return g
