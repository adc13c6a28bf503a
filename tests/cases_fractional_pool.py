"""Cases for fractional_max_pool2d/3d (and their _with_indices forms), FractionalMaxPool2d/3d, recorded from torch
(tests/golden/record_fractional_pool.py) and checked by tests/test_fractional_pool.py. Seeded cases draw the
samples from the global generator (torch's `rand(N, C, dims)` in the input's dtype), so their outputs and indices
must be torch's exactly; the windows come from the samples in the input's dtype, the last one ending at the input's
end; a window's max is its first largest element or its last NaN."""

import math

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
from cases_vocab_ops import _grads
from recorded import error

INF = math.inf
NAN = math.nan


def _signal(shape, dtype=fg.float32, seed=0):
    """Distinct values (no ties) in a fixed order."""
    rng = np.random.default_rng(seed)
    return fg.tensor(rng.permutation(math.prod(shape)).reshape(shape) * 0.25 - 7.0, dtype=dtype)


def _seeded(fn, seed):
    """`fn()` right after `manual_seed(seed)`, and the generator's next draw (the pool used N·C·dims numbers)."""
    fg.manual_seed(seed)
    out = fn()
    return [*out, fg.rand(3)] if isinstance(out, tuple) else [out, fg.rand(3)]


def _seeded_2d():
    x32 = _signal((2, 3, 11, 9))
    x64 = _signal((2, 3, 11, 9), fg.float64, seed=1)
    return {
        "size_f32": _seeded(lambda: F.fractional_max_pool2d(x32, 3, output_size=(5, 4), return_indices=True), 0),
        "size_f64": _seeded(lambda: F.fractional_max_pool2d(x64, (2, 3), output_size=6, return_indices=True), 1),
        "ratio_f32": _seeded(lambda: F.fractional_max_pool2d_with_indices(x32, 2, output_ratio=(0.5, 0.7)), 2),
        "ratio_f64": _seeded(lambda: F.fractional_max_pool2d_with_indices(x64, (3, 2), output_ratio=[0.4, 0.6]), 3),
        "values_only": _seeded(lambda: F.fractional_max_pool2d(x32, 2, output_size=(4, 4)), 4),
        "unbatched": _seeded(lambda: F.fractional_max_pool2d(x64[1], 2, output_size=(7, 5), return_indices=True), 5),
        "steps_of_one": _seeded(lambda: F.fractional_max_pool2d(x32, 3, output_size=(9, 7), return_indices=True), 6),
        "one_output": _seeded(lambda: F.fractional_max_pool2d(x32, (4, 2), output_size=1, return_indices=True), 7),
        "whole_input": _seeded(lambda: F.fractional_max_pool2d(x64, (11, 9), output_size=1, return_indices=True), 8),
        "kernel_one": _seeded(lambda: F.fractional_max_pool2d(x32, 1, output_size=(3, 8), return_indices=True), 9),
        "large": _seeded(
            lambda: F.fractional_max_pool2d(_signal((2, 4, 50, 37)), 3, output_size=(20, 17), return_indices=True),
            10,
        ),
        "empty_batch": _seeded(lambda: F.fractional_max_pool2d(x32[:0], 2, output_size=3, return_indices=True), 11),
        "zero_output": _seeded(lambda: F.fractional_max_pool2d(x32, 2, output_size=(3, 0), return_indices=True), 12),
        "tiny_ratio": _seeded(lambda: F.fractional_max_pool2d(x32, 2, output_ratio=(0.05, 0.5)), 13),
        # the window arithmetic in the halves' own precision
        "float16": _seeded(lambda: F.fractional_max_pool2d(x32.half(), 3, output_size=(6, 5), return_indices=True), 14),
        "bfloat16": _seeded(
            lambda: F.fractional_max_pool2d(x64.bfloat16(), 2, output_size=(9, 7), return_indices=True), 15
        ),
    }


