"""`relu_`, `sigmoid_`, `tanh_` and `inplace=True` activations: the tensor itself is overwritten and records
the op's own node (ReluBackward0, not a copy), as torch does; a leaf or a saved tensor is guarded."""

import ferrograd as fg
import numpy as np
import pytest

X = np.array([-1.5, -0.0, 0.0, 0.25, 3.0], dtype=np.float64)
FORWARD = {
    "relu_": (lambda x: np.maximum(x, 0.0), lambda x: (x > 0).astype(np.float64)),
    "sigmoid_": (lambda x: 1 / (1 + np.exp(-x)), lambda x: np.exp(-x) / (1 + np.exp(-x)) ** 2),
    "tanh_": (np.tanh, lambda x: 1 - np.tanh(x) ** 2),
}
NODE = {"relu_": "ReluBackward0", "sigmoid_": "SigmoidBackward0", "tanh_": "TanhBackward0"}


@pytest.mark.parametrize("name", list(FORWARD))
def test_inplace_activation_overwrites_and_records_its_own_node(name):
    f, df = FORWARD[name]
    a = fg.tensor(X, requires_grad=True)
    b = a * 2
    out = getattr(b, name)()
    assert out is b and b._version == 1 and b.grad_fn.name() == NODE[name]
    assert [type(n).__name__ for n, _ in b.grad_fn.next_functions] == ["MulBackward0"]
    np.testing.assert_allclose(b.detach().numpy(), f(2 * X), rtol=1e-15)
    b.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 2 * df(2 * X), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", list(FORWARD))
def test_inplace_activation_guards_leaves_and_saved_tensors(name):
    leaf = fg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        getattr(leaf, name)()
    assert leaf.tolist() == [1.0] and leaf._version == 0
    a = fg.tensor([0.5, -2.0], requires_grad=True)
    c = a * 1
    d = c * c  # saves c
    getattr(c, name)()
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation has been modified"):
        d.sum().backward()


def test_relu_on_integers_and_sigmoid_refusing_them():
    assert fg.tensor([1, -2, 0]).relu_().tolist() == [1, 0, 0]
    t = fg.tensor([1, -2])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        t.sigmoid_()
    assert t.tolist() == [1, -2]


def test_relu_inplace_in_functional_and_module_form():
    z = fg.tensor([-1.0, 2.0])
    assert fg.nn.functional.relu(z, inplace=True) is z and z.tolist() == [0.0, 2.0]
    w = fg.tensor([3.0, -0.5])
    assert fg.nn.functional.relu_(w) is w and w.tolist() == [3.0, 0.0]
    fg.manual_seed(0)
    m = fg.nn.Sequential(fg.nn.Linear(3, 3), fg.nn.ReLU(inplace=True))
    y = m(fg.tensor([[-1.0, 0.0, 2.0], [3.0, -4.0, 0.5]]))
    assert y.grad_fn.name() == "ReluBackward0"
    assert [type(n).__name__ for n, _ in y.grad_fn.next_functions] == ["AddmmBackward0"]
    y.sum().backward()
    assert m[0].weight.grad.shape == (3, 3)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["relu_", "abs_", "neg_", "floor_", "sigmoid_", "exp_", "sqrt_", "reciprocal_"])
def test_inplace_without_gradient_equals_the_op_out_of_place(name, dtype):
    """Without a gradient to take, an in-place unary op writes the tensor's memory in one pass (float64, and
    float32 ops without a hand-vectorized kernel) or out of place and back: the values are the op's, bit for bit,
    at ties and zeros too, large enough to split across threads, through a view, and the version moves once."""
    rng = np.random.default_rng(0)
    values = np.concatenate([[-1.5, -0.0, 0.0, 0.5, 2.5, np.inf, -np.inf, np.nan], rng.standard_normal(70_000) * 3])
    x = fg.tensor(values, dtype=getattr(fg, dtype))
    want = getattr(x, name[:-1])()
    y = x.clone()
    version = y._version
    assert getattr(y, name)() is y
    np.testing.assert_array_equal(y.numpy(), want.numpy())
    assert y._version == version + 1
    base = x.clone()
    getattr(base[8:100], name)()
    # torch's own float32 sigmoid differs by an ulp with the data's alignment (its vector loop and its tail)
    np.testing.assert_allclose(base[8:100].numpy(), want[8:100].numpy(), rtol=2e-7 if dtype == "float32" else 0)
    np.testing.assert_array_equal(base[100:].numpy(), x[100:].numpy())
    with fg.no_grad():
        leaf = x.clone().requires_grad_()
        getattr(leaf, name)()  # a leaf that requires grad may be written under no_grad
    np.testing.assert_array_equal(leaf.detach().numpy(), want.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["add_", "sub_", "mul_", "div_"])
