"""lp_pool1d/2d, LPPool1d/2d, local_response_norm and LocalResponseNorm: edges, errors, grad_fn names and reprs
against PyTorch (tests/golden/lp_pool.json; cases in tests/cases_lp_pool.py), values against numpy, gradients
(and gradients of gradients) against finite differences in float64."""

import math

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from cases_lp_pool import CASES
from helpers import first_gradient, gradcheck
from recorded import check, expected

EXPECTED = expected("lp_pool", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])


def _windows(x, k, s):
    """(..., out, k) sliding windows over the last dim."""
    out = (x.shape[-1] - k) // s + 1
    return np.stack([x[..., i * s : i * s + k] for i in range(out)], axis=-2)


@pytest.mark.parametrize("p", [1, 2, 3.5])
def test_lp_pool1d_against_numpy(rng, p):
    x = rng.uniform(0.1, 2.0, (2, 3, 10))
    got = F.lp_pool1d(fg.tensor(x), p, 3, 2).numpy()
    np.testing.assert_allclose(got, (_windows(x, 3, 2) ** p).sum(-1) ** (1 / p), rtol=1e-12)


def test_lp_pool2d_against_numpy(rng):
    x = rng.uniform(0.1, 2.0, (2, 4, 6))
    got = F.lp_pool2d(fg.tensor(x), 2, (2, 3)).numpy()
    blocks = x.reshape(2, 2, 2, 2, 3).transpose(0, 1, 3, 2, 4).reshape(2, 2, 2, 6)
    np.testing.assert_allclose(got, np.sqrt((blocks**2).sum(-1)), rtol=1e-12)


@pytest.mark.parametrize("shape", [(2, 6, 3), (2, 6, 3, 2), (1, 5, 2, 2, 2)])
@pytest.mark.parametrize("size", [1, 2, 3])
def test_local_response_norm_against_numpy(rng, shape, size):
    x = rng.standard_normal(shape)
    alpha, beta, k = 0.3, 0.75, 1.5
    sq = np.pad(x**2, [(0, 0), (size // 2, (size - 1) // 2)] + [(0, 0)] * (len(shape) - 2))
    mean = np.stack([sq[:, c : c + size].sum(1) / size for c in range(shape[1])], axis=1)
    got = F.local_response_norm(fg.tensor(x), size, alpha, beta, k).numpy()
    np.testing.assert_allclose(got, x / (k + alpha * mean) ** beta, rtol=1e-12)


DIFFERENTIABLE = [
    pytest.param(lambda t: F.lp_pool1d(t, 2, 3, 1), (2, 3, 7), id="lp_pool1d(p=2)"),
    pytest.param(lambda t: F.lp_pool1d(t, 3, 2, ceil_mode=True), (2, 7), id="lp_pool1d(p=3,ceil)"),
    pytest.param(lambda t: F.lp_pool2d(t, 1.5, (2, 3), 1), (1, 2, 4, 5), id="lp_pool2d(p=1.5)"),
    pytest.param(lambda t: F.lp_pool2d(t, math.inf, 2), (1, 2, 4, 4), id="lp_pool2d(p=inf)"),
    pytest.param(lambda t: F.local_response_norm(t, 3, 0.5, 0.75, 1.0), (2, 5, 3), id="lrn3d"),
    pytest.param(lambda t: F.local_response_norm(t, 2, 0.2, 1.5, 2.0), (2, 4, 2, 3), id="lrn4d"),
]


def _away_from_zero(rng, shape):
    """Inputs whose powers and windows stay away from the non-differentiable points at 0 (and from ties)."""
    return rng.uniform(0.5, 2.0, shape) + np.arange(math.prod(shape)).reshape(shape) * 1e-3


@pytest.mark.parametrize("f, shape", DIFFERENTIABLE)
def test_gradcheck(rng, f, shape):
    gradcheck(f, [_away_from_zero(rng, shape)])


@pytest.mark.parametrize("f, shape", DIFFERENTIABLE)
def test_gradient_of_gradient(rng, f, shape):
    gradcheck(first_gradient(f), [_away_from_zero(rng, shape)])
