"""Cases for the elementwise ops of issue 28 (hypot, copysign, fmax/fmin, logaddexp/logaddexp2, nextafter, ldexp,
heaviside, gcd/lcm, float_power) recorded from torch (tests/golden/record_pointwise_vocab.py) and checked by
tests/test_pointwise_vocab.py: values at ties, ±0, ±inf and NaN, the gradients there, grad_fn names, integer,
bool and half inputs (torch's promotion and its errors), broadcasting, empty and 0-d shapes, non-contiguous
inputs, the in-place forms and `out=`."""

import math

import ferrograd as fg
from recorded import error

NAN = math.nan
INF = math.inf

# pairs covering ties, signed zeros, NaN on either side and both, and the infinities against each other
EDGE_A = [1.0, 2.0, 0.0, -0.0, NAN, 1.0, NAN, INF, -INF, INF, -INF, 3.0, -2.5, 0.5]
EDGE_B = [1.0, 1.0, -0.0, 0.0, 1.0, NAN, NAN, INF, -INF, -INF, 1.0, INF, 4.0, -0.0]


def _edges():
    return fg.tensor(EDGE_A, dtype=fg.float64), fg.tensor(EDGE_B, dtype=fg.float64)


def _grads(fn, a, b):
    """`fn(a, b)`'s grad_fn name and the gradients of its sum weighted by 1, 2, 3, ..."""
    a, b = a.detach().clone().requires_grad_(True), b.detach().clone().requires_grad_(True)
    y = fn(a, b)
    w = fg.arange(1, y.numel() + 1, dtype=y.dtype).reshape(y.shape)
    ga, gb = fg.autograd.grad((y * w).sum(), [a, b], allow_unused=True)
    return [y.grad_fn.name(), ga, gb]


def _signs(t):
    """1 / t, which shows the sign of a zero (±inf)."""
    return 1 / t


def _promotions(fn):
    """`fn` over the dtype pairs torch promotes (each result, or the error)."""
    i, f, b = fg.tensor([3, -4, 0]), fg.tensor([3.0, -4.5, 0.0]), fg.tensor([True, False, True])
    pairs = {
        "int_int": (i, fg.tensor([4, 6, 0])),
        "int8_int8": (i.to(fg.int8), fg.tensor([4, 6, 0], dtype=fg.int8)),
        "uint8_int8": (fg.tensor([200, 6, 0], dtype=fg.uint8), fg.tensor([-2, 4, 0], dtype=fg.int8)),
        "int_float": (i, f),
        "float_int": (f, i),
        "bool_bool": (b, fg.tensor([True, True, False])),
        "bool_float": (b, f),
        "half": (f.half(), fg.tensor([1.5, 2.0, -0.0]).half()),
        "bfloat16": (f.bfloat16(), fg.tensor([1.5, 2.0, -0.0]).bfloat16()),
        "float_double": (f, fg.tensor([1.5, 2.0, -0.0], dtype=fg.float64)),
        "float_0d_double": (f, fg.tensor(2.0, dtype=fg.float64)),
    }
    return {name: error(fn, x, y) if _raises(fn, x, y) else fn(x, y) for name, (x, y) in pairs.items()}


def _raises(fn, *args):
    return error(fn, *args).type is not None


def _shapes(fn, a_dtype=fg.float32):
    """Broadcasting, empty, 0-d and non-contiguous operands."""
    m = fg.arange(1, 13, dtype=a_dtype).reshape(3, 4) - 5
    n = fg.arange(2, 14, dtype=a_dtype).reshape(4, 3) - 3
    return {
        "broadcast": fn(m, fg.tensor([1, 2, -3, 4], dtype=a_dtype)),
        "column": fn(m, fg.tensor([[2], [-3], [5]], dtype=a_dtype)),
        "0d": fn(fg.tensor(3, dtype=a_dtype), fg.tensor(4, dtype=a_dtype)),
        "0d_with_1d": fn(fg.tensor(-6, dtype=a_dtype), m[0]),
        "empty": fn(fg.zeros(0, 4, dtype=a_dtype), m[0]),
        "transposed": fn(m, n.t()),
        "stepped": fn(m[:, ::2], n.t()[:, 1::2]),
        "shape_mismatch": error(fn, m, fg.ones(3, dtype=a_dtype)),
    }


