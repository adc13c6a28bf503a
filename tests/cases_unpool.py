"""Cases for max unpooling and the max pools' `_with_indices` forms (issue 28), recorded from torch
(tests/golden/record_unpool.py) and checked by tests/test_unpool.py: round trips through the pools' flat
indices, repeated indices (the later value wins), output_size handling, the argument and index errors in
torch's order, dtypes, empty batches, gradients, grad_fn names and saved fields, and the modules' reprs."""

import math

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
from cases_vocab_ops import _grads
from recorded import error

NAN = math.nan
INF = math.inf


def _plane(shape, dtype=fg.float64):
    """Distinct values with a tie, -inf and NaN in them (the pools' choice at each is torch's)."""
    n = math.prod(shape)
    x = fg.arange(n, dtype=dtype).remainder(7).mul(1.5).sub(3.0).reshape(shape)
    flat = x.reshape(-1).clone()
    flat[1] = -INF
    if n > 5:
        flat[5] = NAN
    return flat.reshape(shape)


def _with_indices():
    x2 = _plane((2, 3, 5, 6))
    x1 = _plane((2, 3, 9))
    return {
        "pool2d": F.max_pool2d_with_indices(x2, 2),
        "pool2d_args": F.max_pool2d_with_indices(x2, (3, 2), (2, 1), (1, 0), (1, 2), True),
        "pool2d_return_false": F.max_pool2d_with_indices(x2, 2, return_indices=False),
        "pool1d": F.max_pool1d_with_indices(x1, 3),
        "pool1d_args": F.max_pool1d_with_indices(x1, 3, 2, 1, 1, True),
        "pool1d_unbatched": F.max_pool1d_with_indices(x1[0], 2, 1),
        "torch_pool1d": list(fg.max_pool1d_with_indices(x1, 2)),
        "torch_pool1d_args": list(fg.max_pool1d_with_indices(x1, 3, [], 1, 2, True)),
        "torch_pool1d_stride": list(fg.max_pool1d_with_indices(x1, 3, stride=2, padding=1)),
        "grads2d": _grads(lambda x: F.max_pool2d_with_indices(x, 2)[0], x2.nan_to_num(0.0, 0.0, 0.0)),
        "grads1d": _grads(lambda x: F.max_pool1d_with_indices(x, 2)[0], x1.nan_to_num(0.0, 0.0, 0.0)),
        "adaptive1d": F.adaptive_max_pool1d_with_indices(x1, 4),
        "adaptive2d": F.adaptive_max_pool2d_with_indices(x2, (2, 4), return_indices=False),
        "bad_kernel": error(F.max_pool1d_with_indices, x1, 0),
        "bad_dims": error(F.max_pool2d_with_indices, x1[0], 2),
    }