def _seeded_3d():
    x32 = _signal((2, 2, 7, 8, 6))
    x64 = _signal((2, 2, 7, 8, 6), fg.float64, seed=2)
    return {
        "size_f32": _seeded(lambda: F.fractional_max_pool3d(x32, 2, output_size=(4, 5, 3), return_indices=True), 20),
        "size_f64": _seeded(lambda: F.fractional_max_pool3d(x64, (3, 2, 2), output_size=3, return_indices=True), 21),
        "ratio_float": _seeded(lambda: F.fractional_max_pool3d_with_indices(x32, 2, output_ratio=0.5), 22),
        "ratio_tuple": _seeded(lambda: F.fractional_max_pool3d_with_indices(x64, 2, output_ratio=(0.5, 0.6, 0.7)), 23),
        "values_only": _seeded(lambda: F.fractional_max_pool3d(x32, (1, 2, 3), output_size=(6, 4, 2)), 24),
        "unbatched": _seeded(
            lambda: F.fractional_max_pool3d(x64[0], 2, output_size=(3, 4, 2), return_indices=True), 25
        ),
        "one_output": _seeded(lambda: F.fractional_max_pool3d(x32, (6, 7, 5), output_size=1, return_indices=True), 26),
        "empty_batch": _seeded(lambda: F.fractional_max_pool3d(x32[:0], 2, output_size=2, return_indices=True), 27),
    }


def _explicit_samples():
    x = _signal((2, 3, 10, 12), fg.float64)
    s = fg.tensor([[[0.0, 0.999], [0.5, 0.25], [0.75, 0.1]], [[0.3, 0.3], [0.9999, 0.0001], [0.6, 0.45]]])
    v = _signal((2, 1, 9, 8, 7), fg.float64)
    s3 = fg.tensor([[[0.1, 0.5, 0.9]], [[0.0, 0.33, 0.999]]], dtype=fg.float64)
    odd = fg.tensor([[[5.0, -5.0]], [[NAN, INF]], [[1e10, -0.3]]], dtype=fg.float64)
    return {
        "f64": F.fractional_max_pool2d(x, 3, output_size=(5, 6), return_indices=True, _random_samples=s.double()),
        "f32": F.fractional_max_pool2d(x.float(), 2, output_size=(8, 4), return_indices=True, _random_samples=s),
        "more_rows_than_batch": F.fractional_max_pool2d(x[:1], 2, output_size=4, _random_samples=s.double()),
        "unbatched": F.fractional_max_pool2d(
            x[0], 2, output_size=(6, 5), return_indices=True, _random_samples=s[:1].double()
        ),
        "non_contiguous_samples": F.fractional_max_pool2d(
            x,
            2,
            output_size=5,
            return_indices=True,
            _random_samples=s.double().transpose(0, 1).contiguous().transpose(0, 1),
        ),
        "3d": F.fractional_max_pool3d(v, (2, 3, 2), output_size=(5, 3, 4), return_indices=True, _random_samples=s3),
        "odd_samples": F.fractional_max_pool2d(
            _signal((3, 1, 8, 8), fg.float64), 2, output_size=5, return_indices=True, _random_samples=odd
        ),
    }


def _non_contiguous():
    x = _signal((2, 3, 9, 10), fg.float64).transpose(-1, -2)
    s = fg.tensor([[[0.2, 0.7]] * 3, [[0.4, 0.9]] * 3], dtype=fg.float64)
    v = _signal((2, 7, 6, 5, 2))[..., 0].permute(0, 3, 1, 2).unsqueeze(1).expand(2, 2, 5, 7, 6)
    return {
        "transposed": F.fractional_max_pool2d(x, 2, output_size=(6, 4), return_indices=True, _random_samples=s),
        "sliced": F.fractional_max_pool2d(
            x[:, :, ::2], (2, 3), output_size=(3, 3), return_indices=True, _random_samples=s
        ),
        "expanded_3d": _seeded(lambda: F.fractional_max_pool3d(v, 2, output_size=(3, 4, 3), return_indices=True), 30),
    }


