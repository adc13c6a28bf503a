"""Cases for lp_pool1d/2d, LPPool1d/2d, local_response_norm and LocalResponseNorm (issue 28), recorded from
torch (tests/golden/record_lp_pool.py) and checked by tests/test_lp_pool.py. torch composes all of them in
Python (avg_pool of x^p, sign·relu(|·|), the window size, the 1/p power; LRN from avg_pool of x² over the
channels), so the values and gradients at zeros, negative inputs and ±inf norms are those compositions'."""

import math

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
from cases_vocab_ops import _grads
from recorded import error

INF = math.inf
NAN = math.nan


def _signal(shape):
    """Positive, negative and zero values, and a window of zeros."""
    n = math.prod(shape)
    x = fg.arange(n, dtype=fg.float64).remainder(5).sub(2.0).mul(0.75).reshape(shape)
    flat = x.reshape(-1).clone()
    flat[:3] = 0.0
    return flat.reshape(shape)


def _lp_pool1d():
    x = _signal((2, 3, 8))
    positive = x.abs() + 0.5
    return {
        "p2": F.lp_pool1d(x, 2, 3),
        "p2_float": F.lp_pool1d(x, 2.0, 2, 1),
        "p1": F.lp_pool1d(x, 1, 2),
        "p3_negative": F.lp_pool1d(x, 3, 2),
        "p1_5_negative": F.lp_pool1d(x, 1.5, 2),
        "p_half": F.lp_pool1d(positive, 0.5, 3, 2, ceil_mode=True),
        "p_negative": F.lp_pool1d(positive, -2, 2),
        "inf": F.lp_pool1d(x, INF, 3, 1),
        "minus_inf": F.lp_pool1d(x, -INF, 3, 1),
        "ceil": F.lp_pool1d(x, 2, 3, 2, True),
        "unbatched": F.lp_pool1d(x[0], 2, 2),
        "float32": F.lp_pool1d(x.float(), 2, 2),
        "grads_p2": _grads(lambda t: F.lp_pool1d(t, 2, 2), positive),
        "grads_p3": _grads(lambda t: F.lp_pool1d(t, 3, 3, 1), x),
        "grads_inf": _grads(lambda t: F.lp_pool1d(t, INF, 2), positive),
        "grads_minus_inf": _grads(lambda t: F.lp_pool1d(t, -INF, 2), positive),
        "int_input": F.lp_pool1d(x.mul(4).long(), 2, 2),
        "norm_0": error(F.lp_pool1d, x, 0, 2),
        "kernel_too_big": error(F.lp_pool1d, x, 2, 9),
        "input_1d": error(F.lp_pool1d, x[0, 0], 2, 2),
    }


def _avg_pool_non_finite_grad(kernel, stride, upstream):
    """avg_pool2d's gradient for an upstream gradient with NaN and ±inf: each reaches its own window only."""
    leaf = fg.ones(1, 1, 4, 4, dtype=fg.float64, requires_grad=True)
    y = F.avg_pool2d(leaf, kernel, stride)
    return fg.autograd.grad(y, leaf, fg.tensor(upstream, dtype=fg.float64).reshape(y.shape))[0]


def _avg_pool_int64():
    """torch averages int64 (only) in int64: a truncating division, wrapping sums."""
    x = fg.tensor([[[[-5, -4, -3], [9, 2, 7]]]])
    return {
        "padded": F.avg_pool2d(x, (1, 2), padding=(0, 1)),
        "without_padding": F.avg_pool2d(x, (1, 2), padding=(0, 1), count_include_pad=False),
        "negative_divisor": F.avg_pool2d(x, 2, divisor_override=-3),
        "ceil": F.avg_pool2d(x, (1, 2), ceil_mode=True),
        "1d": F.avg_pool1d(x[0], 2),
        "wraps": F.avg_pool2d(fg.full((1, 1, 1, 2), 2**62), (1, 2)),
        "int32": error(F.avg_pool2d, x.int(), 2),
        "int8": error(F.avg_pool2d, x.to(fg.int8), 2),
        "bool": error(F.avg_pool2d, x > 0, 2),
    }


