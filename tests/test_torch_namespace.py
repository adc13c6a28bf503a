"""torch-namespace names of issue 28 (the `*_copy` family, legacy tensor classes, functional recurrent layers,
norm functions, process and build settings) against PyTorch (tests/golden/torch_namespace.json; cases in
tests/cases_torch_namespace.py), gradients against finite differences in float64, the RNN forms against the
`nn` modules."""

import ferrograd as fg
import numpy as np
import pytest
from cases_torch_namespace import CASES, SEVERAL_COPIES, SINGLE_COPIES
from helpers import gradcheck
from recorded import check, expected

EXPECTED = expected("torch_namespace", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])


@pytest.mark.parametrize("name", sorted(SINGLE_COPIES))
def test_single_copy_gradcheck(rng, name):
    args, kwargs = SINGLE_COPIES[name]
    shape = {"t_copy": (3, 4), "squeeze_copy": (1, 3, 1)}.get(name, (2, 3, 4))
    fn = getattr(fg, name)
    gradcheck(lambda x: fn(x, *args, **kwargs), [rng.standard_normal(shape)])


@pytest.mark.parametrize("name", sorted(SEVERAL_COPIES))
def test_several_copies_gradcheck(rng, name):
    args, kwargs = SEVERAL_COPIES[name]
    fn = getattr(fg, name)
    weights = [1.0, -2.0, 0.5, 3.0]
    gradcheck(
        lambda x: sum((y * w).sum() for y, w in zip(fn(x, *args, **kwargs), weights)), [rng.standard_normal((2, 3, 4))]
    )


def test_copy_gradient_of_gradient(rng):
    """The copies' rules are the views' rules, which differentiate again."""

    def first_gradient(x):
        create_graph = x.requires_grad
        x = x if x.requires_grad else x.detach().requires_grad_()
        y = fg.permute_copy(x, (1, 0)) * fg.diagonal_copy(x).sum()
        (g,) = fg.autograd.grad((y * y).sum(), [x], create_graph=create_graph)
        return g

    gradcheck(first_gradient, [rng.standard_normal((3, 3))])


def test_copies_do_not_share_memory_and_unsafe_splits_do():
    x = fg.arange(6.0).reshape(2, 3)
    for y in [fg.t_copy(x), fg.view_copy(x, (6,)), *fg.split_copy(x, 1)]:
        y.zero_()
    assert x.sum().item() == 15.0
    parts = fg.unsafe_split(x, 1)
    assert all(part._base is None for part in parts)
    parts[1].zero_()
    assert x.sum().item() == 3.0


@pytest.mark.parametrize("mode", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_rnn_forms_match_modules(rng, mode, bidirectional):
    cls = {"lstm": fg.nn.LSTM, "gru": fg.nn.GRU}.get(mode, fg.nn.RNN)
    kwargs = {"nonlinearity": mode[4:]} if cls is fg.nn.RNN else {}
    module = cls(3, 5, 2, bidirectional=bidirectional, batch_first=True, **kwargs).double()
    x = fg.tensor(rng.standard_normal((2, 4, 3)))
    h = fg.tensor(rng.standard_normal((4 if bidirectional else 2, 2, 5)))
    hx = (h, h.flip(0)) if mode == "lstm" else h
    params = module._flat_weights
    got = getattr(fg, mode)(x, hx, params, True, 2, 0.0, False, bidirectional, True)
    want = module(x, hx)
    want = (want[0], *want[1]) if mode == "lstm" else want
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"])
def test_rnn_cells_gradcheck(rng, name):
    gates = {"lstm_cell": 4, "gru_cell": 3}.get(name, 1)
    c = fg.tensor(rng.standard_normal((2, 4)))
    fn = getattr(fg, name)

    def cell(x, h, w_ih, w_hh, b):
        out = fn(x, (h, c) if name == "lstm_cell" else h, w_ih, w_hh, b, b * 0.5)
        return out[0] + 2 * out[1] if name == "lstm_cell" else out

    shapes = [(2, 3), (2, 4), (gates * 4, 3), (gates * 4, 4), (gates * 4,)]
    gradcheck(cell, [rng.standard_normal(s) * 0.5 for s in shapes])


def test_rnn_layer_gradcheck(rng):
    w = [rng.uniform(-0.5, 0.5, s) for s in [(12, 3), (12, 4), (12,), (12,)]]

    def layer(x, h, w_ih, w_hh, b_ih, b_hh):
        output, h_n = fg.gru(x, h, [w_ih, w_hh, b_ih, b_hh], True, 1, 0.0, True, False, False)
        return output.sum() + (h_n * h_n).sum()

    gradcheck(layer, [rng.standard_normal((3, 2, 3)), rng.standard_normal((1, 2, 4)), *w])


@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(lambda x: fg.norm_except_dim(x, 2, 1), id="norm_except_dim"),
        pytest.param(lambda x: fg.norm_except_dim(x, 3, -1), id="norm_except_dim(-1)"),
        pytest.param(lambda x: fg.native_layer_norm(x, (4,), None, None, 1e-5)[0], id="native_layer_norm"),
    ],
)
def test_norm_functions_gradcheck(rng, fn):
    gradcheck(fn, [rng.standard_normal((2, 3, 4))])


@pytest.mark.filterwarnings("ignore:at::")
def test_deprecated_norms_gradcheck(rng):
    gradcheck(lambda x: fg.frobenius_norm(x, (0, 2)), [rng.standard_normal((2, 3, 4))])
    gradcheck(lambda x: fg.nuclear_norm(x), [rng.standard_normal((3, 4))])


def test_legacy_classes_are_types():
    x = fg.IntTensor([1, 2])
    assert isinstance(x, fg.IntTensor) and not isinstance(x, fg.LongTensor)
    assert isinstance(fg.IntTensor, type) and fg.IntTensor.__name__ == "IntTensor"
    assert fg.LongTensor([2**60]).item() == 2**60  # no float round trip
