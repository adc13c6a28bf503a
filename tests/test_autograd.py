"""Autograd semantics: the tutorial's numbers, grad_fn names (checked against torch),
accumulation, leaves, detach/.data, no_grad, views sharing storage, the old Variable API."""

import re
import threading
import warnings

import ferrograd as fg
import numpy as np
import pytest
from helpers import AGAINST_TORCH, assert_tensor, dtype_name

# ---------------------------------------------------------------------------
# the tutorial, end to end
# ---------------------------------------------------------------------------


def test_tutorial_mean_of_3_y_squared():
    x = fg.ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    assert_tensor(y, np.full((2, 2), 3.0))
    assert_tensor(z, np.full((2, 2), 27.0))
    assert out.item() == 27.0
    assert x.grad is None
    out.backward()
    assert_tensor(x.grad, np.full((2, 2), 4.5), dtype="float32")
    assert x.grad.requires_grad is False
    assert x.grad.grad_fn is None


def test_tutorial_requires_grad_():
    a = fg.randn(2, 2)
    a = (a * 3) / (a - 1)
    assert a.requires_grad is False
    assert (a * a).sum().grad_fn is None
    assert a.requires_grad_(True) is a
    assert a.requires_grad is True
    b = (a * a).sum()
    assert b.grad_fn.name() == "SumBackward0"


def test_tutorial_vector_jacobian_product(seeded):
    x = fg.randn(3, requires_grad=True)
    y = x * 2
    while y.data.norm() < 1000:
        y = y * 2
    assert y.norm().item() >= 1000
    gradients = fg.tensor([0.1, 1.0, 0.0001], dtype=fg.float)
    y.backward(gradients)
    scale = (y.detach() / x.detach()).numpy()  # 2 ** k, the same for every element
    assert np.allclose(scale, scale[0]) and float(np.log2(scale[0])).is_integer()
    assert_tensor(x.grad, scale[0] * np.array([0.1, 1.0, 0.0001]), dtype="float32")


@pytest.mark.parametrize(
    "gradient,expected",
    [
        pytest.param([1, 1, 1], [24.0, 32.0, 40.0], id="ones"),
        pytest.param([1, 10, 100], [24.0, 320.0, 4000.0], id="weights"),
    ],
)
def test_tutorial_backward_with_int_gradient(gradient, expected):
    x = fg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x + 2) ** 2
    z = 4 * y
    z.backward(fg.tensor(gradient))  # an int64 gradient for a float32 output
    assert_tensor(x.grad, np.array(expected), dtype="float32")


def test_scalar_backward_with_explicit_gradients():
    for gradient in (fg.tensor(1), fg.tensor(1.0), fg.tensor(2.0, dtype=fg.float64)):
        x = fg.ones(3, requires_grad=True)
        (x * 2).sum().backward(gradient)
        assert_tensor(x.grad, np.full(3, 2.0 * gradient.item()), dtype="float32")


def test_gradient_dtype_is_cast_to_output_dtype():
    x = fg.ones(3, requires_grad=True)
    (x * 2).backward(fg.tensor([1.0, 1.0, 1.0], dtype=fg.float64))
    assert_tensor(x.grad, np.full(3, 2.0), dtype="float32")


def test_tutorial_detach_and_eq_all():
    x = fg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    assert x.requires_grad is True
    assert (x**2).requires_grad is True
    with fg.no_grad():
        assert (x**2).requires_grad is False
    y = x.detach()
    assert y.requires_grad is False
    eq = x.eq(y).all()
    assert dtype_name(eq.dtype) == "bool"
    assert eq.item() is True


# ---------------------------------------------------------------------------
# grad_fn names (each checked against torch 2.15)
# ---------------------------------------------------------------------------

