"""Cases for the 3-D convolutions and pools (issue 28), recorded from torch (tests/golden/record_conv3d.py) and
checked by tests/test_conv3d.py: conv3d / conv_transpose3d over a grid of strides, paddings (ints, tuples,
'same', 'valid'), dilations and groups, with and without bias, batched and unbatched, non-contiguous, float64,
float32 and int64; max/avg/adaptive/lp pools with ceil_mode, padding, dilation, count_include_pad,
divisor_override, ties, NaN, ±inf and huge values; the indices' round trip through max_unpool3d; gradients,
grad_fn names and saved fields; the function forms; the modules' reprs, forwards and padding modes; and
torch's errors for bad input."""

import math

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
from cases_vocab_ops import _grads
from recorded import error

NAN = math.nan
INF = math.inf


def _array(seed, shape):
    return np.random.default_rng(seed).uniform(-1.0, 1.0, shape)


def _t(seed, shape, dtype=fg.float64):
    return fg.tensor(_array(seed, shape), dtype=dtype)


def _volume(shape, dtype=fg.float64):
    """Values with ties, -inf and NaN in them (the max pools' choices at each are torch's)."""
    n = math.prod(shape)
    x = fg.arange(n, dtype=fg.float64).remainder(11).mul(1.5).sub(4.0).reshape(-1).clone()
    x[3] = -INF
    if n > 20:
        x[20] = NAN
        x[21] = NAN
    return x.reshape(shape).to(dtype)


def _conv3d():
    x, w, b = _t(1, (1, 4, 5, 4, 5)), _t(2, (6, 4, 3, 2, 3)), _t(3, (6,))
    wg = _t(4, (6, 2, 2, 3, 2))
    configs = {
        "plain": lambda: F.conv3d(x, w),
        "bias": lambda: F.conv3d(x, w, b),
        "stride": lambda: F.conv3d(x, w, b, stride=2),
        "stride_tuple": lambda: F.conv3d(x, w, b, (1, 2, 3)),
        "padding": lambda: F.conv3d(x, w, b, padding=1),
        "padding_tuple": lambda: F.conv3d(x, w, None, 1, (2, 0, 1)),
        "dilation": lambda: F.conv3d(x, w, b, dilation=(2, 1, 2)),
        "groups": lambda: F.conv3d(x, wg, b, groups=2),
        "groups_all": lambda: F.conv3d(x, _t(5, (4, 1, 2, 2, 2)), None, 1, 1, 1, 4),
        "everything": lambda: F.conv3d(x, wg, b, (2, 1, 2), (1, 2, 0), (1, 2, 1), 2),
        "same": lambda: F.conv3d(x, w, b, padding="same"),
        "same_dilated": lambda: F.conv3d(x, w, b, padding="same", dilation=(1, 2, 2)),
        "valid": lambda: F.conv3d(x, w, b, padding="valid"),
        "unbatched": lambda: F.conv3d(x[0], w, b, 1, 1),
        "non_contiguous": lambda: F.conv3d(x.transpose(2, 4), w.transpose(2, 4), b),
        "float32": lambda: F.conv3d(x.float(), w.float(), b.float(), 2, 1),
        "int64": lambda: F.conv3d(x.mul(4).long(), w.mul(4).long()),
        "zero_batch": lambda: F.conv3d(fg.zeros(0, 4, 5, 4, 5, dtype=fg.float64), w),
        "kernel_is_input": lambda: F.conv3d(x, _t(6, (2, 4, 5, 4, 5))),
        "function_form": lambda: fg.conv3d(x, w, b, 2, 1, 1, 1),
    }
    out = {name: fn() for name, fn in configs.items()}
    xs, ws, bs = x[:1, :, :3, :4, :3], wg[:, :, :2], b
    out["grads"] = _grads(lambda a, c, d: F.conv3d(a, c, d, 1, 1, 1, 2), xs, ws, bs)
    out["grads_strided"] = _grads(lambda a, c: F.conv3d(a, c, None, (2, 1, 2), 1, (1, 2, 1)), xs, w[:2, :, :2])
    leaf = x.clone().requires_grad_()
    node = F.conv3d(leaf, w, b, (1, 2, 1), (0, 1, 1), (2, 1, 1), 1).grad_fn
    out["saved"] = [
        node.name(),
        list(node._saved_stride),
        list(node._saved_padding),
        list(node._saved_dilation),
        node._saved_groups,
        node._saved_transposed,
        list(node._saved_output_padding),
        node._saved_weight,
    ]
    out["unbatched_grad_fn"] = F.conv3d(leaf[0], w).grad_fn.name()
    return out


