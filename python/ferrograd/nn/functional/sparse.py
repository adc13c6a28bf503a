"""Embedding lookups, bags of them, and one-hot encoding."""

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


def _bag_padding_idx(weight, padding_idx):
    """`padding_idx` checked against `weight`'s rows and wrapped to a row number (None stays None), as torch's
    embedding_bag does."""
    if padding_idx is None:
        return None
    rows = weight.size(0)
    if not -rows <= padding_idx < rows:
        raise RuntimeError(
            f"padding_idx must be within the number of embeddings, -{rows} through {rows - 1}, but got {padding_idx}"
        )
    return padding_idx % rows


def embedding_bag(
    input: Tensor,
    weight: Tensor,
    offsets=None,
    max_norm=None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights=None,
    include_last_offset: bool = False,
    padding_idx=None,
) -> Tensor:
    """The sum, mean or max of each bag of `weight` rows that `input` picks (EmbeddingBagBackward0): bags are
    the rows of a 2-D `input`, or the pieces of a 1-D one cut at `offsets`. torch's checks, in its order."""
    if sparse:
        raise ValueError("embedding_bag(sparse=True) is not supported: ferrograd has no sparse gradients")
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it must have the "
            f"same shape as the input ({input.shape})"
        )
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    _check_index_dtype(input, "indices")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length "
                f"sequences. However, found offsets of type {type(offsets)}"
            )
        offsets = _core.arange(0, input.numel(), input.size(1), dtype=input.dtype)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    _check_index_dtype(offsets, "offsets")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    if scale_grad_by_freq and mode == "max":
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' "
            f"(got mode='{mode}'). Please open a feature request on GitHub."
        )
    padding_idx = _bag_padding_idx(weight, padding_idx)
    return _core._embedding_bag(
        weight, input, offsets, mode, per_sample_weights, include_last_offset, padding_idx, scale_grad_by_freq
    )


def _check_index_dtype(t, name):
    if t.dtype not in (_core.int64, _core.int32):
        raise RuntimeError(
            f"Expected tensor for argument #1 '{name}' to have one of the following scalar types: Long, Int; but got "
            f"ferrograd.{t.dtype._legacy_name} instead (while checking arguments for embedding_bag)"
        )


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
