"""F.linear / addmm against the composition `x @ w.t() + b` and numpy: values and gradients for float32 and
float64, 1-D to 3-D inputs, with and without bias, every operand layout, biases broadcast from each shape,
requires_grad on each operand, under no_grad and not; the grad_fn graph torch records; gradcheck; the
shape errors' messages. Sizes straddle the one-row dot kernel's vector width (16) and row group (4), and
batches on both sides of the switch to gemm (4 rows)."""

import itertools

import ferrograd as fg
import numpy as np
import pytest
from helpers import gradcheck

F = fg.nn.functional
DTYPES = {"float32": (np.float32, 2e-5), "float64": (np.float64, 1e-12)}


def layout(a, kind, dtype):
    """A tensor holding `a` contiguous, transposed (a view of the transposed storage) or every other row."""
    if kind == "contiguous" or a.ndim < 2:
        return fg.tensor(a, dtype=dtype)
    if kind == "transposed":
        return fg.tensor(np.ascontiguousarray(a.swapaxes(-1, -2)), dtype=dtype).transpose(-1, -2)
    stepped = np.zeros((2 * a.shape[0],) + a.shape[1:])
    stepped[1::2] = a
    return fg.tensor(stepped, dtype=dtype)[1::2]


def reference(x, w, b):
    out = x.astype(np.float64) @ w.astype(np.float64).T
    return out if b is None else out + b


@pytest.mark.parametrize("dtype_name", DTYPES)
@pytest.mark.parametrize("lead", [(), (1,), (3,), (4,), (5,), (2, 3)])
@pytest.mark.parametrize("k,n", [(1, 3), (5, 1), (16, 4), (37, 9), (64, 10)])
def test_values_match_numpy_and_the_composition(dtype_name, lead, k, n):
    np_dtype, rtol = DTYPES[dtype_name]
    dtype = getattr(fg, dtype_name)
    r = np.random.default_rng(len(lead) * 100 + k * 10 + n)
    x, w, b = r.standard_normal(lead + (k,)), r.standard_normal((n, k)), r.standard_normal(n)
    x, w, b = x.astype(np_dtype), w.astype(np_dtype), b.astype(np_dtype)
    for x_kind in ["contiguous", "transposed", "stepped"]:
        for w_kind in ["contiguous", "transposed", "stepped"]:
            for bias in [b, None]:
                xt, wt = layout(x, x_kind, dtype), layout(w, w_kind, dtype)
                bt = None if bias is None else fg.tensor(bias, dtype=dtype)
                out = F.linear(xt, wt, bt)
                composed = xt @ wt.t() if bt is None else xt @ wt.t() + bt
                assert out.dtype == dtype and tuple(out.shape) == lead + (n,)
                want = reference(x, w, bias)
                np.testing.assert_allclose(out.numpy(), want, rtol=rtol, atol=rtol * 10)
                np.testing.assert_allclose(out.numpy(), composed.numpy(), rtol=rtol, atol=rtol * 10)


@pytest.mark.parametrize("bias_shape", [(), (1,), (7,), (1, 7), (3, 1), (3, 7)])
@pytest.mark.parametrize("m", [1, 3])
def test_addmm_broadcasts_the_bias_from_each_shape(bias_shape, m):
    r = np.random.default_rng(5)
    shape = tuple(m if s == 3 else s for s in bias_shape)
    bias, a, bm = r.standard_normal(shape), r.standard_normal((m, 20)), r.standard_normal((20, 7))
    out = fg.addmm(fg.tensor(bias), fg.tensor(a), fg.tensor(bm))
    np.testing.assert_allclose(out.numpy(), bias + a @ bm, rtol=1e-12, atol=1e-12)
    # an expanded (stride 0) bias reads the same numbers
    expanded = fg.tensor(np.array(bias)).expand(m, 7)
    out = fg.addmm(expanded, fg.tensor(a), fg.tensor(bm))
    np.testing.assert_allclose(out.numpy(), bias + a @ bm, rtol=1e-12, atol=1e-12)