def _conv3d_errors():
    x, w = _t(1, (1, 2, 4, 5, 6)), _t(2, (4, 2, 2, 2, 2))
    cases = {
        "rank_3": lambda: F.conv3d(x[0, 0], w),
        "rank_6": lambda: F.conv3d(x[None], w),
        "channels": lambda: F.conv3d(x, w[:, :1]),
        "groups_weight": lambda: F.conv3d(x, w, groups=3),
        "groups_channels": lambda: F.conv3d(x, w, groups=2),
        "groups_zero": lambda: F.conv3d(x, w, groups=0),
        "stride_zero": lambda: F.conv3d(x, w, stride=0),
        "stride_length": lambda: F.conv3d(x, w, stride=(1, 2)),
        "padding_negative": lambda: F.conv3d(x, w, padding=-1),
        "padding_string": lambda: F.conv3d(x, w, padding="full"),
        "same_strided": lambda: F.conv3d(x, w, None, 2, "same"),
        "dilation_zero": lambda: F.conv3d(x, w, dilation=0),
        "kernel_too_big": lambda: F.conv3d(x[:, :, :1], w),
        "bias_size": lambda: F.conv3d(x, w, _t(3, (3,))),
        "weight_rank": lambda: F.conv3d(x, w[0]),
        "dtype_mismatch": lambda: F.conv3d(x, w.float()),
        "bool": lambda: F.conv3d(x > 0, w > 0),
        "empty_kernel": lambda: F.conv3d(x, w[:, :, :0]),
    }
    return {name: error(fn) for name, fn in cases.items()}


def _conv_transpose3d():
    x, w, b = _t(11, (1, 4, 3, 3, 2)), _t(12, (4, 3, 2, 3, 2)), _t(13, (3,))
    wg = _t(14, (4, 2, 3, 2, 2))
    configs = {
        "plain": lambda: F.conv_transpose3d(x, w),
        "bias": lambda: F.conv_transpose3d(x, w, b),
        "stride": lambda: F.conv_transpose3d(x, w, b, stride=2),
        "stride_output_padding": lambda: F.conv_transpose3d(x, w, b, (2, 3, 2), 0, (1, 2, 0)),
        "padding": lambda: F.conv_transpose3d(x, w, b, 2, (1, 0, 1)),
        "dilation": lambda: F.conv_transpose3d(x, w, b, 1, 0, 0, 1, (2, 1, 3)),
        "output_padding_dilation": lambda: F.conv_transpose3d(x, w, None, 1, 1, (1, 0, 2), 1, (2, 1, 3)),
        "groups": lambda: F.conv_transpose3d(x, wg, _t(15, (4,)), 2, 1, 1, 2),
        "unbatched": lambda: F.conv_transpose3d(x[0], w, b, 2, 1),
        "non_contiguous": lambda: F.conv_transpose3d(x.transpose(2, 3), w, b),
        "float32": lambda: F.conv_transpose3d(x.float(), w.float(), b.float(), 2),
        "function_form": lambda: fg.conv_transpose3d(x, wg, None, 2, 0, 1, 2, 1),
    }
    out = {name: fn() for name, fn in configs.items()}
    xs = x[:, :, :2, :3, :2]
    out["grads"] = _grads(lambda a, c, d: F.conv_transpose3d(a, c, d, 2, 1, 1, 2), xs, wg[:, :, :2], _t(15, (4,)))
    out["grads_dilated"] = _grads(lambda a, c: F.conv_transpose3d(a, c, None, 1, 0, 0, 1, 2), xs, w)
    leaf = x.clone().requires_grad_()
    node = F.conv_transpose3d(leaf, w, b, 2, 1, (1, 0, 1)).grad_fn
    out["saved"] = [
        node.name(),
        list(node._saved_stride),
        list(node._saved_padding),
        node._saved_transposed,
        list(node._saved_output_padding),
    ]
    errors = {
        "output_padding": lambda: F.conv_transpose3d(x, w, stride=2, output_padding=2),
        "rank": lambda: F.conv_transpose3d(x[0, 0], w),
        "channels": lambda: F.conv_transpose3d(x, w[:2]),
        "stride_zero": lambda: F.conv_transpose3d(x, w, stride=0),
        "dilation_zero": lambda: F.conv_transpose3d(x, w, dilation=0),
        "too_small": lambda: F.conv_transpose3d(x, w, padding=5),
        "bias_size": lambda: F.conv_transpose3d(x, w, _t(3, (4,))),
        "groups_weight": lambda: F.conv_transpose3d(x, w, groups=3),
    }
    out.update({name: error(fn) for name, fn in errors.items()})
    return out


