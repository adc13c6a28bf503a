"""ctc_loss, F.ctc_loss and nn.CTCLoss: the recorded torch cases (tests/golden/ctc.json; cases in
tests/cases_ctc.py), the loss against a brute-force sum over every alignment, gradients against finite
differences in float64 (through a log_softmax, as torch's gradient is that of normalized log-probabilities),
and what torch leaves unchecked."""

import itertools
import math

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from cases_ctc import CASES
from helpers import AGAINST_TORCH, gradcheck
from recorded import check, expected

EXPECTED = expected("ctc", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])


def _collapse(path, blank):
    out = [k for i, k in enumerate(path) if i == 0 or k != path[i - 1]]
    return [k for k in out if k != blank]


def _brute_force_nll(log_probs, target, blank):
    """-log Σ over every frame labelling that collapses to `target` of Π p (log_probs: (T, C))."""
    t, c = log_probs.shape
    total = 0.0
    for path in itertools.product(range(c), repeat=t):
        if _collapse(path, blank) == list(target):
            total += math.exp(sum(log_probs[i, k] for i, k in enumerate(path)))
    return -math.log(total) if total > 0 else math.inf


@pytest.mark.parametrize("blank", [0, 2])
def test_against_every_alignment(blank):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 3, 3))
    lp = x - np.log(np.exp(x).sum(-1, keepdims=True))
    labels = [k for k in range(3) if k != blank]
    targets = [[labels[0], labels[1]], [labels[1], labels[1]], []]
    lengths = [5, 4, 3]
    padded = fg.tensor([t + [labels[0]] * (2 - len(t)) for t in targets])
    got = F.ctc_loss(fg.tensor(lp), padded, lengths, [len(t) for t in targets], blank=blank, reduction="none")
    want = [_brute_force_nll(lp[: lengths[b], b], targets[b], blank) for b in range(3)]
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_gradcheck(reduction, zero_infinity):
    targets = fg.tensor([[1, 2, 2], [3, 1, 0], [2, 0, 0]])
    il, tl = [6, 5, 3], [3, 2, 1]

    def fn(x):
        return F.ctc_loss(x.log_softmax(2), targets, il, tl, reduction=reduction, zero_infinity=zero_infinity)

    gradcheck(fn, [np.random.default_rng(1).standard_normal((6, 3, 4))])


def test_gradcheck_unbatched_concatenated():
    def fn(x):
        return F.ctc_loss(x.log_softmax(1), fg.tensor([2, 1, 1]), [5], [3], blank=3)

    gradcheck(fn, [np.random.default_rng(2).standard_normal((7, 4))])


def test_large_batch_matches_entry_by_entry():
    """The batch is split across threads when the lattice is large: each entry still gets its own loss."""
    rng = np.random.default_rng(4)
    lp = fg.tensor(rng.standard_normal((50, 16, 20))).log_softmax(2).requires_grad_()
    targets = fg.tensor(rng.integers(1, 20, (16, 30)))
    il = rng.integers(30, 51, 16).tolist()
    tl = rng.integers(0, 25, 16).tolist()
    whole = F.ctc_loss(lp, targets, il, tl, reduction="none")
    (grad,) = fg.autograd.grad(whole.sum(), lp)
    for b in (0, 7, 15):
        one = F.ctc_loss(lp[:, b : b + 1], targets[b : b + 1], il[b : b + 1], tl[b : b + 1], reduction="none")
        assert math.isclose(one.item(), whole[b].item(), rel_tol=1e-12)
        (g,) = fg.autograd.grad(one.sum(), lp)
        np.testing.assert_allclose(g[:, b].numpy(), grad[:, b].numpy(), rtol=1e-10, atol=1e-14)


@pytest.mark.skipif(AGAINST_TORCH, reason="torch reads an out-of-range label out of bounds")
@pytest.mark.parametrize("label", [5, -1])
def test_target_out_of_range_raises(label):
    lp = fg.zeros(4, 1, 5).log_softmax(2)
    with pytest.raises(IndexError, match="out of bounds for 5 classes"):
        F.ctc_loss(lp, fg.tensor([[1, label]]), [4], [2])
    # a padding entry past the target's length is never read
    assert math.isfinite(float(F.ctc_loss(lp, fg.tensor([[1, label]]), [4], [1])))


def test_saved_fields():
    lp = fg.zeros(4, 2, 3).log_softmax(2).requires_grad_()
    node = F.ctc_loss(lp, fg.tensor([[1, 2], [2, 0]]), [4, 3], [2, 1], blank=0, reduction="none").grad_fn
    assert node.name() == "CtcLossBackward0"
    assert node._saved_input_lengths == (4, 3)
    assert node._saved_target_lengths == (2, 1)
    assert node._saved_blank == 0 and node._saved_zero_infinity is False
    assert tuple(node._saved_result1.shape) == (2, 4, 5)
