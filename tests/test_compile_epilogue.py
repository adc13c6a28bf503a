"""`ferrograd.compile`'s epilogues: an activation that alone reads a Linear's output (ReLU, GELU, sigmoid, tanh,
SiLU, a leaky ReLU's slope) runs over each part of the product as the product makes it. Compiled values and gradients
are eager's: over row and column splits of the product, one-row products, 3-d inputs, both float dtypes, a Linear
without a bias (no epilogue there), a product also read elsewhere, and finite differences. Under torch the calls use
backend="aot_eager"; the count of fused steps is checked on ferrograd only."""

import ferrograd as fg
import numpy as np
import pytest
from helpers import AGAINST_TORCH

BACKEND = "aot_eager"
F = fg.nn.functional

ACTIVATIONS = {
    "relu": F.relu,
    "gelu": F.gelu,
    "gelu_tanh": lambda y: F.gelu(y, approximate="tanh"),
    "sigmoid": fg.sigmoid,
    "tanh": fg.tanh,
    "silu": F.silu,
    "leaky_relu": lambda y: F.leaky_relu(y, 0.1),
}

# (input shape, out features): rows split across the threads, columns split, a one-row product, a 3-d input
SHAPES = [((300, 200), 260), ((40, 200), 300), ((2, 64), 128), ((4, 50, 64), 96)]


def _rand(shape, dtype=fg.float32, seed=0):
    return fg.tensor(np.random.default_rng(seed).uniform(-1, 1, shape), dtype=dtype)


def _fused_steps(compiled):
    return sum(e[0].fused_groups for e in compiled._compiled.cache.values() if isinstance(e, tuple))


def _same(got, want, dtype):
    assert got.dtype == want.dtype and got.shape == want.shape
    if AGAINST_TORCH:
        assert fg.allclose(got, want, rtol=1e-5 if dtype == fg.float32 else 1e-12, atol=1e-6)
    else:  # the same product and the same kernel over its values: the same bits
        assert fg.equal(got, want)


@pytest.mark.parametrize("dtype", [fg.float32, fg.float64])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("act", ACTIVATIONS)
def test_an_activation_after_a_linear_compiled_equals_eager(act, shape, dtype):
    (input_shape, out_features), k = shape, shape[0][-1]
    w, b = _rand((out_features, k), dtype, 1), _rand((out_features,), dtype, 2)

    def layer(x):
        return ACTIVATIONS[act](F.linear(x, w, b))

    compiled = fg.compile(layer, backend=BACKEND)
    with fg.no_grad():
        for seed in (0, 3, 4):  # the capture, then replays on new values
            x = _rand(input_shape, dtype, seed)
            _same(compiled(x), layer(x), dtype)
    if not AGAINST_TORCH:
        assert _fused_steps(compiled) == 1


def test_a_linear_without_bias_or_read_twice_gives_eager_values():
    w, b = _rand((260, 200), seed=1), _rand((260,), seed=2)

    def no_bias(x):
        return F.relu(F.linear(x, w))

    def read_twice(x):
        y = F.linear(x, w, b)
        return F.relu(y), y

    for fn in (no_bias, read_twice):
        compiled = fg.compile(fn, backend=BACKEND)
        for seed in (0, 3):
            x = _rand((300, 200), seed=seed)
            got, want = compiled(x), fn(x)
            for g, v in zip(got, want) if isinstance(want, tuple) else [(got, want)]:
                _same(g, v, fg.float32)
    if not AGAINST_TORCH:  # the product is returned too: its own pass, no epilogue
        assert _fused_steps(compiled) == 0


def _trains_as_eager(model, input_shape, dtype):
    """Three calls (the capture, then replays): the compiled model's outputs and gradients are eager's."""
    compiled = fg.compile(lambda x: model(x), backend=BACKEND)
    for seed in (0, 1, 2):
        x = _rand(input_shape, dtype, seed).requires_grad_()
        want = model(x)
        upstream = _rand(tuple(want.shape), dtype, seed + 10)
        wanted = [x, *model.parameters()]
        want_grads = fg.autograd.grad(want, wanted, upstream)
        got = compiled(x)
        got_grads = fg.autograd.grad(got, wanted, upstream)
        _same(got, want, dtype)
        for g, v in zip(got_grads, want_grads):
            _same(g, v, dtype)
    if not AGAINST_TORCH:
        assert _fused_steps(compiled) == 1


