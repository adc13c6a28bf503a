"""`nn.functional.interpolate` and `nn.Upsample*` against torch (tests/interpolate_cases.py, recorded by
tests/golden/record_interpolate.py): every mode over sizes and scale factors (up and down, non-integer,
recompute_scale_factor, align_corners), their gradients and grad_fn names, float32 and 16-bit floats, NaN and
infinity, uint8 nearest, the modules' reprs and torch's errors. Gradients (and the gradient's own gradient)
also against float64 finite differences."""

import ferrograd as fg
import ferrograd.nn.functional as F
import interpolate_cases
import numpy as np
import pytest
from helpers import gradcheck
from recorded import check, expected

RECORDED = expected("interpolate", interpolate_cases.CASES)
# torch keeps the cubic weights in the 16-bit type; ferrograd computes 16-bit inputs in float32
TOL = {"float16-bicubic": (1e-2, 4e-3), "bfloat16-bicubic": (4e-2, 3e-2)}


@pytest.mark.parametrize("name", sorted(interpolate_cases.CASES))
def test_against_torch(name):
    check(name, interpolate_cases.CASES[name], RECORDED[name], TOL.get(name))


MODES = [
    ((2, 3, 5), {"size": 8, "mode": "nearest"}),
    ((2, 3, 7), {"size": 3, "mode": "nearest"}),
    ((2, 3, 5), {"scale_factor": 1.6, "mode": "nearest-exact"}),
    ((2, 3, 5), {"scale_factor": 1.6, "mode": "linear"}),
    ((2, 3, 7), {"size": 4, "mode": "linear", "align_corners": True}),
    ((1, 2, 4, 5), {"size": (6, 3), "mode": "nearest"}),
    ((1, 2, 4, 5), {"scale_factor": (1.5, 0.7), "mode": "nearest-exact"}),
    ((1, 2, 4, 5), {"size": (7, 3), "mode": "bilinear"}),
    ((1, 2, 4, 5), {"scale_factor": 1.7, "mode": "bilinear", "align_corners": True}),
    ((1, 2, 4, 5), {"size": (6, 8), "mode": "bicubic"}),
    ((1, 2, 5, 4), {"size": (3, 7), "mode": "bicubic", "align_corners": True}),
    ((1, 2, 5, 4), {"size": (3, 2), "mode": "area"}),
    ((1, 1, 3, 2, 4), {"size": (2, 3, 5), "mode": "trilinear"}),
    ((1, 1, 3, 2, 4), {"scale_factor": 1.5, "mode": "nearest"}),
    ((1, 1, 3, 2, 4), {"size": (2, 3, 3), "mode": "area"}),
]
IDS = [f"{len(s) - 2}d-{kw['mode']}-{i}" for i, (s, kw) in enumerate(MODES)]


@pytest.mark.parametrize("shape,kwargs", MODES, ids=IDS)
def test_gradcheck(shape, kwargs, rng):
    gradcheck(lambda x: F.interpolate(x, **kwargs), [rng.standard_normal(shape)])


@pytest.mark.parametrize("shape,kwargs", MODES, ids=IDS)
def test_gradient_of_gradient(shape, kwargs, rng):
    """The backward's node (Upsample...BackwardBackward0) differentiates too: its gradient is the forward."""
    x = fg.tensor(rng.standard_normal(shape), requires_grad=True)
    out_shape = tuple(F.interpolate(x.detach(), **kwargs).shape)

    def grad_of(v):
        (g,) = fg.autograd.grad(F.interpolate(x, **kwargs), x, v, create_graph=True)
        return g

    gradcheck(grad_of, [rng.standard_normal(out_shape)])


def test_any_layout_gives_the_contiguous_result(rng):
    x = fg.tensor(rng.standard_normal((2, 5, 3, 6)))
    strided = x.permute(0, 2, 1, 3)  # (2, 3, 5, 6), channels not outermost in memory
    dense = strided.contiguous()
    for kwargs in [{"size": (7, 4), "mode": "bilinear"}, {"scale_factor": 2}, {"size": 4, "mode": "bicubic"}]:
        np.testing.assert_array_equal(F.interpolate(strided, **kwargs).numpy(), F.interpolate(dense, **kwargs).numpy())


def test_nearest_integer_scale_repeats_each_element(rng):
    x = rng.standard_normal((2, 3, 4, 5))
    out = F.interpolate(fg.tensor(x), scale_factor=(2, 3)).numpy()
    np.testing.assert_array_equal(out, x.repeat(2, axis=2).repeat(3, axis=3))


def test_bilinear_align_corners_keeps_corners_and_is_linear_along_a_ramp():
    ramp = fg.arange(4, dtype=fg.float64).reshape(1, 1, 1, 4).expand(1, 1, 3, 4)
    out = F.interpolate(ramp, size=(5, 7), mode="bilinear", align_corners=True).numpy()
    np.testing.assert_allclose(out[0, 0], np.tile(np.linspace(0, 3, 7), (5, 1)), rtol=0, atol=1e-15)


def test_large_input_in_parallel_matches_small_blocks(rng):
    """A batch big enough to split over threads gives each plane what it gives alone (to rounding: torch's
    vectorised loops may round a lone plane differently)."""
    x = fg.tensor(rng.standard_normal((4, 16, 24, 20)).astype(np.float32))
    whole = F.interpolate(x, scale_factor=2, mode="bilinear").numpy()
    for n in range(4):
        part = F.interpolate(x[n : n + 1, 3:4], scale_factor=2, mode="bilinear").numpy()
        np.testing.assert_allclose(whole[n : n + 1, 3:4], part, rtol=1e-6, atol=1e-6)


def test_grad_fn_saved_sizes(rng):
    x = fg.tensor(rng.standard_normal((1, 2, 3, 4)), requires_grad=True)
    out = F.interpolate(x, size=(5, 6), mode="bilinear")
    assert out.grad_fn.name() == "UpsampleBilinear2DBackward0"
    assert tuple(out.grad_fn._saved_self_sym_sizes) == (1, 2, 3, 4)
    assert tuple(out.grad_fn._saved_output_size) == (5, 6)


@pytest.mark.parametrize("size", [10**30, (2**63, 2), (2, -(2**63) - 1)])
def test_size_beyond_int64_is_a_type_error(size):
    with pytest.raises(TypeError, match="Overflow when unpacking long long"):
        F.interpolate(fg.ones(1, 1, 2, 2), size=size)
