"""Cases for `grid_sample`/`grid_sampler*` and `affine_grid`/`affine_grid_generator` recorded from torch
(tests/golden/record_grid_sample.py) and checked by tests/test_grid_sample.py: every mode and padding with and
without align_corners on 4-D and 5-D inputs, NaN/inf and huge coordinates, gradients w.r.t. input and grid
(and θ), grad_fn names and saved fields, empty batches, non-contiguous inputs, half inputs, the warnings and
torch's errors."""

import math
import warnings

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
from recorded import error

NAN = math.nan
INF = math.inf
MODES = ["bilinear", "nearest", "bicubic"]
PADDINGS = ["zeros", "border", "reflection"]


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _warned(fn):
    """The messages of the warnings `fn()` gives."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught]


def _input(shape, seed, dtype=fg.float64):
    return fg.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=dtype)


def _grid(shape, seed, dtype=fg.float64, spread=1.2):
    return fg.tensor(np.random.default_rng(seed).uniform(-spread, spread, shape), dtype=dtype)


def _grads(fn, *tensors):
    """`fn(*tensors)`'s grad_fn name and the gradients of its sum weighted by 1, 2, 3, ..."""
    leaves = [t.detach().clone().requires_grad_(True) for t in tensors]
    y = fn(*leaves)
    w = fg.arange(1, y.numel() + 1, dtype=y.dtype).reshape(y.shape)
    return [y.grad_fn.name(), *fg.autograd.grad((y * w).sum(), leaves, allow_unused=True)]


def _modes(dims, align_corners):
    def case():
        if dims == 2:
            x, g = _input((2, 3, 4, 5), 0), _grid((2, 3, 2, 2), 1)
        else:
            x, g = _input((2, 2, 3, 4, 3), 2), _grid((2, 2, 2, 1, 3), 3)
        out = {}
        for m in MODES:
            for p in PADDINGS:
                fn = lambda x, g: F.grid_sample(x, g, mode=m, padding_mode=p, align_corners=align_corners)  # noqa: B023
                out[f"{m}_{p}"] = _grads(fn, x, g)
        return out

    return case


def _float32():
    x, g = _input((1, 2, 5, 6), 4, fg.float32), _grid((1, 4, 3, 2), 5, fg.float32)
    x3, g3 = _input((1, 1, 3, 4, 5), 6, fg.float32), _grid((1, 2, 3, 2, 3), 7, fg.float32)
    out = {}
    for m in MODES:
        for p in PADDINGS:
            out[f"2d_{m}_{p}"] = F.grid_sample(x, g, mode=m, padding_mode=p, align_corners=False)
            out[f"3d_{m}_{p}"] = F.grid_sample(x3, g3, mode=m, padding_mode=p, align_corners=True)
    return out


def _nonfinite(dims):
    def case():
        pts = [[NAN, 0.0, 0.1], [INF, 0.0, 0.2], [-INF, 0.5, 0.0], [0.2, NAN, 0.1], [1e30, 0.0, 0.0], [0.3, -0.2, INF]]
        pts += [[-1e30, 0.4, -0.3], [0.1, 0.2, NAN], [3e9, -3e9, 0.0]]
        if dims == 2:
            x = fg.arange(1.0, 7.0).reshape(1, 1, 2, 3)
            g = fg.tensor([[[p[:2] for p in pts]]])
        else:
            x = fg.arange(1.0, 13.0).reshape(1, 1, 2, 2, 3)
            g = fg.tensor([[[[p for p in pts]]]])
        out = {}
        for m in MODES:
            for p in PADDINGS:
                for ac in (False, True):
                    out[f"{m}_{p}_{ac}"] = F.grid_sample(x, g, mode=m, padding_mode=p, align_corners=ac)
        return out

    return case


def _edges():
    """Points on the pixel centers, the edges and the reflection turning points."""
    x = _input((1, 2, 3, 4), 8)
    line = [-1.5, -1.0, -0.75, -0.5, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 2.0, 3.0, -3.5]
    g = fg.tensor([[[[a, b] for a, b in zip(line, line[::-1])]]], dtype=fg.float64)
    out = {}
    for m in MODES:
        for p in PADDINGS:
            for ac in (False, True):
                out[f"{m}_{p}_{ac}"] = F.grid_sample(x, g, mode=m, padding_mode=p, align_corners=ac)
    # a dimension of one position (reflection's span is empty with align_corners)
    x1 = _input((1, 1, 1, 3), 9)
    g1 = fg.tensor([[[[0.3, 0.7], [-0.9, -1.2], [1.5, 0.0]]]], dtype=fg.float64)
    for p in PADDINGS:
        for ac in (False, True):
            out[f"unit_{p}_{ac}"] = F.grid_sample(x1, g1, padding_mode=p, align_corners=ac)
    return out


