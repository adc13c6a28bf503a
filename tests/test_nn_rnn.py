"""Recurrent layers against torch (values recorded by tests/golden/record_rnn.py): RNN (tanh / relu), LSTM
(proj_size), GRU over layers, directions, batch_first, given or zero states, unbatched input, and the cells:
outputs, final states, input / state / parameter gradients, reprs. Gradients also against float64 finite
differences; parameter names and order; initialisation; torch's errors for bad input."""

import warnings

import ferrograd as fg
import ferrograd.nn as nn
import layer_cases as lc
import numpy as np
import pytest
from helpers import golden, gradcheck
from recorded import check

CASES = golden("rnn")["cases"]


@pytest.mark.parametrize("entry", CASES, ids=[e["case"]["id"] for e in CASES])
def test_against_torch(entry):
    tol = (1e-4, 1e-5) if "float32" in entry["case"]["id"] else None
    check(entry["case"]["id"], lambda: lc.run(entry["case"]), entry["expected"], tol)


def _with_weights(module, names, weights):
    """Run `module` with plain tensors in place of the named parameters (so gradcheck can vary them)."""
    for name, w in zip(names, weights):
        delattr(module, name)
        setattr(module, name, w)


@pytest.mark.parametrize(
    "target, kw",
    [
        ("RNN", {"num_layers": 2}),
        ("LSTM", {"bidirectional": True}),
        ("LSTM", {"bias": False, "num_layers": 2, "batch_first": True}),
        ("LSTM", {"proj_size": 1}),
        ("GRU", {}),
    ],
)
def test_gradcheck(target, kw, rng):
    module = getattr(nn, target)(2, 2, dtype=fg.float64, **kw)
    names = [n for n, _ in module.named_parameters()]
    params = [rng.uniform(-0.8, 0.8, tuple(p.shape)) for _, p in module.named_parameters()]

    def fn(x, *weights):
        _with_weights(module, names, weights)
        out = module(x)
        return out[0]

    gradcheck(fn, [rng.standard_normal((3, 1, 2))] + params)