def _lp_pool2d():
    x = _signal((2, 2, 4, 6))
    positive = x.abs() + 0.5
    return {
        "avg_pool_nan_grad": _avg_pool_non_finite_grad(2, 2, [NAN, 1.0, 2.0, 3.0]),
        "avg_pool_inf_grads": _avg_pool_non_finite_grad(2, 1, [NAN, 1, 2, 3, INF, 4, 5, 6, -INF]),
        "avg_pool_opposite_infs": _avg_pool_non_finite_grad(3, 1, [INF, 1.0, 2.0, -INF]),
        "p2": F.lp_pool2d(x, 2, 2),
        "p2_rect": F.lp_pool2d(x, 2, (2, 3), (1, 2)),
        "p3_negative": F.lp_pool2d(x, 3, 2),
        "p1_5_negative": F.lp_pool2d(x, 1.5, 2),
        "inf": F.lp_pool2d(x, INF, (2, 3)),
        "minus_inf": F.lp_pool2d(x, -INF, 2, 1),
        "ceil": F.lp_pool2d(x, 2, 3, 2, ceil_mode=True),
        "unbatched": F.lp_pool2d(x[0], 4, [2, 2]),
        "grads_p2": _grads(lambda t: F.lp_pool2d(t, 2, 2), positive),
        "grads_p3": _grads(lambda t: F.lp_pool2d(t, 3, (2, 3), 1), x),
        "norm_0": error(F.lp_pool2d, x, 0.0, 2),
        "kernel_too_big": error(F.lp_pool2d, x, 2, 5),
        "input_2d": error(F.lp_pool2d, x[0, 0], 2, 2),
        "input_1d": error(F.lp_pool2d, x[0, 0, 0], 2, 2),
        "input_5d": error(F.lp_pool2d, x[None], 2, 2),
        "empty_channels": error(F.lp_pool2d, fg.zeros(1, 0, 4, 4), 2, 2),
        "empty_batch": F.lp_pool2d(fg.zeros(0, 1, 4, 4), 2, 2),
    }


def _local_response_norm():
    x3 = _signal((2, 5, 4))
    x4 = _signal((2, 5, 3, 2))
    x5 = _signal((1, 4, 2, 2, 3))
    return {
        "3d": F.local_response_norm(x3, 3),
        "3d_even": F.local_response_norm(x3, 2, alpha=0.5, beta=0.5, k=2.0),
        "4d": F.local_response_norm(x4, 3, 1e-2),
        "4d_size_1": F.local_response_norm(x4, 1),
        "4d_size_big": F.local_response_norm(x4, 7, alpha=1.0),
        "5d": F.local_response_norm(x5, 2, 0.1, 1.0, 0.5),
        "float32": F.local_response_norm(x4.float(), 4),
        "empty": F.local_response_norm(fg.zeros(0, 3, 2), 2),
        "grads_3d": _grads(lambda t: F.local_response_norm(t, 3, alpha=0.5), x3),
        "grads_4d": _grads(lambda t: F.local_response_norm(t, 2, alpha=0.3, beta=1.5), x4),
        "input_2d": error(F.local_response_norm, x3[0], 2),
        "int_input": F.local_response_norm(x4.mul(4).long(), 3),
    }


def _modules():
    x = _signal((1, 2, 4, 6))
    fg.manual_seed(0)
    return {
        "reprs": [
            repr(nn.LPPool1d(2, 3)),
            repr(nn.LPPool2d(1.5, (2, 3), stride=1, ceil_mode=True)),
            repr(nn.LPPool2d(INF, 2)),
            repr(nn.LocalResponseNorm(2)),
            repr(nn.LocalResponseNorm(3, alpha=0.5, beta=1, k=2)),
        ],
        "lp1d": nn.LPPool1d(2, 3, 1)(x[0]),
        "lp2d": nn.LPPool2d(3, 2)(x),
        "lp2d_int_norm": nn.LPPool2d(2, (2, 3), ceil_mode=True)(x),
        "lrn": nn.LocalResponseNorm(2, alpha=0.5)(x),
        "norm_0": error(nn.LPPool2d, 0, 2),
        "attributes": [nn.LPPool1d(2, 3).norm_type, nn.LPPool1d(2, 3).stride, nn.LocalResponseNorm(3).k],
    }


CASES = {
    "lp_pool1d": _lp_pool1d,
    "lp_pool2d": _lp_pool2d,
    "local_response_norm": _local_response_norm,
    "avg_pool_int64": _avg_pool_int64,
    "modules": _modules,
}
