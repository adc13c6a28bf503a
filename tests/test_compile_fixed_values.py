"""Python reading a tensor's data (`bool()`, `.item()`) while a function is captured breaks the graph, unless every
replay computes that tensor alike: built by deterministic ops from Python values, factories and tensors from before
the capture that need no gradient (a causal mask a model keeps). Python then reads it once, at the capture, and the
graph checks that no such tensor from outside was written since. Data behind an input or a random draw still
breaks. torch's Dynamo breaks the graph at these reads; its values are checked the same (fullgraph off there)."""

import ferrograd as fg
import pytest
from helpers import AGAINST_TORCH

nn = fg.nn
BACKEND = "aot_eager"
FULL = not AGAINST_TORCH  # torch's Dynamo breaks at a tensor's bool()


def _masked_scores(x):
    n = x.shape[-1]
    mask = fg.ones(n, n).triu(1) == 1
    if bool(mask.any()):  # a mask built here from a factory: the same at every replay
        x = x.masked_fill(mask, float("-inf"))
    return x.softmax(-1) * (mask.sum().item() + 1)


def test_a_branch_on_a_mask_built_inside_is_captured():
    compiled = fg.compile(_masked_scores, backend=BACKEND, fullgraph=FULL)
    for seed in (0, 1):
        fg.manual_seed(seed)
        x = fg.randn(2, 4, 4)
        assert fg.allclose(compiled(x), _masked_scores(x))


class Causal(nn.Module):
    """A model keeping its mask as a plain attribute and checking it with bool(), as nn.Transformer's callers do."""

    def __init__(self, n=4):
        super().__init__()
        self.lin = nn.Linear(n, n)
        self.mask = fg.full((n, n), float("-inf")).triu(1)

    def forward(self, x):
        causal = fg.full((x.shape[-1],) * 2, float("-inf")).triu(1)
        scores = self.lin(x)
        if bool((self.mask == causal).all()):
            return scores.masked_fill(causal == float("-inf"), 0.0)
        return scores + self.mask


def test_a_branch_on_a_kept_mask_is_captured_and_recaptured_after_the_mask_is_written():
    model = Causal()
    compiled = fg.compile(model, backend=BACKEND, fullgraph=FULL)
    x = fg.randn(2, 4, 4)
    compiled(x)
    assert fg.equal(compiled(x), model(x))
    with fg.no_grad():
        model.mask.zero_()  # the other branch now: the graph that took the first one is stale
    assert fg.equal(compiled(x), model(x))
    assert fg.equal(compiled(x), model(x))


def _reads_input(x):
    return x * 2 if bool((x > 0).all()) else x * 3


def _reads_draw(x):
    noise = fg.rand(3)
    return x * 2 if bool((noise > 0.5).all()) else x


def _reads_what_it_writes(x):
    with fg.no_grad():
        COUNTER.add_(1)
    return x * COUNTER.item()


COUNTER = fg.zeros(())


_TORCH_CAPTURES = pytest.mark.skipif(AGAINST_TORCH, reason="torch's Dynamo captures the write and the read")


@pytest.mark.parametrize("fn", [_reads_input, _reads_draw, pytest.param(_reads_what_it_writes, marks=_TORCH_CAPTURES)])
def test_reading_data_that_can_change_between_calls_still_breaks(fn):
    compiled = fg.compile(fn, backend=BACKEND, fullgraph=True)
    # torch raises its UserError for a data-dependent branch, Unsupported for the rest
    with pytest.raises((fg._dynamo.exc.Unsupported, getattr(fg._dynamo.exc, "UserError", fg._dynamo.exc.Unsupported))):
        compiled(fg.randn(3))


def test_a_counter_the_function_increments_is_read_anew_every_call():
    COUNTER.zero_()
    compiled = fg.compile(_reads_what_it_writes, backend=BACKEND)
    x = fg.ones(2)
    if AGAINST_TORCH:
        assert fg.equal(compiled(x), fg.full((2,), 1.0))
    else:
        with pytest.warns(UserWarning, match="writes in place"):
            assert fg.equal(compiled(x), fg.full((2,), 1.0))
    assert fg.equal(compiled(x), fg.full((2,), 2.0))
    assert fg.equal(compiled(x), fg.full((2,), 3.0))