def _float_op(name, scalar_other=False):
    """The cases every float op shares: edges, their gradients, promotions, shapes, in-place and out=."""
    fn = getattr(fg, name)
    a, b = _edges()
    out = {
        "edges": fn(a, b),
        "edges_float32": fn(a.float(), b.float()),
        "grad": _grads(fn, a, b),
        "method": getattr(a, name)(b),
        "promotions": _promotions(fn),
        "shapes": _shapes(fn),
    }
    x = fg.tensor([3.0, -1.5, 0.0])
    inplace = x.clone()
    returned = getattr(inplace, name + "_", None)
    if returned is not None:
        out["inplace"] = [returned(fg.tensor([4.0, 2.0, -0.0])), inplace]
        out["inplace_double_other"] = getattr(x.clone(), name + "_")(fg.tensor([4.0, 2.0, 1.0], dtype=fg.float64))
        out["inplace_int_self"] = error(lambda: getattr(fg.tensor([1, 2, 3]), name + "_")(fg.tensor([1.0])))
    target = fg.zeros(3, dtype=fg.float64)
    out["out"] = [fn(x, fg.tensor([4.0, 2.0, -0.0]), out=target), target]
    out["out_int"] = error(lambda: fn(x, fg.tensor([4.0, 2.0, 1.0]), out=fg.zeros(3, dtype=fg.int64)))
    out["out_requires_grad"] = error(lambda: fn(x.requires_grad_(), x, out=fg.zeros(3)))
    out["number_other"] = error(lambda: getattr(fg.tensor([1.0]), name)(2.0))
    if scalar_other:
        out["number_other"] = getattr(fg.tensor([1.0, -2.0, 0.0]), name)(-2.0)
    out["not_tensor"] = error(lambda: getattr(fg.tensor([1.0]), name)("a")).type
    return out


def _hypot():
    out = _float_op("hypot")
    out["large"] = fg.hypot(fg.tensor([3e38, 1e-40]), fg.tensor([4e38, 1e-40]))
    return out


def _copysign():
    out = _float_op("copysign", scalar_other=True)
    a, b = _edges()
    out["zero_signs"] = _signs(fg.copysign(fg.tensor([0.0, -0.0, 0.0, -0.0]), fg.tensor([-1.0, 1.0, -0.0, NAN])))
    out["number_grad"] = _grads(lambda x, y: x.copysign(-0.0) + 0 * y, a, b)
    out["int_number"] = fg.tensor([1, -2]).copysign(-0.0)
    out["number_self"] = error(lambda: fg.copysign(2, fg.tensor([-1.0]))).type
    return out


def _fmax_fmin():
    out = {}
    for name in ("fmax", "fmin"):
        for k, v in _float_op(name).items():
            out[f"{name}_{k}"] = v
        out[f"{name}_zero_signs"] = _signs(getattr(fg, name)(fg.tensor([0.0, -0.0]), fg.tensor([-0.0, 0.0])))
        out[f"{name}_int_bool"] = getattr(fg, name)(fg.tensor([True, False, True]), fg.tensor([0, 0, 2]))
        out[f"{name}_int_nan"] = getattr(fg, name)(fg.tensor([1, 5]), fg.tensor([3.5, NAN]))
    return out


def _logaddexp():
    out = {}
    for name in ("logaddexp", "logaddexp2"):
        for k, v in _float_op(name).items():
            out[f"{name}_{k}"] = v
        big = fg.tensor([1000.0, -1000.0, 88.0, -200.0])
        out[f"{name}_far"] = getattr(fg, name)(big, fg.tensor([1000.0, -1001.0, 89.0, 50.0]))
        out[f"{name}_far_half"] = getattr(fg, name)(big[:2].half(), fg.tensor([1000.0, -1001.0]).half())
    return out


def _nextafter():
    out = _float_op("nextafter")
    zeros = fg.tensor([1.0, 0.0, -0.0, 0.0, 1.0, -1.0, 3.4e38, 1e-45])
    towards = fg.tensor([2.0, 1.0, 1.0, -1.0, 0.0, -2.0, INF, 0.0])
    out["float32"] = fg.nextafter(zeros, towards)
    out["float32_zero_signs"] = _signs(fg.nextafter(fg.tensor([1e-45, -1e-45]), fg.tensor([0.0, 0.0])))
    out["double"] = fg.nextafter(zeros.double(), towards.double())
    out["half"] = fg.nextafter(zeros[:6].half(), towards[:6].half())
    out["half_max"] = fg.nextafter(fg.tensor([65504.0, -65504.0]).half(), fg.tensor([INF, -INF]).half())
    out["bfloat16"] = fg.nextafter(zeros[:6].bfloat16(), towards[:6].bfloat16())
    return out