GRAD_FNS = [
    # expected name, expression of x (2x3), w (3x4), b (2x3x4), c (2x4x5), p (positive 2x3)
    ("AddBackward0", lambda x, w, b, c, p: x + 2),
    ("AddBackward0", lambda x, w, b, c, p: 2 + x),
    ("AddBackward0", lambda x, w, b, c, p: x + p),
    ("AddBackward0", lambda x, w, b, c, p: x + fg.tensor(2.0)),
    ("SubBackward0", lambda x, w, b, c, p: x - 2),
    ("SubBackward0", lambda x, w, b, c, p: x - p),
    ("RsubBackward1", lambda x, w, b, c, p: 2 - x),
    ("MulBackward0", lambda x, w, b, c, p: x * 2),
    ("MulBackward0", lambda x, w, b, c, p: 4 * x),
    ("MulBackward0", lambda x, w, b, c, p: x * x),
    ("DivBackward0", lambda x, w, b, c, p: x / 3),
    ("DivBackward0", lambda x, w, b, c, p: x / p),
    ("MulBackward0", lambda x, w, b, c, p: 3 / x),  # torch: reciprocal(x) * 3
    ("NegBackward0", lambda x, w, b, c, p: -x),
    ("PowBackward0", lambda x, w, b, c, p: x**2),
    ("PowBackward0", lambda x, w, b, c, p: x**0.5),
    ("PowBackward1", lambda x, w, b, c, p: p**x),
    ("PowBackward2", lambda x, w, b, c, p: 2**x),
    ("ExpBackward0", lambda x, w, b, c, p: x.exp()),
    ("LogBackward0", lambda x, w, b, c, p: p.log()),
    ("SumBackward0", lambda x, w, b, c, p: x.sum()),
    ("SumBackward1", lambda x, w, b, c, p: x.sum(0)),
    ("SumBackward1", lambda x, w, b, c, p: x.sum(dim=-1, keepdim=True)),
    ("SumBackward1", lambda x, w, b, c, p: b.sum((0, 2))),
    ("MeanBackward0", lambda x, w, b, c, p: x.mean()),
    ("MeanBackward1", lambda x, w, b, c, p: x.mean(1)),
    ("MeanBackward1", lambda x, w, b, c, p: x.mean(dim=0, keepdim=True)),
    ("LinalgVectorNormBackward0", lambda x, w, b, c, p: x.norm()),
    ("MmBackward0", lambda x, w, b, c, p: x @ w),
    ("MmBackward0", lambda x, w, b, c, p: x.matmul(w)),
    ("UnsafeViewBackward0", lambda x, w, b, c, p: b @ c),  # batched: bmm, then a view
    ("UnsafeViewBackward0", lambda x, w, b, c, p: b @ c[0]),  # batched @ matrix: folded into mm
    ("ViewBackward0", lambda x, w, b, c, p: x.view(3, 2)),
    ("ViewBackward0", lambda x, w, b, c, p: x.reshape(-1)),  # contiguous: a view
    ("UnsafeViewBackward0", lambda x, w, b, c, p: x.t().reshape(-1)),  # strided: a copy
    ("TransposeBackward0", lambda x, w, b, c, p: x.transpose(0, 1)),
    ("TBackward0", lambda x, w, b, c, p: x.t()),
    ("PermuteBackward0", lambda x, w, b, c, p: b.permute(2, 0, 1)),
    ("UnsqueezeBackward0", lambda x, w, b, c, p: x.unsqueeze(0)),
    ("UnsqueezeBackward0", lambda x, w, b, c, p: x[None]),
    ("UnsqueezeBackward0", lambda x, w, b, c, p: x[:, None]),
    ("SqueezeBackward0", lambda x, w, b, c, p: x[None].squeeze()),
    ("SqueezeBackward1", lambda x, w, b, c, p: x[None].squeeze(0)),
    ("ExpandBackward0", lambda x, w, b, c, p: x.expand(4, 2, 3)),
    ("SelectBackward0", lambda x, w, b, c, p: x[0]),
    ("SelectBackward0", lambda x, w, b, c, p: x[:, -1]),
    ("SelectBackward0", lambda x, w, b, c, p: b[..., 0]),
    ("SliceBackward0", lambda x, w, b, c, p: x[0:1]),
    ("SliceBackward0", lambda x, w, b, c, p: b[::2]),
    ("SliceBackward0", lambda x, w, b, c, p: b[0, 1:]),
    ("SliceBackward0", lambda x, w, b, c, p: b[..., ::2]),
]


