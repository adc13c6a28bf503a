"""Attention: scaled dot-product attention and multi-head attention's forward."""

import math
import warnings

from ... import _core, _flags
from ..._core import Tensor
from ._common import _NEG_INF, _dtype_word
from .dropout import dropout
from .linear import linear
from .padding import pad


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask=None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale=None,
    enable_gqa: bool = False,
) -> Tensor:
    """softmax(query @ keyᵀ · scale + mask) @ value over (..., L, E) / (..., S, E) / (..., S, Ev) inputs.

    A boolean mask keeps the True positions; a float mask is added to the scores; is_causal keeps the lower
    triangle of the (L, S) scores. Rows with every position masked give zeros (torch's safe softmax). With
    enable_gqa, key/value heads (dim -3) are shared by groups of query heads. A mask from
    `nn.attention.bias` (a `CausalBias`) says how to run instead (torch's `__torch_function__` dispatch).
    """
    if attn_mask is not None and hasattr(type(attn_mask), "_dispatch"):
        return type(attn_mask)._dispatch(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_dtype_word(query.dtype)} key.dtype: {_dtype_word(key.dtype)} and value.dtype: "
            f"{_dtype_word(value.dtype)} instead."
        )
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
            f"{query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead."
        )
    if attn_mask is not None and attn_mask.dtype != _core.bool and not attn_mask.is_floating_point():
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: "
            f"{_dtype_word(attn_mask.dtype)} and  query.dtype: {_dtype_word(query.dtype)} instead."
        )
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if dropout_p < 0.0 or dropout_p > 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    if enable_gqa and query.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        heads, kv_heads = query.shape[-3], key.shape[-3]
        if kv_heads == 0 or heads % kv_heads != 0:
            raise RuntimeError("Number of heads in key and value must divide the number of heads in query")
        key, value = _repeat_heads(key, heads // kv_heads), _repeat_heads(value, heads // kv_heads)
    length, source = query.shape[-2], key.shape[-2]
    if scale is None:
        # torch's 1/sqrt(E) in double: inf for heads of width 0, whose scores are 0 whatever the scale
        scale = 1.0 / math.sqrt(query.shape[-1]) if query.shape[-1] > 0 else math.inf
    else:
        scale = float(scale)
    flash = _flags.STATE["sdp.flash"] and _flash_applies(query, key, value, attn_mask, dropout_p)
    if not flash and not _flags.STATE["sdp.math"]:
        _check_a_kernel_is_left(dropout_p)
    if flash:
        mask = attn_mask  # is_causal is applied in the kernel
        if attn_mask is not None and attn_mask.dtype == _core.bool:
            mask = _core.zeros(attn_mask.shape, dtype=query.dtype).masked_fill(attn_mask.logical_not(), _NEG_INF)
        return _core._scaled_dot_product_attention(query, key, value, mask, scale, is_causal)
    scores = (query * scale) @ key.transpose(-2, -1)
    masked = is_causal or attn_mask is not None
    if is_causal:
        keep = _core.ones(length, source, dtype=_core.bool).tril()
        scores = scores.masked_fill(keep.logical_not(), _NEG_INF)
    elif attn_mask is not None:
        if attn_mask.dtype == _core.bool:
            scores = scores.masked_fill(attn_mask.logical_not(), _NEG_INF)
        else:
            scores = scores + attn_mask
    if masked:
        # rows masked everywhere: softmax over zeros (finite, so no NaN reaches the gradient), then zeroed
        live = (scores != _NEG_INF).any(-1, keepdim=True)
        weights = _core.where(live, _core.where(live, scores, 0.0).softmax(-1), 0.0)
    else:
        weights = scores.softmax(-1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p)
    out = weights @ value
    if _flags.STATE["sdp.flash"] and _flash_applies(query, key, value, attn_mask, dropout_p, halves=True):
        # torch's fused CPU kernel also takes float16/bfloat16 and writes (batch, length, heads, size) memory:
        # the same strides here, so that `out.transpose(1, 2).view(...)` works as there
        out = out.transpose(1, 2).contiguous().transpose(1, 2)
    return out


def _check_a_kernel_is_left(dropout_p):
    """With the composition (math) switched off and the fused path not taken: torch's errors when the switches
    (`nn.attention.sdpa_kernel`) leave no CPU kernel. Flash alone still takes inputs outside `_flash_applies`
    (3-D ones) in torch, but no dropout; those run here as the composition, with the same values."""
    if _flags.STATE["sdp.flash"] and dropout_p > 0.0:
        raise RuntimeError("No available kernel.  Aborting execution.")
    if not _flags.STATE["sdp.flash"]:
        raise RuntimeError(
            "No viable backend for scaled_dot_product_attention was found. This is likely due to turning off both "
            "the math kernel and the fused kernels."
        )


def _flash_applies(query, key, value, attn_mask, dropout_p, halves=False):
    """Whether torch's CPU build takes its fused path (one ScaledDotProductFlashAttentionForCpuBackward0 node):
    no dropout, 4-D float inputs with equal (batch, heads) and head size (not 0), a mask that needs no gradient.
    ferrograd's fused kernel takes float32/64; `halves`: whether torch's would take these float16/bfloat16."""
    dtypes = (_core.float16, _core.bfloat16) if halves else (_core.float32, _core.float64)
    return (
        dropout_p == 0.0
        and query.shape[-1] > 0
        and query.dim() == key.dim() == value.dim() == 4
        and query.dtype in dtypes
        and query.shape[:2] == key.shape[:2] == value.shape[:2]
        and query.shape[-1] == value.shape[-1]
        and (attn_mask is None or not attn_mask.requires_grad)
    )


def _repeat_heads(t, times):
    """(..., H, S, E) -> (..., H·times, S, E), each head repeated `times` times in a row."""
    shape = list(t.shape)
    return (
        t.unsqueeze(-3).expand(shape[:-2] + [times] + shape[-2:]).reshape(shape[:-3] + [shape[-3] * times] + shape[-2:])
    )


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A boolean mask as the float mask it means (-inf where True); float masks as they are."""
    if mask is None:
        return None
    if mask.dtype != _core.bool and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both instead.",
            UserWarning,
            stacklevel=3,
        )
    if mask.is_floating_point():
        return mask
    return _core.zeros(mask.shape, dtype=target_type).masked_fill(mask, _NEG_INF)


def _none_or_dtype(input):
    return None if input is None else input.dtype


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """True for batched (3-D) inputs, False for unbatched (2-D) ones; torch's AssertionErrors otherwise."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found "
                f"{key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                f"{attn_mask.dim()}-D tensor instead"
            )
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but found "
                f"{key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                    f"{attn_mask.dim()}-D tensor instead"
                )
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor")


