"""`nn.utils.rnn`: variable-length batches as torch packs them.

A PackedSequence's `data` holds the time steps one after another, each step's rows being the sequences still
running at that step (the batch is sorted by length, longest first), so `batch_sizes` never grows. Packing and
padding are one gather / one scatter over the time-major padded layout: the packed rows are exactly the
positions (t, b) with b < batch_sizes[t], in row-major order.
"""

from collections.abc import Iterable
from typing import NamedTuple

from ... import _core
from ..._core import Tensor

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpad_sequence",
    "pack_sequence",
    "unpack_sequence",
]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


def bind(optional, fn):
    return None if optional is None else fn(optional)


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never be created "
                "manually. They should be instantiated by functions like pack_sequence and pack_padded_sequences "
                "in nn.utils.rnn. https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence"
            )
        return data, batch_sizes, sorted_indices, unsorted_indices
    assert isinstance(data, (list, tuple)) and len(data) == 2, "Expected data to be a list or tuple of length 2"
    return data[0], data[1], sorted_indices, unsorted_indices


def _packed_sequence_init(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    return PackedSequence(*_packed_sequence_init_args(data, batch_sizes, sorted_indices, unsorted_indices))


class PackedSequence(PackedSequence_):
    """Holds the data and `batch_sizes` of a packed batch (see `pack_padded_sequence`); a 4-tuple as torch's."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(data, batch_sizes, sorted_indices, unsorted_indices))

    def pin_memory(self):
        return type(self)(
            self.data.pin_memory(),
            self.batch_sizes,
            bind(self.sorted_indices, lambda t: t.pin_memory()),
            bind(self.unsorted_indices, lambda t: t.pin_memory()),
        )

    def to(self, *args, **kwargs):
        """`data.to(...)`; the indices follow data's device; `self` when nothing changes."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        kwargs = {k: v for k, v in kwargs.items() if k not in ("device", "dtype")}
        sorted_indices = bind(self.sorted_indices, lambda t: t.to(data.device, **kwargs))
        unsorted_indices = bind(self.unsorted_indices, lambda t: t.to(data.device, **kwargs))
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cuda(self, *args, **kwargs):
        ex = _core.tensor([], dtype=self.data.dtype).cuda(*args, **kwargs)
        if ex.device.type == "cuda":
            return self.to(*args, **kwargs)
        kwargs["device"] = "cuda"
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        return self.to(*args, device="cpu", **kwargs)

    def double(self):
        return self.to(dtype=_core.float64)

    def float(self):
        return self.to(dtype=_core.float32)

    def half(self):
        return self.to(dtype=_core.float16)

    def long(self):
        return self.to(dtype=_core.int64)

    def int(self):
        return self.to(dtype=_core.int32)

    def short(self):
        return self.to(dtype=_core.int16)

    def char(self):
        return self.to(dtype=_core.int8)

    def byte(self):
        return self.to(dtype=_core.uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def invert_permutation(permutation):
    """The inverse of a permutation of 0..n-1 (None for None)."""
    if permutation is None:
        return None
    output = _core.zeros(permutation.shape, dtype=permutation.dtype)
    output.scatter_(0, permutation, _core.arange(0, permutation.numel(), dtype=permutation.dtype))
    return output


def _packed_positions(batch_sizes, batch):
    """Flat indices into the time-major (T * batch) padded rows of the packed rows, in packed order."""
    steps = batch_sizes.shape[0]
    running = _core.arange(batch).unsqueeze(0) < batch_sizes.unsqueeze(1)
    return running.reshape(steps * batch).nonzero().squeeze(1)


# c10's ScalarType names, which torch's message prints
_SCALAR_TYPE_NAMES = {
    "int64": "Long",
    "int32": "Int",
    "int16": "Short",
    "int8": "Char",
    "uint8": "Byte",
    "bool": "Bool",
    "float32": "Float",
    "float64": "Double",
    "float16": "Half",
    "bfloat16": "BFloat16",
}


def _check_lengths(lengths, batch, steps):
    if lengths.dim() != 1 or lengths.dtype != _core.int64:
        raise RuntimeError(
            f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D cpu "
            f"{_SCALAR_TYPE_NAMES.get(str(lengths.dtype).split('.')[-1], str(lengths.dtype))} tensor"
        )
    if lengths.shape[0] != batch:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {lengths.shape[0]} (batch_size={batch})"
        )
    values = lengths.tolist()
    if any(a < b for a, b in zip(values, values[1:])):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
            "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement if "
            "you do not need ONNX exportability."
        )
    if min(values) <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0"
        )
    if max(values) > steps:
        # torch reads past the input here; ferrograd refuses
        raise RuntimeError(f"lengths must not exceed the sequence length {steps}, but got {max(values)}")


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded batch (T x B x * or B x T x *) of sequences of the given lengths."""
    if not isinstance(lengths, Tensor):
        lengths = _core.as_tensor(lengths, dtype=_core.int64)
    else:
        lengths = lengths.to(dtype=_core.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = lengths.sort(descending=True, stable=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    padded = input.transpose(0, 1) if batch_first else input
    steps, batch = padded.shape[0], padded.shape[1]
    # sorted here when enforce_sorted=False, so the order check only fails for enforce_sorted=True
    _check_lengths(lengths, batch, steps)
    steps = int(lengths[0].item())
    batch_sizes = (lengths.unsqueeze(0) > _core.arange(steps).unsqueeze(1)).sum(1)
    rows = padded[:steps].reshape(steps * batch, *padded.shape[2:])
    data = rows.index_select(0, _packed_positions(batch_sizes, batch))
    return _packed_sequence_init(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Pads a PackedSequence back: (padded T x B x * or B x T x *, lengths), in the batch's original order."""
    batch_sizes = sequence.batch_sizes
    steps = batch_sizes.shape[0]
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in input, but got "
                f"total_length={total_length} and max sequence length being {steps}"
            )
    else:
        total_length = steps
    data = sequence.data
    batch = int(batch_sizes[0].item())
    rest = tuple(data.shape[1:])
    positions = _packed_positions(batch_sizes, batch)
    filler = _core.full((total_length * batch, *rest), padding_value, dtype=data.dtype)
    padded = filler.index_copy(0, positions, data).reshape(total_length, batch, *rest)
    lengths = (_core.arange(batch).unsqueeze(0) < batch_sizes.unsqueeze(1)).sum(0)
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        return padded.index_select(0 if batch_first else 1, sequence.unsorted_indices), lengths[
            sequence.unsorted_indices
        ]
    return padded, lengths


