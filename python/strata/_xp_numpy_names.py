"""NumPy-named functions outside the Array API that xarray reaches for on an array's namespace
(``duck_array_ops`` and ``nputils`` call ``xp.<name>`` and fall back to NumPy, which would
evaluate the array, when the name is missing): transpose, einsum, cumulative and NaN-skipping
reductions, median and quantiles. All lazy: what needs a whole axis (median, quantile, cumulative
sums, arg-reductions) rechunks that axis to one block and runs NumPy's function on each block in
strata's engine, as Dask does."""
from __future__ import annotations

import builtins

import numpy as np

from . import _core
from ._array import Array, _handle
from ._xp_core import along_axes, as_array, broadcast_to, drop_axes, from_numpy, insert_axes, lanes, normalize_axes
from . import _xp_functions as _fn

NAMES = ["transpose", "einsum", "cumsum", "cumprod", "nancumsum", "nancumprod", "nanprod", "median", "nanmedian",
         "quantile", "nanquantile", "nanargmin", "nanargmax", "isin", "pad"]


def transpose(x, axes=None):
    """numpy.transpose: the axes reversed, or permuted as given."""
    x = as_array(x)
    return x.transpose(list(range(x.ndim))[::-1] if axes is None else [int(a) for a in axes])


# ---- cumulative and product reductions -----------------------------------------------------
def _cumulative(fn, x, axis, dtype):
    x = as_array(x)
    if axis is None:  # numpy's: over the flattened array
        x, axis = _fn.reshape(x, (-1,)), 0
    axis = normalize_axes(axis, x.ndim)[0]
    want = _fn._sum_dtype(x, dtype)
    if x.dtype.kind != "f":  # no NaN to skip
        fn = {np.nancumsum: np.cumsum, np.nancumprod: np.cumprod}.get(fn, fn)
    return lanes(lambda b, ax: fn(b, axis=ax, dtype=want), x, axis, want)


def cumsum(x, axis=None, dtype=None):
    return _cumulative(np.cumsum, x, axis, dtype)


def cumprod(x, axis=None, dtype=None):
    return _cumulative(np.cumprod, x, axis, dtype)


def nancumsum(x, axis=None, dtype=None):
    return _cumulative(np.nancumsum, x, axis, dtype)


def nancumprod(x, axis=None, dtype=None):
    return _cumulative(np.nancumprod, x, axis, dtype)


def nanprod(x, axis=None, dtype=None, keepdims=False):
    """The product with NaN counted as 1 (lazy: NaN replaced, then strata's product)."""
    x = as_array(x)
    if x.dtype.kind == "f":
        x = Array(_core.where((x == x)._h, x._h, _handle(1.0)))
    return _fn.prod(x, axis=axis, dtype=dtype, keepdims=keepdims)


# ---- order statistics over whole lanes -----------------------------------------------------
def _float_dtype(x: Array) -> np.dtype:
    return x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)


def _lane_reduce(fn, x, axis, keepdims, out_dtype):
    """fn(block, axis=tuple, keepdims=True) over whole lanes of the axes (all for None)."""
    x = as_array(x)
    axes = normalize_axes(axis, x.ndim)
    if not axes:
        return x.astype(out_dtype)
    out = along_axes(lambda b: fn(b, axis=tuple(axes), keepdims=True), x, axes, out_dtype)
    return out if keepdims else drop_axes(out, axes)


def median(x, axis=None, keepdims=False):
    x = as_array(x)
    return _lane_reduce(np.median, x, axis, keepdims, _float_dtype(x))


def nanmedian(x, axis=None, keepdims=False):
    x = as_array(x)
    return _lane_reduce(np.nanmedian, x, axis, keepdims, _float_dtype(x))


