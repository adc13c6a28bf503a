"""Embedding lookups and one-hot encoding."""

from ... import _core
from ..._core import Tensor
from ...grad_mode import no_grad


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx=None,
    max_norm=None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """Rows of `weight` picked by `input` (EmbeddingBackward0); the padding_idx row gets no gradient.
    `max_norm` renormalises the picked rows of `weight` in place first, as PyTorch does."""
    if sparse:
        raise ValueError("embedding(sparse=True) is not supported: ferrograd has no sparse gradients")
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    out = _core._embedding(input, weight, padding_idx)
    return _scale_grad_by_freq(out, input, weight.size(0)) if scale_grad_by_freq else out


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding along a new last dim."""
    if tensor.dtype != _core.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(tensor.max()) + 1
    elif num_classes < -1:
        raise RuntimeError("num_classes should be positive")
    if tensor.numel() > 0:
        if int(tensor.min()) < 0:
            raise RuntimeError("Class values must be non-negative.")
        if int(tensor.max()) >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    return (tensor.unsqueeze(-1) == _core.arange(num_classes)).long()


def _embedding_renorm_(weight, input, max_norm, norm_type):
    """Scales the rows of `weight` that `input` picks and whose norm exceeds `max_norm` down to it, in place."""
    with no_grad():
        rows = weight.shape[0]
        picked = _core.zeros(rows).index_add_(0, input.reshape(-1), _core.ones(input.numel())) > 0
        norms = weight.norm(norm_type, 1)
        scale = _core.where(picked.logical_and(norms > max_norm), max_norm / (norms + 1e-7), 1.0)
        weight.mul_(scale.to(weight.dtype).unsqueeze(1))


def _scale_grad_by_freq(out, input, rows):
    """The same values, with the gradient of each looked-up row divided by how often `input` picks it."""
    ones = _core.ones(input.numel(), dtype=out.dtype)
    counts = _core.zeros(rows, dtype=out.dtype).index_add_(0, input.reshape(-1), ones)
    s = (1.0 / counts.index_select(0, input.reshape(-1))).reshape(*input.shape, 1)
    return out * s + (out * (1.0 - s)).detach()