def _max_pool3d():
    x = _volume((2, 2, 4, 5, 6))
    configs = {
        "plain": lambda: F.max_pool3d(x, 2, return_indices=True),
        "stride": lambda: F.max_pool3d(x, 3, 1, return_indices=True),
        "tuples": lambda: F.max_pool3d(x, (2, 3, 2), (1, 2, 3), (1, 1, 0), return_indices=True),
        "dilation": lambda: F.max_pool3d(x, 2, 1, 0, (1, 2, 2), return_indices=True),
        "ceil": lambda: F.max_pool3d(x, 3, 2, 1, 1, True, True),
        "ceil_tuples": lambda: F.max_pool3d(x, (2, 2, 4), (3, 2, 3), 0, 1, ceil_mode=True, return_indices=True),
        # dilation past the padding: windows wholly in the padding give -inf
        "padding_only_windows": lambda: F.max_pool3d(x[:, :, :1], (1, 2, 3), 1, (0, 1, 1), (1, 3, 3), True, True),
        "unbatched": lambda: F.max_pool3d(x[0], 2, return_indices=True),
        "non_contiguous": lambda: F.max_pool3d(x.transpose(2, 4), 2, return_indices=True),
        "float32": lambda: F.max_pool3d(x.float(), 2, 1, return_indices=True),
        "int64": lambda: F.max_pool3d(x.nan_to_num(0.0, 9.0, -9.0).long(), 2, return_indices=True),
        "all_minus_inf": lambda: F.max_pool3d(fg.full((1, 1, 2, 2, 2), -INF), 2, return_indices=True),
        "zero_batch": lambda: F.max_pool3d(fg.zeros(0, 1, 2, 2, 2), 2),
        "with_indices": lambda: F.max_pool3d_with_indices(x, 2),
        "with_indices_false": lambda: F.max_pool3d_with_indices(x, 2, return_indices=False),
        "empty_stride": lambda: F.max_pool3d(x, 2, []),
        "torch_form": lambda: fg.max_pool3d(x, 2),
        "torch_form_args": lambda: fg.max_pool3d(x, 3, [], 1, 1, True),
    }
    out = {name: list(v) if isinstance(v, tuple) else v for name, v in ((n, fn()) for n, fn in configs.items())}
    clean = x.nan_to_num(0.0, 0.0, 0.0)
    values, indices = F.max_pool3d(clean, 2, return_indices=True)
    out["unpool_round_trip"] = F.max_unpool3d(values, indices, 2, output_size=clean.shape[-3:])
    strided, strided_idx = F.max_pool3d(clean, 3, 2, 1, return_indices=True)
    out["unpool_strided"] = F.max_unpool3d(strided, strided_idx, 3, 2, 1, output_size=clean.shape[-3:])
    distinct = fg.tensor(np.random.default_rng(7).permutation(480).reshape(2, 2, 4, 5, 6), dtype=fg.float64)
    out["grads"] = _grads(lambda t: F.max_pool3d(t, 2, 1), distinct)
    out["grads_padded"] = _grads(lambda t: F.max_pool3d(t, 3, 2, 1, ceil_mode=True), distinct)
    errors = {
        "rank_3": lambda: F.max_pool3d(x[0, 0], 2),
        "rank_6": lambda: F.max_pool3d(x[None], 2),
        "pad_too_big": lambda: F.max_pool3d(x, 2, padding=2),
        "stride_zero": lambda: F.max_pool3d(x, 2, stride=0),
        "kernel_zero": lambda: F.max_pool3d(x, 0),
        "kernel_negative": lambda: F.max_pool3d(x, -1),
        "stride_negative": lambda: F.max_pool3d(x, 2, -1),
        "dilation_zero": lambda: F.max_pool3d(x, 2, dilation=0),
        "dilation_negative": lambda: F.max_pool3d(x, 2, dilation=-1),
        "padding_negative": lambda: F.max_pool3d(x, 2, padding=-1),
        "too_small": lambda: F.max_pool3d(x, 5),
        "kernel_length": lambda: F.max_pool3d(x, (2, 2)),
        "stride_length": lambda: F.max_pool3d(x, 2, (1, 2)),
        "padding_length": lambda: F.max_pool3d(x, 2, padding=(1, 1)),
        "dilation_length": lambda: F.max_pool3d(x, 2, dilation=(1, 1)),
        "bool": lambda: F.max_pool3d(x > 0, 2),
        "empty_channels": lambda: F.max_pool3d(fg.zeros(1, 0, 2, 2, 2), 2),
        "empty_depth": lambda: F.max_pool3d(fg.zeros(1, 1, 0, 2, 2), 2),
    }
    out.update({name: error(fn) for name, fn in errors.items()})
    return out


