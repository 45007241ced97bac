"""The Array API's elementwise functions for strata.Array, all lazy. Arithmetic, comparisons,
logic, abs/negative/sqrt/exp/log, where and clip are strata's fused kernels; the others run
NumPy's function on each block inside strata's engine (blockwise), which gives NumPy's special
cases (signed zeros, infinities, NaN) and result dtypes."""
from __future__ import annotations

import numpy as np

from . import _core
from ._array import Array, _handle
from ._xp_core import as_array, blockwise


def _operands(name, x1, x2):
    h1, h2 = _handle(x1), _handle(x2)
    if h1 is None or h2 is None or not (isinstance(x1, Array) or isinstance(x2, Array)):
        raise TypeError(f"{name}: operands must be strata arrays or Python scalars, one of them an array")
    return h1, h2


_NUMPY_OF = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide, "power": np.power,
             "maximum": np.maximum, "minimum": np.minimum, "equal": np.equal, "not_equal": np.not_equal,
             "less": np.less, "less_equal": np.less_equal, "greater": np.greater, "greater_equal": np.greater_equal,
             "logical_and": np.logical_and, "logical_or": np.logical_or, "abs": np.abs, "negative": np.negative,
             "sqrt": np.sqrt, "exp": np.exp, "log": np.log, "logical_not": np.logical_not}


def _complex(*xs) -> bool:
    return any(getattr(x, "_complex", False) or isinstance(x, complex) or getattr(x, "dtype", None) is not None
               and np.dtype(x.dtype).kind == "c" for x in xs)


def _arrays(*xs):
    return [as_array(x) if isinstance(x, (np.ndarray, list)) else x for x in xs]


def _engine_binary(op, name=None):
    def f(x1, x2, /):
        if _complex(x1, x2):  # no complex kernel in the engine: NumPy's, block by block
            if not any(isinstance(x, Array) for x in _arrays(x1, x2)):
                raise TypeError(f"{name or op}: one operand must be an array")
            return blockwise(_NUMPY_OF[op], *_arrays(x1, x2), name=name or op)
        return Array(_core.binary(op, *_operands(name or op, x1, x2)))

    f.__name__ = name or op
    return f


def _engine_unary(op, name=None):
    def f(x, /):
        x = as_array(x)
        if _complex(x):
            return blockwise(_NUMPY_OF[op], x, name=name or op)
        return Array(_core.unary(op, x._h))

    f.__name__ = name or op
    return f


def _np_unary(fn, name):
    def f(x, /):
        return blockwise(fn, as_array(x), name=name)

    f.__name__ = name
    return f


def _np_binary(fn, name):
    def f(x1, x2, /):
        ops = _arrays(x1, x2)
        if not any(isinstance(x, Array) for x in ops):
            raise TypeError(f"{name}: one operand must be an array")
        return blockwise(fn, *ops, name=name)

    f.__name__ = name
    return f


add, subtract, multiply, divide = (_engine_binary(o) for o in ("add", "subtract", "multiply", "divide"))
pow = _engine_binary("power", "pow")  # noqa: A001
maximum, minimum = _engine_binary("maximum"), _engine_binary("minimum")
equal, not_equal, less, less_equal, greater, greater_equal = (
    _engine_binary(o) for o in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"))
logical_and, logical_or = _engine_binary("logical_and"), _engine_binary("logical_or")
abs = _engine_unary("abs")  # noqa: A001
negative, sqrt, exp, log, logical_not = (_engine_unary(o) for o in ("negative", "sqrt", "exp", "log", "logical_not"))

_UNARY_NP = {
    "acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin, "asinh": np.arcsinh, "atan": np.arctan,
    "atanh": np.arctanh, "bitwise_invert": np.invert, "ceil": np.ceil, "conj": np.conj, "cos": np.cos,
    "cosh": np.cosh, "expm1": np.expm1, "floor": np.floor, "imag": np.imag, "isfinite": np.isfinite,
    "isinf": np.isinf, "isnan": np.isnan, "log1p": np.log1p, "log2": np.log2, "log10": np.log10,
    "real": np.real, "round": np.round, "sign": np.sign, "signbit": np.signbit, "sin": np.sin, "sinh": np.sinh,
    "tan": np.tan, "tanh": np.tanh, "trunc": np.trunc,
}
_BINARY_NP = {
    "atan2": np.arctan2, "bitwise_and": np.bitwise_and, "bitwise_left_shift": np.left_shift,
    "bitwise_or": np.bitwise_or, "bitwise_right_shift": np.right_shift, "bitwise_xor": np.bitwise_xor,
    "copysign": np.copysign, "floor_divide": np.floor_divide, "hypot": np.hypot, "logaddexp": np.logaddexp,
    "logical_xor": np.logical_xor, "remainder": np.remainder,
}
FUNCTIONS = {name: _np_unary(fn, name) for name, fn in _UNARY_NP.items()}
FUNCTIONS.update({name: _np_binary(fn, name) for name, fn in _BINARY_NP.items()})


def positive(x, /):
    x = as_array(x)
    if x.dtype == np.bool_:
        raise TypeError("positive: not defined for bool arrays")
    return x


def square(x, /):
    return multiply(x, x)


def clip(x, /, min=None, max=None):  # noqa: A002
    """Lazy; the result keeps x's dtype (bounds are converted to it, as the standard asks)."""
    x = as_array(x)
    out = x
    if min is not None:
        out = Array(_core.binary("maximum", out._h, _handle(min)))
    if max is not None:
        out = Array(_core.binary("minimum", out._h, _handle(max)))
    return out if out.dtype == x.dtype else out.astype(x.dtype)


def where(condition, x1, x2, /):
    ops = [x if isinstance(x, (Array, bool, int, float, complex)) else as_array(x) for x in (x1, x2)]
    if _complex(*ops):
        return blockwise(np.where, as_array(condition), *ops, name="where")
    return Array(_core.where(as_array(condition)._h, *_operands("where", *ops)))


NAMES = ["add", "subtract", "multiply", "divide", "pow", "maximum", "minimum", "equal", "not_equal", "less",
         "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "abs", "negative", "sqrt", "exp",
         "log", "logical_not", "positive", "square", "clip", "where"] + list(FUNCTIONS)