def _ldexp():
    out = _float_op("ldexp")
    exponents = fg.tensor([200, -150, 3, -2000, 5, 1, 2000])
    out["int_exponent"] = fg.ldexp(fg.tensor([1e-30, 1.0, 1.5, INF, -INF, NAN, 1e-30]), exponents)
    out["int_exponent_double"] = fg.ldexp(fg.tensor([1e-300, 1.0, 3.0], dtype=fg.float64), fg.tensor([2000, -1074, 1]))
    out["int_exponent_half"] = fg.ldexp(fg.tensor([1.0, 3.0]).half(), fg.tensor([3, -20]))
    out["int_exponent_grad"] = _grads(lambda x, y: fg.ldexp(x, fg.tensor([3, -1, 0])) + 0 * y, *[fg.ones(3)] * 2)
    out["ldexp_"] = fg.ldexp_(fg.tensor([1.0, 2.0]), fg.tensor([3, -1]))
    out["ldexp_int_self"] = error(lambda: fg.tensor([1, 2]).ldexp_(fg.tensor([3])))
    return out


def _heaviside():
    x = fg.tensor([-1.0, 0.0, -0.0, 2.0, NAN, INF, -INF])
    a = fg.tensor([1.0, 0.0, -2.0], requires_grad=True)
    y = fg.heaviside(a, a)
    return {
        "values": fg.heaviside(x, fg.tensor([0.5])),
        "nan_values": x.heaviside(fg.tensor(NAN)),
        "double": fg.heaviside(x.double(), fg.tensor([-3.0], dtype=fg.float64)),
        "int": fg.heaviside(fg.tensor([-3, 0, 5]), fg.tensor([7])),
        "int8": fg.heaviside(fg.tensor([-3, 0, 5], dtype=fg.int8), fg.tensor([7, 8, 9], dtype=fg.int8)),
        "bool": fg.heaviside(fg.tensor([True, False, False]), fg.tensor([False, True, False])),
        "half": fg.heaviside(x.half(), fg.tensor(0.25).half()),
        "shapes": _shapes(fg.heaviside),
        "inplace": fg.tensor([-1.0, 0.0, 3.0]).heaviside_(fg.tensor([0.5])),
        "out": fg.heaviside(x, fg.tensor([0.5]), out=fg.zeros(7)),
        "out_double": error(lambda: fg.heaviside(x, fg.tensor([0.5]), out=fg.zeros(7, dtype=fg.float64))),
        "mixed_dtypes": error(lambda: fg.heaviside(x, fg.tensor([1]))),
        "mixed_0d": error(lambda: fg.heaviside(x, fg.tensor(0.5, dtype=fg.float64))),
        "number_values": error(lambda: x.heaviside(0.5)),
        "grad_fn": [y.requires_grad, y.grad_fn.name()],
        "backward": error(lambda: y.sum().backward()),
    }


def _gcd_lcm():
    x = fg.tensor([0, 0, -4, 4, -12, 7, 2**62, -(2**63), 3])
    y = fg.tensor([0, 5, 6, -6, -18, 0, 2**61, 0, 2**62])
    out = {}
    for name in ("gcd", "lcm"):
        fn = getattr(fg, name)
        out[f"{name}_values"] = fn(x, y)
        out[f"{name}_method"] = getattr(x, name)(y)
        int8 = fg.tensor([70, -128, 100, -128], dtype=fg.int8)
        out[f"{name}_int8"] = fn(int8, fg.tensor([3, 3, 3, 0], dtype=fg.int8))
        out[f"{name}_uint8_int8"] = fn(fg.tensor([200], dtype=fg.uint8), fg.tensor([-2], dtype=fg.int8))
        out[f"{name}_int32"] = fn(fg.tensor([12, 18], dtype=fg.int32), fg.tensor([8], dtype=fg.int32))
        out[f"{name}_promotions"] = _promotions(fn)
        out[f"{name}_shapes"] = _shapes(fn, fg.int64)
        inplace = fg.tensor([4, 6])
        out[f"{name}_inplace"] = [getattr(inplace, name + "_")(fg.tensor([6])), inplace]
        out[f"{name}_function_inplace"] = getattr(fg, name + "_")(fg.tensor([4, 6]), fg.tensor([10]))
        out[f"{name}_out_float"] = fn(fg.tensor([3]), fg.tensor([4]), out=fg.zeros(1))
        out[f"{name}_float"] = error(lambda f=fn: f(fg.tensor([2]), fg.tensor([3.0])))
        out[f"{name}_double"] = error(lambda f=fn: f(fg.tensor([2.0], dtype=fg.float64), fg.tensor([3.0])))
    return out


