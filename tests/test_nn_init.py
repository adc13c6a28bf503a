"""nn.init: each initialiser's law (bounds and moments on large draws with fixed seeds, tolerances of many
standard errors so nothing flakes), fan rules for linear and conv shapes, orthogonality, sparsity, the
`generator=` argument, and that the tensors stay leaves. Deterministic parts and error messages are in the
recorded case `init_deterministic` (tests/test_nn_module.py)."""

import math
import warnings

import ferrograd as fg
import ferrograd.nn as nn
import numpy as np
import pytest
from helpers import to_numpy


@pytest.fixture(autouse=True)
def _seed():
    fg.manual_seed(0)


def _moments(t):
    v = to_numpy(t).astype(np.float64).ravel()
    return v, v.mean(), v.std()


def _assert_normal(t, mean, std):
    v, m, s = _moments(t)
    n = v.size
    assert abs(m - mean) < 6 * std / math.sqrt(n)
    assert abs(s / std - 1) < 6 * math.sqrt(0.5 / n)


def _assert_uniform(t, a, b):
    v, m, s = _moments(t)
    n = v.size
    sd = (b - a) / math.sqrt(12)
    assert v.min() >= a and v.max() <= b
    assert abs(m - (a + b) / 2) < 6 * sd / math.sqrt(n)
    assert abs(s / sd - 1) < 6 * math.sqrt(0.2 / n)


def test_uniform_and_normal():
    _assert_uniform(nn.init.uniform_(fg.zeros(100000), -2.0, 3.0), -2.0, 3.0)
    _assert_uniform(nn.init.uniform_(fg.zeros(100000)), 0.0, 1.0)
    _assert_normal(nn.init.normal_(fg.zeros(100000), 1.5, 0.3), 1.5, 0.3)
    _assert_normal(nn.init.normal_(fg.zeros(300, 300, dtype=fg.float64)), 0.0, 1.0)


@pytest.mark.parametrize("shape", [(400, 250), (64, 32, 3, 3), (50, 40, 7)])
def test_xavier(shape):
    receptive = math.prod(shape[2:])
    fan_in, fan_out = shape[1] * receptive, shape[0] * receptive
    std = 0.7 * math.sqrt(2.0 / (fan_in + fan_out))
    _assert_uniform(nn.init.xavier_uniform_(fg.zeros(*shape), gain=0.7), -std * math.sqrt(3), std * math.sqrt(3))
    _assert_normal(nn.init.xavier_normal_(fg.zeros(*shape), gain=0.7), 0.0, std)


@pytest.mark.parametrize(
    "shape,mode,nonlinearity,a",
    [
        ((300, 500), "fan_in", "leaky_relu", 0),
        ((300, 500), "fan_out", "relu", 0),
        ((64, 16, 5, 5), "fan_in", "leaky_relu", math.sqrt(5)),
        ((64, 16, 5, 5), "fan_out", "tanh", 0),
        ((200, 300), "fan_in", "leaky_relu", 0.2),
        ((200, 300), "FAN_IN", "selu", 0),
    ],
)
def test_kaiming(shape, mode, nonlinearity, a):
    receptive = math.prod(shape[2:])
    fan = (shape[1] if mode.lower() == "fan_in" else shape[0]) * receptive
    std = nn.init.calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3) * std
    _assert_uniform(nn.init.kaiming_uniform_(fg.zeros(*shape), a, mode, nonlinearity), -bound, bound)
    _assert_normal(nn.init.kaiming_normal_(fg.zeros(*shape), a, mode, nonlinearity), 0.0, std)


def _truncated_moments(mean, std, a, b):
    alpha, beta = (a - mean) / std, (b - mean) / std
    phi = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
    cdf = lambda x: (1 + math.erf(x / math.sqrt(2))) / 2
    z = cdf(beta) - cdf(alpha)
    m = mean + std * (phi(alpha) - phi(beta)) / z
    var = std**2 * (1 + (alpha * phi(alpha) - beta * phi(beta)) / z - ((phi(alpha) - phi(beta)) / z) ** 2)
    return m, math.sqrt(var)