def _in_projection_packed(q, k, v, w, b):
    """q, k, v projected by the stacked (3E, E) weight: one GEMM for self-attention, two for a shared key/value."""
    embed = q.shape[-1]
    if k is v:
        if q is k:
            return linear(q, w, b).unflatten(-1, (3, embed)).unbind(-2)
        w_q, w_kv = w.split([embed, 2 * embed])
        b_q, b_kv = (None, None) if b is None else b.split([embed, 2 * embed])
        kv = linear(k, w_kv, b_kv).unflatten(-1, (2, embed)).unbind(-2)
        return linear(q, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias,
    training: bool = True,
    key_padding_mask=None,
    need_weights: bool = True,
    attn_mask=None,
    use_separate_proj_weight: bool = False,
    q_proj_weight=None,
    k_proj_weight=None,
    v_proj_weight=None,
    static_k=None,
    static_v=None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
):
    """Multi-head attention over (L, N, E) query and (S, N, E·) key/value (or unbatched (L, E), (S, E·)):
    in-projection, per-head attention, out-projection. Returns (output, weights averaged over heads unless
    average_attn_weights=False, or None when need_weights=False)."""
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(
        key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask", query.dtype
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
            "`generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the causal hint alone goes to scaled_dot_product_attention
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False  # the merged mask is not causal any more
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's {value.shape[:2]}"
            )
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = linear(query, q_proj_weight, b_q), linear(key, k_proj_weight, b_k), linear(value, v_proj_weight, b_v)
    else:
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be {(tgt_len, src_len)}."
                )
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                    f"{(bsz * num_heads, tgt_len, src_len)}."
                )
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _core.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _core.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, [0, 1])
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, [0, 1])
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    # (len, N, E) -> (N·heads, len, head_dim)
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _static_or_heads(static_k, "static_k", k, bsz * num_heads, head_dim)
    v = _static_or_heads(static_v, "static_v", v, bsz * num_heads, head_dim)
    if add_zero_attn:
        zeros = _core.zeros(bsz * num_heads, 1, head_dim, dtype=k.dtype)
        k, v = _core.cat([k, zeros], 1), _core.cat([v, zeros.to(v.dtype)], 1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, [0, 1])
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, [0, 1])
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(
                f"Expected key_padded_mask.shape[1] to be {src_len}, but got {key_padding_mask.shape[1]}"
            )
        key_padding_mask = (
            key_padding_mask.reshape(bsz, 1, 1, src_len)
            .expand(bsz, num_heads, 1, src_len)
            .reshape(bsz * num_heads, 1, src_len)
        )
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        # explicit weights, with a plain softmax as torch's (a fully masked row gives NaN here)
        scores = (q * math.sqrt(1.0 / head_dim)) @ k.transpose(-2, -1)
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = scores.softmax(-1)
        if dropout_p > 0.0:
            weights = dropout(weights, dropout_p)
        out = (weights @ v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape(bsz, num_heads, -1, src_len)
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
    return (out if batched else out.squeeze(1)), None


def _static_or_heads(static, name, projected, batch_heads, head_dim):
    if static is None:
        return projected.reshape(projected.shape[0], batch_heads, head_dim).transpose(0, 1)
    if static.shape[0] != batch_heads:
        raise AssertionError(f"expecting {name}.size(0) of {batch_heads}, but got {static.shape[0]}")
    if static.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.shape[2]}")
    return static