def _float_power():
    a, b = _edges()
    i = fg.tensor([2, 3, -1])
    return {
        "edges": fg.float_power(a, b),
        "edges_float32": fg.float_power(a.float(), b.float()),
        "grad": _grads(fg.float_power, a.float(), b.float()),
        "grad_number_exponent": _grads(lambda x, y: x.float_power(2) + 0 * y, a, b),
        "grad_number_base": _grads(lambda x, y: fg.float_power(2, x) + 0 * y, a, b),
        "promotions": _promotions(fg.float_power),
        "shapes": _shapes(fg.float_power),
        "int_number": i.float_power(-1),
        "int_float_number": i.float_power(0.5),
        "number_base": fg.float_power(2, i),
        "bool": fg.float_power(fg.tensor([True, False]), fg.tensor([False, False])),
        "negative_base": fg.float_power(fg.tensor([-8.0]), 1 / 3),
        "two_numbers": error(lambda: fg.float_power(2, 3)),
        "inplace": fg.tensor([1.0, 2.0], dtype=fg.float64).float_power_(fg.tensor([2])),
        "inplace_number": fg.tensor([1.0, 3.0], dtype=fg.float64).float_power_(2),
        "inplace_float32": error(lambda: fg.tensor([1.0, 2.0]).float_power_(2)),
        "inplace_int": error(lambda: fg.tensor([1, 2]).float_power_(2)),
        "out": fg.float_power(fg.tensor([3.0]), 2, out=fg.zeros(1, dtype=fg.float64)),
        "out_float32": error(lambda: fg.float_power(fg.tensor([3.0]), 2, out=fg.zeros(1))),
    }


def _sgn():
    x = fg.tensor([0.5, -2.0, 0.0, -0.0, NAN, INF, -INF])
    a = fg.tensor([1.5, -2.0, 0.0], requires_grad=True)
    y = a.sgn()
    (grad,) = fg.autograd.grad((y * fg.tensor([1.0, 2.0, 3.0])).sum(), [a])
    inplace = fg.tensor([3, -4, 0])
    return {
        "values": fg.sgn(x),
        "zero_signs": _signs(fg.sgn(x[2:4])),
        "double": x.double().sgn(),
        "int": fg.sgn(fg.tensor([-3, 0, 5])),
        "int8": fg.tensor([-3, 0, 5], dtype=fg.int8).sgn(),
        "bool": fg.tensor([True, False]).sgn(),
        "half": x.half().sgn(),
        "grad_fn": y.grad_fn.name(),
        "grad": grad + 0,  # torch's is a ZeroTensor
        "inplace": [inplace.sgn_(), inplace],
        "out": fg.sgn(x, out=fg.empty(7)),
        "out_double": error(lambda: fg.sgn(x, out=fg.empty(7, dtype=fg.float64))),
        "no_function_inplace": hasattr(fg, "sgn_"),
    }


def _float_tests():
    x = fg.tensor([0.5, -2.0, 0.0, -0.0, NAN, -NAN, INF, -INF])
    out = {}
    for name in ("signbit", "isposinf", "isneginf"):
        fn = getattr(fg, name)
        target = fg.zeros(8, dtype=fg.bool)
        out[name] = fn(x)
        out[f"{name}_method"] = getattr(x.double(), name)()
        out[f"{name}_half"] = fn(x.half())
        out[f"{name}_int"] = fn(fg.tensor([-3, 0, 5]))
        out[f"{name}_uint8"] = fn(fg.tensor([0, 200], dtype=fg.uint8))
        out[f"{name}_bool"] = fn(fg.tensor([True, False]))
        out[f"{name}_transposed"] = fn(fg.tensor([[-1.0, INF], [-INF, 0.0]]).t())
        out[f"{name}_out"] = [fn(x, out=target), target]
        out[f"{name}_out_float"] = error(lambda f=fn: f(x, out=fg.zeros(8)))
        out[f"{name}_requires_grad"] = fn(x.clone().requires_grad_()).requires_grad
        out[f"{name}_inplace"] = hasattr(x, name + "_")
    return out


def _positive():
    x = fg.tensor([1.0, -2.0], requires_grad=True)
    return {
        "is_self": [fg.positive(x) is x, x.positive() is x],
        "int": fg.positive(fg.tensor([-3, 4])),
        "bool": error(lambda: fg.positive(fg.tensor([True]))),
        "out": error(lambda: fg.positive(x, out=fg.zeros(2))).type,
        "inplace": hasattr(x, "positive_"),
    }


CASES = {
    "float_tests": _float_tests,
    "positive": _positive,
    "sgn": _sgn,
    "hypot": _hypot,
    "copysign": _copysign,
    "fmax_fmin": _fmax_fmin,
    "logaddexp": _logaddexp,
    "nextafter": _nextafter,
    "ldexp": _ldexp,
    "heaviside": _heaviside,
    "gcd_lcm": _gcd_lcm,
    "float_power": _float_power,
}