def _edges():
    nan_plane = fg.tensor([[[1.0, NAN, 3.0, NAN], [0.0, 5.0, 2.0, 1.0], [4.0, 4.0, NAN, 4.0]]])
    s = fg.tensor([[[0.5, 0.5]]])
    return {
        "nan": F.fractional_max_pool2d(nan_plane, 2, output_size=(2, 3), return_indices=True, _random_samples=s),
        "minus_inf": F.fractional_max_pool2d(
            fg.full((1, 1, 4, 4), -INF), 2, output_size=2, return_indices=True, _random_samples=s
        ),
        "inf": F.fractional_max_pool2d(
            fg.tensor([[[[1.0, INF], [INF, -INF]]]]), 1, output_size=2, return_indices=True, _random_samples=s
        ),
        "ties": F.fractional_max_pool2d(fg.ones(1, 1, 5, 5), 3, output_size=2, return_indices=True, _random_samples=s),
        "ties_3d": F.fractional_max_pool3d(
            fg.zeros(1, 1, 4, 4, 4), 2, output_size=2, return_indices=True, _random_samples=fg.full((1, 1, 3), 0.5)
        ),
    }


def _gradients():
    x = _signal((2, 2, 7, 6), fg.float64)
    s = fg.tensor([[[0.2, 0.6], [0.8, 0.1]], [[0.5, 0.5], [0.05, 0.95]]], dtype=fg.float64)
    v = _signal((1, 2, 5, 6, 5), fg.float64)
    s3 = fg.tensor([[[0.3, 0.6, 0.9], [0.1, 0.2, 0.7]]], dtype=fg.float64)

    def double_backward_name():
        leaf = x.clone().requires_grad_(True)
        y = F.fractional_max_pool2d(leaf, 3, output_size=4, _random_samples=s)
        (g,) = fg.autograd.grad(y.sum(), leaf, create_graph=True)
        return g.grad_fn.name()

    def double_backward_name_3d():
        leaf = v.clone().requires_grad_(True)
        y = F.fractional_max_pool3d(leaf, 2, output_size=2, _random_samples=s3)
        (g,) = fg.autograd.grad((y * y).sum(), leaf, create_graph=True)
        (gg,) = fg.autograd.grad((g * g).sum(), leaf)
        return [g.grad_fn.name(), g, gg]

    return {
        # windows of 3 at steps below 3 overlap: an element that is two windows' max gets both gradients
        "2d": _grads(lambda t: F.fractional_max_pool2d(t, 3, output_size=(4, 3), _random_samples=s), x),
        "2d_f32": _grads(lambda t: F.fractional_max_pool2d(t, 2, output_size=5, _random_samples=s.float()), x.float()),
        "3d": _grads(lambda t: F.fractional_max_pool3d(t, 2, output_size=(3, 4, 3), _random_samples=s3), v),
        "seeded": _seeded(
            lambda: tuple(_grads(lambda t: F.fractional_max_pool2d(t, 2, output_ratio=(0.6, 0.6)), x.float())), 40
        ),
        "double_backward_name": double_backward_name(),
        "double_backward_name_3d": double_backward_name_3d(),
    }


