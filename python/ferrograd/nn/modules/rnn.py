"""Recurrent layers: RNN (tanh / relu), LSTM (with proj_size), GRU and their cells, with torch's parameter
names (`weight_ih_l0`, ..., `_reverse`), gate order (LSTM i, f, g, o; GRU r, z, n), initialisation and errors.

An LSTM layer without projection (float32/float64) is one Rust op per direction (`_lstm_layer`, one
MkldnnRnnLayerBackward0 node as PyTorch's CPU build). Otherwise the time loop runs here over time steps;
each step is a few whole-batch ops: the input projections of all steps come from one GEMM before the
loop, and each step adds the hidden projection with one addmm.
"""

import math
import numbers
import warnings

from ... import _core, _device
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _lstm_step(gates, c, w_hr=None):
    """One LSTM step from its (B, 4H) pre-activations (input and hidden projections summed)."""
    i, f, g, o = gates.chunk(4, 1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    return (h if w_hr is None else h @ w_hr.t()), c


def _fused_lstm_step(gates, c, w_hr=None):
    """`_lstm_step` as one node (float32/float64): the pointwise gate math forward and back in one pass each."""
    if gates.dtype not in (_core.float32, _core.float64) or c.dtype != gates.dtype:
        return _lstm_step(gates, c, w_hr)
    h, c = _core._lstm_cell(gates, c)
    return (h if w_hr is None else h @ w_hr.t()), c


def _fusable(x, h, c, weights):
    """Whether one layer runs as one `_lstm_layer` node: float32/float64, all of one dtype."""
    dtype = x.dtype
    return dtype in (_core.float32, _core.float64) and all(t is None or t.dtype == dtype for t in (h, c, *weights))


def _gru_step(x_gates, h_gates, h):
    """One GRU step: r, z from the summed projections; n = tanh(x_n + r * (W_hn h + b_hn))."""
    size = h.shape[-1]
    rz = (x_gates[:, : 2 * size] + h_gates[:, : 2 * size]).sigmoid()
    r, z = rz[:, :size], rz[:, size:]
    n = (x_gates[:, 2 * size :] + r * h_gates[:, 2 * size :]).tanh()
    return n + z * (h - n)


def _simple_step(mode, gates):
    return gates.tanh() if mode == "RNN_TANH" else gates.relu()


def _run_direction(mode, x, h, c, weights, reverse):
    """One layer in one direction over time-major x (T, B, I): the outputs (T, B, H) and the last state."""
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    steps = x.shape[0]
    if mode == "LSTM" and w_hr is None and steps > 0 and _fusable(x, h, c, weights):
        return _core._lstm_layer(x, w_ih, w_hh, b_ih, b_hh, h, c, reverse)
    if mode == "GRU":
        x_gates = F.linear(x, w_ih, b_ih)
    else:
        # both biases go into the input projection: each step is then one addmm
        bias = b_ih if b_hh is None else (b_hh if b_ih is None else b_ih + b_hh)
        x_gates = F.linear(x, w_ih, bias)
    w_hh_t = w_hh.t()
    # one unbind (one backward node stacking the steps' gradients), not a select per step, whose gradients
    # would each be a full-size tensor for the engine to sum
    x_steps = x_gates.unbind(0)
    outputs = [None] * steps
    for t in reversed(range(steps)) if reverse else range(steps):
        if mode == "LSTM":
            h, c = _fused_lstm_step(x_steps[t].addmm(h, w_hh_t), c, w_hr)
        elif mode == "GRU":
            h = _gru_step(x_steps[t], F.linear(h, w_hh, b_hh), h)
        else:
            h = _simple_step(mode, x_steps[t].addmm(h, w_hh_t))
        outputs[t] = h
    return _core.stack(outputs, 0), h, c


def _packed_runs(batch_sizes):
    """(offset, steps, batch) of each run of time steps sharing one batch size, over packed rows."""
    runs, offset, start = [], 0, 0
    sizes = batch_sizes.tolist()
    for t in range(1, len(sizes) + 1):
        if t == len(sizes) or sizes[t] != sizes[start]:
            runs.append((offset, t - start, sizes[start]))
            offset += (t - start) * sizes[start]
            start = t
    return runs


def _run_packed_direction(mode, x, runs, h0, c0, weights, reverse):
    """One layer in one direction over packed rows x (N, I): each run of steps sharing a batch size is one call
    of the padded-layer code on the active prefix of the (length-sorted) batch, the state carried between runs.
    Returns the packed outputs (N, H) and the state at each sequence's own end."""
    outputs = [None] * len(runs)
    h, c = h0[: runs[-1][2]] if reverse else h0, None if c0 is None else (c0[: runs[-1][2]] if reverse else c0)
    ended_h, ended_c = [], []
    for k in reversed(range(len(runs))) if reverse else range(len(runs)):
        offset, steps, batch = runs[k]
        if reverse and batch > h.shape[0]:
            # sequences ending at this run start their backward pass here, from their own initial state
            h = _core.cat([h, h0[h.shape[0] : batch]], 0)
            c = None if c is None else _core.cat([c, c0[c.shape[0] : batch]], 0)
        elif not reverse and batch < h.shape[0]:
            ended_h.append(h[batch:])
            h = h[:batch]
            if c is not None:
                ended_c.append(c[batch:])
                c = c[:batch]
        rows = x[offset : offset + steps * batch].reshape(steps, batch, x.shape[1])
        out, h, c = _run_direction(mode, rows, h, c, weights, reverse)
        outputs[k] = out.reshape(steps * batch, out.shape[2])
    if ended_h:
        h = _core.cat([h, *reversed(ended_h)], 0)
        c = None if c is None else _core.cat([c, *reversed(ended_c)], 0)
    return _core.cat(outputs, 0), h, c


def run_layers(mode, input, h0, c0, weights, num_layers, bidirectional, dropout, train, batch_first, batch_sizes=None):
    """All layers and directions over (batch-first or time-major) 3-D input: output, h_n (and c_n, None without
    c0). `weights[layer * directions + direction]` is (w_ih, w_hh, b_ih, b_hh, w_hr), None where absent; dropout
    between layers when training. The layers of the modules and of `torch.lstm`/`gru`/`rnn_tanh`/`rnn_relu`.
    With `batch_sizes`, input is a PackedSequence's 2-D data and so is the output."""
    if batch_sizes is not None:
        # a PackedSequence's 2-D data: each direction by runs of equal batch size, the directions side by side
        runs = _packed_runs(batch_sizes)

        def packed(x, h, c, w, reverse):
            return _run_packed_direction(mode, x, runs, h, c, w, reverse)

        return _stack_layers(packed, input, h0, c0, weights, num_layers, bidirectional, dropout, train, 1)
    x = input.transpose(0, 1) if batch_first else input

    def padded(x, h, c, w, reverse):
        return _run_direction(mode, x, h, c, w, reverse)

    output, h_n, c_n = _stack_layers(padded, x, h0, c0, weights, num_layers, bidirectional, dropout, train, 2)
    return (output.transpose(0, 1) if batch_first else output), h_n, c_n


def _stack_layers(run_direction, x, h0, c0, weights, num_layers, bidirectional, dropout, train, feature_dim):
    """The layer/direction loop: each layer reads the last one's directions joined along `feature_dim`."""
    directions = 2 if bidirectional else 1
    h_n, c_n = [], []
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            k = layer * directions + direction
            c = None if c0 is None else c0[k]
            out, h, c = run_direction(x, h0[k], c, weights[k], reverse=direction == 1)
            outputs.append(out)
            h_n.append(h)
            c_n.append(c)
        x = outputs[0] if directions == 1 else _core.cat(outputs, feature_dim)
        if dropout > 0 and train and layer < num_layers - 1:
            x = F.dropout(x, dropout, True)
    return x, _core.stack(h_n, 0), (None if c0 is None else _core.stack(c_n, 0))


class RNNBase(Module):
    """The parameters, checks and the layer/direction loop that RNN, LSTM and GRU share."""

    __constants__ = [
        "mode",
        "input_size",
        "hidden_size",
        "num_layers",
        "bias",
        "batch_first",
        "dropout",
        "bidirectional",
        "proj_size",
    ]

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device=None,
        dtype=None,
    ):
        super().__init__()
        _device.check_optional(device)
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an element being zeroed"
            )
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                UserWarning,
                stacklevel=3,
            )
        for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool)):
            if not isinstance(value, kind):
                raise TypeError(f"{name} should be of type bool, got: {type(value).__name__}")
        for name, size in (("input_size", input_size), ("hidden_size", hidden_size)):
            if not isinstance(size, int):
                raise TypeError(f"{name} should be of type int, got: {type(size).__name__}")
            if size <= 0:
                raise ValueError(f"{name} must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else real_hidden * directions
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes: list[tuple[str, tuple[int, ...]]] = [
                    ("weight_ih", (gate_size, layer_input)),
                    ("weight_hh", (gate_size, real_hidden)),
                ]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                names = []
                for base, shape in shapes:
                    setattr(self, base + suffix, Parameter(_core.zeros(shape, dtype=dtype)))
                    names.append(base + suffix)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def __getstate__(self):
        # torch's pickled RNN carries its `_flat_weights` list (its __setstate__ reads it); ferrograd's is a view
        # of the parameters, so the list is written for torch and dropped again when ferrograd loads it
        state = super().__getstate__()
        state["_flat_weights"] = self._flat_weights
        return state

    def __setstate__(self, state):
        state = dict(state)
        state.pop("_flat_weights", None)
        state.pop("_flat_weight_refs", None)
        super().__setstate__(state)

    def flatten_parameters(self):
        """A no-op (torch compacts the weights for cuDNN here)."""

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input, batch_sizes=None):
        weight_dtype = getattr(self, self._flat_weights_names[0]).dtype
        if input.dtype != weight_dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). Convert input: "
                f"input.to({weight_dtype}), or convert model: model.to({input.dtype})"
            )
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.shape[-1]:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.shape[-1]}"
            )

    def get_expected_hidden_size(self, input, batch_sizes=None):
        batch = self._mini_batch(input, batch_sizes)
        directions = 2 if self.bidirectional else 1
        return (self.num_layers * directions, batch, self.proj_size if self.proj_size > 0 else self.hidden_size)

    def _mini_batch(self, input, batch_sizes):
        if batch_sizes is not None:
            return int(batch_sizes[0])
        return input.shape[0] if self.batch_first else input.shape[1]

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        if isinstance(hx, tuple):
            return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)
        return hx.index_select(1, permutation)

    def _unpack(self, input, hx):
        """A PackedSequence's fields, hx in its sorted order and zero states when absent; None for a tensor."""
        from ..utils.rnn import PackedSequence

        if not isinstance(input, PackedSequence):
            return None
        data, batch_sizes, sorted_indices, unsorted_indices = input
        directions = 2 if self.bidirectional else 1
        batch = int(batch_sizes[0])
        if hx is None:
            real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
            h = _core.zeros(self.num_layers * directions, batch, real_hidden, dtype=data.dtype)
            if self.mode == "LSTM":
                hx = (h, _core.zeros(self.num_layers * directions, batch, self.hidden_size, dtype=data.dtype))
            else:
                hx = h
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(data, hx, batch_sizes)
        return data, batch_sizes, sorted_indices, unsorted_indices, hx

    def _forward_packed(self, packed):
        from ..utils.rnn import PackedSequence

        data, batch_sizes, sorted_indices, unsorted_indices, hx = packed
        h0, c0 = hx if self.mode == "LSTM" else (hx, None)
        output, h_n, c_n = self._run(data, h0, c0, batch_sizes)
        output = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
        hidden = (h_n, c_n) if self.mode == "LSTM" else h_n
        return output, self.permute_hidden(hidden, unsorted_indices)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.shape) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.shape)))

    def check_forward_args(self, input, hidden, batch_sizes=None):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def _layer_weights(self, names):
        """(w_ih, w_hh, b_ih, b_hh, w_hr) of one layer and direction, None where absent."""
        params = {name.split("_l")[0]: getattr(self, name) for name in names}
        return tuple(params.get(k) for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr"))

    def _run(self, input, h0, c0=None, batch_sizes=None):
        """All layers and directions over (batch-first or time-major) 3-D input, or packed data with its
        batch_sizes: output, h_n (and c_n)."""
        weights = [self._layer_weights(names) for names in self._all_weights]
        return run_layers(
            self.mode, input, h0, c0, weights, self.num_layers, self.bidirectional, self.dropout, self.training,
            self.batch_first, batch_sizes,
        )  # fmt: skip

    def _batched(self, input):
        name = {"LSTM": "LSTM", "GRU": "GRU"}.get(self.mode, "RNN")
        if input.dim() not in (2, 3):
            instead = "instead" if name == "LSTM" else "tensor instead"
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D {instead}")
        return input.dim() == 3

    def _forward_single_state(self, input, hx):
        """RNN and GRU: one hidden state."""
        packed = self._unpack(input, hx)
        if packed is not None:
            return self._forward_packed(packed)
        batched = self._batched(input)
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)
            if hx is not None:
                if hx.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
                hx = hx.unsqueeze(1)
        elif hx is not None and hx.dim() != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
        if hx is None:
            directions = 2 if self.bidirectional else 1
            batch = input.shape[batch_dim]
            hx = _core.zeros(self.num_layers * directions, batch, self.hidden_size, dtype=input.dtype)
        self.check_forward_args(input, hx)
        output, h_n, _ = self._run(input, hx)
        if not batched:
            output, h_n = output.squeeze(batch_dim), h_n.squeeze(1)
        return output, h_n


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh) (or relu)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_single_state(input, hx)


