"""The general vocabulary of issue 28 against PyTorch (tests/golden/misc_vocab.json; cases in
tests/cases_misc_vocab.py), values against numpy, gradients against finite differences in float64, and the
random fills' distributions against their moments and support (fixed seeds, loose bounds: the streams are not
torch's)."""

import math

import ferrograd as fg
import numpy as np
import pytest
from cases_misc_vocab import CASES
from helpers import gradcheck
from recorded import check, expected

EXPECTED = expected("misc_vocab", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])


# ---- values against numpy ----


@pytest.mark.parametrize("length", [2, 7, 16])
def test_windows_against_numpy(length):
    """numpy's symmetric windows; a periodic window is the symmetric one of length + 1 without its last point."""
    for name, reference in [
        ("hann_window", np.hanning),
        ("hamming_window", np.hamming),
        ("blackman_window", np.blackman),
        ("bartlett_window", np.bartlett),
    ]:
        fn = getattr(fg, name)
        np.testing.assert_allclose(fn(length, False, dtype=fg.float64).numpy(), reference(length), atol=1e-12)
        np.testing.assert_allclose(fn(length, dtype=fg.float64).numpy(), reference(length + 1)[:-1], atol=1e-12)
    np.testing.assert_allclose(
        fg.kaiser_window(length, False, 7.5, dtype=fg.float64).numpy(), np.kaiser(length, 7.5), rtol=1e-9
    )


def test_gradient_against_numpy(rng):
    f = rng.standard_normal((5, 6))
    coords = np.cumsum(rng.uniform(0.5, 2.0, 6))
    for edge_order in (1, 2):
        rows = np.arange(5) * 1.5
        got = fg.gradient(fg.tensor(f), spacing=[fg.tensor(rows), fg.tensor(coords)], edge_order=edge_order)
        want = np.gradient(f, rows, coords, edge_order=edge_order)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-10, atol=1e-12)
        got = fg.gradient(fg.tensor(f), spacing=[1.5, 0.25], edge_order=edge_order)
        want = np.gradient(f, 1.5, 0.25, edge_order=edge_order)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-10, atol=1e-12)


def test_histogram_against_numpy(rng):
    x = rng.standard_normal(500)
    weights = rng.uniform(0, 2, 500)
    hist, edges = fg.histogram(fg.tensor(x), 12, range=(-2.0, 2.5), weight=fg.tensor(weights), density=True)
    want_hist, want_edges = np.histogram(x, 12, range=(-2.0, 2.5), weights=weights, density=True)
    np.testing.assert_allclose(hist.numpy(), want_hist, rtol=1e-10)
    np.testing.assert_allclose(edges.numpy(), want_edges, rtol=1e-12)


def test_combinations_against_itertools():
    import itertools

    values = [3, 1, 4, 1, 5]
    for r in (1, 2, 3):
        for with_replacement, make in (
            (False, itertools.combinations),
            (True, itertools.combinations_with_replacement),
        ):
            got = fg.combinations(fg.tensor(values), r, with_replacement=with_replacement)
            assert got.tolist() == [list(c) for c in make(values, r)]


def test_unravel_index_against_numpy(rng):
    shape = (3, 4, 5)
    flat = rng.integers(0, 60, 20)
    got = fg.unravel_index(fg.tensor(flat), shape)
    for g, w in zip(got, np.unravel_index(flat, shape)):
        np.testing.assert_array_equal(g.numpy(), w)


def test_index_reduce_against_numpy(rng):
    x = rng.standard_normal((4, 3))
    source = rng.standard_normal((6, 3))
    index = np.array([0, 2, 0, 3, 2, 0])
    reducers = {"prod": np.multiply, "amax": np.maximum, "amin": np.minimum}
    for reduce, ufunc in reducers.items():
        want = x.copy()
        ufunc.at(want, index, source)
        got = fg.tensor(x).index_reduce(0, fg.tensor(index), fg.tensor(source), reduce)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    total, count = x.copy(), np.ones(4)
    np.add.at(total, index, source)
    np.add.at(count, index, 1)
    got = fg.tensor(x).index_reduce(0, fg.tensor(index), fg.tensor(source), "mean")
    np.testing.assert_allclose(got.numpy(), total / count[:, None], rtol=1e-12)


