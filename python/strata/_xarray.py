"""xarray's chunk manager for strata.Array (the ``xarray.chunkmanagers`` entry point "strata").

With it, a DataArray or Dataset backed by strata.Arrays stays lazy through xarray: arithmetic and
reductions (``mean``, ``sum``, ``std``, ``var``, ``min``, ``max``, with or without ``skipna``)
build strata expressions, ``.compute()``/``.load()``/``.values`` evaluate them in strata's
engine, ``.chunk(..., chunked_array_type="strata")`` wraps numpy-backed variables and
``xr.open_zarr(..., chunked_array_type="strata")`` reads a store's arrays through strata.
xarray's default stays Dask: strata is used where asked for, or where the data already is strata.
What would run arbitrary Python on each block (``apply_ufunc(dask="parallelized")``,
``map_blocks``, custom reductions) raises NotImplementedError naming the call, rather than
computing the whole array in NumPy behind the user's back.
"""
from __future__ import annotations

import os

import numpy as np
from xarray.namedarray.parallelcompat import ChunkManagerEntrypoint

from ._array import Array, _chunks, asarray
from ._array import open_zarr as _open_zarr


def _regular(sizes, n):
    """Dask-style block extents of an axis of length n cut every `sizes` elements."""
    if n == 0:
        return (0,)
    full, rest = divmod(n, sizes)
    return (sizes,) * full + ((rest,) if rest else ())


def _axis_chunk(c, n, default):
    """One axis' block length from what xarray passes: an int, -1 / None / "auto", or extents."""
    if c is None or (isinstance(c, str) and c == "auto"):
        return default
    if isinstance(c, (tuple, list)):
        c = c[0] if c else n  # strata's blocks are regular: the first extent sets them
    c = int(c)
    return max(1, n if c == -1 else min(c, n) if n else c)


def normalize(chunks, shape, dtype=None, previous=None):
    """Regular tuple-of-tuples chunks for `shape` from xarray's chunk spellings (an int, "auto",
    a tuple per axis, a dict {axis: chunk}); axes not given keep `previous` or strata's default."""
    shape = tuple(int(s) for s in shape)
    itemsize = np.dtype(dtype).itemsize if dtype is not None else 8
    if previous is not None:
        # previous: block extents per axis, or (from a store's encoding) one block length per axis
        default = [int(p[0] if isinstance(p, (tuple, list)) and p else p or 1) for p in previous]
    else:
        default = _chunks(None, list(shape), itemsize)
    if isinstance(chunks, dict):
        per_axis = [chunks.get(i) for i in range(len(shape))]
    elif chunks is None or isinstance(chunks, (int, np.integer, str)):
        per_axis = [chunks] * len(shape)
    else:
        per_axis = list(chunks)
        if len(per_axis) != len(shape):
            raise ValueError(f"chunks {chunks!r} do not match the {len(shape)} axes of shape {shape}")
    return tuple(_regular(_axis_chunk(c, n, d), n) for c, n, d in zip(per_axis, shape, default))


def _zarr_source(data):
    """The path of the local Zarr array behind an xarray lazy backend array that applies no
    decoding (only whole-array indexing layers), else None."""
    from xarray.backends.zarr import ZarrArrayWrapper
    from xarray.core import indexing

    seen = 0
    while seen < 16:
        seen += 1
        if isinstance(data, ZarrArrayWrapper):
            from ._array import _local_zarr_path

            z = data._array
            return _local_zarr_path(z) if np.dtype(z.dtype) == data.dtype else None
        if isinstance(data, indexing.LazilyIndexedArray):
            key = data.key.tuple
            if any(not (isinstance(k, slice) and k == slice(None)) for k in key):
                return None
        elif not isinstance(data, (indexing.ImplicitToExplicitIndexingAdapter, indexing.CopyOnWriteArray,
                                   indexing.MemoryCachedArray)):
            return None
        data = data.array
    return None


