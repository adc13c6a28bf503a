"""`torch.utils.swap_tensors` (pytorch/tutorials' swap_tensors recipe): two tensors exchange what they are and
keep who they are. Runs against torch too (FG_TEST_AGAINST_TORCH=1)."""

import weakref

import ferrograd as fg
import pytest
from helpers import AGAINST_TORCH


def test_two_tensors_exchange_contents_and_keep_their_identity():
    t1, t2 = fg.arange(2), fg.arange(3)
    ids = id(t1), id(t2)
    fg.utils.swap_tensors(t1, t2)
    assert (id(t1), id(t2)) == ids
    assert t1.tolist() == [0, 1, 2] and t2.tolist() == [0, 1]
    t1.add_(10)  # each object now owns the other's storage
    assert t1.tolist() == [10, 11, 12] and t2.tolist() == [0, 1]


def test_parameters_exchange_grad_requires_grad_and_attributes():
    p1 = fg.nn.Parameter(fg.ones(2))
    p2 = fg.nn.Parameter(fg.zeros(3, dtype=fg.float64), requires_grad=False)
    p1.note = "first"
    (p1 * 3).sum().backward()
    fg.utils.swap_tensors(p1, p2)
    assert p1.dtype == fg.float64 and p1.shape == (3,) and not p1.requires_grad and p1.grad is None
    assert p2.tolist() == [1.0, 1.0] and p2.requires_grad and p2.grad.tolist() == [3.0, 3.0]
    assert p2.note == "first" and not hasattr(p1, "note")


def test_a_swapped_leaf_trains_under_its_new_contents():
    model = fg.nn.Linear(2, 1)
    new_weight = fg.nn.Parameter(fg.full((1, 2), 0.5))
    weight = model.weight
    fg.utils.swap_tensors(model.weight, new_weight)
    assert model.weight is weight and model.weight.tolist() == [[0.5, 0.5]]
    model(fg.ones(1, 2)).sum().backward()
    assert model.weight.grad.tolist() == [[1.0, 1.0]] and new_weight.grad is None


def test_weakrefs_and_saved_tensors_are_refused_and_nothing_changes():
    t1, t2 = fg.ones(2), fg.zeros(2)
    ref = weakref.ref(t1)
    with pytest.raises(RuntimeError, match="Cannot swap t1 because it has weakref associated with it"):
        fg.utils.swap_tensors(t1, t2)
    with pytest.raises(RuntimeError, match="Cannot swap t2 because it has weakref associated with it"):
        fg.utils.swap_tensors(t2, t1)
    del ref
    x = fg.ones(2, requires_grad=True)
    y = x * x  # saves x for its gradient
    with pytest.raises(RuntimeError, match="Expected use_count of t2 to be 1 or 2 with an AccumulateGrad node"):
        fg.utils.swap_tensors(t2, x)
    assert t2.tolist() == [0.0, 0.0] and x.requires_grad
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


@pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd's own limits: torch swaps views and a tensor with a subclass")
def test_views_and_mixed_classes_are_refused_with_the_reason():
    base = fg.ones(4)
    view, other = base[:2], fg.zeros(2)
    with pytest.raises(RuntimeError, match="cannot swap a view"):
        fg.utils.swap_tensors(view, other)
    with pytest.raises(RuntimeError, match="cannot swap a Tensor with a Parameter"):
        fg.utils.swap_tensors(other, fg.nn.Parameter(fg.ones(2)))
    assert view.tolist() == [1.0, 1.0] and other.tolist() == [0.0, 0.0]
