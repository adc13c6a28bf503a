"""Sequential of Linear and ReLU layers: the same values, gradients and errors as calling each layer's
forward in turn, whatever the layers are (subclasses, patched forwards, no bias, inplace ReLU, other modules
in between, parameters replaced), under no_grad and not."""

import ferrograd as fg
import numpy as np
import pytest

nn = fg.nn


def mlp(seed=0, bias=True):
    r = np.random.default_rng(seed)
    model = nn.Sequential(nn.Linear(6, 5, bias=bias), nn.ReLU(), nn.Linear(5, 4, bias=bias), nn.ReLU(), nn.Linear(4, 3))
    with fg.no_grad():
        for p in model.parameters():
            p.copy_(fg.tensor(r.standard_normal(tuple(p.shape)), dtype=p.dtype))
    return model


def layer_by_layer(model, x):
    for m in model:
        x = m.forward(x)
    return x


def x_of(shape, seed=1):
    return fg.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=fg.float32)


@pytest.mark.parametrize("shape", [(6,), (1, 6), (3, 6), (2, 2, 6)])
@pytest.mark.parametrize("bias", [True, False])
def test_values_as_layer_by_layer(shape, bias):
    model, x = mlp(bias=bias), x_of(shape)
    with fg.no_grad():
        out = model(x)
        assert out.grad_fn is None and not out.requires_grad
    np.testing.assert_allclose(out.numpy(), layer_by_layer(model, x).detach().numpy(), rtol=1e-6, atol=1e-6)


def test_gradients_as_layer_by_layer():
    grads = []
    for run in (lambda m, x: m(x), layer_by_layer):
        model, x = mlp(), x_of((2, 6)).requires_grad_()
        out = run(model, x)
        assert out.grad_fn.name() == "AddmmBackward0"
        out.sum().backward()
        grads.append([x.grad.numpy()] + [p.grad.numpy() for p in model.parameters()])
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


class Doubled(nn.Linear):
    def forward(self, input):
        return super().forward(input) * 2


class Counting(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, input):
        self.calls += 1
        return input + 1


def test_other_layers_subclasses_and_patched_forwards_run_theirs():
    model, x = mlp(), x_of((1, 6))
    with fg.no_grad():
        want = model(x).numpy()
    counting = Counting()
    model.insert(2, counting)  # a module between the layers
    with fg.no_grad():
        got = model(x)
    assert counting.calls == 1
    relu_out = model[1](model[0](x))
    np.testing.assert_allclose(got.numpy(), model[5](model[4](model[3](relu_out + 1))).detach().numpy(), rtol=1e-6)
    del model[2]
    # an instance's own forward, and a subclass
    model[4].forward = lambda input: fg.zeros(1, 3)
    np.testing.assert_array_equal(model(x).detach().numpy(), np.zeros((1, 3)))
    del model[4].forward
    np.testing.assert_allclose(model(x).detach().numpy(), want, rtol=1e-6)
    doubled = Doubled(4, 3)
    with fg.no_grad():
        doubled.weight.copy_(model[4].weight)
        doubled.bias.copy_(model[4].bias)
    model[4] = doubled
    np.testing.assert_allclose(model(x).detach().numpy(), 2 * want, rtol=1e-6)


def test_inplace_relu_and_replaced_parameters():
    model, x = mlp(), x_of((1, 6))
    with fg.no_grad():
        want = model(x).numpy()
        model[1] = nn.ReLU(inplace=True)
        np.testing.assert_allclose(model(x).numpy(), want, rtol=1e-6)
        model[4].weight = nn.Parameter(fg.zeros(3, 4))
        np.testing.assert_allclose(model(x).numpy(), np.broadcast_to(model[4].bias.detach().numpy(), (1, 3)), rtol=1e-6)
        model[4].bias = None
        np.testing.assert_array_equal(model(x).numpy(), np.zeros((1, 3)))


def test_a_class_patched_forward_is_called():
    model, x = mlp(), x_of((1, 6))
    original = nn.ReLU.forward
    try:
        nn.ReLU.forward = lambda self, input: input * 0
        np.testing.assert_array_equal(
            model(x).detach().numpy(),
            nn.functional.linear(fg.zeros(1, 4), model[4].weight, model[4].bias).detach().numpy(),
        )
    finally:
        nn.ReLU.forward = original


def test_hooks_still_run():
    model, x = mlp(), x_of((1, 6))
    seen = []
    handle = model[2].register_forward_hook(lambda m, i, o: seen.append(type(m).__name__))
    model(x)
    handle.remove()
    model(x)
    assert seen == ["Linear"]


def test_errors_as_the_layer_raises():
    model = mlp()
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(1x5 and 6x5\)"):
        model(x_of((1, 5)))
    with pytest.raises(TypeError, match="must be Tensor, not list"):
        model([1.0] * 6)
    with pytest.raises(RuntimeError, match="must have the same dtype"):
        model(fg.ones(1, 6, dtype=fg.float64))


def test_an_empty_sequential_returns_its_input():
    x = x_of((1, 6))
    assert nn.Sequential()(x) is x
