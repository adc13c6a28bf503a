"""index_fill, index_copy, scatter_reduce, index_put, masked_scatter, addbmm/addmv/addr and the in-place addmm_/
baddbmm_: edges, dtypes, errors, saved fields and grad_fn names against PyTorch (tests/golden/index_vocab.json;
cases in tests/cases_index_vocab.py), values against numpy on random inputs, gradients (and gradients of
gradients) against finite differences in float64."""

import ferrograd as fg
import numpy as np
import pytest
from cases_index_vocab import CASES
from helpers import gradcheck
from recorded import check, expected

EXPECTED = expected("index_vocab", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])


def test_index_writes_against_numpy(rng):
    x = rng.standard_normal((5, 6))
    rows = np.array([4, 0, 2])
    want = x.copy()
    want[:, rows] = -3.0
    np.testing.assert_array_equal(fg.tensor(x).index_fill(1, fg.tensor(rows), -3.0).numpy(), want)
    source = rng.standard_normal((3, 6))
    want = x.copy()
    want[rows] = source
    np.testing.assert_array_equal(fg.tensor(x).index_copy(0, fg.tensor(rows), fg.tensor(source)).numpy(), want)
    cols = np.array([1, 1, 5, 1])
    values = rng.standard_normal(4)
    want = x.copy()
    np.add.at(want, (np.array([0, 0, 4, 3]), cols), values)
    got = fg.tensor(x).index_put((fg.tensor([0, 0, 4, 3]), fg.tensor(cols)), fg.tensor(values), accumulate=True)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    mask = x > 0.3
    source = rng.standard_normal(30)
    want = x.copy()
    want[mask] = source[: mask.sum()]
    np.testing.assert_array_equal(fg.tensor(x).masked_scatter(fg.tensor(mask), fg.tensor(source)).numpy(), want)


NUMPY_REDUCE = {"sum": np.add, "prod": np.multiply, "amax": np.fmax, "amin": np.fmin}


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_against_numpy(rng, reduce, include_self):
    x = rng.standard_normal((4, 5))
    index = rng.integers(0, 4, (6, 5))
    src = rng.standard_normal((6, 5))
    reached = np.zeros(x.shape, bool)
    reached[index, np.arange(5)] = True
    start = x.copy() if include_self else np.where(reached, np.nan, x)
    want = start.copy()
    counts = np.where(reached & include_self, 1, 0) if reduce == "mean" else None
    for r in range(6):
        for c in range(5):
            p = index[r, c]
            if reduce == "mean":
                want[p, c] = src[r, c] if counts[p, c] == 0 else want[p, c] + src[r, c]
                counts[p, c] += 1
            elif np.isnan(want[p, c]):
                want[p, c] = src[r, c]
            else:
                want[p, c] = NUMPY_REDUCE[reduce](want[p, c], src[r, c])
    if reduce == "mean":
        want = np.where(reached, want / np.maximum(counts, 1), x)
    got = fg.tensor(x).scatter_reduce(0, fg.tensor(index), fg.tensor(src), reduce, include_self=include_self)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_fused_products_against_numpy(rng):
    b1, b2 = rng.standard_normal((3, 4, 2)).astype("float32"), rng.standard_normal((3, 2, 5)).astype("float32")
    bias = rng.standard_normal(5).astype("float32")
    got = fg.addbmm(fg.tensor(bias), fg.tensor(b1), fg.tensor(b2), beta=0.5, alpha=1.5)
    np.testing.assert_allclose(got.numpy(), 0.5 * bias + 1.5 * (b1 @ b2).sum(0), rtol=1e-5, atol=1e-5)
    m, v, y = rng.standard_normal((4, 6)), rng.standard_normal(6), rng.standard_normal(4)
    got = fg.addmv(fg.tensor(y), fg.tensor(m.T.copy()).t(), fg.tensor(v), beta=-1, alpha=2)
    np.testing.assert_allclose(got.numpy(), -y + 2 * m @ v, rtol=1e-12)
    got = fg.addr(fg.tensor(m), fg.tensor(y), fg.tensor(v), alpha=0.25)
    np.testing.assert_allclose(got.numpy(), m + 0.25 * np.outer(y, v), rtol=1e-12)


