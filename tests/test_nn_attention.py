"""Attention against torch (values recorded by tests/golden/record_attention.py): F.scaled_dot_product_attention
(boolean and float masks, rows masked everywhere, causal for L = S, L < S, L > S, scale, GQA, broadcast batch
dims), MultiheadAttention (self / cross attention, key padding and attention masks, merged masks, weights
averaged or per head, kdim/vdim, bias_kv, zero_attn, batch_first, unbatched) and the transformer layers
(post- and pre-norm, activations, masks, stacks with a final norm, torch's nested-tensor zeros in eval,
decoder, Transformer): outputs, input and parameter gradients, reprs. Gradients also against float64 finite
differences; dropout; torch's errors and warnings."""

import warnings

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import layer_cases as lc
import numpy as np
import pytest
from helpers import golden, gradcheck
from recorded import check

CASES = golden("attention")["cases"]


@pytest.mark.parametrize("entry", CASES, ids=[e["case"]["id"] for e in CASES])
def test_against_torch(entry):
    tol = (1e-4, 1e-5) if "float32" in entry["case"]["id"] else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the encoder's nested-tensor notes
        check(entry["case"]["id"], lambda: lc.run(entry["case"]), entry["expected"], tol)


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"is_causal": True},
        {"attn_mask": "bool"},
        {"attn_mask": "float"},
        {"scale": 0.3},
    ],
    ids=["plain", "causal", "bool", "float", "scale"],
)
def test_sdpa_gradcheck(kw, rng):
    kw = dict(kw)
    if kw.get("attn_mask") == "bool":
        mask = rng.uniform(size=(3, 4)) > 0.3
        mask[1] = False  # a row masked everywhere: zeros, and zero gradients
        kw["attn_mask"] = fg.tensor(mask)
    elif kw.get("attn_mask") == "float":
        kw["attn_mask"] = fg.tensor(rng.standard_normal((1, 3, 4)), dtype=fg.float64)
    shapes = [(2, 3, 2), (2, 4, 2), (2, 4, 3)] if "is_causal" not in kw else [(2, 4, 2), (2, 4, 2), (2, 4, 3)]
    gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **kw), [rng.standard_normal(s) for s in shapes])


def test_mha_gradcheck(rng):
    mha = nn.MultiheadAttention(4, 2, dtype=fg.float64)
    names = [n for n, _ in mha.named_parameters()]
    params = [rng.uniform(-0.5, 0.5, tuple(p.shape)) for _, p in mha.named_parameters()]
    kpm = fg.tensor([[False, False, True], [False, False, False]])

    def fn(q, kv, w_in, b_in, w_out, b_out):
        for module, name, w in [(mha, "in_proj_weight", w_in), (mha, "in_proj_bias", b_in)]:
            delattr(module, name)
            setattr(module, name, w)
        delattr(mha.out_proj, "weight")
        delattr(mha.out_proj, "bias")
        mha.out_proj.weight, mha.out_proj.bias = w_out, b_out
        return mha(q, kv, kv, key_padding_mask=kpm)[0]

    assert names == ["in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"]
    gradcheck(fn, [rng.standard_normal((2, 2, 4)), rng.standard_normal((3, 2, 4))] + params)


def test_sdpa_dropout(seeded):
    q, k, v = fg.randn(2, 4, 3), fg.randn(2, 5, 3), fg.randn(2, 5, 3)
    np.testing.assert_array_equal(F.scaled_dot_product_attention(q, k, v, dropout_p=1.0).numpy(), np.zeros((2, 4, 3)))
    a = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    b = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    assert not np.allclose(a.numpy(), b.numpy())
    # with v = 1 every output element is the sum of the kept weights / (1 - p): 1 on average
    ones = fg.ones(64, 8, 256, 1)
    out = F.scaled_dot_product_attention(fg.randn(64, 8, 32, 4), fg.randn(64, 8, 256, 4), ones, dropout_p=0.5)
    assert abs(float(out.mean()) - 1.0) < 0.01


def test_generate_square_subsequent_mask():
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    assert mask.tolist() == [[0.0, -np.inf, -np.inf], [0.0, 0.0, -np.inf], [0.0, 0.0, 0.0]]


