"""The float32 gradient of GELU, both forms, through `backward`: within float32 accuracy of the float64 formula
(Φ(x) + x·φ(x) for the exact form), contiguous (ferrograd's own AVX-512 kernel where the CPU has it) and
transposed, for lengths around the vector width (16 lanes) and above the threading threshold; NaN at ±inf and
NaN, g/2 at ±0, as PyTorch."""

import math

import ferrograd as fg
import numpy as np
import pytest

F = fg.nn.functional
SQRT_2_OVER_PI = math.sqrt(2 / math.pi)


def exact_grad(v):
    phi = 0.5 * (1 + np.vectorize(math.erf)(v / math.sqrt(2)))
    with np.errstate(invalid="ignore"):
        return phi + v * np.exp(-0.5 * v * v) / math.sqrt(2 * math.pi)


def tanh_grad(v):
    with np.errstate(invalid="ignore", over="ignore"):
        t = np.tanh(SQRT_2_OVER_PI * (v + 0.044715 * v**3))
        return 0.5 * (1 + t) + 0.5 * v * (1 - t * t) * SQRT_2_OVER_PI * (1 + 3 * 0.044715 * v * v)


def exact_cond(v):
    return np.ones_like(v)


def tanh_cond(v):
    # PyTorch's formula, 0.5·(1 + t) + 0.5·x·(1 - t²)·..., loses digits where t = tanh(...) nears ±1
    return 1 + np.abs(v) * (1 + 0.134 * v * v)


FORMS = {"none": (exact_grad, exact_cond), "tanh": (tanh_grad, tanh_cond)}


def inputs(n, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 3).astype(np.float32)
    x[: min(n, 40)] = np.linspace(-12, 12, 40, dtype=np.float32)[: min(n, 40)]
    g = rng.uniform(-2, 2, n).astype(np.float32)
    return x, g


def check(grad, x, g, form):
    want_fn, cond = form
    x64 = x.astype(np.float64)
    want = g.astype(np.float64) * want_fn(x64)
    got = grad.astype(np.float64)
    # GELU' within 5e-7 absolute (times the formula's condition), plus the rounding of g·GELU'
    with np.errstate(invalid="ignore"):
        tol = 5e-7 * np.abs(g) * cond(x64) + 2.4e-7 * np.abs(want)
    bad = np.abs(got - want) > tol
    assert not bad.any(), (x[bad][:5], got[bad][:5], want[bad][:5])


@pytest.mark.parametrize("approximate", FORMS)
@pytest.mark.parametrize("n", [1, 15, 16, 17, 33, 1000, 200_003])
def test_contiguous_gradient_within_float32_accuracy(approximate, n):
    x, g = inputs(n, n)
    t = fg.tensor(x, requires_grad=True)
    F.gelu(t, approximate=approximate).backward(fg.tensor(g))
    assert t.grad.dtype == fg.float32
    check(t.grad.numpy(), x, g, FORMS[approximate])


@pytest.mark.parametrize("approximate", FORMS)
def test_transposed_gradient_within_float32_accuracy(approximate):
    x, g = inputs(60 * 70, 3)
    t = fg.tensor(x.reshape(60, 70), requires_grad=True)
    F.gelu(t.t(), approximate=approximate).backward(fg.tensor(g.reshape(70, 60)))
    check(t.grad.numpy().T.reshape(-1), x.reshape(60, 70).T.reshape(-1), g, FORMS[approximate])


@pytest.mark.parametrize("approximate", FORMS)
def test_gradient_at_specials(approximate):
    t = fg.tensor([0.0, -0.0, math.inf, -math.inf, math.nan] * 4, requires_grad=True)
    F.gelu(t, approximate=approximate).backward(fg.full((20,), 3.0))
    got = t.grad.numpy().reshape(4, 5)
    assert (got[:, :2] == 1.5).all()
    assert np.isnan(got[:, 2:]).all()