def _saved_fields():
    x, g = _input((1, 2, 3, 3), 10).requires_grad_(), _grid((1, 2, 2, 2), 11).requires_grad_()
    y = F.grid_sample(x, g, mode="bicubic", padding_mode="reflection", align_corners=True)
    fn = y.grad_fn
    x3, g3 = _input((1, 1, 2, 2, 2), 12).requires_grad_(), _grid((1, 1, 1, 2, 3), 13).requires_grad_()
    fn3 = F.grid_sample(x3, g3, mode="nearest", padding_mode="border", align_corners=False).grad_fn
    theta = fg.eye(2, 3, dtype=fg.float64).unsqueeze(0).requires_grad_()
    fa = F.affine_grid(theta, [1, 3, 4, 5], align_corners=True).grad_fn
    return {
        "name": fn.name(),
        "interpolation_mode": fn._saved_interpolation_mode,
        "padding_mode": fn._saved_padding_mode,
        "align_corners": fn._saved_align_corners,
        "input": fn._saved_input,
        "grid": fn._saved_grid,
        "name3": fn3.name(),
        "fields3": [fn3._saved_interpolation_mode, fn3._saved_padding_mode, fn3._saved_align_corners],
        "affine_name": fa.name(),
        "affine_size": list(fa._saved_size),
        "affine_align_corners": fa._saved_align_corners,
    }


def _functions():
    x, g = _input((2, 1, 3, 4), 14), _grid((2, 2, 3, 2), 15)
    x3, g3 = _input((1, 2, 2, 3, 2), 16), _grid((1, 1, 2, 2, 3), 17)
    return {
        "grid_sampler": fg.grid_sampler(x, g, 2, 1, True),
        "grid_sampler_2d": fg.grid_sampler_2d(x, g, 0, 2, False),
        "grid_sampler_3d": fg.grid_sampler_3d(x3, g3, 1, 0, True),
        "grid_sampler_5d_bicubic": fg.grid_sampler(x3, g3, 2, 1, False),
        "names": [
            fg.grid_sampler_2d(x.requires_grad_(), g, 0, 0, False).grad_fn.name(),
            fg.grid_sampler_3d(x3.requires_grad_(), g3, 0, 0, False).grad_fn.name(),
        ],
    }


def _layouts():
    """Non-contiguous input and grid give the values of their contiguous copies."""
    base = _input((2, 5, 4, 3), 18)
    x = base.permute(0, 3, 2, 1)  # (2, 3, 4, 5) with no contiguous strides
    gbase = _grid((2, 3, 3, 4), 19)
    g = gbase.permute(0, 2, 3, 1)[..., 1:3]  # (2, 3, 4, 2) strided
    return {
        "strided_forward": F.grid_sample(x, g, mode="bicubic", padding_mode="reflection", align_corners=False),
        "strided": _grads(lambda x, g: F.grid_sample(x, g, align_corners=False), x, g),
        "contiguous": _grads(lambda x, g: F.grid_sample(x, g, align_corners=False), x.contiguous(), g.contiguous()),
        "expanded_grid": F.grid_sample(x, _grid((1, 2, 2, 2), 20).expand(2, 2, 2, 2), align_corners=True),
    }


def _empty():
    return {
        "batch": _grads(
            lambda x, g: F.grid_sample(x, g, align_corners=False), _input((0, 2, 3, 3), 0), _grid((0, 2, 2, 2), 0)
        ),
        "channels": F.grid_sample(_input((2, 0, 3, 3), 0), _grid((2, 2, 2, 2), 0), align_corners=False),
        "points": _grads(
            lambda x, g: F.grid_sample(x, g, align_corners=True), _input((1, 2, 3, 3), 0), _grid((1, 0, 2, 2), 0)
        ),
        "batch_3d": F.grid_sample(
            _input((0, 1, 2, 2, 2), 0), _grid((0, 1, 1, 1, 3), 0), mode="nearest", align_corners=False
        ),
        "affine_batch": fg.affine_grid_generator(fg.zeros(0, 2, 3), [0, 1, 2, 2], False),
    }


def _half():
    x, g = _input((1, 2, 3, 4), 21, fg.float32), _grid((1, 2, 3, 2), 22, fg.float32)
    return {
        "float16": F.grid_sample(x.half(), g.half(), align_corners=False),
        "bfloat16": F.grid_sample(x.bfloat16(), g.bfloat16(), mode="nearest", align_corners=True),
    }