class GRU(RNNBase):
    """Gated recurrent unit, gates r, z, n as torch's."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_single_state(input, hx)


class LSTM(RNNBase):
    """Long short-term memory, gates i, f, g, o as torch's; proj_size projects h."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes=None):
        batch = self._mini_batch(input, batch_sizes)
        return (self.num_layers * (2 if self.bidirectional else 1), batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes=None):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(
            hidden[0], self.get_expected_hidden_size(input, batch_sizes), "Expected hidden[0] size {}, got {}"
        )
        self.check_hidden_size(
            hidden[1], self.get_expected_cell_size(input, batch_sizes), "Expected hidden[1] size {}, got {}"
        )

    def forward(self, input, hx=None):
        packed = self._unpack(input, hx)
        if packed is not None:
            return self._forward_packed(packed)
        batched = self._batched(input)
        batch_dim = 0 if self.batch_first else 1
        if not batched:
            input = input.unsqueeze(batch_dim)
        if hx is None:
            directions = 2 if self.bidirectional else 1
            batch = input.shape[batch_dim]
            real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
            hx = (
                _core.zeros(self.num_layers * directions, batch, real_hidden, dtype=input.dtype),
                _core.zeros(self.num_layers * directions, batch, self.hidden_size, dtype=input.dtype),
            )
        else:
            want = 3 if batched else 2
            if hx[0].dim() != want or hx[1].dim() != want:
                kind = "batched 3-D" if batched else "unbatched 2-D"
                raise RuntimeError(
                    f"For {kind} input, hx and cx should also be {want}-D but got ({hx[0].dim()}-D, "
                    f"{hx[1].dim()}-D) tensors"
                )
            if not batched:
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx)
        output, h_n, c_n = self._run(input, hx[0], hx[1])
        if not batched:
            output, h_n, c_n = output.squeeze(batch_dim), h_n.squeeze(1), c_n.squeeze(1)
        return output, (h_n, c_n)


