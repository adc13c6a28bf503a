"""`nn.attention.sdpa_kernel` and `backends.cuda.enable_*_sdp`: which CPU kernel `scaled_dot_product_attention`
runs (the fused one, named as torch's, or the composition), and torch's errors when none is left."""

import ferrograd as fg
import pytest
from ferrograd.nn.attention import SDPBackend, sdpa_kernel

F = fg.nn.functional


def _qkv():
    fg.manual_seed(0)
    return fg.randn(1, 2, 4, 8, requires_grad=True)


@pytest.mark.parametrize(
    "backends, grad_fn",
    [
        ([SDPBackend.MATH], "UnsafeViewBackward0"),
        ([SDPBackend.FLASH_ATTENTION], "ScaledDotProductFlashAttentionForCpuBackward0"),
        (SDPBackend.FLASH_ATTENTION, "ScaledDotProductFlashAttentionForCpuBackward0"),
        ([SDPBackend.MATH, SDPBackend.FLASH_ATTENTION], "ScaledDotProductFlashAttentionForCpuBackward0"),
    ],
)
def test_the_allowed_kernels_choose_the_path_and_agree(backends, grad_fn):
    q = _qkv()
    want = F.scaled_dot_product_attention(q, q, q)
    with sdpa_kernel(backends):
        got = F.scaled_dot_product_attention(q, q, q)
    assert got.grad_fn.name() == grad_fn
    assert fg.allclose(got, want, rtol=1e-5, atol=1e-6)
    assert fg.backends.cuda.flash_sdp_enabled() and fg.backends.cuda.math_sdp_enabled()  # restored


def test_no_kernel_left_raises_torchs_errors():
    q = _qkv()
    with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION]):
        assert not fg.backends.cuda.math_sdp_enabled() and fg.backends.cuda.mem_efficient_sdp_enabled()
        with pytest.raises(RuntimeError, match="^No viable backend for scaled_dot_product_attention was found"):
            F.scaled_dot_product_attention(q, q, q)
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):  # the CPU's fused kernel takes no dropout
        with pytest.raises(RuntimeError, match=r"^No available kernel.  Aborting execution.$"):
            F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    with pytest.raises(AssertionError, match="^Backend must be an instance of SDPBackend"):
        with sdpa_kernel("math"):
            pass


def test_the_switches_take_bools_and_sdpbackend_is_torchs_enum():
    cuda = fg.backends.cuda
    cuda.enable_math_sdp(False)
    try:
        assert not cuda.math_sdp_enabled()
    finally:
        cuda.enable_math_sdp(True)
    with pytest.raises(RuntimeError, match="expects a bool, but got int$"):
        cuda.enable_flash_sdp(1)
    assert (
        str(SDPBackend.MATH) == "SDPBackend.MATH"
        and repr(SDPBackend.FLASH_ATTENTION) == "<SDPBackend.FLASH_ATTENTION: 1>"
    )
    assert int(SDPBackend.ERROR) == -1 and SDPBackend.MATH != 0


def test_half_precision_attention_output_has_the_fused_kernels_layout():
    """pytorch/tutorials' scaled_dot_product_attention tutorial runs float16 heads and then
    `y.transpose(1, 2).view(batch, length, embed)`: torch's fused CPU kernel writes (batch, length, heads, size)
    memory, so that view works; ferrograd's output has the same strides."""
    for dtype in (fg.float16, fg.bfloat16):
        q = fg.rand(2, 6, 2, 4).to(dtype).transpose(1, 2)
        out = fg.nn.functional.scaled_dot_product_attention(q, q, q)
        assert out.shape == (2, 2, 6, 4) and out.stride() == (48, 4, 8, 1)
        assert out.transpose(1, 2).view(2, 6, 8).shape == (2, 6, 8)


def test_causal_biases_run_as_the_mask_they_stand_for():
    """pytorch/tutorials' scaled_dot_product_attention tutorial: `causal_upper_left` is `is_causal=True`,
    `causal_lower_right` its triangle ending at the last key, both Tensor subclasses printing as their mask, and
    a compiled `scaled_dot_product_attention` takes them with `fullgraph=True`."""
    import warnings

    from ferrograd.nn.attention.bias import CausalBias, CausalVariant, causal_lower_right, causal_upper_left

    upper, lower = causal_upper_left(2, 4), causal_lower_right(2, 4)
    assert type(upper) is type(lower) is CausalBias and isinstance(upper, fg.Tensor)
    assert (upper.variant, lower.variant) == (CausalVariant.UPPER_LEFT, CausalVariant.LOWER_RIGHT) == (1, 2)
    assert (upper.seq_len_q, upper.seq_len_kv) == (2, 4)
    assert str(upper) == repr(upper) == "tensor([[ True, False, False, False],\n        [ True,  True, False, False]])"
    assert lower._materialize().tolist() == [[True, True, True, False], [True, True, True, True]]
    fg.manual_seed(0)
    q, k = fg.rand(1, 2, 2, 4), fg.rand(1, 2, 4, 4)
    sdpa = fg.nn.functional.scaled_dot_product_attention
    assert fg.equal(sdpa(q, k, k, attn_mask=upper), sdpa(q, k, k, is_causal=True))
    assert fg.allclose(sdpa(q, k, k, attn_mask=lower), sdpa(q, k, k, attn_mask=lower._materialize()))
    compiled = fg.compile(sdpa, fullgraph=True)
    assert fg.allclose(compiled(q, k, k, upper), sdpa(q, k, k, is_causal=True))
    with pytest.raises(ValueError, match="CausalBias should not be used with causal=True"):
        sdpa(q, k, k, attn_mask=lower, is_causal=True)
    with pytest.raises(AssertionError, match="causal_upper_left only supports 2D tensors"):
        causal_upper_left(2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        causal_lower_right(4, 2)
    assert [str(w.message) for w in caught] == [
        "Lower right causal bias will produce NaNs in the output when seq_len_q > seq_len_kv!"
    ]