def test_a_product_large_enough_for_threads():
    r = np.random.default_rng(6)
    x, w, b = r.standard_normal((256, 128)), r.standard_normal((256, 128)), r.standard_normal(256)
    out = F.linear(fg.tensor(x, dtype=fg.float32), fg.tensor(w, dtype=fg.float32), fg.tensor(b, dtype=fg.float32))
    np.testing.assert_allclose(out.numpy(), x @ w.T + b, rtol=1e-4, atol=1e-4)


def test_empty_and_degenerate_sizes():
    b = fg.tensor([1.0, 2.0])
    np.testing.assert_array_equal(F.linear(fg.zeros(1, 0), fg.zeros(2, 0), b).numpy(), [[1.0, 2.0]])
    assert tuple(F.linear(fg.zeros(0, 3), fg.zeros(2, 3), b).shape) == (0, 2)
    assert tuple(F.linear(fg.zeros(1, 3), fg.zeros(0, 3), fg.zeros(0)).shape) == (1, 0)
    # non-finite values propagate as in the composition
    out = F.linear(
        fg.tensor([[float("inf"), 1.0]]), fg.tensor([[1.0, 0.0], [0.0, 1.0]]), fg.tensor([0.0, float("nan")])
    )
    assert np.isinf(out.numpy()[0, 0]) and np.isnan(out.numpy()[0, 1])


@pytest.mark.parametrize("needs", list(itertools.product([False, True], repeat=3)))
@pytest.mark.parametrize("lead", [(), (1,), (3,), (6,), (2, 3)])
@pytest.mark.parametrize("dtype_name", DTYPES)
def test_gradients_match_the_composition(needs, lead, dtype_name):
    np_dtype, rtol = DTYPES[dtype_name]
    dtype = getattr(fg, dtype_name)
    r = np.random.default_rng(len(lead) + 7)
    x, w, b = (r.standard_normal(s).astype(np_dtype) for s in (lead + (18,), (5, 18), (5,)))
    g = r.standard_normal(lead + (5,)).astype(np_dtype)
    results = []
    for fused in (True, False):
        leaves = [fg.tensor(a, dtype=dtype, requires_grad=need) for a, need in zip((x, w, b), needs)]
        xt, wt, bt = leaves
        out = F.linear(xt, wt, bt) if fused else xt @ wt.t() + bt
        assert out.requires_grad == any(needs)
        if any(needs):
            out.backward(fg.tensor(g, dtype=dtype))
        results.append([None if t.grad is None else t.grad.numpy() for t in leaves])
    for got, want, need in zip(*results, needs):
        assert (got is None) == (not need)
        if need:
            np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * 10)


def test_no_grad_records_nothing():
    x = fg.ones(1, 4, requires_grad=True)
    layer = fg.nn.Linear(4, 3)
    with fg.no_grad():
        out = layer(x)
        plain = F.linear(x, layer.weight, layer.bias)
    assert out.grad_fn is None and not out.requires_grad and plain.grad_fn is None
    np.testing.assert_array_equal(out.numpy(), F.linear(x, layer.weight, layer.bias).detach().numpy())


def graph(t, depth=3):
    """(name, [children]) of a grad_fn down to `depth` nodes (None where an input needs no grad)."""

    def walk(fn, d):
        if fn is None or d == 0:
            return None
        return (fn.name(), [walk(f, d - 1) for f, _ in fn.next_functions])

    return walk(t.grad_fn, depth)