# A batch of matrices @ one matrix is folded into one mm as torch's `should_fold` decides: always when the
# matrix needs its gradient, else when the batch dims merge without a copy (the last dim may be strided).
# The expected second node was read from torch 2.15.
FOLDS = [
    ("strided_last_dim", lambda base, w: base[:, :, ::2] @ w, "MmBackward0"),
    ("transposed_batch", lambda base, w: base.transpose(0, 1)[:, :, :5] @ w, "BmmBackward0"),
    ("contiguous", lambda base, w: base[:, :, :5].contiguous() @ w, "MmBackward0"),
    ("matrix_needs_grad", lambda base, w: base.transpose(0, 1)[:, :, :5] @ w.requires_grad_(), "MmBackward0"),
]


@pytest.mark.parametrize("name,f,inner", FOLDS, ids=[c[0] for c in FOLDS])
def test_batched_matmul_folds_as_torch(name, f, inner):
    base = fg.arange(120.0).reshape(4, 3, 10).requires_grad_()
    w = fg.ones(5, 2)
    y = f(base, w)
    assert y.grad_fn.name() == "UnsafeViewBackward0"
    assert y.grad_fn.next_functions[0][0].name() == inner
    y.sum().backward()
    assert base.grad.sum().item() == 120.0  # 60 elements used once each, times w's two columns of ones


def _operands(requires_grad=True):
    rng = np.random.default_rng(0)
    shapes = [(2, 3), (3, 4), (2, 3, 4), (2, 4, 5)]
    ts = [fg.tensor(rng.standard_normal(s), dtype=fg.float32, requires_grad=requires_grad) for s in shapes]
    p = fg.tensor(rng.uniform(0.5, 2.0, (2, 3)), dtype=fg.float32, requires_grad=requires_grad)
    return ts + [p]


@pytest.mark.parametrize("name,f", [pytest.param(n, f, id=f"{n}-{i}") for i, (n, f) in enumerate(GRAD_FNS)])
def test_grad_fn_name_and_repr(name, f):
    out = f(*_operands())
    assert out.requires_grad is True
    assert out.is_leaf is False
    assert out.grad_fn.name() == name
    assert re.fullmatch(rf"<{name} object at 0x[0-9a-fA-F]+>", repr(out.grad_fn)), repr(out.grad_fn)


@pytest.mark.parametrize("name,f", [pytest.param(n, f, id=f"{n}-{i}") for i, (n, f) in enumerate(GRAD_FNS)])
def test_no_grad_fn_without_requires_grad(name, f):
    out = f(*_operands(requires_grad=False))
    assert out.grad_fn is None
    assert out.requires_grad is False
    assert out.is_leaf is True


def test_grad_fn_for_one_input_requiring_grad():
    x = fg.ones(2, 2)
    w = fg.ones(2, 2, requires_grad=True)
    assert (x @ w).grad_fn.name() == "MmBackward0"
    assert (fg.tensor([1, 2]) + fg.ones(2, requires_grad=True)).grad_fn.name() == "AddBackward0"


# ---------------------------------------------------------------------------
# leaves, requires_grad, .grad
# ---------------------------------------------------------------------------


def test_requires_grad_propagation():
    a = fg.ones(3, requires_grad=True)
    b = fg.ones(3)
    assert (a + b).requires_grad is True
    assert (b * a).requires_grad is True
    assert (b + b).requires_grad is False
    assert (a > b).requires_grad is False  # comparisons are not differentiable
    assert a.eq(b).grad_fn is None
    assert a.detach().requires_grad is False
    assert (a.detach() * 2).requires_grad is False


