"""`Embedding`: a lookup table of `num_embeddings` vectors, N(0, 1) initialised (padding row zero)."""

from ... import _core, _device
from ...grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Embedding", "EmbeddingBag"]


def _wrapped_padding_idx(padding_idx, num_embeddings):
    """padding_idx checked and counted from the front (None stays None)."""
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = num_embeddings + padding_idx
    return padding_idx


def _embedding_weight(module, weight, freeze, dtype):
    """The `weight` Parameter of an Embedding or EmbeddingBag: `weight` itself (shared), or drawn by
    reset_parameters."""
    shape = (module.num_embeddings, module.embedding_dim)
    if weight is None:
        module.weight = Parameter(_core.zeros(*shape, dtype=dtype), requires_grad=not freeze)
        module.reset_parameters()
    else:
        if tuple(weight.shape) != shape:
            raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
        module.weight = Parameter(weight, requires_grad=not freeze)


def _lookup_settings_repr(module):
    """The `max_norm`, `norm_type` and `scale_grad_by_freq` part of Embedding's and EmbeddingBag's reprs: only
    what differs from the defaults."""
    s = ""
    if module.max_norm is not None:
        s += f", max_norm={module.max_norm}"
    if module.norm_type != 2:
        s += f", norm_type={module.norm_type}"
    if module.scale_grad_by_freq is not False:
        s += f", scale_grad_by_freq={module.scale_grad_by_freq}"
    return s


def _pretrained_shape(embeddings):
    """(rows, columns) of a `from_pretrained` weight, which must be 2-D."""
    if embeddings.dim() != 2:
        raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
    return tuple(embeddings.shape)


class Embedding(Module):
    __constants__ = [
        "num_embeddings",
        "embedding_dim",
        "padding_idx",
        "max_norm",
        "norm_type",
        "scale_grad_by_freq",
        "sparse",
    ]

    def __init__(
        self,
        num_embeddings,
        embedding_dim,
        padding_idx=None,
        max_norm=None,
        norm_type=2.0,
        scale_grad_by_freq=False,
        sparse=False,
        _weight=None,
        _freeze=False,
        device=None,
        dtype=None,
    ):
        super().__init__()
        _device.check_optional(device)
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = _wrapped_padding_idx(padding_idx, num_embeddings)
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if sparse:
            raise ValueError("Embedding(sparse=True) is not supported: ferrograd has no sparse gradients")
        _embedding_weight(self, _weight, _freeze, dtype)
        self.sparse = sparse

    def reset_parameters(self):
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self):
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return F.embedding(
            input, self.weight, self.padding_idx, self.max_norm, self.norm_type, self.scale_grad_by_freq, self.sparse
        )

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        s += _lookup_settings_repr(self)
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(
        cls,
        embeddings,
        freeze=True,
        padding_idx=None,
        max_norm=None,
        norm_type=2.0,
        scale_grad_by_freq=False,
        sparse=False,
    ):
        """An Embedding over the rows of the 2-D tensor `embeddings` (shared, not copied), frozen by default."""
        rows, cols = _pretrained_shape(embeddings)
        return cls(
            num_embeddings=rows,
            embedding_dim=cols,
            _weight=embeddings,
            _freeze=freeze,
            padding_idx=padding_idx,
            max_norm=max_norm,
            norm_type=norm_type,
            scale_grad_by_freq=scale_grad_by_freq,
            sparse=sparse,
        )


class EmbeddingBag(Module):
    """The sum, mean or max of bags of embeddings, without building the embeddings themselves."""

    __constants__ = [
        "num_embeddings",
        "embedding_dim",
        "max_norm",
        "norm_type",
        "scale_grad_by_freq",
        "mode",
        "sparse",
        "include_last_offset",
        "padding_idx",
    ]

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        max_norm=None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        mode: str = "mean",
        sparse: bool = False,
        _weight=None,
        include_last_offset: bool = False,
        padding_idx=None,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        _device.check_optional(device)
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.padding_idx = _wrapped_padding_idx(padding_idx, num_embeddings)
        if sparse:
            raise ValueError("EmbeddingBag(sparse=True) is not supported: ferrograd has no sparse gradients")
        _embedding_weight(self, _weight, False, dtype)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    reset_parameters = Embedding.reset_parameters
    _fill_padding_idx_with_zero = Embedding._fill_padding_idx_with_zero

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(
            input,
            self.weight,
            offsets,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.mode,
            self.sparse,
            per_sample_weights,
            self.include_last_offset,
            self.padding_idx,
        )

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}" + _lookup_settings_repr(self)
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

    @classmethod
    def from_pretrained(
        cls,
        embeddings,
        freeze=True,
        max_norm=None,
        norm_type=2.0,
        scale_grad_by_freq=False,
        mode="mean",
        sparse=False,
        include_last_offset=False,
        padding_idx=None,
    ):
        """An EmbeddingBag over the rows of the 2-D tensor `embeddings` (shared, not copied), frozen by default."""
        rows, cols = _pretrained_shape(embeddings)
        bag = cls(
            num_embeddings=rows,
            embedding_dim=cols,
            _weight=embeddings,
            max_norm=max_norm,
            norm_type=norm_type,
            scale_grad_by_freq=scale_grad_by_freq,
            mode=mode,
            sparse=sparse,
            include_last_offset=include_last_offset,
            padding_idx=padding_idx,
        )
        bag.weight.requires_grad = not freeze
        return bag
