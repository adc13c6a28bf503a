"""torch's functional recurrent layers and cells (`torch.lstm`, `torch.gru_cell`, ...): the flat-parameter forms
the `nn` modules call in torch, with its positional signatures. They run the modules' own layer loop and steps
(`nn/modules/rnn.py`); loaded on first use (`ferrograd.lstm` imports this module, and so `nn`)."""

from . import _utils
from ._arg_errors import require_tensor, type_name
from ._core import Tensor
from .nn import functional as F
from .nn.modules.rnn import _gru_step, _lstm_step, run_layers

__all__ = [
    "gru",
    "gru_cell",
    "lstm",
    "lstm_cell",
    "rnn_relu",
    "rnn_relu_cell",
    "rnn_tanh",
    "rnn_tanh_cell",
]


def _layer_weights(params, has_biases, num_layers, bidirectional, projected):
    """`params` (w_ih, w_hh[, b_ih, b_hh][, w_hr] per layer and direction) as (w_ih, w_hh, b_ih, b_hh, w_hr) each."""
    stride = (4 if has_biases else 2) + (1 if projected else 0)
    count = num_layers * (2 if bidirectional else 1)
    params = list(params)
    if len(params) != stride * count:
        raise RuntimeError("got an incorrect number of RNN parameters")
    weights = []
    for k in range(count):
        group = params[k * stride : (k + 1) * stride]
        w_ih, w_hh = group[:2]
        b_ih, b_hh = group[2:4] if has_biases else (None, None)
        weights.append((w_ih, w_hh, b_ih, b_hh, group[-1] if projected else None))
    return weights


def _layers(
    mode, input, hx, cx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first, batch_sizes=None
):
    projected = cx is not None and hx.shape[-1] != cx.shape[-1]
    weights = _layer_weights(params, has_biases, num_layers, bidirectional, projected)
    return run_layers(
        mode, input, hx, cx, weights, num_layers, bidirectional, dropout, train, batch_first, batch_sizes
    )  # fmt: skip


def lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first=None):
    """LSTM layers over 3-D `input` from `hx` = (h_0, c_0) and the flat `params`: (output, h_n, c_n). torch's
    packed form `lstm(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)`
    runs over a PackedSequence's data."""
    batch_sizes = None
    if isinstance(hx, Tensor):
        batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first = (
            hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first, False
        )  # fmt: skip
    if len(hx) != 2:
        raise RuntimeError("lstm expects two hidden states")
    h, c = hx
    args = (params, has_biases, num_layers, dropout, train, bidirectional, batch_first, batch_sizes)
    return _layers("LSTM", input, h, c, *args)


def _single_state(mode, name, doc):
    def layers(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first=None):
        batch_sizes = None
        if isinstance(params, Tensor):
            # the packed form: (data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)
            batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first = (
                hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first, False
            )  # fmt: skip
        args = (params, has_biases, num_layers, dropout, train, bidirectional, batch_first, batch_sizes)
        output, h_n, _ = _layers(mode, input, hx, None, *args)
        return output, h_n

    layers.__name__ = layers.__qualname__ = name
    layers.__doc__ = doc
    return layers


gru = _single_state("GRU", "gru", "GRU layers over 3-D `input` from `hx` and the flat `params`: (output, h_n).")
rnn_tanh = _single_state("RNN_TANH", "rnn_tanh", "tanh RNN layers from `hx` and the flat `params`: (output, h_n).")
rnn_relu = _single_state("RNN_RELU", "rnn_relu", "relu RNN layers from `hx` and the flat `params`: (output, h_n).")


def _cell_input(name, input, hx):
    require_tensor(input, name, "input", 1)
    if name != "lstm_cell":
        require_tensor(hx, name, "hx", 2)
    elif not isinstance(hx, (tuple, list)):
        raise TypeError(f"{name}(): argument 'hx' (position 2) must be tuple of Tensors, not {type_name(hx)}")
    if input.dim() != 2:
        raise RuntimeError(f"Expected 2D input (batch x feature), but got {input.dim()}D input")


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step over 2-D `input` from `hx` = (h, c): (h', c')."""
    _cell_input("lstm_cell", input, hx)
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    gates = F.linear(input, w_ih, b_ih) + F.linear(hx[0], w_hh, b_hh)
    return _lstm_step(gates, hx[1])


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step over 2-D `input` from `hx`."""
    _cell_input("gru_cell", input, hx)
    return _gru_step(F.linear(input, w_ih, b_ih), F.linear(hx, w_hh, b_hh), hx)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """`tanh(input @ w_ih.T + b_ih + hx @ w_hh.T + b_hh)`."""
    _cell_input("rnn_tanh_cell", input, hx)
    return (F.linear(input, w_ih, b_ih) + F.linear(hx, w_hh, b_hh)).tanh()


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """`relu(input @ w_ih.T + b_ih + hx @ w_hh.T + b_hh)`."""
    _cell_input("rnn_relu_cell", input, hx)
    return (F.linear(input, w_ih, b_ih) + F.linear(hx, w_hh, b_hh)).relu()


# a non-tensor where a tensor is used raises PyTorch's TypeError, not an AttributeError from inside
_utils.typed_entry_points(globals(), __all__)