def test_is_leaf():
    a = fg.ones(3, requires_grad=True)
    b = fg.ones(3)
    assert a.is_leaf and b.is_leaf
    assert (a * 2).is_leaf is False
    assert (b * 2).is_leaf is True
    assert a.detach().is_leaf is True
    assert (a * 2).detach().is_leaf is True
    with fg.no_grad():
        assert (a * 2).is_leaf is True


def test_requires_grad_setter_on_leaf():
    a = fg.ones(3)
    a.requires_grad = True
    assert a.requires_grad is True and a.is_leaf
    (a * 3).sum().backward()
    assert_tensor(a.grad, np.full(3, 3.0))
    a.requires_grad = False
    assert a.requires_grad is False
    assert (a * 3).grad_fn is None


def test_requires_grad_underscore_default_and_off():
    a = fg.zeros(2)
    assert a.requires_grad_() is a
    assert a.requires_grad is True
    a.requires_grad_(False)
    assert a.requires_grad is False


def test_leaf_grad_is_none_before_backward_and_nonleaf_grad_stays_none():
    x = fg.ones(2, requires_grad=True)
    y = x * 2
    assert x.grad is None
    y.sum().backward()
    assert_tensor(x.grad, np.full(2, 2.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns when reading .grad of a non-leaf
        assert y.grad is None


def test_grad_can_be_reset_to_none():
    x = fg.ones(2, requires_grad=True)
    (x * 2).sum().backward()
    x.grad = None
    assert x.grad is None
    (x * 5).sum().backward()
    assert_tensor(x.grad, np.full(2, 5.0))


def test_no_grad_for_inputs_that_do_not_require_it():
    x = fg.ones(2, requires_grad=True)
    c = fg.full((2,), 3.0)
    (x * c).sum().backward()
    assert_tensor(x.grad, np.full(2, 3.0))
    assert c.grad is None


# ---------------------------------------------------------------------------
# accumulation and graph structure
# ---------------------------------------------------------------------------


def test_grad_accumulates_over_two_graphs():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    assert_tensor(x.grad, np.array([2.0, 4.0]))
    (x * 3).sum().backward()
    assert_tensor(x.grad, np.array([5.0, 7.0]))


def test_grad_accumulates_with_retain_graph():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert_tensor(x.grad, np.array([4.0, 8.0]))


def test_grad_accumulates_in_place_in_the_same_grad_tensor():
    x = fg.ones(2, requires_grad=True)
    (x * 2).sum().backward()
    g = x.grad
    (x * 2).sum().backward()
    assert_tensor(x.grad, np.full(2, 4.0))
    assert_tensor(g, np.full(2, 4.0))


def test_graph_without_saved_tensors_can_be_backpropagated_twice():
    x = fg.ones(3, requires_grad=True)
    y = (x + 2).sum()
    y.backward()
    y.backward()
    assert_tensor(x.grad, np.full(3, 2.0))


def _diamond(x):
    y = x * 2  # one node feeding three uses
    return y * y + y


@pytest.mark.parametrize(
    "f,expected",
    [
        pytest.param(lambda x: x + x, lambda a: np.full_like(a, 2.0), id="x+x"),
        pytest.param(lambda x: x * x, lambda a: 2 * a, id="x*x"),
        pytest.param(lambda x: x - x, lambda a: np.zeros_like(a), id="x-x"),
        pytest.param(lambda x: _diamond(x), lambda a: (4 * a + 1) * 2, id="diamond"),
        pytest.param(lambda x: (x * 2).exp() / (x * 2).exp(), lambda a: np.zeros_like(a), id="two-paths"),
        pytest.param(lambda x: x[0] * x[1], lambda a: np.array([a[1], a[0], 0.0]), id="two-selects"),
    ],
)
def test_gradient_from_several_paths_is_summed(f, expected):
    a = np.array([0.5, -1.0, 2.0])
    x = fg.tensor(a, dtype=fg.float64, requires_grad=True)
    f(x).sum().backward()
    assert_tensor(x.grad, expected(a), atol=1e-12)


def test_long_chain_does_not_overflow():
    x = fg.ones(2, requires_grad=True)
    y = x
    for _ in range(20_000):
        y = y * 1.0
    y.sum().backward()
    assert_tensor(x.grad, np.ones(2))
    del y  # dropping a long graph must not crash either


# ---------------------------------------------------------------------------
# detach, .data, views sharing storage
# ---------------------------------------------------------------------------


def test_detach_shares_storage():
    x = fg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    d = x.detach()
    assert d.requires_grad is False and d.is_leaf and d.grad_fn is None
    d[0] = 10.0
    assert x.tolist() == [10.0, 2.0, 3.0]


def test_data_is_a_detached_view_and_assignable():
    x = fg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    d = x.data
    assert d.requires_grad is False
    d[1] = 5.0
    assert x.tolist() == [1.0, 5.0, 3.0]
    x.data = fg.zeros(4)
    assert x.tolist() == [0.0, 0.0, 0.0, 0.0]
    assert x.requires_grad is True and x.is_leaf
    (x * 2).sum().backward()
    assert_tensor(x.grad, np.full(4, 2.0))


VIEWS_OF_2X6 = [
    # a view of t (shape 2x6), an index into the view, the same element's index in t,
    # whether the view may be written to (expanded views overlap, so they may not)
    pytest.param(lambda t: t.view(3, 4), (2, 1), (1, 3), True, id="view"),
    pytest.param(lambda t: t.reshape(12), 7, (1, 1), True, id="reshape"),
    pytest.param(lambda t: t.t(), (4, 1), (1, 4), True, id="t"),
    pytest.param(lambda t: t.transpose(0, 1), (5, 0), (0, 5), True, id="transpose"),
    pytest.param(lambda t: t.permute(1, 0), (2, 1), (1, 2), True, id="permute"),
    pytest.param(lambda t: t.unsqueeze(1), (1, 0, 3), (1, 3), True, id="unsqueeze"),
    pytest.param(lambda t: t[None].squeeze(0), (0, 2), (0, 2), True, id="squeeze"),
    pytest.param(lambda t: t[1], 4, (1, 4), True, id="select"),
    pytest.param(lambda t: t[:, 1::2], (1, 2), (1, 5), True, id="slice-step"),
    pytest.param(lambda t: t[..., None], (0, 3, 0), (0, 3), True, id="ellipsis-none"),
    pytest.param(lambda t: t.detach(), (1, 1), (1, 1), True, id="detach"),
    pytest.param(lambda t: t.expand(3, 2, 6), (2, 1, 1), (1, 1), False, id="expand"),
]


@pytest.mark.parametrize("make_view,view_idx,base_idx,writable", VIEWS_OF_2X6)
def test_views_share_storage(make_view, view_idx, base_idx, writable):
    t = fg.arange(12.0).reshape(2, 6)
    v = make_view(t)
    t[base_idx] = -1.0  # write through the base, read through the view
    assert v[view_idx].item() == -1.0
    if writable:
        v[view_idx] = 42.0  # write through the view, read through the base
        assert t[base_idx].item() == 42.0
        assert (t == 42.0).sum().item() == 1


def test_grad_through_strided_slices():
    x = fg.arange(24.0).reshape(4, 6)
    x.requires_grad_()
    y = x[::2, 1::3] * 3
    y.sum().backward()
    expected = np.zeros((4, 6))
    expected[::2, 1::3] = 3.0
    assert_tensor(x.grad, expected)


def test_grad_through_views_of_a_leaf():
    x = fg.arange(6.0, requires_grad=True)
    y = x.view(2, 3).t()[1:] * fg.tensor([[1.0, 10.0]])  # rows 1 and 2 of x^T
    y.sum().backward()
    assert_tensor(x.grad, np.array([0.0, 1.0, 1.0, 0.0, 10.0, 10.0]))


def test_grad_through_expand_sums():
    x = fg.tensor([[1.0], [2.0], [3.0]], requires_grad=True)
    (x.expand(3, 4) * fg.arange(4.0)).sum().backward()
    assert_tensor(x.grad, np.full((3, 1), 6.0))


# ---------------------------------------------------------------------------
# no_grad
# ---------------------------------------------------------------------------


def test_no_grad_context_manager():
    x = fg.ones(2, requires_grad=True)
    assert fg.is_grad_enabled() is True
    with fg.no_grad():
        assert fg.is_grad_enabled() is False
        y = x * 2
        assert y.requires_grad is False and y.grad_fn is None and y.is_leaf
        leaf = fg.ones(2, requires_grad=True)  # factories still honour requires_grad
        assert leaf.requires_grad is True
    assert fg.is_grad_enabled() is True
    assert (x * 2).requires_grad is True


def test_no_grad_nested_and_restored_after_exception():
    with fg.no_grad():
        with fg.no_grad():
            assert not fg.is_grad_enabled()
        assert not fg.is_grad_enabled()
    assert fg.is_grad_enabled()
    with pytest.raises(ValueError), fg.no_grad():
        raise ValueError("boom")
    assert fg.is_grad_enabled()


def test_no_grad_decorator():
    @fg.no_grad()
    def double(t):
        assert not fg.is_grad_enabled()
        return t * 2

    x = fg.ones(2, requires_grad=True)
    y = double(x)
    assert y.requires_grad is False
    assert fg.is_grad_enabled()
    assert double.__name__ == "double"


def test_no_grad_decorator_without_parentheses():
    @fg.no_grad
    def double(t):
        return t * 2

    assert double(fg.ones(2, requires_grad=True)).requires_grad is False
    assert fg.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = []
    with fg.no_grad():
        th = threading.Thread(target=lambda: seen.append(fg.is_grad_enabled()))
        th.start()
        th.join()
        assert not fg.is_grad_enabled()
    assert seen == [True]


# ---------------------------------------------------------------------------
# the older API (second seed)
# ---------------------------------------------------------------------------


def test_variable_returns_a_tensor():
    x = fg.autograd.Variable(fg.ones(2, 2), requires_grad=True)
    assert isinstance(x, fg.Tensor)
    assert x.requires_grad is True and x.is_leaf
    y = x + 2
    out = (y * y * 3).mean()
    out.backward()
    assert_tensor(x.grad, np.full((2, 2), 4.5))
    assert fg.autograd.Variable(fg.ones(2)).requires_grad is False


def test_legacy_constructors_make_float32():
    for ctor in (fg.FloatTensor, fg.Tensor):
        for data in ([1, 2], [0.1, 1.0, 0.0001], [[1.5], [2.5]]):
            t = ctor(data)
            assert isinstance(t, fg.Tensor)
            assert_tensor(t, np.array(data, dtype=np.float32), dtype="float32")
    assert isinstance(fg.tensor([1]), fg.Tensor)


def test_legacy_vector_jacobian_product(seeded):
    x = fg.autograd.Variable(fg.randn(3), requires_grad=True)
    y = x * 2
    while y.data.norm() < 1000:
        y = y * 2
    y.backward(fg.FloatTensor([0.1, 1.0, 0.0001]))
    scale = (y.detach() / x.detach()).numpy()[0]
    assert_tensor(x.grad, scale * np.array([0.1, 1.0, 0.0001]))


@pytest.mark.skipif(
    AGAINST_TORCH, reason="ferrograd's deprecated alias of grad_fn (old autograd's name); torch has none"
)
def test_creator_is_a_deprecated_alias_of_grad_fn():
    x = fg.ones(2, requires_grad=True)
    y = x + 2
    with pytest.warns(DeprecationWarning):
        creator = y.creator
    assert creator.name() == y.grad_fn.name() == "AddBackward0"
    with pytest.warns(DeprecationWarning):
        assert x.creator is None
