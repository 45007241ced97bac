"""The Array API fft extension for strata.Array. fftshift/ifftshift are lazy (rolls); the
transforms evaluate their input and run NumPy's pocketfft on it (strata has no FFT kernel);
fftfreq/rfftfreq build their values in memory."""
from __future__ import annotations

import types

import numpy as np

from ._array import Array
from ._xp_core import as_array, from_numpy

EAGER = ["fft.fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft"]


def _numpy(x):
    return as_array(x).compute()


def _one_axis(name):
    fn = getattr(np.fft, name)

    def f(x, /, *, n=None, axis=-1, norm="backward"):
        return from_numpy(fn(_numpy(x), n=n, axis=axis, norm=norm))

    f.__name__ = name
    return f


def _n_axes(name):
    fn = getattr(np.fft, name)

    def f(x, /, *, s=None, axes=None, norm="backward"):
        return from_numpy(fn(_numpy(x), s=s, axes=axes, norm=norm))

    f.__name__ = name
    return f


def _check_device(device):
    if device not in (None, "cpu"):
        raise ValueError(f"strata arrays live on the CPU, not {device!r}")


def fftfreq(n, /, *, d=1.0, dtype=None, device=None):
    _check_device(device)
    return from_numpy(np.fft.fftfreq(n, d=d).astype(dtype or np.float64, copy=False))


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None):
    _check_device(device)
    return from_numpy(np.fft.rfftfreq(n, d=d).astype(dtype or np.float64, copy=False))


def _shift(x, axes, sign):
    from ._xp_functions import roll

    x = as_array(x)
    axes = list(range(x.ndim)) if axes is None else [axes] if isinstance(axes, int) else list(axes)
    if not axes:
        return x
    return roll(x, [sign * (x.shape[a] // 2) for a in axes], axis=axes)


def fftshift(x, /, *, axes=None):
    return _shift(x, axes, 1)


def ifftshift(x, /, *, axes=None):
    return _shift(x, axes, -1)


def namespace() -> types.ModuleType:
    ns = types.ModuleType("strata.array_api.fft", "The Array API fft extension of strata.")
    for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
        setattr(ns, name, _one_axis(name))
    for name in ("fftn", "ifftn", "rfftn", "irfftn"):
        setattr(ns, name, _n_axes(name))
    for f in (fftfreq, rfftfreq, fftshift, ifftshift):
        setattr(ns, f.__name__, f)
    return ns