def _modules():
    x = _signal((2, 3, 9, 9))
    v = _signal((1, 2, 6, 6, 6), fg.float64)
    samples = fg.tensor([[[0.25, 0.75]] * 3] * 2)
    with_samples = nn.FractionalMaxPool2d(2, output_size=4, return_indices=True, _random_samples=samples)
    m3 = nn.FractionalMaxPool3d((2, 1, 2), output_ratio=0.5)
    return {
        "reprs": [
            repr(nn.FractionalMaxPool2d(3, output_ratio=0.5)),
            repr(nn.FractionalMaxPool2d((2, 3), output_size=(4, 5), return_indices=True)),
            repr(nn.FractionalMaxPool3d(2, output_size=3)),
        ],
        "attributes_2d": [
            list(with_samples.kernel_size),
            list(with_samples.output_size),
            with_samples.output_ratio,
            with_samples.return_indices,
            [name for name, _ in with_samples.named_buffers()],
        ],
        "attributes_3d": [list(m3.kernel_size), m3.output_size, list(m3.output_ratio), m3.return_indices],
        "constants": list(nn.FractionalMaxPool3d.__constants__),
        "with_samples": list(with_samples(x)),
        "seeded_2d": _seeded(lambda: nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.6))(x), 50),
        "seeded_3d": _seeded(lambda: nn.FractionalMaxPool3d((2, 1, 2), output_ratio=0.5, return_indices=True)(v), 51),
        "neither": error(nn.FractionalMaxPool2d, 2),
        "both": error(nn.FractionalMaxPool2d, 2, output_size=3, output_ratio=0.5),
        "ratio_above_one": error(nn.FractionalMaxPool2d, 2, output_ratio=1.5),
        "ratio_zero": error(nn.FractionalMaxPool2d, 2, output_ratio=(0.5, 0)),
        "ratio_one": error(nn.FractionalMaxPool2d, 2, output_ratio=1.0),
        "neither_3d": error(nn.FractionalMaxPool3d, 2),
        "both_3d": error(nn.FractionalMaxPool3d, 2, output_size=3, output_ratio=0.5),
        "ratio_3d": error(nn.FractionalMaxPool3d, 2, output_ratio=(0.5, 0.5, 1.0)),
        "kernel_zero_3d": error(nn.FractionalMaxPool3d, 0, output_size=3),
        "kernel_tuple_3d": error(nn.FractionalMaxPool3d, (2, 0, 2), output_size=3),
    }


def _errors_2d():
    x = _signal((2, 3, 8, 8))
    s = fg.rand(2, 3, 2)
    pool = F.fractional_max_pool2d
    return {
        "neither": error(pool, x, 2),
        "ratio_float": error(pool, x, 2, output_ratio=0.5),
        "ratio_three": error(pool, x, 2, output_ratio=(0.5, 0.5, 0.5)),
        "ratio_one_element": error(pool, x, 2, output_ratio=[0.5]),
        "ratio_negative": error(pool, x, 2, output_ratio=(-0.5, 0.5), _random_samples=s),
        "ratio_one": error(pool, x, 2, output_ratio=(1.0, 1.0), _random_samples=s),
        "ratio_above_one": error(pool, x, 2, output_ratio=(1.5, 0.5), _random_samples=s),
        "output_too_large": error(pool, x, 2, output_size=8, _random_samples=s),
        "output_width_too_large": error(pool, x, 2, output_size=(7, 8), _random_samples=s),
        "output_negative": error(pool, x, 2, output_size=-1, _random_samples=s),
        "output_negative_bad_samples": error(pool, x, 2, output_size=(-5, 3), _random_samples=fg.rand(5)),
        "kernel_zero": error(pool, x, 0, output_size=3, _random_samples=s),
        "kernel_negative": error(pool, x, (2, -1), output_size=3, _random_samples=s),
        "kernel_huge": error(pool, x, 2**62, output_size=3, _random_samples=s),
        "kernel_three": error(pool, x, (2, 2, 2), output_size=3, _random_samples=s),
        "kernel_one_element": error(pool, x, (2,), output_size=3, _random_samples=s),
        "output_three": error(pool, x, 2, output_size=(3, 3, 3), _random_samples=s),
        "kernel_float": error(pool, x, 2.0, output_size=3, _random_samples=s),
        "kernel_float_first": error(pool, x, (2.0, 2), output_size=3, _random_samples=s),
        "kernel_float_second": error(pool, x, (2, 2.5), output_size=3, _random_samples=s),
        "kernel_none": error(pool, x, None, output_size=3, _random_samples=s),
        "output_float": error(pool, x, 2, output_size=3.0, _random_samples=s),
        "output_none_element": error(pool, x, 2, output_size=(3, None), _random_samples=s),
        "input_2d": error(pool, x[0, 0], 2, output_size=3),
        "input_0d": error(pool, fg.tensor(1.0), 1, output_size=1),
        "input_0d_samples": error(pool, fg.tensor(1.0), 1, output_size=1, _random_samples=s),
        "input_2d_samples": error(pool, x[0, 0], 2, output_size=3, _random_samples=s),
        "input_5d": error(pool, x.unsqueeze(0), 2, output_size=3, _random_samples=s),
        "kernel_before_dims": error(pool, x.unsqueeze(0), 0, output_size=3, _random_samples=s),
        "empty_channels": error(pool, x[:, :0], 2, output_size=3, _random_samples=s),
        "empty_channels_unbatched": pool(x[0, :0], 2, output_size=3, _random_samples=s[:, :0]),
        "samples_dtype": error(pool, x, 2, output_size=3, _random_samples=s.double()),
        "samples_2d": error(pool, x, 2, output_size=3, _random_samples=s[0]),
        "samples_batch": error(pool, x, 2, output_size=3, _random_samples=s[:1]),
        "samples_channels": error(pool, x, 2, output_size=3, _random_samples=s[:, :2]),
        "samples_last": error(pool, x, 2, output_size=3, _random_samples=fg.rand(2, 3, 3)),
        "samples_after_size": error(pool, x, 2, output_size=30, _random_samples=fg.rand(5)),
        "samples_list": error(pool, x, 2, output_size=3, _random_samples=[[[0.5, 0.5]] * 3] * 2),
        "samples_require_grad": error(pool, x, 2, output_size=3, _random_samples=s.clone().requires_grad_(True)),
        "int_input": error(pool, x.long(), 2, output_size=3, _random_samples=s.long()),
        "bool_input": error(pool, x > 0, 2, output_size=3, _random_samples=s > 0),
        "int_input_float_samples": error(pool, x.long(), 2, output_size=3, _random_samples=s),
    }