def _avg_pool3d():
    x = _t(21, (2, 2, 4, 5, 6))
    configs = {
        "plain": lambda: F.avg_pool3d(x, 2),
        "stride": lambda: F.avg_pool3d(x, 3, 1),
        "tuples": lambda: F.avg_pool3d(x, (2, 3, 2), (1, 2, 3), (1, 1, 0)),
        "exclude_pad": lambda: F.avg_pool3d(x, 3, 2, 1, count_include_pad=False),
        "ceil": lambda: F.avg_pool3d(x, 3, 2, 1, True),
        "ceil_exclude_pad": lambda: F.avg_pool3d(x, (2, 3, 4), (3, 2, 3), (1, 1, 2), True, False),
        "divisor": lambda: F.avg_pool3d(x, 2, 1, 1, divisor_override=3),
        "divisor_negative": lambda: F.avg_pool3d(x, 2, divisor_override=-2),
        "unbatched": lambda: F.avg_pool3d(x[0], 2),
        "non_contiguous": lambda: F.avg_pool3d(x.transpose(2, 4), 2),
        "float32": lambda: F.avg_pool3d(x.float(), 3, 2, 1),
        "int64": lambda: F.avg_pool3d(x.mul(7).long(), 2, 1, 1),
        "huge_float32": lambda: F.avg_pool3d(fg.full((1, 1, 2, 2, 2), 3e38), 2),
        "huge_float64": lambda: F.avg_pool3d(fg.full((1, 1, 2, 2, 2), 1e308, dtype=fg.float64), 2),
        "inf": lambda: F.avg_pool3d(_volume((1, 1, 3, 4, 4)), 2, 1),
        "zero_batch": lambda: F.avg_pool3d(fg.zeros(0, 1, 2, 2, 2), 2),
        "empty_stride": lambda: F.avg_pool3d(x, 2, []),
    }
    out = {name: fn() for name, fn in configs.items()}
    xs = x[:1, :1]
    out["grads"] = _grads(lambda t: F.avg_pool3d(t, 3, 2, 1, True, False), xs)
    out["grads_divisor"] = _grads(lambda t: F.avg_pool3d(t, 2, 1, 1, divisor_override=5), xs)
    leaf = xs.clone().requires_grad_()
    y = F.avg_pool3d(leaf, 2)
    g = fg.ones_like(y)
    g[0, 0, 0, 0, 0] = INF
    g[0, 0, 1, 1, 1] = NAN
    out["non_finite_grad"] = fg.autograd.grad(y, leaf, g)[0]
    errors = {
        "rank_3": lambda: F.avg_pool3d(x[0, 0], 2),
        "pad_too_big": lambda: F.avg_pool3d(x, 2, padding=2),
        "stride_zero": lambda: F.avg_pool3d(x, 2, stride=0),
        "kernel_negative": lambda: F.avg_pool3d(x, -1),
        "padding_negative": lambda: F.avg_pool3d(x, 2, padding=-1),
        "kernel_too_big": lambda: F.avg_pool3d(x, 5),
        "divisor_zero": lambda: F.avg_pool3d(x, 2, divisor_override=0),
        "kernel_length": lambda: F.avg_pool3d(x, (2, 2)),
        "stride_length": lambda: F.avg_pool3d(x, 2, (1, 2)),
        "padding_length": lambda: F.avg_pool3d(x, 2, padding=(1, 1)),
        "bool": lambda: F.avg_pool3d(x > 0, 2),
        "int32": lambda: F.avg_pool3d(x.int(), 2),
        "half": lambda: F.avg_pool3d(x.half(), 2),
        "empty_channels": lambda: F.avg_pool3d(fg.zeros(1, 0, 2, 2, 2), 2),
    }
    out.update({name: error(fn) for name, fn in errors.items()})
    return out