def _unpool2d():
    x = _plane((2, 3, 5, 6)).nan_to_num(0.0, 0.0, 0.0)
    values, indices = F.max_pool2d(x, 2, return_indices=True)
    strided, strided_idx = F.max_pool2d(x, 3, 2, 1, return_indices=True)
    v = fg.tensor([[[[1.0, 2.0], [3.0, 4.0]]]], dtype=fg.float64)
    i = fg.tensor([[[[0, 0], [15, 15]]]])
    out = {
        "round_trip": F.max_unpool2d(values, indices, 2),
        "round_trip_size": F.max_unpool2d(values, indices, 2, output_size=x.shape),
        "round_trip_size2": F.max_unpool2d(values, indices, 2, output_size=[5, 7]),
        "strided": F.max_unpool2d(strided, strided_idx, 3, 2, 1, output_size=(5, 6)),
        "unbatched": F.max_unpool2d(values[0], indices[0], (2, 2), (2, 2)),
        "repeated": F.max_unpool2d(v, i, 2),
        "nan_inf": F.max_unpool2d(fg.tensor([[[NAN, -INF]]]), fg.tensor([[[3, 0]]]), (1, 2)),
        "half": F.max_unpool2d(v.half(), i, 2),
        "float32": F.max_unpool2d(v.float(), i, 2),
        "zero_batch": F.max_unpool2d(fg.zeros(0, 1, 2, 2), fg.zeros(0, 1, 2, 2, dtype=fg.int64), 2),
        "empty_output": F.max_unpool2d(v, i, 1, padding=1),
        "non_contiguous": F.max_unpool2d(values.transpose(-1, -2), indices.transpose(-1, -2), 2),
        "grads": _grads(lambda t: F.max_unpool2d(t, i, 2), v),
        "grads_round_trip": _grads(lambda t: F.max_unpool2d(*F.max_pool2d(t, 2, return_indices=True), 2), x),
    }
    errors = {
        "bad_index": lambda: F.max_unpool2d(v, i + 1, 2),
        "negative_index": lambda: F.max_unpool2d(v, i - 1, 2),
        "int32_indices": lambda: F.max_unpool2d(v, i.int(), 2),
        "float_indices": lambda: F.max_unpool2d(v, i.double(), 2),
        "shape_mismatch": lambda: F.max_unpool2d(v, i[..., :1], 2),
        "input_2d": lambda: F.max_unpool2d(v[0, 0], i[0, 0], 2),
        "input_5d": lambda: F.max_unpool2d(v[None], i[None], 2),
        "int_input": lambda: F.max_unpool2d(v.long(), i, 2),
        "bool_input": lambda: F.max_unpool2d(v > 2, i, 2),
        "empty_channels": lambda: F.max_unpool2d(fg.zeros(1, 0, 2, 2), fg.zeros(1, 0, 2, 2, dtype=fg.int64), 2),
        "empty_height": lambda: F.max_unpool2d(fg.zeros(1, 1, 0, 2), fg.zeros(1, 1, 0, 2, dtype=fg.int64), 2),
        "size_length": lambda: F.max_unpool2d(v, i, 2, output_size=(1, 4, 4)),
        "size_range": lambda: F.max_unpool2d(v, i, 2, output_size=(2, 4)),
        "size_negative": lambda: F.max_unpool2d(v, i, 2, output_size=(-1, 4)),
        "size_float": lambda: F.max_unpool2d(v, i, 2, output_size=[4.0, 4]),
        "size_int": lambda: F.max_unpool2d(v, i, 2, output_size=4),
        "kernel_3": lambda: F.max_unpool2d(v, i, (2, 2, 2)),
        "stride_0": lambda: F.max_unpool2d(v, i, 2, stride=0),
    }
    out.update({name: error(fn) for name, fn in errors.items()})
    leaf = v.clone().requires_grad_()
    node = F.max_unpool2d(leaf, i, 2).grad_fn
    out["saved"] = [node.name(), node._saved_indices]
    return out


def _unpool1d():
    x = _plane((2, 3, 9)).nan_to_num(0.0, 0.0, 0.0)
    values, indices = F.max_pool1d(x, 2, return_indices=True)
    strided, strided_idx = F.max_pool1d(x, 3, 2, 1, return_indices=True)
    v = fg.tensor([[1.0, 2.0, 3.0]], dtype=fg.float64)
    i = fg.tensor([[0, 0, 5]])
    out = {
        "round_trip": F.max_unpool1d(values, indices, 2),
        "round_trip_size": F.max_unpool1d(values, indices, 2, output_size=[9]),
        "round_trip_full_size": F.max_unpool1d(values, indices, 2, output_size=list(x.shape)),
        "strided": F.max_unpool1d(strided, strided_idx, 3, 2, 1),
        "unbatched_2d": F.max_unpool1d(v, i, 2),
        "repeated": F.max_unpool1d(v[None], i[None], (2,), (2,), (0,)),
        "grads": _grads(lambda t: F.max_unpool1d(t, i, 2), v),
        "bad_index": error(F.max_unpool1d, v, i + 1, 2),
        "input_1d": error(F.max_unpool1d, v[0], i[0], 2),
        "shape_mismatch": error(F.max_unpool1d, v, i[:, :2], 2),
        "size_range": error(F.max_unpool1d, v, i, 2, output_size=[9]),
        "size_int": error(F.max_unpool1d, v, i, 2, output_size=5),
    }
    leaf = v.clone().requires_grad_()
    y = F.max_unpool1d(leaf, i, 2)
    out["grad_fns"] = [y.grad_fn.name(), y.grad_fn.next_functions[0][0].name()]
    return out