@pytest.mark.parametrize("dtype", [fg.float32, fg.float64])
@pytest.mark.parametrize("act", ["relu", "gelu", "silu"])
def test_training_through_an_epilogue_gives_eager_values_and_gradients(act, dtype):
    fg.manual_seed(0)
    activation = {"relu": fg.nn.ReLU(), "gelu": fg.nn.GELU(), "silu": fg.nn.SiLU()}[act]
    model = fg.nn.Sequential(fg.nn.Linear(64, 256), activation, fg.nn.Linear(256, 10)).to(dtype)
    _trains_as_eager(model, (128, 64), dtype)


def test_an_epilogues_gradient_matches_finite_differences():
    # the full Jacobian is 16 K outputs: central differences of a weighted sum at sampled coordinates instead
    w, b = _rand((256, 3), fg.float64, 1), _rand((256,), fg.float64, 2)
    compiled = fg.compile(lambda x: F.gelu(F.linear(x, w, b)), backend=BACKEND)
    weights = _rand((64, 256), fg.float64, 3)
    x = _rand((64, 3), fg.float64).requires_grad_()
    compiled(x)
    (compiled(x) * weights).sum().backward()
    flat, eps = x.detach().reshape(-1), 1e-6

    def at(v):
        return float((compiled(v.reshape(x.shape)) * weights).sum())

    for i in np.random.default_rng(0).choice(flat.shape[0], 12, replace=False).tolist():
        up, down = flat.clone(), flat.clone()
        up[i] += eps
        down[i] -= eps
        numeric = (at(up) - at(down)) / (2 * eps)
        assert abs(numeric - float(x.grad.reshape(-1)[i])) < 1e-5 * max(1.0, abs(numeric))


# (input shape, weight shape, groups): a batch split across the threads, one sample, a 1-d convolution, two groups
# (the grouped path runs the activation after it)
CONVOLUTIONS = [((8, 3, 20, 20), (6, 3, 5, 5), 1), ((1, 4, 9, 9), (5, 4, 3, 3), 1), ((6, 4, 50), (8, 4, 5), 1)]
CONVOLUTIONS += [((4, 4, 12, 12), (6, 2, 3, 3), 2)]


@pytest.mark.parametrize("dtype", [fg.float32, fg.float64])
@pytest.mark.parametrize("shapes", CONVOLUTIONS, ids=str)
@pytest.mark.parametrize("act", ["relu", "gelu", "leaky_relu"])
def test_an_activation_after_a_convolution_compiled_equals_eager(act, shapes, dtype):
    input_shape, weight_shape, groups = shapes
    w, b = _rand(weight_shape, dtype, 1), _rand(weight_shape[:1], dtype, 2)
    conv = F.conv2d if len(input_shape) == 4 else F.conv1d

    def layer(x):
        return ACTIVATIONS[act](conv(x, w, b, padding=1, groups=groups))

    compiled = fg.compile(layer, backend=BACKEND)
    with fg.no_grad():
        for seed in (0, 3, 4):
            x = _rand(input_shape, dtype, seed)
            _same(compiled(x), layer(x), dtype)
    if not AGAINST_TORCH:
        assert _fused_steps(compiled) == 1


@pytest.mark.parametrize("dtype", [fg.float32, fg.float64])
def test_training_a_convolution_with_an_epilogue_gives_eager_values_and_gradients(dtype):
    fg.manual_seed(0)
    model = fg.nn.Sequential(fg.nn.Conv2d(3, 8, 3), fg.nn.ReLU(), fg.nn.MaxPool2d(2)).to(dtype)
    _trains_as_eager(model, (16, 3, 32, 32), dtype)


@pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd's own graph: torch's aot_eager records one compiled node")
def test_an_epilogue_records_the_ops_own_node_as_eager_does():
    w, b = _rand((256, 64), seed=1).requires_grad_(), _rand((256,), seed=2).requires_grad_()
    compiled = fg.compile(lambda x: F.relu(F.linear(x, w, b)), backend=BACKEND)
    x = _rand((128, 64))
    compiled(x)
    got, want = compiled(x), F.relu(F.linear(x, w, b))
    assert _fused_steps(compiled) == 1
    names = [type(got.grad_fn).__name__, type(got.grad_fn.next_functions[0][0]).__name__]
    assert names == [type(want.grad_fn).__name__, type(want.grad_fn.next_functions[0][0]).__name__]
    assert names == ["ReluBackward0", "AddmmBackward0"]
