"""`torch.nn.attention.bias`: causal masks as objects `scaled_dot_product_attention` takes for `attn_mask`.
`CausalBias` is a Tensor subclass made as torch makes it (its legacy constructor gives it torch's odd shape,
`(variant, seq_len_q, seq_len_kv)`); attention reads its variant, not its values: the upper-left one (or any
square one) is `is_causal=True`, the lower-right one its materialised boolean mask."""

import enum
import warnings

from ..._core import Tensor

__all__ = ["causal_upper_left", "causal_lower_right", "CausalVariant", "CausalBias"]


class CausalVariant(enum.IntEnum):
    """Where a causal mask's triangle starts when there are more keys than queries."""

    UPPER_LEFT = 1
    LOWER_RIGHT = 2


class CausalBias(Tensor):
    """A causal mask of `seq_len_q` queries by `seq_len_kv` keys, given to `scaled_dot_product_attention` as its
    `attn_mask`; it prints as the mask it stands for (`_materialize()`)."""

    def __init__(self, variant, seq_len_q, seq_len_kv):
        if not isinstance(variant, CausalVariant):
            raise AssertionError(f"variant must be a CausalVariant, got {type(variant).__name__}")
        super().__init__()
        self.variant = variant
        self.seq_len_q = seq_len_q
        self.seq_len_kv = seq_len_kv
        if seq_len_q > seq_len_kv and variant == CausalVariant.LOWER_RIGHT:
            warnings.warn("Lower right causal bias will produce NaNs in the output when seq_len_q > seq_len_kv!",
                          stacklevel=2)  # fmt: skip

    def _upper_left(self, device):
        from ... import ones

        return ones(self.seq_len_q, self.seq_len_kv, dtype=_bool()).tril()

    def _lower_right(self, device):
        from ... import ones

        return ones(self.seq_len_q, self.seq_len_kv, dtype=_bool()).tril(self.seq_len_kv - self.seq_len_q)

    def _materialize(self, device=None):
        """The boolean mask: True where a query may attend to a key."""
        if self.variant == CausalVariant.UPPER_LEFT:
            return self._upper_left(device)
        if self.variant == CausalVariant.LOWER_RIGHT:
            return self._lower_right(device)
        raise ValueError(f"CausalBias.variant must be a CausalVariant type, but found: {self.variant}")

    @staticmethod
    def _dispatch(query, key, value, attn_mask, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
        """What `scaled_dot_product_attention(query, key, value, attn_mask=<a CausalBias>, ...)` runs."""
        from ..functional import scaled_dot_product_attention

        if is_causal:
            raise ValueError("CausalBias should not be used with causal=True")
        if attn_mask.seq_len_q == attn_mask.seq_len_kv or attn_mask.variant == CausalVariant.UPPER_LEFT:
            mask, causal = None, True
        elif attn_mask.variant == CausalVariant.LOWER_RIGHT:
            mask, causal = attn_mask._materialize(), False
        else:
            raise ValueError(f"CausalBias.variant must be a CausalVariant type, but found: {attn_mask.variant}")
        return scaled_dot_product_attention(
            query, key, value, attn_mask=mask, dropout_p=dropout_p, is_causal=causal, scale=scale,
            enable_gqa=enable_gqa,
        )  # fmt: skip

    def __repr__(self):
        return self._materialize().__repr__()

    __str__ = __repr__


def _bool():
    from ... import bool as bool_dtype

    return bool_dtype


def causal_upper_left(*size):
    """The causal mask whose triangle starts at the top-left corner (what `is_causal=True` means)."""
    if len(size) != 2:
        raise AssertionError("causal_upper_left only supports 2D tensors")
    seq_len_q, seq_len_kv = size
    return CausalBias(CausalVariant.UPPER_LEFT, seq_len_q, seq_len_kv)


def causal_lower_right(*size):
    """The causal mask whose triangle ends at the bottom-right corner (the last query sees every key)."""
    if len(size) != 2:
        raise AssertionError("causal_lower_right only supports 2D tensors")
    seq_len_q, seq_len_kv = size
    return CausalBias(CausalVariant.LOWER_RIGHT, seq_len_q, seq_len_kv)
