"""nn.utils.rnn against torch (values recorded by tests/golden/record_nn_utils.py): packing and padding,
PackedSequence, torch's errors, and packed batches through RNN / LSTM / GRU (multi-layer, bidirectional,
batch_first, proj_size, given states): output data, h_n / c_n at each sequence's own length and the gradients
of the padded input, the states and the weights. Also each packed layer against running every sequence alone,
and gradchecked in float64."""

import warnings

import ferrograd as fg
import ferrograd.nn as nn
import nn_utils_cases as cases
import numpy as np
import pytest
from ferrograd.nn.utils import rnn
from helpers import golden, gradcheck
from nn_utils_compare import same

GOLDEN = golden("nn_utils")


@pytest.mark.parametrize("i", range(len(cases.PACKED_RNN_CASES)))
def test_packed_rnn_against_torch(i):
    same(cases.packed_rnn_case(i), GOLDEN["packed_rnn"][i], f"case {i}")


def test_packing_against_torch():
    same(cases.packing_cases(), GOLDEN["packing"])


def test_packing_errors_against_torch():
    same(cases.packing_errors(), GOLDEN["packing_errors"])


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_packed_equals_each_sequence_alone(kind, bidirectional, rng):
    module = getattr(nn, kind)(3, 4, num_layers=2, bidirectional=bidirectional, dtype=fg.float64)
    lengths = [2, 6, 1, 6, 4]
    x = fg.tensor(rng.standard_normal((6, 5, 3)))
    with fg.no_grad():
        out, state = module(rnn.pack_padded_sequence(x, lengths, enforce_sorted=False))
    padded, _ = rnn.pad_packed_sequence(out)
    h_n = state[0] if kind == "LSTM" else state
    for b, length in enumerate(lengths):
        with fg.no_grad():
            alone, alone_state = module(x[:length, b : b + 1])
        alone_h = alone_state[0] if kind == "LSTM" else alone_state
        np.testing.assert_allclose(padded[:length, b].numpy(), alone[:, 0].numpy(), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(padded[length:, b].numpy(), 0.0)
        np.testing.assert_allclose(h_n[:, b].numpy(), alone_h[:, 0].numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "kind, kw", [("LSTM", {"bidirectional": True}), ("GRU", {"num_layers": 2}), ("RNN", {}), ("LSTM", {"proj_size": 1})]
)
def test_packed_gradcheck(kind, kw, rng):
    module = getattr(nn, kind)(2, 2, dtype=fg.float64, **kw)
    names = [n for n, _ in module.named_parameters()]
    params = [rng.uniform(-0.8, 0.8, tuple(p.shape)) for _, p in module.named_parameters()]

    def fn(x, *weights):
        for name, w in zip(names, weights):
            delattr(module, name)
            setattr(module, name, w)
        out, state = module(rnn.pack_padded_sequence(x, [1, 3, 2], enforce_sorted=False))
        h = state[0] if kind == "LSTM" else state
        return fg.cat([out.data.flatten(), h.flatten()])

    gradcheck(fn, [rng.standard_normal((3, 3, 2))] + params)


def test_packed_sequence_methods():
    p = rnn.pack_padded_sequence(fg.ones(3, 2, 2), [3, 1])
    assert isinstance(p, tuple) and p._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    assert p.float() is p and not p.is_cuda
    d = p.double()
    assert d.data.dtype == fg.float64 and d.batch_sizes.dtype == fg.int64 and type(d) is rnn.PackedSequence
    q = rnn.PackedSequence((p.data, p.batch_sizes))
    assert q.batch_sizes.tolist() == [2, 1, 1] and q.sorted_indices is None
    data, batch_sizes, sorted_indices, unsorted_indices = p
    assert batch_sizes.tolist() == [2, 1, 1]
    with pytest.raises(AssertionError, match="Expected data to be a list or tuple of length 2"):
        rnn.PackedSequence(fg.ones(3))


def test_packed_hidden_size_is_checked():
    lstm = nn.LSTM(2, 3)
    p = rnn.pack_padded_sequence(fg.ones(3, 2, 2), [3, 1])
    # torch 2.15 fails inside the layer ("output with shape [1, 12] doesn't match the broadcast shape [2, 12]");
    # ferrograd checks the size first
    with pytest.raises(RuntimeError):
        lstm(p, (fg.zeros(1, 1, 3), fg.zeros(1, 1, 3)))
    with pytest.raises(RuntimeError):
        lstm(rnn.PackedSequence(fg.ones(3, 1, 2), fg.tensor([2, 1])))


def test_unpad_transposes_in_place():
    padded = fg.zeros(4, 2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parts = rnn.unpad_sequence(padded, fg.tensor([4, 2]))
    assert [tuple(t.shape) for t in parts] == [(4, 3), (2, 3)] and tuple(padded.shape) == (2, 4, 3)


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_functional_packed_form_equals_module(kind, rng):
    module = getattr(nn, kind)(2, 3, num_layers=2, bidirectional=True, dtype=fg.float64)
    packed = rnn.pack_padded_sequence(fg.tensor(rng.standard_normal((4, 3, 2))), [4, 2, 1])
    h0 = fg.zeros(4, 3, 3, dtype=fg.float64)
    params = list(module.parameters())
    args = (params, True, 2, 0.0, False, True)
    if kind == "LSTM":
        out, h_n, c_n = fg.lstm(packed.data, packed.batch_sizes, (h0, h0), *args)
        want, (want_h, want_c) = module(packed)
        np.testing.assert_allclose(c_n.detach().numpy(), want_c.detach().numpy())
    else:
        out, h_n = (fg.gru if kind == "GRU" else fg.rnn_tanh)(packed.data, packed.batch_sizes, h0, *args)
        want, want_h = module(packed)
    np.testing.assert_allclose(out.detach().numpy(), want.data.detach().numpy())
    np.testing.assert_allclose(h_n.detach().numpy(), want_h.detach().numpy())


def test_pack_pad_round_trip_gradcheck(rng):
    def fn(x):
        packed = rnn.pack_padded_sequence(x, [2, 4, 1], batch_first=True, enforce_sorted=False)
        return rnn.pad_packed_sequence(packed, batch_first=True, padding_value=-2.0, total_length=5)[0]

    gradcheck(fn, [rng.standard_normal((3, 4, 2))])


def test_pad_sequence_gradcheck(rng):
    def fn(a, b):
        return rnn.pad_sequence([a, b], batch_first=True, padding_value=1.5, padding_side="left")

    gradcheck(fn, [rng.standard_normal((2, 3)), rng.standard_normal((4, 3))])
