"""addcmul/addcdiv, ...: edges, dtypes, errors, saved fields and grad_fn names against PyTorch
(tests/golden/vocab_ops.json; cases in tests/cases_vocab_ops.py), values against numpy on random inputs,
gradients (and gradients of gradients) against finite differences in float64."""

import ferrograd as fg
import numpy as np
import pytest
from cases_vocab_ops import CASES
from helpers import AGAINST_TORCH, gradcheck
from recorded import check, expected

EXPECTED = expected("vocab_ops", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_addcmul_addcdiv_against_numpy(rng, dtype):
    x, a, b = (rng.standard_normal(s).astype(dtype) for s in [(4, 5), (5,), (4, 1)])
    got = fg.addcmul(fg.tensor(x), fg.tensor(a), fg.tensor(b), value=0.75)
    np.testing.assert_allclose(got.numpy(), x + dtype_value(dtype, 0.75) * a * b, rtol=1e-6)
    got = fg.addcdiv(fg.tensor(x).t().contiguous().t(), fg.tensor(a), fg.tensor(b), value=-2)
    np.testing.assert_allclose(got.numpy(), x + (-2) * a / b, rtol=1e-6)
    # non-contiguous operands give the same values
    got_t = fg.addcmul(fg.tensor(x.T.copy()).t(), fg.tensor(a[::-1].copy()).flip(0), fg.tensor(b), value=0.75)
    np.testing.assert_allclose(got_t.numpy(), x + dtype_value(dtype, 0.75) * a * b, rtol=1e-6)


def dtype_value(dtype, v):
    return np.dtype(dtype).type(v)


DIFFERENTIABLE = [
    pytest.param(lambda x, a, b: fg.addcmul(x, a, b, value=-1.5), id="addcmul"),
    pytest.param(lambda x, a, b: fg.addcdiv(x, a, b, value=0.5), id="addcdiv"),
    pytest.param(lambda x, a, b: x.addcdiv(a, b), id="addcdiv(value=1)"),
]
SHAPES = [((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), (3, 1)), ((), (2,), (2, 1))]


@pytest.mark.parametrize("shapes", SHAPES)
@pytest.mark.parametrize("f", DIFFERENTIABLE)
def test_gradcheck(rng, f, shapes):
    args = [rng.uniform(0.5, 2.0, s) * rng.choice([-1, 1], s) for s in shapes]
    gradcheck(f, args)


@pytest.mark.parametrize("f", DIFFERENTIABLE)
def test_gradient_of_gradient(rng, f):
    """The backward rules are differentiable (create_graph=True): their gradient against finite differences."""
    args = [rng.uniform(0.5, 2.0, (2, 3)) * rng.choice([-1, 1], (2, 3)) for _ in range(3)]

    def first_gradients(x, a, b):
        create_graph = x.requires_grad
        x, a, b = (t if t.requires_grad else t.detach().requires_grad_() for t in (x, a, b))
        gx, ga, gb = fg.autograd.grad(f(x, a, b).sum(), [x, a, b], create_graph=create_graph)
        return gx * 0.25 + ga * 1.5 + gb * 0.5 + 0 * (x + a + b)

    gradcheck(first_gradients, args)


SPREAD_MEAN = [
    pytest.param(lambda x: sum(t.sum() * w for t, w in zip(fg.var_mean(x, 1), (1.0, 2.5))), id="var_mean(dim)"),
    pytest.param(lambda x: sum(t * w for t, w in zip(fg.std_mean(x), (1.5, -1.0))), id="std_mean"),
    pytest.param(lambda x: fg.std_mean(x, (0,), correction=0, keepdim=True)[0].sum(), id="std_mean(std only)"),
    pytest.param(lambda x: fg.var_mean(x, 0)[1].sum(), id="var_mean(mean only)"),
]


@pytest.mark.parametrize("f", SPREAD_MEAN)
def test_spread_mean_gradcheck(rng, f):
    gradcheck(f, [rng.standard_normal((3, 4))])


@pytest.mark.parametrize("f", SPREAD_MEAN)
def test_spread_mean_gradient_of_gradient(rng, f):
    def first_gradient(x):
        create_graph = x.requires_grad
        x = x if x.requires_grad else x.detach().requires_grad_()
        (g,) = fg.autograd.grad(f(x), [x], create_graph=create_graph)
        return (g * g).sum() + 0 * x.sum()

    gradcheck(first_gradient, [rng.standard_normal((3, 4))])


@pytest.mark.parametrize("name", ["var", "std"])
def test_spread_mean_matches_var_and_mean(rng, name):
    x = fg.tensor(rng.standard_normal((4, 5, 3)).astype("float32"))
    spread, mean = getattr(fg, name + "_mean")(x, (0, 2), correction=0)
    # torch's fused kernel rounds differently from its var and mean in float32
    np.testing.assert_allclose(spread.numpy(), getattr(x, name)((0, 2), correction=0).numpy(), rtol=1e-5)
    np.testing.assert_allclose(mean.numpy(), x.mean((0, 2)).numpy(), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", ["nansum", "nanmean"])
def test_nan_reductions_against_numpy(rng, name):
    x = rng.standard_normal((5, 6))
    x[rng.random((5, 6)) < 0.3] = np.nan
    for dim in [None, 0, 1]:
        got = getattr(fg, name)(fg.tensor(x), dim)
        np.testing.assert_allclose(got.numpy(), getattr(np, name)(x, axis=dim), rtol=1e-12)
    assert fg.count_nonzero(fg.tensor(x), 1).tolist() == np.count_nonzero(x, axis=1).tolist()


@pytest.mark.parametrize("name", ["nansum", "nanmean"])
def test_nan_reductions_gradcheck(rng, name):
    gradcheck(lambda x: getattr(fg, name)(x, 1), [rng.standard_normal((3, 4))])
    gradcheck(lambda x: getattr(x, name)(), [rng.standard_normal((2, 3))])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logcumsumexp_against_numpy(rng, dtype):
    x = (rng.standard_normal((4, 6)) * 30).astype(dtype)
    for dim in [0, 1, -1]:
        got = fg.logcumsumexp(fg.tensor(x), dim)
        np.testing.assert_allclose(got.numpy(), np.logaddexp.accumulate(x, axis=dim), rtol=1e-6)
    # a non-contiguous input gives the same values
    got = fg.logcumsumexp(fg.tensor(x.T.copy()).t(), 1)
    np.testing.assert_allclose(got.numpy(), np.logaddexp.accumulate(x, axis=1), rtol=1e-6)


def test_aminmax_against_numpy(rng):
    x = rng.standard_normal((3, 5, 4))
    lo, hi = fg.aminmax(fg.tensor(x))
    assert (lo.item(), hi.item()) == (x.min(), x.max())
    for dim in [0, 1, 2]:
        lo, hi = fg.tensor(x).permute(2, 0, 1).aminmax(dim=dim)
        np.testing.assert_array_equal(lo.numpy(), x.transpose(2, 0, 1).min(axis=dim))
        np.testing.assert_array_equal(hi.numpy(), x.transpose(2, 0, 1).max(axis=dim))


DIAGONAL_AND_SCAN = [
    pytest.param(lambda x: fg.logcumsumexp(x, 1), (3, 4), id="logcumsumexp"),
    pytest.param(lambda x: fg.logcumsumexp(x.t(), 0), (3, 4), id="logcumsumexp(t)"),
    pytest.param(lambda x: fg.aminmax(x, dim=1)[0] * 2 + fg.aminmax(x, dim=1)[1], (3, 4), id="aminmax(dim)"),
    pytest.param(lambda x: fg.aminmax(x)[1], (3, 4), id="aminmax"),
    pytest.param(lambda x: fg.diag_embed(x, -1, 0, 2), (2, 3), id="diag_embed"),
    pytest.param(lambda x: fg.diagflat(x, 2), (2, 3), id="diagflat"),
]


@pytest.mark.parametrize(("f", "shape"), [p.values for p in DIAGONAL_AND_SCAN], ids=[p.id for p in DIAGONAL_AND_SCAN])
def test_diagonal_and_scan_gradcheck(rng, f, shape):
    gradcheck(f, [rng.standard_normal(shape)])


def test_logcumsumexp_gradient_of_gradient(rng):
    def first_gradient(x):
        create_graph = x.requires_grad
        x = x if x.requires_grad else x.detach().requires_grad_()
        w = fg.tensor([[1.0, -2.0, 0.5, 3.0]], dtype=fg.float64)
        (g,) = fg.autograd.grad((fg.logcumsumexp(x, 1) * w).sum(), [x], create_graph=create_graph)
        return (g * g).sum() + 0 * x.sum()

    gradcheck(first_gradient, [rng.standard_normal((2, 4))])


def test_pixel_shuffle_against_numpy(rng):
    import ferrograd.nn.functional as F

    x = rng.standard_normal((2, 3, 18, 4, 5))
    want = x.reshape(2, 3, 2, 3, 3, 4, 5).transpose(0, 1, 2, 5, 3, 6, 4).reshape(2, 3, 2, 12, 15)
    np.testing.assert_array_equal(F.pixel_shuffle(fg.tensor(x), 3).numpy(), want)
    np.testing.assert_array_equal(F.pixel_unshuffle(fg.tensor(want), 3).numpy(), x)


@pytest.mark.parametrize("name", ["pixel_shuffle", "pixel_unshuffle"])
def test_pixel_shuffle_gradcheck(rng, name):
    f = getattr(fg, name)
    gradcheck(lambda x: f(x, 2) * 1.5, [rng.standard_normal((1, 4, 2, 4))])

    def first_gradient(x):
        create_graph = x.requires_grad
        x = x if x.requires_grad else x.detach().requires_grad_()
        (g,) = fg.autograd.grad((f(x, 2) ** 2).sum(), [x], create_graph=create_graph)
        return g

    gradcheck(first_gradient, [rng.standard_normal((4, 2, 2))])


EMBEDDING_BAG_MODES = [
    pytest.param("sum", {}, id="sum"),
    pytest.param("mean", {"padding_idx": 2}, id="mean-padding"),
    pytest.param("max", {}, id="max"),
]


@pytest.mark.parametrize(
    ("mode", "kwargs"), [p.values for p in EMBEDDING_BAG_MODES], ids=[p.id for p in EMBEDDING_BAG_MODES]
)
def test_embedding_bag_against_numpy_and_gradcheck(rng, mode, kwargs):
    import ferrograd.nn.functional as F

    w = rng.standard_normal((6, 4))
    idx = np.array([0, 2, 2, 5, 1, 3, 4])
    offsets = np.array([0, 3, 3, 5])
    got = F.embedding_bag(fg.tensor(idx), fg.tensor(w), fg.tensor(offsets), mode=mode, **kwargs)
    for b, (start, end) in enumerate(zip(offsets, [*offsets[1:], len(idx)])):
        rows = [i for i in idx[start:end] if i != kwargs.get("padding_idx")]
        want = np.zeros(4) if not rows else getattr(np, {"sum": "sum", "mean": "mean", "max": "max"}[mode])(w[rows], 0)
        np.testing.assert_allclose(got[b].numpy(), want, rtol=1e-12)
    gradcheck(lambda t: F.embedding_bag(fg.tensor(idx), t, fg.tensor(offsets), mode=mode, **kwargs), [w])


def test_embedding_bag_scale_grad_by_freq_divides_each_rows_gradient(rng):
    """Not a derivative (gradcheck cannot check it): each row's gradient over its count in the whole input."""
    import ferrograd.nn.functional as F

    idx, offsets = fg.tensor([0, 2, 2, 1, 2]), fg.tensor([0, 3])
    w = fg.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    (plain,) = fg.autograd.grad(F.embedding_bag(idx, w, offsets, mode="sum").sum(), w)
    (scaled,) = fg.autograd.grad(F.embedding_bag(idx, w, offsets, mode="sum", scale_grad_by_freq=True).sum(), w)
    np.testing.assert_allclose(scaled.numpy(), plain.numpy() / np.array([[1.0], [1.0], [3.0]]))


def test_embedding_bag_per_sample_weights_gradcheck(rng):
    import ferrograd.nn.functional as F

    idx, offsets = fg.tensor([0, 2, 2, 1, 3]), fg.tensor([0, 2])
    args = [rng.standard_normal((4, 3)), rng.standard_normal(5)]
    gradcheck(lambda w, p: F.embedding_bag(idx, w, offsets, mode="sum", per_sample_weights=p, padding_idx=1), args)


@pytest.mark.skipif(AGAINST_TORCH, reason="torch 2.15 has no double backward for embedding_bag (NotImplementedError)")
def test_embedding_bag_gradient_of_gradient(rng):
    """ferrograd's rule is written with differentiable ops, so its gradients differentiate again."""
    import ferrograd.nn.functional as F

    idx, offsets = fg.tensor([0, 2, 2, 1, 3]), fg.tensor([0, 2])
    args = [rng.standard_normal((4, 3)), rng.standard_normal(5)]

    def first_gradients(w, p):
        create_graph = w.requires_grad
        w, p = (t if t.requires_grad else t.detach().requires_grad_() for t in (w, p))
        out = F.embedding_bag(idx, w, offsets, mode="sum", per_sample_weights=p)
        gw, gp = fg.autograd.grad((out * out).sum(), [w, p], create_graph=create_graph)
        return gw.sum() + (gp * gp).sum() + 0 * (w.sum() + p.sum())

    gradcheck(first_gradients, args)


@pytest.mark.skipif(AGAINST_TORCH, reason="torch 2.15 crashes (SIGSEGV) on empty offsets")
def test_embedding_bag_without_bags():
    """No offsets at all: no bags (torch 2.15 crashes here; an empty result is the only sensible answer)."""
    import ferrograd.nn.functional as F

    out = F.embedding_bag(fg.tensor([0, 1]), fg.ones(3, 2), fg.tensor([], dtype=fg.int64))
    assert out.shape == (0, 2)
