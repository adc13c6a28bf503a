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
