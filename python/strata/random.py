"""strata.random: lazy counter-based random arrays (Philox), the same values for any chunking."""
from __future__ import annotations

from ._array import Array, _chunks, _shape
from . import _core


def normal(loc: float = 0.0, scale: float = 1.0, shape=None, chunks=None, seed: int = 0) -> Array:
    """Normal(loc, scale) float64 elements; element values depend only on (seed, index)."""
    s = _shape(shape)
    return Array(_core.random_normal(s, _chunks(chunks, s), float(loc), float(scale), int(seed)))


def uniform(low: float = 0.0, high: float = 1.0, shape=None, chunks=None, seed: int = 0) -> Array:
    """Uniform [low, high) float64 elements."""
    s = _shape(shape)
    u = Array(_core.random_uniform(s, _chunks(chunks, s), int(seed)))
    if low == 0.0 and high == 1.0:
        return u
    return u * (float(high) - float(low)) + float(low)


def integers(low: int, high: int | None = None, shape=None, chunks=None, seed: int = 0) -> Array:
    """int64 integers in [low, high) (numpy's Generator.integers convention)."""
    if high is None:
        low, high = 0, low
    s = _shape(shape)
    return Array(_core.random_integers(s, _chunks(chunks, s), int(low), int(high), int(seed)))