@pytest.mark.parametrize("target", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cell_gradcheck(target, rng):
    cell = getattr(nn, target)(2, 3, dtype=fg.float64)
    names = [n for n, _ in cell.named_parameters()]
    params = [rng.uniform(-0.8, 0.8, tuple(p.shape)) for _, p in cell.named_parameters()]

    def fn(x, h, *weights):
        _with_weights(cell, names, weights)
        out = cell(x, (h, h * 0.5) if target == "LSTMCell" else h)
        return out[0] * out[1] if target == "LSTMCell" else out

    gradcheck(fn, [rng.standard_normal((2, 2)), rng.standard_normal((2, 3))] + params)


def test_parameter_names_and_init(seeded):
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
    names = [n for n, _ in lstm.named_parameters()]
    per = ["weight_ih_l{}{}", "weight_hh_l{}{}", "bias_ih_l{}{}", "bias_hh_l{}{}", "weight_hr_l{}{}"]
    assert names == [p.format(layer, s) for layer in (0, 1) for s in ("", "_reverse") for p in per]
    assert lstm.weight_ih_l0.shape == (16, 3) and lstm.weight_hh_l0.shape == (16, 2)
    assert lstm.weight_ih_l1.shape == (16, 4) and lstm.weight_hr_l1_reverse.shape == (2, 4)
    assert [len(w) for w in lstm.all_weights] == [5, 5, 5, 5]
    gru = nn.GRU(3, 9)
    values = np.concatenate([p.detach().numpy().ravel() for p in gru.parameters()])
    bound = 1 / 3  # uniform(±1/sqrt(hidden_size)) for every weight and bias
    assert np.abs(values).max() <= bound and np.abs(values).max() > 0.9 * bound
    assert [n for n, _ in nn.GRUCell(3, 4, bias=False).named_parameters()] == ["weight_ih", "weight_hh"]


def test_dropout_between_layers(seeded):
    lstm = nn.LSTM(3, 8, num_layers=2, dropout=0.5)
    x = fg.randn(4, 2, 3)
    a, b = lstm(x)[0], lstm(x)[0]
    assert not np.allclose(a.detach().numpy(), b.detach().numpy())  # different masks
    lstm.eval()
    np.testing.assert_array_equal(lstm(x)[0].detach().numpy(), lstm(x)[0].detach().numpy())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nn.LSTM(3, 4, dropout=0.5)
    assert "non-zero dropout expects num_layers greater than 1" in str(caught[0].message)


def test_errors():
    lstm = nn.LSTM(10, 20, 2)
    lc.raises(
        RuntimeError, "input.size(-1) must be equal to input_size. Expected 10, got 7", lambda: lstm(fg.randn(5, 3, 7))
    )
    lc.raises(
        RuntimeError,
        "Expected hidden[0] size (2, 3, 20), got [1, 3, 20]",
        lambda: lstm(fg.randn(5, 3, 10), (fg.zeros(1, 3, 20), fg.zeros(2, 3, 20))),
    )
    lc.raises(
        RuntimeError,
        "Expected hidden[1] size (2, 3, 20), got [2, 4, 20]",
        lambda: lstm(fg.randn(5, 3, 10), (fg.zeros(2, 3, 20), fg.zeros(2, 4, 20))),
    )
    lc.raises(ValueError, "RNN input dtype", lambda: lstm(fg.randn(5, 3, 10, dtype=fg.float64)))
    lc.raises(
        RuntimeError,
        "For unbatched 2-D input, hx and cx should also be 2-D but got (3-D, 3-D) tensors",
        lambda: lstm(fg.randn(3, 10), (fg.zeros(2, 3, 20), fg.zeros(2, 3, 20))),
    )
    lc.raises(ValueError, "LSTM: Expected input to be 2D or 3D, got 4D instead", lambda: lstm(fg.randn(2, 5, 3, 10)))
    gru = nn.GRU(10, 20)
    lc.raises(
        RuntimeError,
        "Expected hidden size (1, 3, 20), got [1, 3, 21]",
        lambda: gru(fg.randn(5, 3, 10), fg.zeros(1, 3, 21)),
    )
    lc.raises(
        RuntimeError,
        "For batched 3-D input, hx should also be 3-D but got 2-D tensor",
        lambda: gru(fg.randn(5, 3, 10), fg.zeros(3, 20)),
    )
    cell = nn.LSTMCell(10, 20)
    lc.raises(RuntimeError, "input has inconsistent input_size: got 7 expected 10", lambda: cell(fg.randn(3, 7)))
    lc.raises(
        RuntimeError,
        "hidden0 has inconsistent hidden_size: got 21, expected 20",
        lambda: cell(fg.randn(3, 10), (fg.zeros(3, 21), fg.zeros(3, 20))),
    )
    lc.raises(
        RuntimeError,
        "hidden1 has inconsistent hidden_size: got 21, expected 20",
        lambda: cell(fg.randn(3, 10), (fg.zeros(3, 20), fg.zeros(3, 21))),
    )
    lc.raises(
        RuntimeError,
        "Input batch size 3 doesn't match hidden0 batch size 4",
        lambda: cell(fg.randn(3, 10), (fg.zeros(4, 20), fg.zeros(4, 20))),
    )
    lc.raises(ValueError, "LSTMCell: Expected input to be 1D or 2D, got 3D instead", lambda: cell(fg.randn(2, 3, 10)))
    lc.raises(
        ValueError,
        "Unknown nonlinearity 'sigmoid'. Select from 'tanh' or 'relu'.",
        lambda: nn.RNN(3, 4, nonlinearity="sigmoid"),
    )
    lc.raises(
        ValueError, "proj_size argument is only supported for LSTM, not RNN or GRU", lambda: nn.GRU(3, 4, proj_size=2)
    )
    lc.raises(ValueError, "proj_size has to be smaller than hidden_size", lambda: nn.LSTM(3, 4, proj_size=4))
    lc.raises(ValueError, "dropout should be a number in range [0, 1]", lambda: nn.LSTM(3, 4, dropout=2))
    lc.raises(TypeError, "input_size should be of type int, got: float", lambda: nn.LSTM(3.0, 4))


def _lstm_by_hand(x, w_ih, w_hh, b_ih, b_hh, h, c, reverse=False):
    """nn.LSTM's one layer written with the public pointwise ops (the composition the fused layer replaces)."""
    outputs = [None] * x.shape[0]
    for t in reversed(range(x.shape[0])) if reverse else range(x.shape[0]):
        gates = x[t] @ w_ih.t() + h @ w_hh.t()
        gates = gates if b_ih is None else gates + b_ih + b_hh
        i, f, g, o = gates.chunk(4, 1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        h = o.sigmoid() * c.tanh()
        outputs[t] = h
    return fg.stack(outputs, 0), h, c


@pytest.mark.parametrize("dtype", [fg.float32, fg.float64])
@pytest.mark.parametrize("uses", ["all", "output", "c_n"])
def test_lstm_equals_its_composition(dtype, uses, rng):
    """nn.LSTM's values and gradients (input, weights, initial state) equal those of the composition,
    including when only the outputs or only the last cell state reach the loss (one gradient of the
    cell's two outputs is then absent)."""
    lstm = nn.LSTM(3, 4, dtype=dtype)
    with fg.no_grad():
        for p in lstm.parameters():
            p.copy_(fg.tensor(rng.uniform(-0.9, 0.9, tuple(p.shape)), dtype=dtype))
    x0 = fg.tensor(rng.standard_normal((6, 2, 3)) * 2, dtype=dtype)
    h00 = fg.tensor(rng.standard_normal((1, 2, 4)), dtype=dtype)
    c00 = fg.tensor(rng.standard_normal((1, 2, 4)), dtype=dtype)
    weight = fg.tensor(rng.standard_normal((6, 2, 4)), dtype=dtype)

    def loss(out, h, c):
        parts = {"all": [(out * weight).sum(), (h * h).sum(), (c * 3).sum()], "output": [(out * weight).sum()]}
        return sum(parts.get(uses, [(c * c).sum()]))

    leaves = [t.clone().requires_grad_() for t in (x0, h00, c00)]
    out, (h, c) = lstm(leaves[0], (leaves[1], leaves[2]))
    loss(out, h, c).backward()
    got = [out, h, c] + [t.grad for t in leaves] + [p.grad for p in lstm.parameters()]

    lstm.zero_grad()
    ref_leaves = [t.clone().requires_grad_() for t in (x0, h00, c00)]
    params = list(lstm.parameters())
    r_out, r_h, r_c = _lstm_by_hand(ref_leaves[0], *params, ref_leaves[1][0], ref_leaves[2][0])
    loss(r_out, r_h.unsqueeze(0), r_c.unsqueeze(0)).backward()
    want = [r_out, r_h.unsqueeze(0), r_c.unsqueeze(0)] + [t.grad for t in ref_leaves] + [p.grad for p in params]
    rtol, atol = (1e-5, 1e-6) if dtype == fg.float32 else (1e-12, 1e-13)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)


def test_lstm_double_backward(rng):
    """The second derivative through the LSTM (a recorded backward, create_graph=True) is right."""
    lstm = nn.LSTM(2, 3, dtype=fg.float64)
    names = [n for n, _ in lstm.named_parameters()]
    params = [fg.tensor(rng.uniform(-0.8, 0.8, tuple(p.shape)), requires_grad=True) for _, p in lstm.named_parameters()]
    x = fg.tensor(rng.standard_normal((3, 2, 2)), requires_grad=True)

    def fn(x, *weights):
        _with_weights(lstm, names, weights)
        out, (h, c) = lstm(x)
        return out.sum() + (c * c).sum()

    assert fg.autograd.gradgradcheck(fn, (x, *params))


@pytest.mark.parametrize("dtype", [fg.float32, fg.float64])
@pytest.mark.parametrize("bias", [True, False])
def test_bidirectional_lstm_of_many_rows_equals_its_composition(dtype, bias, rng):
    """A layer big enough that its time loop runs in parts over blocks of batch rows (16 rows, 64 units),
    both directions, with and without biases: values and all gradients equal the composition's."""
    lstm = nn.LSTM(5, 64, bidirectional=True, bias=bias, dtype=dtype)
    with fg.no_grad():
        for p in lstm.parameters():
            p.copy_(fg.tensor(rng.uniform(-0.3, 0.3, tuple(p.shape)), dtype=dtype))
    x0 = fg.tensor(rng.standard_normal((8, 16, 5)), dtype=dtype)
    state0 = [fg.tensor(rng.standard_normal((2, 16, 64)), dtype=dtype) for _ in range(2)]
    weight = fg.tensor(rng.standard_normal((8, 16, 128)), dtype=dtype)

    def loss(out, h, c):
        return (out * weight).sum() + (h * h).sum() + (c * 0.5).sum()

    leaves = [t.clone().requires_grad_() for t in (x0, *state0)]
    out, (h, c) = lstm(leaves[0], (leaves[1], leaves[2]))
    loss(out, h, c).backward()
    got = [out, h, c] + [t.grad for t in leaves] + [p.grad for p in lstm.parameters()]

    lstm.zero_grad()
    refs = [t.clone().requires_grad_() for t in (x0, *state0)]
    params = list(lstm.parameters())
    per = len(params) // 2
    runs = [
        _lstm_by_hand(
            refs[0],
            *(params[k * per : (k + 1) * per] if bias else params[k * per : (k + 1) * per] + [None] * 2),
            refs[1][k],
            refs[2][k],
            reverse=k == 1,
        )
        for k in range(2)
    ]
    r_out = fg.cat([runs[0][0], runs[1][0]], 2)
    r_h, r_c = fg.stack([runs[0][1], runs[1][1]], 0), fg.stack([runs[0][2], runs[1][2]], 0)
    loss(r_out, r_h, r_c).backward()
    want = [r_out, r_h, r_c] + [t.grad for t in refs] + [p.grad for p in params]
    rtol, atol = (1e-4, 1e-5) if dtype == fg.float32 else (1e-11, 1e-12)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", [fg.float32, fg.float64])
@pytest.mark.parametrize(
    "steps, batch, inputs, hidden",
    # one row and an odd size (one part); odd sizes split into two uneven parts; the benchmark's size
    [(3, 1, 3, 5), (20, 19, 7, 45), (35, 32, 64, 128)],
)
def test_lstm_over_data_without_grad_equals_its_composition(dtype, steps, batch, inputs, hidden, rng):
    """The usual training case: the input needs no gradient (so the layer skips computing it), the loss
    reads only the last step's output (the output's gradient is zero elsewhere); the weights', biases'
    and initial state's gradients equal the composition's."""
    lstm = nn.LSTM(inputs, hidden, dtype=dtype)
    with fg.no_grad():
        for p in lstm.parameters():
            p.copy_(fg.tensor(rng.uniform(-0.3, 0.3, tuple(p.shape)), dtype=dtype))
    x = fg.tensor(rng.standard_normal((steps, batch, inputs)), dtype=dtype)
    state0 = [fg.tensor(rng.standard_normal((1, batch, hidden)), dtype=dtype) for _ in range(2)]
    weight = fg.tensor(rng.standard_normal((batch, hidden)), dtype=dtype)

    leaves = [t.clone().requires_grad_() for t in state0]
    out, _ = lstm(x, (leaves[0], leaves[1]))
    (out[-1] * weight).sum().backward()
    got = [out] + [t.grad for t in leaves] + [p.grad for p in lstm.parameters()]

    lstm.zero_grad()
    refs = [t.clone().requires_grad_() for t in state0]
    params = list(lstm.parameters())
    r_out, _, _ = _lstm_by_hand(x, *params, refs[0][0], refs[1][0])
    (r_out[-1] * weight).sum().backward()
    want = [r_out] + [t.grad for t in refs] + [p.grad for p in params]
    assert x.grad is None
    rtol, atol = (1e-4, 1e-5) if dtype == fg.float32 else (1e-11, 1e-12)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize(
    "kw, top, below",
    [
        (
            {},
            "MkldnnRnnLayerBackward0",
            [None, "AccumulateGrad", "AccumulateGrad", "AccumulateGrad", "AccumulateGrad", None, None],
        ),
        (
            {"bias": False},
            "MkldnnRnnLayerBackward0",
            [None, "AccumulateGrad", "AccumulateGrad", None, None, None, None],
        ),
        ({"batch_first": True}, "TransposeBackward0", ["MkldnnRnnLayerBackward0"]),
        ({"bidirectional": True}, "CatBackward0", ["MkldnnRnnLayerBackward0", "MkldnnRnnLayerBackward0"]),
        (
            {"num_layers": 2},
            "MkldnnRnnLayerBackward0",
            ["MkldnnRnnLayerBackward0"] + ["AccumulateGrad"] * 4 + [None] * 2,
        ),
    ],
)
def test_lstm_graph_is_one_node_per_layer_and_direction(kw, top, below):
    """float32 nn.LSTM records as PyTorch's CPU build: one MkldnnRnnLayerBackward0 per layer and direction
    over (input, w_ih, w_hh, b_ih, b_hh, h0, c0); h_n and c_n stack the layers' last states."""
    out, (h, c) = nn.LSTM(4, 8, **kw)(fg.zeros(5, 3, 4))
    names = [None if f is None else f.name().split("::")[-1] for f, _ in out.grad_fn.next_functions]
    assert (out.grad_fn.name(), names) == (top, below)
    assert h.grad_fn.name() == c.grad_fn.name() == "StackBackward0"
