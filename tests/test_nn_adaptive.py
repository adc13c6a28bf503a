"""`nn.AdaptiveLogSoftmaxWithLoss`: its outputs are the log-probabilities of the targets under `log_prob`'s full
distribution (which sums to one), the loss their mean negative, `predict` its argmax; the layout, reprs and errors
as torch's, and the gradients checked against finite differences."""

import ferrograd as fg
import numpy as np
import pytest

nn = fg.nn


def _model(dtype=None):
    fg.manual_seed(0)
    return nn.AdaptiveLogSoftmaxWithLoss(8, 20, [5, 12], div_value=2.0, head_bias=True, dtype=dtype)


def test_the_layout_and_repr_are_torchs():
    model = _model()
    assert [(k, tuple(v.shape)) for k, v in model.state_dict().items()] == [
        ("head.weight", (7, 8)),
        ("head.bias", (7,)),
        ("tail.0.0.weight", (4, 8)),
        ("tail.0.1.weight", (7, 4)),
        ("tail.1.0.weight", (2, 8)),
        ("tail.1.1.weight", (8, 2)),
    ]
    assert repr(model).splitlines()[:4] == [
        "AdaptiveLogSoftmaxWithLoss(",
        "  (head): Linear(in_features=8, out_features=7, bias=True)",
        "  (tail): ModuleList(",
        "    (0): Sequential(",
    ]


def test_outputs_are_the_targets_log_probabilities_and_predict_is_their_argmax():
    model = _model()
    fg.manual_seed(1)
    x = fg.randn(9, 8) * 3
    target = fg.tensor([0, 4, 5, 11, 12, 19, 3, 7, 15])  # the shortlist and both clusters, their edges too
    out = model(x, target)
    assert out._fields == ("output", "loss") and type(out).__name__ == "_ASMoutput"
    full = model.log_prob(x)
    assert tuple(full.shape) == (9, 20)
    np.testing.assert_allclose(full.exp().sum(1).detach().numpy(), np.ones(9), rtol=1e-5)
    want = full.gather(1, target.unsqueeze(1)).squeeze(1)
    np.testing.assert_allclose(out.output.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert float(out.loss) == pytest.approx(-float(want.mean()), rel=1e-5)
    assert fg.equal(model.predict(x), full.argmax(1))
    one = model(x[3], target[3])  # unbatched: a 0-dim target
    assert one.output.dim() == 0 and float(one.output) == pytest.approx(float(want[3]), rel=1e-5)


def test_the_gradients_match_finite_differences():
    model = _model(fg.float64)
    x = fg.randn(5, 8, dtype=fg.float64, requires_grad=True)
    target = fg.tensor([1, 6, 13, 19, 0])
    assert fg.autograd.gradcheck(lambda x: model(x, target).loss, (x,))
    model(x, target).loss.backward()
    assert all(p.grad is not None for p in model.parameters())


def test_bad_cutoffs_and_targets_raise_torchs_errors():
    with pytest.raises(ValueError, match="^cutoffs should be a sequence of length larger than 0$"):
        nn.AdaptiveLogSoftmaxWithLoss(8, 20, [])
    for cutoffs in ([5, 5], [0, 4], [5, 20], [12, 5]):
        with pytest.raises(ValueError, match="^cutoffs should be a sequence of unique, positive integers"):
            nn.AdaptiveLogSoftmaxWithLoss(8, 20, cutoffs)
    model = _model()
    with pytest.raises(RuntimeError, match=r"^Target values should be in \[0, 19\], but values in range \[1, 25\]"):
        model(fg.randn(2, 8), fg.tensor([1, 25]))
    with pytest.raises(RuntimeError, match="^Input and target should have the same size in the batch dimension.$"):
        model(fg.randn(2, 8), fg.tensor([1]))
    with pytest.raises(RuntimeError, match="^0D or 1D target tensor expected, multi-target not supported$"):
        model(fg.randn(2, 8), fg.tensor([[1]]))