INDEX = [2, 0, 2, 3]
DIFFERENTIABLE = [
    pytest.param(lambda x, v: x.index_fill(1, fg.tensor(INDEX), v.sum()), [(3, 4), (2,)], id="index_fill"),
    pytest.param(lambda x, s: x.index_copy(0, fg.tensor([2, 0]), s), [(3, 4), (2, 4)], id="index_copy"),
    pytest.param(lambda x, v: x.index_put((fg.tensor(INDEX),), v, True), [(4, 3), (3,)], id="index_put(accumulate)"),
    pytest.param(lambda x, v: x.index_put((fg.tensor([1, 3]), fg.tensor([0, 2])), v), [(4, 3), (2,)], id="index_put"),
    pytest.param(lambda x, s: x.masked_scatter(x.detach() > 0, s), [(3, 4), (15,)], id="masked_scatter"),
    pytest.param(lambda i, a: fg.addbmm(i, a, a.transpose(1, 2), beta=0.5, alpha=2), [(3,), (2, 3, 4)], id="addbmm"),
    pytest.param(lambda i, m: fg.addmv(i, m, m[0], beta=-1, alpha=0.5), [(), (3, 3)], id="addmv"),
    pytest.param(lambda i, a: fg.addr(i, a, a * 2, beta=2, alpha=-1), [(3, 3), (3,)], id="addr"),
    pytest.param(lambda i, a, b: fg.addmm(i, a, b, beta=-0.5, alpha=3), [(4,), (2, 3), (3, 4)], id="addmm(beta,alpha)"),
    pytest.param(lambda x, s: x.select_scatter(s, 1, -2), [(3, 4), (3,)], id="select_scatter"),
    pytest.param(lambda x, s: x.slice_scatter(s, 0, 1, None, 2), [(5, 2), (2, 2)], id="slice_scatter"),
    pytest.param(lambda x, s: x.diagonal_scatter(s, -1, 1, 0), [(3, 4), (3,)], id="diagonal_scatter"),
    pytest.param(lambda x: x.repeat_interleave(fg.tensor([2, 0, 3]), 1), [(2, 3)], id="repeat_interleave(tensor)"),
    pytest.param(lambda x: x.repeat_interleave(2), [(2, 3)], id="repeat_interleave(flat)"),
] + [
    pytest.param(
        lambda x, s, r=reduce, k=include_self: x.scatter_reduce(
            1, fg.tensor([[0, 2, 0, 2], [1, 1, 1, 0], [3, 3, 2, 2]]), s, r, include_self=k
        ),
        [(3, 4), (3, 4)],
        id=f"scatter_reduce({reduce},{include_self})",
    )
    for reduce in ["sum", "prod", "mean", "amax", "amin"]
    for include_self in [True, False]
]


def _distinct(rng, shapes):
    """Inputs of distinct magnitudes away from zero, across the inputs too: no ties for amax/amin (finite
    differences cannot step over one), no zero for prod to divide by."""
    args = [rng.permutation(np.prod(s, dtype=int)).reshape(s) * 0.25 + 0.5 + k / 16 for k, s in enumerate(shapes)]
    return [a * rng.choice([-1, 1], a.shape) for a in args]


@pytest.mark.parametrize("f,shapes", DIFFERENTIABLE)
def test_gradcheck(rng, f, shapes):
    args = _distinct(rng, shapes)
    gradcheck(f, args)


@pytest.mark.parametrize("f,shapes", DIFFERENTIABLE)
def test_gradient_of_gradient(rng, f, shapes):
    """The backward rules are differentiable (create_graph=True): their gradient against finite differences."""
    args = _distinct(rng, shapes)

    def first_gradients(*xs):
        create_graph = xs[0].requires_grad
        xs = [t if t.requires_grad else t.detach().requires_grad_() for t in xs]
        y = f(*xs)
        w = fg.arange(1, y.numel() + 1, dtype=y.dtype).reshape(y.shape)
        grads = fg.autograd.grad((y * y * w).sum(), xs, create_graph=create_graph)
        return sum((g * g).sum() for g in grads) + 0 * sum(t.sum() for t in xs)

    gradcheck(first_gradients, args)
