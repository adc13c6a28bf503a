"""kthvalue, mode, nanmedian, quantile/nanquantile, bincount, histc, isin and diff: edges, ties, dtypes, errors,
saved fields and grad_fn names against PyTorch (tests/golden/stats_vocab.json; cases in
tests/cases_stats_vocab.py), values against numpy on random inputs, gradients (and gradients of gradients)
against finite differences in float64."""

import ferrograd as fg
import numpy as np
import pytest
from cases_stats_vocab import CASES
from helpers import gradcheck
from recorded import check, expected

EXPECTED = expected("stats_vocab", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])


def _assert_picked(out, a, dim, want_values):
    """`out` holds `want_values`, and its indices point at elements equal to them."""
    np.testing.assert_array_equal(out.values.numpy(), want_values)
    picked = np.take_along_axis(a, np.expand_dims(out.indices.numpy(), dim), dim).squeeze(dim)
    np.testing.assert_array_equal(picked, want_values)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_kthvalue_against_numpy(rng, dim):
    a = rng.integers(-3, 4, (7, 9, 5)).astype(np.float32)
    a[rng.random(a.shape) < 0.1] = np.nan
    x = fg.tensor(a)
    for k in (1, 3, a.shape[dim]):
        _assert_picked(fg.kthvalue(x, k, dim), a, dim, np.sort(a, axis=dim).take(k - 1, axis=dim))
    # a non-contiguous input gives the same result
    t = fg.tensor(np.ascontiguousarray(a.transpose(2, 1, 0))).transpose(0, 2)
    np.testing.assert_array_equal(t.kthvalue(2, dim).indices.numpy(), x.kthvalue(2, dim).indices.numpy())


def _numpy_mode(a, dim):
    def row_mode(row):
        values, counts = np.unique(row, return_counts=True)
        return values[np.argmax(counts)]  # unique sorts: the first of the most frequent is the smallest

    return np.apply_along_axis(row_mode, dim, a)


@pytest.mark.parametrize("dim", [0, 1])
def test_mode_against_numpy(rng, dim):
    a = rng.integers(0, 6, (40, 30))
    for dtype in ("int64", "float64", "int16"):
        x = fg.tensor(a.astype(dtype))
        _assert_picked(fg.mode(x, dim), a.astype(dtype), dim, _numpy_mode(a.astype(dtype), dim))