def _errors():
    x, g = fg.zeros(2, 3, 4, 5), fg.zeros(2, 3, 3, 2)
    x3, g3 = fg.zeros(1, 1, 2, 2, 2), fg.zeros(1, 2, 2, 2, 3)
    gs = lambda *a, **k: _quiet(F.grid_sample, *a, **k)
    return {
        "batch": error(gs, x, g[:1]),
        "last_dim": error(gs, x, fg.zeros(2, 3, 3, 3)),
        "grid_3d": error(gs, x, fg.zeros(2, 3, 3)),
        "input_3d": error(gs, fg.zeros(2, 3, 4), fg.zeros(2, 3, 2)),
        "input_6d": error(fg.grid_sampler, fg.zeros(1, 1, 2, 2, 2, 2), fg.zeros(1, 2, 2, 2, 2, 4), 0, 0, False),
        "mode": error(gs, x, g, mode="linear"),
        "padding": error(gs, x, g, padding_mode="circular"),
        "dtypes": error(gs, x, g.double()),
        "long": error(gs, x.long(), g.long()),
        "empty_spatial": error(gs, fg.zeros(2, 3, 0, 5), g),
        "2d_of_5d": error(fg.grid_sampler_2d, x3, g3, 0, 0, False),
        "3d_of_4d": error(fg.grid_sampler_3d, x, g, 0, 0, False),
        "input_1d": error(fg.grid_sampler, fg.zeros(2), fg.zeros(2), 0, 0, False),
        "long_3d": error(fg.grid_sampler, x3.long(), g3.long(), 0, 0, False),
        "bool": error(fg.grid_sampler, x.bool(), g.bool(), 0, 0, False),
        "align_corners_int": error(fg.grid_sampler, x, g, 0, 0, 1),
        "grid_list": error(fg.grid_sampler, x, [[0.0]], 0, 0, False),
        "mode_float": error(fg.grid_sampler_2d, x, g, 0.0, 0, False),
    }


def _affine_errors():
    ag = lambda *a, **k: _quiet(F.affine_grid, *a, **k)
    return {
        "int_theta": error(ag, fg.zeros(1, 2, 3, dtype=fg.int64), (1, 1, 2, 2)),
        "theta_2d_shape": error(ag, fg.zeros(1, 3, 3), (1, 1, 2, 2)),
        "theta_3d_shape": error(ag, fg.zeros(1, 2, 3), (1, 1, 2, 2, 2)),
        "theta_rank": error(ag, fg.zeros(2, 3), (1, 1, 2, 2)),
        "size_3": error(ag, fg.zeros(1, 2, 3), (1, 1, 2)),
        "size_zero": error(ag, fg.zeros(1, 2, 3), (1, 1, 0, 2)),
        "size_list_zero": error(ag, fg.zeros(1, 2, 3), [1, 1, 0, 2]),
        "batch": error(ag, fg.zeros(2, 2, 3), (1, 1, 3, 2)),
        "generator_size": error(fg.affine_grid_generator, fg.zeros(1, 2, 3), (1, 1, 3), False),
        "generator_theta": error(fg.affine_grid_generator, fg.zeros(1, 3, 3), (1, 1, 3, 2), False),
        "generator_negative": error(fg.affine_grid_generator, fg.zeros(1, 2, 3), [1, 1, -2, 2], False),
        "generator_int_theta": fg.affine_grid_generator(fg.ones(1, 2, 3, dtype=fg.int64), [1, 1, 2, 2], False),
    }


def _warnings():
    x, g, theta = fg.zeros(1, 1, 2, 2), fg.zeros(1, 1, 1, 2), fg.eye(2, 3).unsqueeze(0)
    return {
        "grid_sample_default": _warned(lambda: F.grid_sample(x, g)),
        "grid_sample_given": _warned(lambda: F.grid_sample(x, g, align_corners=False)),
        "affine_grid_default": _warned(lambda: F.affine_grid(theta, [1, 1, 2, 2])),
        "affine_grid_unit": _warned(lambda: F.affine_grid(theta, [1, 1, 1, 2], align_corners=True)),
        "affine_grid_given": _warned(lambda: F.affine_grid(theta, [1, 1, 2, 2], align_corners=True)),
    }


def _affine(align_corners):
    def case():
        theta = fg.tensor(np.random.default_rng(23).standard_normal((2, 2, 3)))
        theta3 = fg.tensor(np.random.default_rng(24).standard_normal((2, 3, 4)))
        fn2 = lambda t: F.affine_grid(t, [2, 3, 4, 5], align_corners=align_corners)
        fn3 = lambda t: F.affine_grid(t, (2, 1, 2, 3, 4), align_corners=align_corners)
        return {
            "2d": _grads(fn2, theta),
            "3d": _grads(fn3, theta3),
            "float32": F.affine_grid(theta.float(), [2, 1, 7, 3], align_corners=align_corners),
            "unit": _quiet(F.affine_grid, theta, [2, 1, 1, 3], align_corners=align_corners),
            "generator": fg.affine_grid_generator(theta3.float(), [2, 1, 3, 1, 2], align_corners),
            "stn": _grads(
                lambda x, t: F.grid_sample(
                    x, F.affine_grid(t, [2, 3, 4, 5], align_corners=align_corners), align_corners=align_corners
                ),
                _input((2, 3, 4, 5), 25),
                theta,
            ),
        }

    return case


CASES = {
    "modes_2d": _modes(2, False),
    "modes_2d_align": _modes(2, True),
    "modes_3d": _modes(3, False),
    "modes_3d_align": _modes(3, True),
    "float32": _float32,
    "nonfinite_2d": _nonfinite(2),
    "nonfinite_3d": _nonfinite(3),
    "edges": _edges,
    "saved_fields": _saved_fields,
    "functions": _functions,
    "layouts": _layouts,
    "empty": _empty,
    "half": _half,
    "errors": _errors,
    "affine_errors": _affine_errors,
    "warnings": _warnings,
    "affine": _affine(False),
    "affine_align": _affine(True),
}