def _adaptive():
    x = _volume((2, 2, 4, 5, 7))
    smooth = _t(31, (2, 2, 4, 5, 7))
    out = {
        "avg": F.adaptive_avg_pool3d(smooth, (2, 3, 4)),
        "avg_int": F.adaptive_avg_pool3d(smooth, 3),
        "avg_none": F.adaptive_avg_pool3d(smooth, (None, 2, None)),
        "avg_larger": F.adaptive_avg_pool3d(smooth, (5, 7, 9)),
        "avg_one": F.adaptive_avg_pool3d(smooth, 1),
        "avg_zero": F.adaptive_avg_pool3d(smooth, 0),
        "avg_unbatched": F.adaptive_avg_pool3d(smooth[0], 2),
        "avg_float32": F.adaptive_avg_pool3d(smooth.float(), (3, 2, 5)),
        "avg_huge": F.adaptive_avg_pool3d(fg.full((1, 1, 2, 2, 2), 3e38), (1, 1, 2)),
        "max": list(F.adaptive_max_pool3d(x, (2, 3, 4), True)),
        "max_int": F.adaptive_max_pool3d(x, 3),
        "max_none": list(F.adaptive_max_pool3d(x, (None, 2, 3), return_indices=True)),
        "max_larger": list(F.adaptive_max_pool3d(x, (5, 6, 8), True)),
        "max_unbatched": list(F.adaptive_max_pool3d(x[0], 2, True)),
        "max_with_indices": list(F.adaptive_max_pool3d_with_indices(x, 2)),
        "max_float32": F.adaptive_max_pool3d(x.float(), (1, 2, 3)),
        "grads_avg": _grads(lambda t: F.adaptive_avg_pool3d(t, (3, 2, 4)), smooth[:1, :1]),
        "grads_avg_one": _grads(lambda t: F.adaptive_avg_pool3d(t, 1), smooth[:1, :1]),
        "grads_max": _grads(lambda t: F.adaptive_max_pool3d(t, (3, 2, 4)), smooth[:1, :1]),
    }
    errors = {
        "avg_rank": lambda: F.adaptive_avg_pool3d(x[0, 0], 2),
        "avg_length": lambda: F.adaptive_avg_pool3d(x, (2, 2)),
        "avg_negative": lambda: F.adaptive_avg_pool3d(x, -1),
        "avg_long": lambda: F.adaptive_avg_pool3d(x.nan_to_num(0.0, 0.0, 0.0).long(), 2),
        "avg_empty": lambda: F.adaptive_avg_pool3d(fg.zeros(1, 1, 0, 2, 2), 2),
        "max_rank": lambda: F.adaptive_max_pool3d(x[0, 0], 2),
        "max_length": lambda: F.adaptive_max_pool3d(x, (2, 2)),
        "max_negative": lambda: F.adaptive_max_pool3d(x, -1),
        "max_long": lambda: F.adaptive_max_pool3d(x.nan_to_num(0.0, 0.0, 0.0).long(), 2),
        "max_empty": lambda: F.adaptive_max_pool3d(fg.zeros(1, 1, 0, 2, 2), 2),
    }
    out.update({name: error(fn) for name, fn in errors.items()})
    return out


def _lp_pool3d():
    x = _t(41, (2, 2, 4, 5, 6))
    return {
        "p2": F.lp_pool3d(x, 2, 2),
        "p1_stride": F.lp_pool3d(x, 1, (2, 3, 2), (1, 2, 2)),
        "p3_ceil": F.lp_pool3d(x.abs(), 3.0, 3, 2, True),
        "inf": F.lp_pool3d(x, INF, 2),
        "minus_inf": F.lp_pool3d(x, -INF, 2, 1),
        "unbatched": F.lp_pool3d(x[0], 2, 2),
        "grads": _grads(lambda t: F.lp_pool3d(t, 2, 2, 1), x[:1, :1]),
        "zero_norm": error(F.lp_pool3d, x, 0, 2),
    }


def _set_parameters(module, seed):
    with fg.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(fg.tensor(_array(seed + i, tuple(p.shape)), dtype=p.dtype))
    return module