def test_put_against_numpy(rng):
    x = rng.standard_normal((3, 4))
    index = np.array([0, 11, -1, 5])
    values = rng.standard_normal(4)
    want = x.copy()
    np.put(want, index, values)
    got = fg.tensor(x).put(fg.tensor(index), fg.tensor(values))
    np.testing.assert_allclose(got.numpy(), want)


# ---- gradients ----

DIFFERENTIABLE = [
    pytest.param(lambda x: fg.gradient(x, spacing=0.5, edge_order=2)[0] * 1.5 + fg.gradient(x)[1], id="gradient"),
    pytest.param(lambda x: fg.gradient(x, spacing=[fg.tensor([0.0, 0.5, 2.0, 2.5])], dim=1)[0], id="gradient_coords"),
    pytest.param(lambda x: fg.combinations(x.reshape(-1)[:4], 2).prod(1), id="combinations"),
    pytest.param(lambda x: x.sum_to_size(1, 4) * x.sum_to_size(3, 1).sum(), id="sum_to_size"),
    pytest.param(lambda x: x.put(fg.tensor([0, 5, 0]), x[1, :3] * 2, accumulate=True), id="put_accumulate"),
    pytest.param(lambda x: x.index_reduce(0, fg.tensor([2, 0]), x[:2] ** 2, "mean"), id="index_reduce_mean"),
    pytest.param(lambda x: x.index_reduce(0, fg.tensor([2, 0]), x[:2] * 3, "prod"), id="index_reduce_prod"),
    pytest.param(lambda x: (x * 1).t_().unsqueeze_(0).squeeze_(0).transpose_(0, 1) * x, id="view_inplace"),
    # (cumprod_ saves its result: a write after it would fail backward's version check, as in torch)
    pytest.param(lambda x: (x * 1).cumsum_(0).cumprod_(1), id="cumsum_cumprod_"),
    pytest.param(lambda x: fg.chain_matmul(x, x.t(), x), id="chain_matmul"),
    pytest.param(lambda x: x.as_strided((3, 3), (1, 2), 2) * x.reshape(-1)[:3], id="as_strided"),
    pytest.param(lambda x: fg.channel_shuffle(x.reshape(1, 4, 3), 2), id="channel_shuffle"),
    pytest.param(lambda x: x.reshape(1, 3, 2, 2).contiguous(memory_format=fg.channels_last) ** 2, id="channels_last"),
]