class StrataChunkManager(ChunkManagerEntrypoint[Array]):
    """Interface between strata.Array and xarray (see the module's docstring)."""

    available = True

    def __init__(self) -> None:
        self.array_cls = Array

    def is_chunked_array(self, data) -> bool:
        return isinstance(data, Array)

    def chunks(self, data: Array):
        return data.chunks

    def normalize_chunks(self, chunks, shape=None, limit=None, dtype=None, previous_chunks=None):
        if shape is None:
            raise ValueError("strata needs the array's shape to normalize chunks")
        return normalize(chunks, shape, dtype, previous_chunks)

    def from_array(self, data, chunks, **kwargs) -> Array:
        # xarray passes Dask's naming and locking options (name, lock, inline_array) to every
        # chunk manager; strata names no graph and reads without a lock
        unknown = sorted(set(kwargs) - {"name", "lock", "inline_array", "meta"})
        if unknown:
            raise TypeError(f"strata's from_array takes no options {unknown}")
        shape = tuple(data.shape)
        blocks = tuple(c[0] for c in normalize(chunks, shape, data.dtype))
        path = _zarr_source(data)
        if path is not None and os.path.exists(path):
            return _open_zarr(path).rechunk(blocks)
        return asarray(np.asarray(data), chunks=blocks)

    def rechunk(self, data: Array, chunks, **kwargs) -> Array:
        if kwargs:
            raise TypeError(f"strata's rechunk takes no options, got {sorted(kwargs)}")
        blocks = normalize(chunks, data.shape, data.dtype, data.chunks)
        return data.rechunk(tuple(c[0] for c in blocks))

    def compute(self, *data, **kwargs):
        return tuple(x.compute(**kwargs) if isinstance(x, Array) else x for x in data)

    def persist(self, *data, **kwargs):
        """Evaluated once into memory, still strata.Arrays (with the same chunks)."""
        return tuple(asarray(x.compute(**kwargs), chunks=x.chunksize) if isinstance(x, Array) else x for x in data)

    @property
    def array_api(self):
        from . import array_api

        return array_api

    def store(self, sources, targets, **kwargs):
        """Writes each source into its target (a Zarr array, from ``to_zarr``) one block at a
        time: only one block of strata's result is in memory at once."""
        if isinstance(sources, Array):
            sources, targets = [sources], [targets]
        regions = kwargs.pop("regions", None)
        kwargs.pop("lock", None), kwargs.pop("compute", None), kwargs.pop("flush", None)
        for i, (src, dst) in enumerate(zip(sources, targets)):
            region = regions[i] if isinstance(regions, (list, tuple)) else regions
            offsets = [0] * src.ndim if region is None else [r.start or 0 for r in region]
            for index in np.ndindex(*[len(c) for c in src.chunks]):
                lo = [int(sum(c[:j])) for c, j in zip(src.chunks, index)]
                part = tuple(slice(a, a + c[j]) for a, c, j in zip(lo, src.chunks, index))
                where = tuple(slice(o + p.start, o + p.stop) for o, p in zip(offsets, part))
                dst[where] = src[part].compute(**kwargs) if src.ndim else src.compute(**kwargs)

    def _not_lazy(self, name):
        raise NotImplementedError(
            f"xarray's {name} runs Python on each block, which strata's engine does not: call "
            f".compute() first, or .chunk(chunked_array_type='dask')")

    def apply_gufunc(self, func, signature, *args, **kwargs):
        self._not_lazy("apply_ufunc(dask='parallelized')")

    def map_blocks(self, func, *args, **kwargs):
        self._not_lazy("map_blocks")

    def blockwise(self, func, out_ind, *args, **kwargs):
        self._not_lazy("blockwise")

    def reduction(self, arr, func, combine_func=None, aggregate_func=None, axis=None, dtype=None, keepdims=False):
        self._not_lazy(f"reduction ({getattr(func, '__name__', func)})")