def _lower_nanmedian(a, dim):
    def row(r):
        r = np.sort(r[~np.isnan(r)])
        return r[(len(r) - 1) // 2] if len(r) else np.nan

    return np.apply_along_axis(row, dim, a)


@pytest.mark.parametrize("dim", [0, 1])
def test_nanmedian_against_numpy(rng, dim):
    a = rng.standard_normal((6, 11))
    a[rng.random(a.shape) < 0.3] = np.nan
    a[2] = np.nan
    out = fg.nanmedian(fg.tensor(a), dim)
    want = _lower_nanmedian(a, dim)
    np.testing.assert_array_equal(out.values.numpy(), want)
    rows = np.moveaxis(a, dim, -1)
    for r, i, v in zip(rows, out.indices.numpy(), want):
        assert np.isnan(v) and np.isnan(r[i]) or r[i] == v
    flat = a[~np.isnan(a)]
    assert fg.tensor(a).nanmedian().item() == np.sort(flat)[(flat.size - 1) // 2]


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_against_numpy(rng, interpolation):
    a = rng.standard_normal((5, 8))
    q = np.array([0.0, 0.1, 0.25, 0.5, 0.9, 1.0])
    for dim in (None, 0, 1):
        got = fg.quantile(fg.tensor(a), fg.tensor(q), dim, interpolation=interpolation)
        np.testing.assert_allclose(got.numpy(), np.quantile(a, q, axis=dim, method=interpolation), rtol=1e-12)
    a[1, 3] = np.nan
    got = fg.nanquantile(fg.tensor(a), 0.3, 1, keepdim=True, interpolation=interpolation)
    np.testing.assert_allclose(got.numpy(), np.nanquantile(a, 0.3, axis=1, keepdims=True, method=interpolation))


def test_counting_against_numpy(rng):
    x = rng.integers(0, 9, 50)
    w = rng.standard_normal(50)
    assert fg.bincount(fg.tensor(x)).tolist() == np.bincount(x).tolist()
    np.testing.assert_allclose(fg.bincount(fg.tensor(x), fg.tensor(w), minlength=12).numpy(), np.bincount(x, w, 12))
    v = rng.uniform(-2, 3, 200)
    counts, _ = np.histogram(v, bins=7, range=(-1.0, 2.0))
    assert fg.histc(fg.tensor(v), bins=7, min=-1, max=2).tolist() == counts.tolist()
    counts, _ = np.histogram(v, bins=5)
    assert fg.histc(fg.tensor(v), bins=5).tolist() == counts.tolist()
    test = rng.integers(0, 9, 4)
    assert fg.isin(fg.tensor(x), fg.tensor(test)).tolist() == np.isin(x, test).tolist()
    assert fg.isin(fg.tensor(x), fg.tensor(test), invert=True).tolist() == np.isin(x, test, invert=True).tolist()


def test_diff_against_numpy(rng):
    a = rng.standard_normal((4, 6))
    for n, dim in [(1, -1), (2, 0), (3, 1)]:
        np.testing.assert_allclose(fg.diff(fg.tensor(a), n, dim).numpy(), np.diff(a, n, dim))
    p, e = rng.standard_normal((4, 2)), rng.standard_normal((4, 1))
    got = fg.tensor(a).diff(2, 1, prepend=fg.tensor(p), append=fg.tensor(e))
    np.testing.assert_allclose(got.numpy(), np.diff(a, 2, 1, prepend=p, append=e))


def test_products_against_numpy(rng):
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((2, 1, 5))
    np.testing.assert_allclose(fg.kron(fg.tensor(a), fg.tensor(b)).numpy(), np.kron(a, b))
    np.testing.assert_allclose(fg.inner(fg.tensor(a), fg.tensor(a[:2])).numpy(), np.inner(a, a[:2]))
    v, w = rng.standard_normal(6), rng.standard_normal(6)
    np.testing.assert_allclose(fg.vdot(fg.tensor(v), fg.tensor(w)).item(), np.vdot(v, w))
    c = rng.standard_normal((4, 5, 3))
    for dims in (1, ([1], [0]), ([0, 1], [2, 0])):
        np.testing.assert_allclose(
            fg.tensordot(fg.tensor(a), fg.tensor(c), dims=dims).numpy(), np.tensordot(a, c, dims)
        )
    d = rng.standard_normal((5, 3))
    np.testing.assert_allclose(fg.tensordot(fg.tensor(c), fg.tensor(d), dims=2).numpy(), np.tensordot(c, d, 2))


def test_cov_and_trapezoid_against_numpy(rng):
    x = rng.standard_normal((3, 7))
    f, w = rng.integers(0, 4, 7), rng.uniform(0.1, 2.0, 7)
    np.testing.assert_allclose(fg.cov(fg.tensor(x)).numpy(), np.cov(x))
    got = fg.cov(fg.tensor(x), correction=0, fweights=fg.tensor(f), aweights=fg.tensor(w))
    np.testing.assert_allclose(got.numpy(), np.cov(x, ddof=0, fweights=f, aweights=w))
    np.testing.assert_allclose(fg.corrcoef(fg.tensor(x)).numpy(), np.corrcoef(x))
    s = np.sort(rng.uniform(0, 5, 7))
    np.testing.assert_allclose(fg.trapezoid(fg.tensor(x), fg.tensor(s)).numpy(), np.trapezoid(x, s))
    np.testing.assert_allclose(fg.trapz(fg.tensor(x), dx=0.3, dim=0).numpy(), np.trapezoid(x, dx=0.3, axis=0))
    running = fg.cumulative_trapezoid(fg.tensor(x), fg.tensor(s)).numpy()
    np.testing.assert_allclose(running[:, -1], np.trapezoid(x, s))


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, np.inf])
def test_distances_against_numpy(rng, p):
    x1, x2 = rng.standard_normal((2, 5, 3)), rng.standard_normal((1, 4, 3))

    def norm(d):
        return np.count_nonzero(d, axis=-1).astype(float) if p == 0 else np.linalg.norm(d, ord=p, axis=-1)

    want = norm(x1[:, :, None, :] - x2[:, None, :, :])
    np.testing.assert_allclose(fg.cdist(fg.tensor(x1), fg.tensor(x2), p).numpy(), want, rtol=1e-12)
    rows, cols = np.triu_indices(5, 1)
    want = norm(x1[0][rows] - x1[0][cols])
    np.testing.assert_allclose(fg.pdist(fg.tensor(x1[0]), p).numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(fg.nn.functional.pdist(fg.tensor(x1[0]), p).numpy(), want, rtol=1e-12)
    want = norm((x1[0] - x2[0, 0]).reshape(-1))
    np.testing.assert_allclose(fg.dist(fg.tensor(x1[0]), fg.tensor(x2[0, 0]), p).item(), want, rtol=1e-12)


DIFFERENTIABLE = [
    pytest.param(lambda x: fg.kthvalue(x, 2, 1).values, id="kthvalue"),
    pytest.param(lambda x: x.kthvalue(3, 0, keepdim=True).values, id="kthvalue(dim0, keepdim)"),
    pytest.param(lambda x: fg.mode(x, 0).values, id="mode"),
    pytest.param(lambda x: fg.nanmedian(x), id="nanmedian()"),
    pytest.param(lambda x: fg.nanmedian(x, 1).values, id="nanmedian(dim)"),
    pytest.param(lambda x: fg.quantile(x, 0.3, 1), id="quantile"),
    pytest.param(lambda x: fg.quantile(x, fg.tensor([0.2, 0.9], dtype=fg.float64)), id="quantile(q tensor)"),
    pytest.param(lambda x: fg.nanquantile(x, 0.6, 0, interpolation="midpoint"), id="nanquantile(midpoint)"),
    pytest.param(lambda x: fg.quantile(x, 0.6, 0, interpolation="nearest"), id="quantile(nearest)"),
    pytest.param(lambda x: fg.diff(x, 2, 0), id="diff"),
    pytest.param(lambda x: fg.diff(x, prepend=x[:, :1] * 2), id="diff(prepend)"),
    pytest.param(lambda x: fg.kron(x, x[:2, :3]), id="kron"),
    pytest.param(lambda x: fg.inner(x, x[1:]), id="inner"),
    pytest.param(lambda x: fg.vdot(x[0], x[1]), id="vdot"),
    pytest.param(lambda x: fg.block_diag(x[:2], x[2, 0], x[3]), id="block_diag"),
    pytest.param(lambda x: fg.tensordot(x, x[:, :3], dims=([0], [0])), id="tensordot"),
    pytest.param(lambda x: fg.cov(x, aweights=x[0].abs()), id="cov(aweights)"),
    pytest.param(lambda x: fg.corrcoef(x), id="corrcoef"),
    pytest.param(lambda x: fg.trapezoid(x, x[0].cumsum(0)), id="trapezoid(x)"),
    pytest.param(lambda x: fg.cumulative_trapezoid(x, dx=0.5, dim=0), id="cumulative_trapezoid"),
    pytest.param(lambda x: fg.frexp(x).mantissa, id="frexp"),
    pytest.param(lambda x: fg.renorm(x, 2, 0, 3.0), id="renorm"),
    pytest.param(lambda x: x.renorm(3, 1, 2.0), id="renorm(p=3, dim=1)"),
    # distances away from zero (the inputs' values are distinct)
    pytest.param(lambda x: fg.dist(x, x.flip(0) * 0.5, 3.0), id="dist(p=3)"),
    pytest.param(lambda x: fg.dist(x, x[1], float("inf")), id="dist(p=inf)"),
    pytest.param(lambda x: fg.cdist(x, x[:2] * 0.3 + 1.0), id="cdist(p=2)"),
    pytest.param(lambda x: fg.cdist(x, x[:2] * 0.3 + 1.0, 1.0), id="cdist(p=1)"),
    pytest.param(lambda x: fg.cdist(x[None], x[None, :3] * 0.3 + 1.0, 3.0), id="cdist(p=3, batch)"),
    pytest.param(lambda x: fg.cdist(x, x[:2] * 0.3 + 1.0, float("inf")), id="cdist(p=inf)"),
    pytest.param(lambda x: fg.pdist(x), id="pdist"),
    pytest.param(lambda x: fg.pdist(x, 1.5), id="pdist(p=1.5)"),
]


@pytest.mark.parametrize("f", DIFFERENTIABLE)
def test_gradcheck(rng, f):
    # distinct values: the order statistics are differentiable there
    a = rng.permutation(20).reshape(4, 5) * 0.5 + rng.uniform(0, 0.1, (4, 5))
    gradcheck(f, [a])


@pytest.mark.parametrize("f", DIFFERENTIABLE)
def test_gradient_of_gradient(rng, f):
    a = rng.permutation(20).reshape(4, 5) * 0.5 + rng.uniform(0, 0.1, (4, 5))

    def first_gradient(x):
        leaf = x if x.requires_grad else x.detach().requires_grad_()
        (g,) = fg.autograd.grad((f(leaf) ** 2).sum(), leaf, create_graph=x.requires_grad)
        return g

    gradcheck(first_gradient, [a])