class RNNCellBase(Module):
    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None, dtype=None):
        super().__init__()
        _device.check_optional(device)
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_core.zeros((num_chunks * hidden_size, input_size), dtype=dtype))
        self.weight_hh = Parameter(_core.zeros((num_chunks * hidden_size, hidden_size), dtype=dtype))
        if bias:
            self.bias_ih = Parameter(_core.zeros(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(_core.zeros(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _prepare(self, name, input, states):
        """Batched input and states (zeros when absent), checked as torch's cells check them."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {self.input_size}")
        if states is None:
            zeros = _core.zeros(input.shape[0], self.hidden_size, dtype=input.dtype)
            return input, [zeros] * self._num_states, batched
        states = [s if batched else s.unsqueeze(0) for s in states]
        for i, s in enumerate(states):
            if s.shape[0] != input.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{i} batch size {s.shape[0]}")
            if s.shape[1] != self.hidden_size:
                raise RuntimeError(
                    f"hidden{i} has inconsistent hidden_size: got {s.shape[1]}, expected {self.hidden_size}"
                )
        return input, states, batched

    def _check_state_dims(self, name, hx):
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")


class RNNCell(RNNCellBase):
    """One Elman RNN step."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]
    _num_states = 1

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh", device=None, dtype=None
    ):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        self._check_state_dims("RNNCell", hx)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        input, (h,), batched = self._prepare("RNNCell", input, None if hx is None else [hx])
        gates = F.linear(input, self.weight_ih, self.bias_ih) + F.linear(h, self.weight_hh, self.bias_hh)
        h = _simple_step("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", gates)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: returns (h', c')."""

    _num_states = 2

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for i, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{i}] to be 1D or 2D, got {value.dim()}D instead")
        input, (h, c), batched = self._prepare("LSTMCell", input, hx)
        gates = F.linear(input, self.weight_ih, self.bias_ih) + F.linear(h, self.weight_hh, self.bias_hh)
        h, c = _lstm_step(gates, c)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step."""

    _num_states = 1

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        self._check_state_dims("GRUCell", hx)
        input, (h,), batched = self._prepare("GRUCell", input, None if hx is None else [hx])
        h = _gru_step(F.linear(input, self.weight_ih, self.bias_ih), F.linear(h, self.weight_hh, self.bias_hh), h)
        return h if batched else h.squeeze(0)