@pytest.mark.parametrize("other", [0.7, 3, -0.0], ids=["float", "int", "minus-zero"])
def test_inplace_arithmetic_by_a_number_equals_the_op_out_of_place(op, other, dtype):
    """`x.mul_(0.9)` (a hand-written optimizer's update) in one pass: the number read in the tensor's dtype, as
    the out-of-place op reads it; a 0-d tensor too. One that is a view of an element written is torch's error."""
    x = fg.tensor(np.random.default_rng(1).standard_normal(50_000) * 5, dtype=getattr(fg, dtype))
    for number in (other, fg.tensor(other, dtype=fg.float64)):
        y = x.clone()
        version = y._version
        assert getattr(y, op)(number) is y and y._version == version + 1
        np.testing.assert_array_equal(y.numpy(), getattr(x, op[:-1])(number).numpy())
    y = x.clone()
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor refer to"):
        getattr(y, op)(y[0])  # the number is one of the elements written
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    getattr(y, op)(y)  # the tensor itself is no partial overlap
    np.testing.assert_array_equal(y.numpy(), getattr(x, op[:-1])(x).numpy())


def test_inplace_relu_in_a_graph_keeps_no_copy_of_its_input():
    """ReLU keeps only its result, so `relu_` on a graph value reads that tensor without copying it first; its
    gradient and the guard against a later write are torch's."""
    a = fg.tensor(X, requires_grad=True)
    b = a * 2
    b.relu_()
    assert b.grad_fn.name() == "ReluBackward0" and b._version == 1
    (b * b).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), 8 * np.maximum(X, 0.0))
    c = a * 2
    c.relu_()
    d = c * 3
    c.relu_()  # writes the result ReluBackward0 kept
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation has been modified"):
        d.sum().backward()


def test_inplace_arithmetic_refuses_a_partly_overlapping_operand():
    """torch's check: both dense, sharing memory, not the same elements (a transpose, a shifted slice); an
    operand it cannot judge (strided) or the tensor itself runs."""
    message = "some elements of the input tensor and the written-to tensor refer to a single memory location"
    x = fg.arange(4.0).reshape(2, 2)
    for write in (lambda: x.T.add_(x), lambda: x.view(-1)[1:].add_(x.view(-1)[:-1]), lambda: x.mul_(x[0])):
        with pytest.raises(RuntimeError, match=message):
            write()
    assert x.tolist() == [[0.0, 1.0], [2.0, 3.0]] and x._version == 0
    y = fg.arange(6.0)
    y[::2].add_(y[1::2])
    assert y.tolist() == [1.0, 1.0, 5.0, 3.0, 9.0, 5.0]
    y.sub_(y)
    assert y.tolist() == [0.0] * 6


@pytest.mark.parametrize("name", list(FORWARD))
def test_inplace_activation_with_a_gradient_reaches_every_alias(name):
    """With a gradient the op is computed out of place and its result written back (ferrograd hands the result's
    memory over when nothing else can see the tensor's old memory): a view taken before, a detached alias and a numpy
    array over the memory all read the new values, and the gradient is the op's."""
    f, df = FORWARD[name]
    a = fg.tensor(X, requires_grad=True)
    b = a * 2
    view, alias = b[1:], b.detach()
    exported = b.detach().numpy()
    getattr(b, name)()
    want = f(2 * X)
    np.testing.assert_allclose(b.detach().numpy(), want, rtol=1e-15)
    np.testing.assert_allclose(view.detach().numpy(), want[1:], rtol=1e-15)
    np.testing.assert_allclose(alias.numpy(), want, rtol=1e-15)
    np.testing.assert_allclose(exported, want, rtol=1e-15)
    assert alias._version == b._version == 1
    (b * 3).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 6 * df(2 * X), rtol=1e-12, atol=1e-15)
    # a large float32 tensor (the kernels' dense path), whose memory nothing else shares
    x = fg.tensor(np.linspace(-3, 3, 1 << 18, dtype=np.float32), requires_grad=True)
    y = x * 1
    getattr(y, name)()
    np.testing.assert_allclose(y.detach().numpy(), f(np.linspace(-3, 3, 1 << 18)), rtol=1e-6, atol=1e-7)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), df(np.linspace(-3, 3, 1 << 18)), rtol=1e-5, atol=1e-6)