def _unpool3d():
    v = fg.arange(1.0, 9.0, dtype=fg.float64).reshape(1, 1, 2, 2, 2)
    i = fg.tensor([0, 7, 10, 10, 40, 45, 62, 63]).reshape(1, 1, 2, 2, 2)
    out = {
        "basic": F.max_unpool3d(v, i, 2),
        "unbatched": F.max_unpool3d(v[0], i[0], 2),
        "size": F.max_unpool3d(v, i, 2, output_size=(1, 1, 4, 4, 5)),
        "kernel_stride": F.max_unpool3d(v, i, (2, 3, 3), (2, 2, 2), (0, 1, 1), output_size=[4, 4, 4]),
        "grads": _grads(lambda t: F.max_unpool3d(t, i, 2), v),
        "float32": F.max_unpool3d(v.float(), i, 2),
    }
    errors = {
        "bad_index": lambda: F.max_unpool3d(v, i * 2, 2),  # several bad: torch names the last
        "bad_indices_planes": lambda: F.max_unpool3d(v.expand(2, 1, 2, 2, 2), fg.stack([i * 2, i])[:, 0], 2),
        "input_3d": lambda: F.max_unpool3d(v[0, 0], i[0, 0], 2),
        "shape_mismatch": lambda: F.max_unpool3d(v, i[..., :1], 2),
        "int32_indices": lambda: F.max_unpool3d(v, i.int(), 2),
        "int_input": lambda: F.max_unpool3d(v.long(), i, 2),
        "stride_0": lambda: F.max_unpool3d(v, i, (1, 2, 2), stride=0),
        "negative_size": lambda: F.max_unpool3d(v, i, (1, 2, 2), padding=(1, 0, 0)),
        "empty_channels": lambda: F.max_unpool3d(fg.zeros(1, 0, 1, 2, 2), fg.zeros(1, 0, 1, 2, 2).long(), 2),
    }
    out.update({name: error(fn) for name, fn in errors.items()})
    out["zero_batch"] = F.max_unpool3d(fg.zeros(0, 1, 1, 2, 2), fg.zeros(0, 1, 1, 2, 2).long(), 2)
    out["padding_negative"] = F.max_unpool3d(v, i.remainder(16), (1, 2, 2), padding=-1)
    leaf = v.clone().requires_grad_()
    node = F.max_unpool3d(leaf, i, 2).grad_fn
    out["saved"] = [node.name(), node._saved_indices]
    return out


def _modules():
    x = _plane((1, 2, 4, 6)).nan_to_num(0.0, 0.0, 0.0)
    pool, unpool = nn.MaxPool2d(2, return_indices=True), nn.MaxUnpool2d(2)
    pool1, unpool1 = nn.MaxPool1d(3, 2, return_indices=True), nn.MaxUnpool1d(3, 2)
    v3 = fg.ones(1, 1, 1, 1, 2, dtype=fg.float64)
    i3 = fg.tensor([0, 3]).reshape(1, 1, 1, 1, 2)
    return {
        "reprs": [
            repr(unpool),
            repr(nn.MaxUnpool1d(3, 1, 1)),
            repr(nn.MaxUnpool2d((2, 3), stride=(1, 2), padding=1)),
            repr(nn.MaxUnpool3d(2)),
            repr(nn.MaxUnpool3d((1, 2, 3), 1)),
        ],
        "attributes": [unpool.kernel_size, unpool.stride, unpool.padding, nn.MaxUnpool1d(3).stride],
        "unpool2d": unpool(*pool(x)),
        "unpool2d_size": unpool(*pool(x), output_size=[5, 7]),
        "unpool1d": unpool1(*pool1(x[0])),
        "unpool3d": nn.MaxUnpool3d((1, 1, 2))(v3, i3),
    }


def _conv_transpose_forms():
    """torch.conv_transpose1d/2d, the function forms (positional arguments in torch's order)."""
    x = fg.arange(10.0, dtype=fg.float64).reshape(1, 2, 5).sub(4.0)
    w = fg.arange(12.0, dtype=fg.float64).reshape(2, 2, 3).remainder(5).sub(2.0)
    b = fg.tensor([0.5, -1.0], dtype=fg.float64)
    x2, w2 = x.reshape(1, 2, 5, 1).expand(1, 2, 5, 2), w.reshape(2, 2, 3, 1)
    return {
        "1d": fg.conv_transpose1d(x, w),
        "1d_args": fg.conv_transpose1d(x, w, b, 2, 1, 1, 1, 1),
        "1d_groups": fg.conv_transpose1d(x, w[:, :1], None, 1, 0, 0, 2, 2),
        "2d": fg.conv_transpose2d(x2, w2, b, (2, 1), (1, 0), (1, 0)),
        "1d_stride_0": error(fg.conv_transpose1d, x, w, stride=0),
    }


CASES = {
    "conv_transpose_forms": _conv_transpose_forms,
    "with_indices": _with_indices,
    "unpool2d": _unpool2d,
    "unpool1d": _unpool1d,
    "unpool3d": _unpool3d,
    "modules": _modules,
}
