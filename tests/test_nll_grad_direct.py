"""nll_loss's input gradient written directly (an unrecorded backward) against the tensor formula that a
recorded backward (create_graph=True) runs: equal bit for bit, for every reduction, with and without class
weights, with ignored rows, one-row (C,) input, float32 and float64, and N-d input (which takes the
formula both ways)."""

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest


def grads(x, target, **kwargs):
    """The input gradient unrecorded and recorded, for an upstream gradient other than one (per row for
    `none`)."""
    loss = F.nll_loss(x, target, **kwargs)
    upstream = fg.linspace(0.5, 2.0, max(loss.numel(), 1), dtype=loss.dtype).reshape(loss.shape)
    direct = fg.autograd.grad(F.nll_loss(x, target, **kwargs), x, upstream)[0]
    formula = fg.autograd.grad(F.nll_loss(x, target, **kwargs), x, upstream, create_graph=True)[0]
    return direct.detach().numpy(), formula.detach().numpy()


@pytest.mark.parametrize("dtype", [fg.float32, fg.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index", [-100, 2])
def test_direct_gradient_matches_formula(rng, dtype, reduction, weighted, ignore_index):
    x = fg.tensor(rng.standard_normal((7, 5)), dtype=dtype).log_softmax(1).detach().requires_grad_()
    target = fg.tensor([0, 2, 4, 1, 2, 3, 0])
    weight = fg.tensor(rng.uniform(0.5, 2.0, 5), dtype=dtype) if weighted else None
    direct, formula = grads(x, target, weight=weight, reduction=reduction, ignore_index=ignore_index)
    np.testing.assert_array_equal(direct, formula)
    assert direct.dtype == formula.dtype
    ignored = (target.numpy() == ignore_index)[:, None]
    picked = np.arange(5)[None, :] == target.numpy()[:, None]
    assert (direct[~picked | ignored] == 0).all() and not np.signbit(direct[~picked | ignored]).any()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_one_row_and_nd_inputs(rng, reduction):
    weight = fg.tensor(rng.uniform(0.5, 2.0, 4))
    for x, target in [
        (rng.standard_normal(4), fg.tensor(3)),
        (rng.standard_normal((3, 4, 2)), fg.tensor([[0, 3], [1, 1], [2, 0]])),
    ]:
        x = fg.tensor(x, requires_grad=True)
        direct, formula = grads(x, target, weight=weight, reduction=reduction)
        np.testing.assert_array_equal(direct, formula)
