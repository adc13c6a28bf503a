"""The loss modules (and the functional losses behind them) against values recorded from PyTorch
(tests/golden/nn_losses.json; cases in tests/cases_nn_losses.py): values and input gradients for every
reduction, ties at hinges and boundaries included; reprs, buffers and errors; gradcheck in float64."""

import warnings

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest
from cases_nn_losses import CASES
from helpers import gradcheck
from recorded import check, expected

EXPECTED = expected("nn_losses", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # kl_div's 'mean' warning
        check(name, CASES[name], EXPECTED[name])


def _t(a):
    return fg.tensor(np.asarray(a, dtype=np.float64), dtype=fg.float64)


def test_gradcheck_margin_and_embedding_losses(rng):
    x1, x2 = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    y = _t([1.0, -1.0, -1.0, 1.0])
    gradcheck(lambda a, b: F.cosine_embedding_loss(a, b, y, margin=0.1), [x1, x2])
    gradcheck(lambda a, b: F.margin_ranking_loss(a, b, _t(np.sign(x1[0])), margin=0.3), [x1[0], x2[0]])
    gradcheck(lambda a: F.hinge_embedding_loss(a, y.reshape(4, 1).expand(4, 5), margin=0.7), [x1])
    gradcheck(lambda a, b, c: F.triplet_margin_loss(a, b, c, margin=3.0, swap=True), [x1, x2, x1[::-1] * 0.5])
    gradcheck(lambda a: F.soft_margin_loss(a, _t(np.sign(x2))), [x1])


def test_gradcheck_likelihood_losses(rng):
    x = rng.standard_normal((3, 4))
    counts = _t(rng.integers(0, 6, (3, 4)))
    gradcheck(lambda a: F.poisson_nll_loss(a, counts, full=True), [x])
    gradcheck(lambda a: F.poisson_nll_loss(a, counts, log_input=False), [np.abs(x) + 0.5])
    gradcheck(lambda a, v: F.gaussian_nll_loss(a, counts, v, full=True), [x, np.abs(x) + 0.5])
    labels = _t(rng.integers(0, 2, (3, 4)))
    gradcheck(lambda a: F.multilabel_soft_margin_loss(a, labels), [x])
    gradcheck(lambda a: F.huber_loss(a, _t(x * 0.5 + 2), delta=0.8), [x])


def test_gradcheck_multiclass_margin_losses(rng):
    x = rng.standard_normal((3, 5))
    labels = fg.tensor([0, 4, 2])
    gradcheck(lambda a: F.multi_margin_loss(a, labels, p=2, weight=_t(np.arange(1.0, 6.0))), [x])
    gradcheck(
        lambda a: F.multilabel_margin_loss(a, fg.tensor([[1, 3, -1, 0, 0], [4, 0, 1, 2, 3], [2, -1, 0, 0, 0]])), [x]
    )


def test_loss_weights_are_buffers_that_follow_to():
    loss = nn.CrossEntropyLoss(weight=fg.tensor([1.0, 2.0]))
    assert list(loss.state_dict()) == ["weight"]
    loss.double()
    assert loss.weight.dtype == fg.float64
    out = loss(_t([[0.5, -0.5], [1.0, 2.0]]), fg.tensor([1, 0]))
    assert out.dtype == fg.float64


def test_legacy_size_average_sets_the_reduction():
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        loss = nn.MSELoss(size_average=False)
    assert loss.reduction == "sum"
    with pytest.warns(UserWarning):
        assert nn.L1Loss(reduce=False).reduction == "none"


def test_target_size_mismatch_warns_as_torch():
    with pytest.warns(UserWarning, match="Using a target size"):
        nn.HuberLoss()(_t(np.ones((2, 3))), _t(np.ones(3)))
