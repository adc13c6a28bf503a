"""Tensor methods about memory, the remaining method forms, post-accumulate-grad hooks and `nn.grad` against
PyTorch (tests/golden/tensor_memory.json; cases in tests/cases_tensor_memory.py), and what a recording cannot
show: that a hooked leaf is still freed, and `nn.grad` against the gradients backward computes."""

import gc
import weakref

import ferrograd as fg
import ferrograd.nn.functional as F
import pytest
from cases_tensor_memory import CASES
from recorded import check, expected

EXPECTED = expected("tensor_memory", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])


def test_a_hooked_leaf_is_freed():
    """The hook holds its leaf weakly: no cycle keeps a parameter alive through its own hook."""
    leaf = fg.ones(3, requires_grad=True)
    leaf.register_post_accumulate_grad_hook(lambda t: None)
    (leaf * 2).sum().backward()
    alive = weakref.ref(leaf)
    del leaf
    gc.collect()
    assert alive() is None


def test_hook_runs_after_accumulation_and_may_step():
    """An in-place update inside the hook sees the summed gradient and lands before backward returns."""
    w = fg.tensor([1.0, -1.0], dtype=fg.float64, requires_grad=True)
    steps = []

    def step(p):
        with fg.no_grad():
            p -= 0.5 * p.grad
        steps.append(p.grad.tolist())
        p.grad = None

    w.register_post_accumulate_grad_hook(step)
    ((w * w).sum() + (3 * w).sum()).backward()  # one accumulation of 2w + 3
    assert steps == [[5.0, 1.0]]
    assert w.tolist() == [-1.5, -1.5]
    assert w.grad is None


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_nn_grad_is_backward_of_the_convolution(dims):
    gen = fg.Generator().manual_seed(dims)
    spatial = (6, 5, 4)[:dims]
    x = fg.randn(2, 3, *spatial, dtype=fg.float64, generator=gen, requires_grad=True)
    w = fg.randn(4, 3, *([3] * dims), dtype=fg.float64, generator=gen, requires_grad=True)
    conv = getattr(F, f"conv{dims}d")
    y = conv(x, w, None, 2, 1, 1, 1)
    go = fg.randn(y.shape, dtype=fg.float64, generator=gen)
    gx, gw = fg.autograd.grad(y, (x, w), go)
    got_x = getattr(fg.nn.grad, f"conv{dims}d_input")(x.shape, w, go, stride=2, padding=1)
    got_w = getattr(fg.nn.grad, f"conv{dims}d_weight")(x, w.shape, go, stride=2, padding=1)
    assert fg.allclose(got_x, gx, rtol=1e-12, atol=1e-12)
    assert fg.allclose(got_w, gw, rtol=1e-12, atol=1e-12)


def test_apply_writes_through_a_view():
    base = fg.arange(6.0).reshape(2, 3)
    base[:, 1].apply_(lambda v: v + 100)
    assert base.tolist() == [[0.0, 101.0, 2.0], [3.0, 104.0, 5.0]]