def _quantiles(fn, x, q, axis, method, keepdims):
    x = as_array(x)
    qs = np.asarray(q.compute() if isinstance(q, Array) else q, dtype=np.float64)
    if qs.ndim > 1:
        raise ValueError(f"{fn.__name__}: q must be a number or a 1-d sequence, not shape {qs.shape}")
    if builtins.any((v < 0) or (v > 1) for v in qs.ravel()):
        raise ValueError(f"{fn.__name__}: quantiles must be in [0, 1], got {qs.tolist()}")
    out_dtype = _float_dtype(x)
    # one lazy pass per quantile (NumPy's function on whole lanes), stacked along a new first axis
    parts = [_lane_reduce(lambda b, axis, keepdims, v=float(v): fn(b, v, axis=axis, keepdims=keepdims, method=method),
                          x, axis, keepdims, out_dtype) for v in qs.ravel()]
    if qs.ndim == 0:
        return parts[0]
    return _fn.concat([insert_axes(p, [0]) for p in parts], axis=0)


def quantile(x, q, axis=None, method="linear", keepdims=False):
    return _quantiles(np.quantile, x, q, axis, method, keepdims)


def nanquantile(x, q, axis=None, method="linear", keepdims=False):
    return _quantiles(np.nanquantile, x, q, axis, method, keepdims)


def nanargmin(x, axis=None, keepdims=False):
    return _fn._arg_reduce(np.nanargmin, x, axis, keepdims)


def nanargmax(x, axis=None, keepdims=False):
    return _fn._arg_reduce(np.nanargmax, x, axis, keepdims)


# ---- einsum --------------------------------------------------------------------------------
def _parse(subscripts: str, operands) -> tuple[list[str], str]:
    """Explicit subscripts per operand and for the output, '...' spelled out as upper-case
    letters (right-aligned, as NumPy broadcasts them)."""
    s = subscripts.replace(" ", "")
    if "->" in s:
        lhs, rhs = s.split("->")
    else:
        lhs, rhs = s, None
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise ValueError(f"einsum: {len(terms)} operand subscripts in {subscripts!r} for {len(operands)} operands")
    spelled, widest = [], 0
    for t, op in zip(terms, operands):
        letters = t.replace("...", "")
        if not letters.isalpha() or not letters.islower():
            raise ValueError(f"einsum: strata takes lower-case letters and '...' in subscripts, got {t!r}")
        n_ell = op.ndim - len(letters) if "..." in t else 0
        if n_ell < 0 or ("..." not in t and len(letters) != op.ndim):
            raise ValueError(f"einsum: subscripts {t!r} do not match an operand of {op.ndim} dimensions")
        widest = builtins.max(widest, n_ell)
        spelled.append((t, n_ell))
    ell = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    terms = [t.replace("...", ell[widest - n:widest]) for t, n in spelled]
    if rhs is None:  # NumPy's implicit output: '...' then the letters seen once, sorted
        counts = {}
        for t in terms:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        rhs = ell[:widest] + "".join(sorted(c for c, n in counts.items() if n == 1 and c.islower()))
    else:
        rhs = rhs.replace("...", ell[:widest])
    for t in terms:
        if len(set(t)) != len(t):
            raise TypeError(f"einsum: strata does not take a repeated letter within one operand ({subscripts!r}: "
                            "a diagonal); take it with strata.array_api.linalg.diagonal first")
    if len(set(rhs)) != len(rhs) or builtins.any(c not in "".join(terms) for c in rhs):
        raise ValueError(f"einsum: output subscripts {rhs!r} of {subscripts!r} are not letters of the operands")
    return terms, rhs


def _aligned(x: Array, term: str, order: str) -> Array:
    """x with its axes in `order` (letters it lacks: length-1 axes)."""
    present = [c for c in order if c in term]
    x = x.transpose([term.index(c) for c in present]) if list(present) != list(term) else x
    missing = [i for i, c in enumerate(order) if c not in term]
    return insert_axes(x, missing) if missing else x