def _quiet(f):
    import warnings

    def run(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # chain_matmul's and index_reduce's notices
            return f(*args)

    return run


@pytest.mark.parametrize("f", DIFFERENTIABLE)
def test_gradcheck(rng, f):
    gradcheck(_quiet(f), [rng.uniform(0.5, 2.0, (3, 4))])


@pytest.mark.parametrize("f", DIFFERENTIABLE)
def test_gradient_of_gradient(rng, f):
    f = _quiet(f)

    def first_gradient(x):
        leaf = x if x.requires_grad else x.detach().requires_grad_()
        (g,) = fg.autograd.grad((f(leaf) ** 2).sum(), leaf, create_graph=leaf is x)
        return g

    gradcheck(first_gradient, [rng.uniform(0.5, 2.0, (3, 4))])


# ---- random fills: distributions, not streams ----

DRAWS = 200_000


def _draws(fill, dtype=fg.float64):
    fg.manual_seed(1234)
    return fill(fg.zeros(DRAWS, dtype=dtype)).double().numpy()


def test_random_integers_are_uniform_on_their_range():
    values = _draws(lambda t: t.random_(-3, 5))
    assert set(np.unique(values)) == set(range(-3, 5))
    counts = np.bincount((values + 3).astype(int)) / DRAWS
    np.testing.assert_allclose(counts, 1 / 8, atol=0.01)
    bounded = _draws(lambda t: t.random_(7))
    assert bounded.min() == 0 and bounded.max() == 6
    small = _draws(lambda t: t.random_(), dtype=fg.int8)
    assert small.min() >= 0 and small.max() == 127
    floats = _draws(lambda t: t.random_(), dtype=fg.float32)
    assert floats.min() >= 0 and floats.max() <= 2**24 and floats.max() > 2**23
    assert np.all(floats == np.floor(floats))


def test_log_normal_moments():
    logs = np.log(_draws(lambda t: t.log_normal_(0.5, 0.75)))
    assert abs(logs.mean() - 0.5) < 0.01 and abs(logs.std() - 0.75) < 0.01


def test_geometric_support_and_mean():
    values = _draws(lambda t: t.geometric_(0.2))
    assert values.min() == 1 and np.all(values == np.floor(values))
    assert abs(values.mean() - 1 / 0.2) < 0.05
    assert abs((values == 1).mean() - 0.2) < 0.01


def test_cauchy_quantiles():
    values = _draws(lambda t: t.cauchy_(1.5, 2.0))
    q25, q50, q75 = np.quantile(values, [0.25, 0.5, 0.75])
    assert abs(q50 - 1.5) < 0.05
    assert abs((q75 - q25) / 2 - 2.0) < 0.05  # the half-interquartile range of a Cauchy is its scale


@pytest.mark.parametrize("rate", [0.3, 4.0, 9.5, 10.0, 37.5, 2500.0])
def test_poisson_moments(rate):
    """Both samplers (multiplication below rate 10, transformed rejection from it): integer counts whose mean
    and variance are the rate."""
    fg.manual_seed(7)
    values = fg.poisson(fg.full((DRAWS,), rate, dtype=fg.float64)).numpy()
    assert values.min() >= 0 and np.all(values == np.floor(values))
    tolerance = 5 * math.sqrt(rate / DRAWS)  # five standard errors of the mean
    assert abs(values.mean() - rate) < tolerance
    assert abs(values.var() / rate - 1) < 0.03


def test_poisson_mixed_rates_keep_their_places():
    fg.manual_seed(3)
    rates = fg.tensor([0.0, 50.0, 2.0, 400.0]).repeat(50_000)
    means = fg.poisson(rates).reshape(-1, 4).double().mean(0).tolist()
    assert means[0] == 0.0
    np.testing.assert_allclose(means[1:], [50.0, 2.0, 400.0], rtol=0.01)


@pytest.mark.parametrize("count, chance", [(20, 0.3), (20, 0.8), (40, 0.5), (1000, 0.3), (1000, 0.99), (10**6, 0.25)])
def test_binomial_moments(count, chance):
    """Both samplers (waiting times below a mean of 10, BTRS from it; p above 1/2 as n minus the draw at 1 - p):
    integer counts in [0, n] whose mean and variance are n p and n p (1 - p)."""
    fg.manual_seed(11)
    values = fg.binomial(fg.full((DRAWS,), float(count)), fg.full((DRAWS,), chance)).double().numpy()
    assert values.min() >= 0 and values.max() <= count and np.all(values == np.floor(values))
    mean, variance = count * chance, count * chance * (1 - chance)
    assert abs(values.mean() - mean) < 5 * math.sqrt(variance / DRAWS)
    assert abs(values.var() / variance - 1) < 0.03


def test_randint_like_range():
    fg.manual_seed(5)
    values = fg.randint_like(fg.zeros(10_000, dtype=fg.int32), 2, 6)
    assert values.dtype == fg.int32
    assert set(values.unique().tolist()) == {2, 3, 4, 5}


def test_random_fill_of_a_graph_tensor_gives_no_gradient_to_its_past():
    leaf = fg.ones(4, requires_grad=True)
    y = leaf * 3
    y.log_normal_()
    (g,) = fg.autograd.grad((y * 2).sum(), leaf)
    assert g.tolist() == [0.0, 0.0, 0.0, 0.0]
    assert math.isfinite(y.sum().item())
