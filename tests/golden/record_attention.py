"""Records torch's attention and transformer layers for tests/test_nn_attention.py; run with torch's Python:
`/work/torchenv/bin/python tests/golden/record_attention.py`."""

import _torch_path  # noqa: F401  (first: `import ferrograd` is torch)
import layer_cases as lc
import numpy as np


def bool_mask(rng, *shape, p=0.3):
    return lc.tensor_value(rng.uniform(size=shape) > p, "bool")


def padding(lengths, total):
    """(N, S) key padding mask, True at padded positions."""
    return lc.tensor_value(np.arange(total)[None, :] >= np.array(lengths)[:, None], "bool")


def sdpa_cases(rng):
    out = []
    q, k, v = (2, 3, 4, 6), (2, 3, 5, 6), (2, 3, 5, 7)
    row_masked = np.ones((4, 5), bool)
    row_masked[1] = False  # a query that sees nothing: zeros, as torch's safe softmax
    float_mask = rng.standard_normal((2, 1, 4, 5))
    float_mask[0, 0, 2] = -np.inf
    float_mask[1, 0, 0, :2] = -np.inf
    specs = [
        ("plain", q, k, v, {}),
        ("bool-mask", q, k, v, {"attn_mask": bool_mask(rng, 4, 5)}),
        ("bool-mask-row", q, k, v, {"attn_mask": lc.tensor_value(row_masked, "bool")}),
        ("bool-mask-batch", q, k, v, {"attn_mask": bool_mask(rng, 2, 3, 4, 5)}),
        ("float-mask", q, k, v, {"attn_mask": lc.tensor_value(float_mask)}),
        ("causal", (2, 3, 5, 6), (2, 3, 5, 6), (2, 3, 5, 7), {"is_causal": True}),
        ("causal-short-query", (1, 2, 3, 4), (1, 2, 6, 4), (1, 2, 6, 4), {"is_causal": True}),
        ("causal-long-query", (1, 2, 6, 4), (1, 2, 3, 4), (1, 2, 3, 4), {"is_causal": True}),
        ("scale", q, k, v, {"scale": 0.7}),
        ("gqa", (1, 4, 3, 4), (1, 2, 5, 4), (1, 2, 5, 3), {"enable_gqa": True}),
        ("unbatched", (4, 6), (5, 6), (5, 2), {}),
        ("3d", (3, 4, 6), (3, 5, 6), (3, 5, 6), {"attn_mask": bool_mask(rng, 4, 5)}),
    ]
    for name, qs, ks, vs, kw in specs:
        step = lc.step(lc.randn(rng, *qs), lc.randn(rng, *ks), lc.randn(rng, *vs), kwargs=kw)
        out.append(lc.function_case(f"sdpa-{name}", "scaled_dot_product_attention", [step]))
    f32 = [lc.randn(rng, *s, dtype="float32") for s in (q, k, v)]
    out.append(
        lc.function_case("sdpa-float32", "scaled_dot_product_attention", [lc.step(*f32, kwargs={"is_causal": False})])
    )
    return out