def einsum(subscripts, *operands, **kwargs):
    """numpy.einsum for subscripts with letters and '...' (what xarray.dot builds): a matrix
    product in strata's engine where the contraction is one, else the operands broadcast against
    each other, multiplied and summed over the contracted letters, lazily."""
    unknown = sorted(set(kwargs) - {"optimize"})
    if unknown:
        raise TypeError(f"einsum: strata takes no options {unknown}")
    if not isinstance(subscripts, str):
        raise TypeError("einsum: strata takes the subscripts as a string ('ij,jk->ik')")
    ops = [as_array(o) for o in operands]
    terms, rhs = _parse(subscripts, ops)
    contracted = "".join(dict.fromkeys(c for t in terms for c in t if c not in rhs))
    if len(ops) == 2:
        out = _as_matmul(ops, terms, rhs, contracted)
        if out is not None:
            return out
    order = rhs + contracted
    prod = _aligned(ops[0], terms[0], order)
    for x, t in zip(ops[1:], terms[1:]):
        prod = prod * _aligned(x, t, order)
    return _fn.sum(prod, axis=tuple(range(len(rhs), len(order)))) if contracted else prod


def _as_matmul(ops, terms, rhs, contracted):
    """A two-operand contraction that is a matrix (or matrix-vector) product, else None."""
    (a, b), (ta, tb) = ops, terms
    if getattr(a, "_complex", False) or getattr(b, "_complex", False):
        return None  # strata's matrix product is real: the general path stays lazy
    if len(contracted) != 1 or builtins.any(c not in ta or c not in tb for c in contracted):
        return None
    free_a, free_b = [c for c in ta if c not in contracted], [c for c in tb if c not in contracted]
    if set(free_a) & set(free_b) or len(free_a) > 1 or len(free_b) > 1 or "".join(free_a + free_b) != rhs:
        return None
    k = contracted
    a2 = _aligned(a, ta, "".join(free_a) + k)
    b2 = _aligned(b, tb, k + "".join(free_b))
    if a2.shape[-1] != b2.shape[0]:
        return None  # a broadcast length-1 contraction: the general path
    return a2 @ b2


# ---- membership and padding (xarray's isin, pad and shift) ---------------------------------
def _filled(shape, value, dtype) -> Array:
    """A lazy array of one value (a 0-d array broadcast)."""
    return broadcast_to(from_numpy(np.full((), value, dtype)), tuple(int(n) for n in shape))


def isin(element, test_elements, assume_unique=False, invert=False):
    """numpy.isin: whether each element is one of `test_elements` (a small set, read eagerly):
    the equalities or-ed lazily."""
    x = as_array(element)
    values = np.unique(np.asarray(test_elements.compute() if isinstance(test_elements, Array) else test_elements))
    out = _filled(x.shape, False, np.dtype(bool))
    for v in values.ravel().tolist():
        out = out | (x == v)
    return ~out if invert else out


def pad(array, pad_width, mode="constant", constant_values=0, **kwargs):
    """numpy.pad in "constant" mode (what xarray's pad and shift ask for): blocks of the value
    joined before and after along each axis, lazily. Other modes are refused by name."""
    if mode != "constant" or kwargs:
        raise NotImplementedError(f"strata's pad supports mode='constant' only, not mode={mode!r}"
                                  + (f" with {sorted(kwargs)}" if kwargs else ""))
    x = as_array(array)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64).reshape(-1, 2) if np.ndim(pad_width) else
                             np.asarray([[pad_width, pad_width]], dtype=np.int64), (x.ndim, 2))
    values = np.broadcast_to(np.asarray(constant_values, dtype=object).reshape(-1, 2) if np.ndim(constant_values)
                             else np.asarray([[constant_values, constant_values]], dtype=object), (x.ndim, 2))
    for axis in range(x.ndim):
        parts = []
        for side, width in enumerate(widths[axis].tolist()):
            if width < 0:
                raise ValueError(f"pad widths must be >= 0, got {width}")
            if width:
                shape = list(x.shape)
                shape[axis] = width
                block = _filled(shape, values[axis][side], x.dtype)
                parts.append((side, block))
        if parts:
            before = [b for side, b in parts if side == 0]
            after = [b for side, b in parts if side == 1]
            x = _fn.concat(before + [x] + after, axis=axis)
    return x