ACC = ("torch::autograd::AccumulateGrad", [])
# what torch 2.15 records for F.linear (input, weight and bias all requiring grad)
GRAPHS = {
    ((3,), True): (
        "UnsafeViewBackward0",
        [("AddmmBackward0", [ACC, ("ViewBackward0", [None]), ("TBackward0", [None])])],
    ),
    ((3,), False): ("SqueezeBackward4", [("MmBackward0", [("UnsqueezeBackward0", [None]), ("TBackward0", [None])])]),
    ((2, 3), True): ("AddmmBackward0", [ACC, ACC, ("TBackward0", [ACC])]),
    ((2, 3), False): ("MmBackward0", [ACC, ("TBackward0", [ACC])]),
    ((2, 2, 3), True): (
        "UnsafeViewBackward0",
        [("AddmmBackward0", [ACC, ("ViewBackward0", [None]), ("TBackward0", [None])])],
    ),
    ((2, 2, 3), False): ("UnsafeViewBackward0", [("MmBackward0", [("ViewBackward0", [None]), ("TBackward0", [None])])]),
}


@pytest.mark.parametrize("shape,with_bias", list(GRAPHS))
def test_grad_fn_graph_is_torchs(shape, with_bias):
    x = fg.ones(*shape, requires_grad=True)
    w = fg.ones(4, 3, requires_grad=True)
    b = fg.ones(4, requires_grad=True) if with_bias else None
    assert graph(F.linear(x, w, b)) == GRAPHS[(shape, with_bias)]


def test_grad_fn_edges_follow_which_operands_need_grad():
    x, w, b = fg.ones(2, 3), fg.ones(4, 3), fg.ones(4)
    only_x = F.linear(x.clone().requires_grad_(), w, b)
    only_b = F.linear(x, w, b.clone().requires_grad_())
    assert graph(only_x) == ("AddmmBackward0", [None, ACC, None])
    assert graph(only_b) == ("AddmmBackward0", [ACC, None, None])


@pytest.mark.parametrize("lead", [(), (1,), (2,), (2, 3)])
@pytest.mark.parametrize("with_bias", [True, False])
def test_gradcheck(lead, with_bias):
    r = np.random.default_rng(9)
    x, w, b = r.standard_normal(lead + (17,)), r.standard_normal((5, 17)), r.standard_normal(5)
    if with_bias:
        gradcheck(F.linear, [x, w, b])
    else:
        gradcheck(lambda x, w: F.linear(x, w), [x, w])
    # a weight used transposed (non-contiguous), as a tied or pre-transposed one is
    gradcheck(lambda x, wt, b: F.linear(x, wt.t(), b), [x, w.T.copy(), b])


@pytest.mark.parametrize(
    "x_shape,w_shape,bias,message",
    [
        ((1, 3), (5, 4), True, r"mat1 and mat2 shapes cannot be multiplied \(1x3 and 4x5\)"),
        ((1, 3), (5, 4), False, r"mat1 and mat2 shapes cannot be multiplied \(1x3 and 4x5\)"),
        ((3,), (5, 4), True, r"mat1 and mat2 shapes cannot be multiplied \(1x3 and 4x5\)"),
        ((2, 2, 3), (5, 4), True, r"mat1 and mat2 shapes cannot be multiplied \(4x3 and 4x5\)"),
    ],
)
def test_shape_errors_keep_torchs_message(x_shape, w_shape, bias, message):
    x, w = fg.ones(*x_shape), fg.ones(*w_shape, requires_grad=True)
    b = fg.ones(w_shape[0]) if bias else None
    with pytest.raises(RuntimeError, match=message):
        F.linear(x, w, b)
    assert w.grad is None


def test_a_bias_of_the_wrong_size_is_refused():
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(5\) must match the existing size \(3\)"):
        F.linear(fg.ones(1, 4), fg.ones(5, 4), fg.ones(3))


def test_mixed_dtypes_are_refused():
    with pytest.raises(RuntimeError, match="must have the same dtype"):
        F.linear(fg.ones(1, 4), fg.ones(5, 4, dtype=fg.float64), fg.ones(5))
    with pytest.raises(RuntimeError, match="must have the same dtype"):
        F.linear(fg.ones(1, 4), fg.ones(5, 4), fg.ones(5, dtype=fg.float64))