@pytest.mark.parametrize(
    "mean,std,a,b", [(0.0, 1.0, -2.0, 2.0), (0.0, 1.0, -0.1, 0.1), (0.5, 2.0, 0.0, 1.0), (0.0, 1.0, 1.0, 3.0)]
)
def test_trunc_normal(mean, std, a, b):
    t = nn.init.trunc_normal_(fg.zeros(200000), mean, std, a, b)
    v, m, s = _moments(t)
    assert v.min() >= a and v.max() <= b
    em, es = _truncated_moments(mean, std, a, b)
    assert abs(m - em) < 6 * es / math.sqrt(v.size)
    assert abs(s / es - 1) < 0.02


def test_trunc_normal_warns_when_the_mean_is_far():
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        t = nn.init.trunc_normal_(fg.zeros(1000), mean=10.0, std=1.0, a=-1.0, b=1.0)
    assert float(t.min()) >= -1.0 and float(t.max()) <= 1.0


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5), (8, 2, 3, 3), (3, 20)])
def test_orthogonal(shape):
    t = nn.init.orthogonal_(fg.zeros(*shape), gain=2.0)
    q = to_numpy(t).reshape(shape[0], -1).astype(np.float64) / 2.0
    rows, cols = q.shape
    gram = q.T @ q if rows >= cols else q @ q.T
    assert np.allclose(gram, np.eye(min(rows, cols)), atol=1e-5)


def test_orthogonal_is_uniformly_oriented():
    # Haar measure: each entry of a random orthogonal n×n matrix has mean 0 and variance 1/n
    entries = np.stack([to_numpy(nn.init.orthogonal_(fg.zeros(4, 4))) for _ in range(2000)])
    assert np.abs(entries.mean(0)).max() < 6 * 0.5 / math.sqrt(2000)
    assert np.abs(entries.var(0) - 0.25).max() < 0.05


def test_sparse():
    t = nn.init.sparse_(fg.zeros(200, 300), sparsity=0.33, std=0.5)
    v = to_numpy(t)
    zeros_per_column = (v == 0).sum(0)
    assert (zeros_per_column == math.ceil(0.33 * 200)).all()
    nonzero = v[v != 0]
    assert abs(nonzero.std() / 0.5 - 1) < 0.02


def test_generator_argument_reproduces():
    g1, g2 = fg.Generator().manual_seed(7), fg.Generator().manual_seed(7)
    a = nn.init.kaiming_normal_(fg.zeros(3, 4), generator=g1)
    b = nn.init.kaiming_normal_(fg.zeros(3, 4), generator=g2)
    assert a.equal(b)
    c = nn.init.orthogonal_(fg.zeros(3, 4), generator=fg.Generator().manual_seed(7))
    d = nn.init.orthogonal_(fg.zeros(3, 4), generator=fg.Generator().manual_seed(7))
    assert c.equal(d)


def test_initialisers_run_without_grad_on_parameters():
    p = nn.Parameter(fg.zeros(3, 4))
    for init in (
        nn.init.uniform_,
        nn.init.normal_,
        nn.init.xavier_uniform_,
        nn.init.kaiming_normal_,
        nn.init.orthogonal_,
        nn.init.trunc_normal_,
        nn.init.zeros_,
        nn.init.ones_,
        nn.init.eye_,
    ):
        assert init(p) is p
        assert p.is_leaf and p.requires_grad and p.grad_fn is None


def test_zero_element_kaiming_warns():
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        nn.init.kaiming_uniform_(fg.zeros(0, 3))


def test_deprecated_names_warn():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nn.init.normal(fg.zeros(2))
    assert any("nn.init.normal" in str(w.message) and w.category is FutureWarning for w in caught)