def _check_trailing(first, seq):
    want, got = tuple(first.shape[1:]), tuple(seq.shape[1:])
    if want == got:
        return
    if len(got) > len(want):
        raise RuntimeError(f"The expanded size of the tensor must match the existing size, got {list(got)}")
    for k in range(1, len(want) + 1):
        a, b = want[-k], (got[-k] if k <= len(got) else 1)
        if a != b and b != 1:
            raise RuntimeError(
                f"The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton dimension "
                f"{len(want) + 1 - k}"
            )


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks sequences of different lengths (L x *) into one padded T x B x * (B x T x * if batch_first)."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(
            f"pad_sequence: Expected iterable for input sequences, but got arg of type: {type(sequences)}"
        )
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    first = sequences[0]
    if any(seq.dim() == 0 for seq in sequences):
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    longest = max(seq.shape[0] for seq in sequences)
    rest = tuple(first.shape[1:])
    padded = []
    for seq in sequences:
        _check_trailing(first, seq)
        seq = seq.to(first.dtype).expand(seq.shape[0], *rest)
        fill = _core.full((longest - seq.shape[0], *rest), padding_value, dtype=first.dtype)
        padded.append(_core.cat([seq, fill] if padding_side == "right" else [fill, seq], 0))
    return _core.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences of a padded batch, each cut to its length."""
    unpadded = []
    if not batch_first:
        # torch transposes the caller's tensor in place here
        padded_sequences.transpose_(0, 1)
    max_length = padded_sequences.shape[1]
    idx = _core.arange(max_length)
    for seq, length in zip(padded_sequences, lengths):
        unpadded.append(seq[idx < length])
    return unpadded


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of sequences (L x *), longest first unless enforce_sorted=False."""
    lengths = _core.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences of a PackedSequence, in the original order."""
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)