def mha_cases(rng):
    out = []
    E, H, L, S, N = 8, 2, 4, 5, 3
    self_attn = [lc.randn(rng, L, N, E), {"ref": 0}, {"ref": 0}]
    cross = [lc.randn(rng, L, N, E), lc.randn(rng, S, N, E), {"ref": 1}]
    specs = [
        ("self", {}, self_attn, {}),
        ("self-no-weights", {}, self_attn, {"need_weights": False}),
        ("self-per-head", {}, self_attn, {"average_attn_weights": False}),
        ("kpm", {}, cross, {"key_padding_mask": padding([5, 3, 4], S)}),
        ("kpm-no-weights", {}, cross, {"key_padding_mask": padding([5, 3, 4], S), "need_weights": False}),
        ("bool-mask", {}, cross, {"attn_mask": bool_mask(rng, L, S, p=0.2)}),
        ("float-mask-3d", {}, cross, {"attn_mask": lc.randn(rng, N * H, L, S)}),
        (
            "causal",
            {},
            [lc.randn(rng, L, N, E), {"ref": 0}, {"ref": 0}],
            {
                "attn_mask": lc.tensor_value(np.triu(np.ones((L, L), bool), 1), "bool"),
                "is_causal": True,
                "need_weights": False,
            },
        ),
        (
            "masks-merged",
            {},
            cross,
            {
                "attn_mask": lc.randn(rng, L, S),
                "key_padding_mask": lc.tensor_value(
                    np.where(np.arange(S)[None] >= np.array([5, 2, 4])[:, None], -np.inf, 0.0)
                ),
            },
        ),
        (
            "kdim-vdim",
            {"kdim": 3, "vdim": 5},
            [lc.randn(rng, L, N, E), lc.randn(rng, S, N, 3), lc.randn(rng, S, N, 5)],
            {},
        ),
        (
            "bias-kv-zero-attn",
            {"add_bias_kv": True, "add_zero_attn": True},
            cross,
            {"key_padding_mask": padding([5, 3, 4], S)},
        ),
        ("no-bias", {"bias": False}, self_attn, {}),
        (
            "batch-first",
            {"batch_first": True},
            [lc.randn(rng, N, L, E), {"ref": 0}, {"ref": 0}],
            {"key_padding_mask": padding([4, 2, 3], L)},
        ),
        (
            "batch-first-cross",
            {"batch_first": True},
            [lc.randn(rng, N, L, E), lc.randn(rng, N, S, E), lc.randn(rng, N, S, E)],
            {},
        ),
        (
            "unbatched",
            {},
            [lc.randn(rng, L, E), lc.randn(rng, S, E), {"ref": 1}],
            {"key_padding_mask": lc.tensor_value(np.arange(S) >= 3, "bool")},
        ),
    ]
    for i, (name, kw, inputs, fkw) in enumerate(specs):
        out.append(
            lc.module_case(
                f"mha-{name}", "MultiheadAttention", (E, H), kw, seed=100 + i, steps=[lc.step(*inputs, kwargs=fkw)]
            )
        )
    # dropout is random in training, off in eval
    out.append(
        lc.module_case(
            "mha-dropout-eval",
            "MultiheadAttention",
            (E, H),
            {"dropout": 0.5},
            seed=120,
            steps=[lc.step(*self_attn, train=False)],
        )
    )
    return out