def test_encoder_layers_are_deep_copies():
    layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    enc = nn.TransformerEncoder(layer, 2)
    a, b = enc.layers[0].linear1.weight, enc.layers[1].linear1.weight
    assert a is not b and a is not layer.linear1.weight and np.array_equal(a.detach().numpy(), b.detach().numpy())
    names = [n for n, _ in enc.named_parameters()]
    assert names[:2] == ["layers.0.self_attn.in_proj_weight", "layers.0.self_attn.in_proj_bias"]
    assert len(names) == 2 * 12


def test_nested_tensor_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 1)
    assert any(
        "enable_nested_tensor is True, but self.use_nested_tensor is False because encoder_layer.self_attn.batch_first"
        " was not True" in str(w.message)
        for w in caught
    )


def test_errors():
    q, k, v = fg.randn(2, 3, 4, 8), fg.randn(2, 3, 5, 8), fg.randn(2, 3, 5, 6)
    sdpa = F.scaled_dot_product_attention
    lc.raises(
        RuntimeError,
        "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True",
        lambda: sdpa(q, k, v, attn_mask=fg.ones(4, 5, dtype=fg.bool), is_causal=True),
    )
    lc.raises(
        RuntimeError,
        "Expected query, key, and value to have the same dtype, but got query.dtype: double key.dtype: float and "
        "value.dtype: float instead.",
        lambda: sdpa(q.double(), k, v),
    )
    lc.raises(
        RuntimeError,
        "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: long int "
        "and  query.dtype: float instead.",
        lambda: sdpa(q, k, v, attn_mask=fg.ones(4, 5, dtype=fg.int64)),
    )
    lc.raises(
        RuntimeError,
        "Number of heads in key and value must divide the number of heads in query",
        lambda: sdpa(q, k[:, :2], v[:, :2], enable_gqa=True),
    )
    lc.raises(
        RuntimeError, "dropout probability has to be between 0 and 1, but got 1.5", lambda: sdpa(q, k, v, dropout_p=1.5)
    )
    mha = nn.MultiheadAttention(8, 2)
    x = fg.randn(4, 3, 8)
    lc.raises(AssertionError, "was expecting embedding dimension of 8, but got 6", lambda: mha(fg.randn(4, 3, 6), x, x))
    lc.raises(
        AssertionError,
        "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found 2-D and 2-D tensors respectively",
        lambda: mha(x, fg.randn(4, 8), fg.randn(4, 8)),
    )
    lc.raises(
        RuntimeError,
        "The shape of the 2D attn_mask is",
        lambda: mha(x, x, x, attn_mask=fg.zeros(3, 4)),
    )
    lc.raises(
        RuntimeError,
        "Need attn_mask if specifying the is_causal hint.",
        lambda: mha(x, x, x, is_causal=True),
    )
    lc.raises(
        AssertionError,
        "only bool and floating types of key_padding_mask are supported",
        lambda: mha(x, x, x, key_padding_mask=fg.zeros(3, 4, dtype=fg.int64)),
    )
    lc.raises(AssertionError, "embed_dim must be divisible by num_heads", lambda: nn.MultiheadAttention(8, 3))
    lc.raises(ValueError, "embed_dim and num_heads must be greater than 0", lambda: nn.MultiheadAttention(0, 1))
    lc.raises(
        RuntimeError,
        "activation should be relu/gelu, not tanh",
        lambda: nn.TransformerEncoderLayer(8, 2, activation="tanh"),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the encoder's nested-tensor note
        t = nn.Transformer(8, 2, 1, 1, 16)
    lc.raises(
        RuntimeError, "the batch number of src and tgt must be equal", lambda: t(fg.randn(5, 3, 8), fg.randn(4, 2, 8))
    )
    lc.raises(
        RuntimeError,
        "the feature number of src and tgt must be equal to d_model",
        lambda: t(fg.randn(5, 3, 8), fg.randn(4, 3, 6)),
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mha(x, x, x, key_padding_mask=fg.zeros(3, 4, dtype=fg.bool), attn_mask=fg.zeros(4, 4))
    assert any("Support for mismatched key_padding_mask and attn_mask is deprecated" in str(w.message) for w in caught)
