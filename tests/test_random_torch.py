"""The same seed gives PyTorch's numbers bit for bit: every case of tests/random_cases.py against its recording
(tests/golden/random.json, from tests/golden/record_random.py), compared exactly (no tolerance)."""

import pytest
import random_cases
import recorded

EXPECTED = recorded.expected("random", random_cases.CASES)
EXACT = (0.0, 0.0)


@pytest.mark.parametrize("name", sorted(random_cases.CASES))
def test_draws_match_torch_bit_for_bit(name):
    recorded.check(name, random_cases.CASES[name], EXPECTED[name], tol=EXACT)


def test_draws_record_torchs_nodes():
    """Rates and probabilities that require grad get torch's nodes: a zero gradient from PoissonBackward0 and
    BernoulliBackward0, and a NotImplemented node that refuses backward for binomial."""
    import ferrograd as fg

    rates = fg.tensor([0.5, 4.0, 30.0], requires_grad=True)
    drawn = fg.poisson(rates)
    assert type(drawn.grad_fn).__name__ == "PoissonBackward0" and drawn.requires_grad
    (drawn * fg.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert rates.grad.tolist() == [0.0, 0.0, 0.0]
    probs = fg.tensor([[0.1, 0.9]], dtype=fg.float64, requires_grad=True)
    hits = fg.bernoulli(probs)
    assert type(hits.grad_fn).__name__ == "BernoulliBackward0" and hits.dtype == fg.float64
    hits.sum().backward()
    assert probs.grad.tolist() == [[0.0, 0.0]]
    count = fg.tensor([3.0, 4.0], requires_grad=True)
    successes = fg.binomial(count, fg.tensor([0.5, 0.5]))
    assert type(successes.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::binomial is not implemented"):
        successes.sum().backward()
    with fg.no_grad():
        assert fg.poisson(rates).grad_fn is None and fg.bernoulli(probs).grad_fn is None
    assert fg.poisson(rates.detach()).grad_fn is None