def _errors_3d():
    x = _signal((2, 3, 6, 6, 6))
    s = fg.rand(2, 3, 3)
    pool = F.fractional_max_pool3d
    return {
        "neither": error(pool, x, 2),
        "ratio_two": error(pool, x, 2, output_ratio=(0.5, 0.5)),
        "ratio_four": pool(x, 2, output_ratio=(0.5, 0.5, 0.5, 0.9), _random_samples=s).shape,
        "output_at_limit": error(pool, x, 2, output_size=5, _random_samples=s),
        "output_time": error(pool, x, 2, output_size=(5, 4, 4), _random_samples=s),
        "output_height": error(pool, x, 2, output_size=(4, 5, 4), _random_samples=s),
        "output_width": error(pool, x, 2, output_size=(4, 4, 5), _random_samples=s),
        "output_height_width": error(pool, x, 2, output_size=(4, 5, 5), _random_samples=s),
        "zero_output_whole": pool(x, 6, output_size=0, _random_samples=s).shape,
        "kernel_zero": error(pool, x, (2, -1, 2), output_size=3, _random_samples=s),
        "kernel_two": error(pool, x, (2, 2), output_size=3, _random_samples=s),
        "output_two": error(pool, x, 2, output_size=(3, 3), _random_samples=s),
        "input_3d": error(pool, x[0, 0], 2, output_size=3),
        "input_6d": error(pool, x.unsqueeze(0), 2, output_size=3, _random_samples=s),
        "empty_channels": error(pool, x[:, :0], 2, output_size=3, _random_samples=s),
        "samples_dtype": error(pool, x, 2, output_size=3, _random_samples=s.double()),
        "samples_last": error(pool, x, 2, output_size=3, _random_samples=fg.rand(2, 3, 2)),
        "samples_batch": error(pool, x, 2, output_size=3, _random_samples=fg.rand(1, 3, 3)),
        "samples_channels": error(pool, x, 2, output_size=3, _random_samples=fg.rand(2, 4, 3)),
        "int_input": error(pool, x.long(), 2, output_size=3, _random_samples=s.long()),
    }


CASES = {
    "seeded_2d": _seeded_2d,
    "seeded_3d": _seeded_3d,
    "explicit_samples": _explicit_samples,
    "non_contiguous": _non_contiguous,
    "edges": _edges,
    "gradients": _gradients,
    "modules": _modules,
    "errors_2d": _errors_2d,
    "errors_3d": _errors_3d,
}