def transformer_cases(rng):
    out = []
    d, h, ff, L, N = 8, 2, 16, 5, 3
    layer_kw = {"dim_feedforward": ff, "dropout": 0.0}
    causal = lc.tensor_value(np.triu(np.full((L, L), -np.inf), 1))
    enc_layer = [
        ("post-relu", {}, [lc.randn(rng, L, N, d)], {}),
        ("pre-gelu", {"norm_first": True, "activation": "gelu"}, [lc.randn(rng, L, N, d)], {"src_mask": causal}),
        (
            "batch-first-kpm",
            {"batch_first": True},
            [lc.randn(rng, N, L, d)],
            {"src_key_padding_mask": padding([5, 2, 4], L)},
        ),
        (
            "callable-activation",
            {"activation": {"callable": "silu"}, "bias": False, "layer_norm_eps": 1e-3},
            [lc.randn(rng, L, N, d)],
            {},
        ),
        (
            "module-activation",
            {"activation": {"module": "GELU", "kwargs": {"approximate": "tanh"}}},
            [lc.randn(rng, L, N, d)],
            {"is_causal": True, "src_mask": causal},
        ),
        ("unbatched", {}, [lc.randn(rng, L, d)], {}),
    ]
    for i, (name, kw, inputs, fkw) in enumerate(enc_layer):
        out.append(
            lc.module_case(
                f"enc-layer-{name}",
                "TransformerEncoderLayer",
                (d, h),
                {**layer_kw, **kw},
                seed=200 + i,
                scale=0.4,
                steps=[lc.step(*inputs, kwargs=fkw)],
            )
        )
    out.append(
        lc.module_case(
            "enc-layer-eval-dropout",
            "TransformerEncoderLayer",
            (d, h),
            {"dim_feedforward": ff},
            seed=210,
            steps=[lc.step(lc.randn(rng, L, N, d), train=False)],
        )
    )
    layer = {"module": "TransformerEncoderLayer", "args": [d, h], "kwargs": {**layer_kw, "dtype": "float64"}}
    layer_bf = {
        "module": "TransformerEncoderLayer",
        "args": [d, h],
        "kwargs": {**layer_kw, "batch_first": True, "dtype": "float64"},
    }
    norm = {"module": "LayerNorm", "args": [d], "kwargs": {"dtype": "float64"}}
    encoders = [
        ("two-layers-norm", [layer, 2], {"norm": norm}, [lc.randn(rng, L, N, d)], {"mask": causal}, {}),
        (
            "batch-first-kpm",
            [layer_bf, 2],
            {},
            [lc.randn(rng, N, L, d)],
            {"src_key_padding_mask": padding([5, 3, 4], L)},
            {},
        ),
        # eval without grad: torch runs nested tensors and returns zeros at the padded positions (then the norm)
        (
            "nested-eval",
            [layer_bf, 2],
            {"norm": norm},
            [lc.randn(rng, N, L, d)],
            {"src_key_padding_mask": padding([5, 3, 4], L)},
            {"train": False, "no_grad": True},
        ),
        (
            "not-left-aligned",
            [layer_bf, 1],
            {},
            [lc.randn(rng, N, L, d)],
            {"src_key_padding_mask": lc.tensor_value(np.array([[0, 1, 0, 0, 0]] * 3, bool), "bool")},
            {"train": False, "no_grad": True},
        ),
    ]
    for i, (name, args, kw, inputs, fkw, skw) in enumerate(encoders):
        out.append(
            lc.module_case(
                f"encoder-{name}",
                "TransformerEncoder",
                args,
                kw,
                dtype=None,
                seed=220 + i,
                scale=0.4,
                steps=[lc.step(*inputs, kwargs=fkw, **skw)],
            )
        )
    dec_layer = [
        ("post", {}, {"tgt_mask": causal, "memory_key_padding_mask": padding([6, 4, 5], 6)}),
        ("pre-batch-first", {"norm_first": True, "batch_first": True}, {"tgt_is_causal": True, "tgt_mask": causal}),
    ]
    for i, (name, kw, fkw) in enumerate(dec_layer):
        bf = kw.get("batch_first")
        tgt = lc.randn(rng, N, L, d) if bf else lc.randn(rng, L, N, d)
        mem = lc.randn(rng, N, 6, d) if bf else lc.randn(rng, 6, N, d)
        out.append(
            lc.module_case(
                f"dec-layer-{name}",
                "TransformerDecoderLayer",
                (d, h),
                {**layer_kw, **kw},
                seed=240 + i,
                scale=0.4,
                steps=[lc.step(tgt, mem, kwargs=fkw)],
            )
        )
    dec = {"module": "TransformerDecoderLayer", "args": [d, h], "kwargs": {**layer_kw, "dtype": "float64"}}
    out.append(
        lc.module_case(
            "decoder",
            "TransformerDecoder",
            [dec, 2],
            {"norm": norm},
            dtype=None,
            seed=250,
            scale=0.4,
            steps=[lc.step(lc.randn(rng, L, N, d), lc.randn(rng, 6, N, d), kwargs={"tgt_mask": causal})],
        )
    )
    out.append(
        lc.module_case(
            "transformer",
            "Transformer",
            [],
            {"d_model": d, "nhead": h, "num_encoder_layers": 1, "num_decoder_layers": 1, **layer_kw},
            seed=260,
            scale=0.4,
            steps=[lc.step(lc.randn(rng, 6, N, d), lc.randn(rng, L, N, d), kwargs={"tgt_mask": causal})],
        )
    )
    return out


if __name__ == "__main__":
    rng = np.random.default_rng(24)
    lc.record("attention", sdpa_cases(rng) + mha_cases(rng) + transformer_cases(rng))