def _modules():
    x = _t(51, (1, 4, 4, 5, 5), fg.float32)
    conv = _set_parameters(nn.Conv3d(4, 6, (3, 2, 3), stride=(1, 2, 1), padding=1, groups=2), 60)
    convt = _set_parameters(nn.ConvTranspose3d(4, 2, 3, stride=2, padding=1, output_padding=1), 70)
    out = {
        "reprs": [
            repr(nn.Conv3d(2, 4, 3)),
            repr(nn.Conv3d(2, 4, (1, 2, 3), (2, 1, 1), (0, 1, 2), (1, 2, 1), 2, False, "reflect")),
            repr(nn.Conv3d(2, 4, 3, padding="same")),
            repr(nn.ConvTranspose3d(2, 4, 3, stride=2, output_padding=1)),
            repr(nn.ConvTranspose3d(2, 4, (1, 2, 3), 1, 1, 0, 2, False, 2)),
            repr(nn.MaxPool3d(2)),
            repr(nn.MaxPool3d((1, 2, 3), (2, 2, 1), 1, 2, True, True)),
            repr(nn.AvgPool3d(2)),
            repr(nn.AvgPool3d((1, 2, 2), 1, (0, 1, 1), True, False, 3)),
            repr(nn.AdaptiveAvgPool3d(2)),
            repr(nn.AdaptiveAvgPool3d((2, None, 3))),
            repr(nn.AdaptiveMaxPool3d((2, None, 3))),
            repr(nn.AdaptiveMaxPool3d(1, True)),
            repr(nn.LPPool3d(2, 3)),
            repr(nn.LPPool3d(1.5, (1, 2, 2), 1, True)),
        ],
        "shapes": [
            list(nn.Conv3d(4, 6, (3, 2, 1), groups=2).weight.shape),
            list(nn.ConvTranspose3d(4, 6, (3, 2, 1), groups=2).weight.shape),
            nn.Conv3d(2, 4, 3, bias=False).bias is None,
            list(nn.Conv3d(2, 4, 3).bias.shape),
            nn.Conv3d(2, 4, 3).weight.dtype,
            nn.Conv3d(2, 4, 3, dtype=fg.float64).weight.dtype,
        ],
        "attributes": [
            nn.Conv3d(2, 4, 3).kernel_size,
            nn.Conv3d(2, 4, 3).stride,
            nn.Conv3d(2, 4, 3, padding=2).padding,
            nn.Conv3d(2, 4, 3, padding="same").padding,
            nn.ConvTranspose3d(2, 4, 3, output_padding=(0, 1, 0), stride=2).output_padding,
            nn.MaxPool3d(2).stride,
            nn.AvgPool3d((1, 2, 2)).stride,
        ],
        "conv": conv(x),
        "conv_unbatched": conv(x[0]),
        "conv_transpose": convt(x),
        "conv_transpose_output_size": convt(x, output_size=[7, 10, 9]),
        "conv_transpose_output_size_full": convt(x, output_size=[1, 2, 8, 9, 10]),
        "max_pool": list(nn.MaxPool3d(2, 1, 1, return_indices=True)(x)),
        "avg_pool": nn.AvgPool3d(3, 2, 1, ceil_mode=True, count_include_pad=False)(x),
        "adaptive_avg": nn.AdaptiveAvgPool3d((2, None, 3))(x),
        "adaptive_max": list(nn.AdaptiveMaxPool3d(2, return_indices=True)(x)),
        "lp_pool": nn.LPPool3d(2, 2)(x),
        "output_size_range": error(convt, x, output_size=[3, 3, 3]),
        "output_size_length": error(convt, x, output_size=[8, 10]),
        "groups_in_channels": error(nn.Conv3d, 3, 4, 2, groups=2),
        "transpose_padding_mode": error(nn.ConvTranspose3d, 2, 4, 2, padding_mode="reflect"),
        "same_strided": error(nn.Conv3d, 2, 4, 2, stride=2, padding="same"),
    }
    for mode in ("zeros", "reflect", "replicate", "circular"):
        layer = _set_parameters(nn.Conv3d(4, 2, (3, 2, 3), padding=(1, 1, 2), padding_mode=mode), 80)
        out[f"padding_mode_{mode}"] = layer(x)
        same = _set_parameters(nn.Conv3d(4, 2, (3, 2, 4), padding="same", padding_mode=mode), 90)
        out[f"padding_same_{mode}"] = same(x)
    return out


CASES = {
    "conv3d": _conv3d,
    "conv3d_errors": _conv3d_errors,
    "conv_transpose3d": _conv_transpose3d,
    "max_pool3d": _max_pool3d,
    "avg_pool3d": _avg_pool3d,
    "adaptive": _adaptive,
    "lp_pool3d": _lp_pool3d,
    "modules": _modules,
}
