"""Records torch's conv layers for tests/test_nn_conv.py: `/work/torchenv/bin/python tests/golden/record_conv.py`."""

import _torch_path  # noqa: F401  (first: `import ferrograd` is torch)
import layer_cases as lc
import numpy as np


def cases():
    rng = np.random.default_rng(20)
    out = []
    # F.conv_transpose2d: (N, C_in, H, W) input, (C_in, C_out/groups, kh, kw) weight
    for i, (cin, cout, k, kw) in enumerate(
        [
            (4, 3, (3, 2), {}),
            (4, 3, (3, 3), {"stride": 2}),
            (4, 3, (3, 3), {"stride": 2, "padding": 1, "output_padding": 1}),
            (4, 3, (2, 3), {"groups": 2}),
            (2, 2, (3, 3), {"dilation": 2, "padding": 1}),
            (2, 2, (3, 3), {"stride": 1, "dilation": 2, "output_padding": 1}),  # output_padding >= stride
            (2, 2, (2, 3), {"stride": 1, "dilation": 3, "output_padding": 2, "padding": 1}),
            (2, 3, (3, 2), {"stride": [2, 3], "padding": [1, 0], "output_padding": [1, 2], "dilation": [1, 3]}),
            (6, 4, (1, 1), {"groups": 2, "stride": 3}),
        ]
    ):
        groups = kw.get("groups", 1)
        x = lc.randn(rng, 2, cin, 4, 5)
        w = lc.randn(rng, cin, cout // groups if cout % groups == 0 else cout, *k)
        b = lc.randn(rng, (cout // groups if cout % groups == 0 else cout) * groups)
        out.append(lc.function_case(f"conv_transpose2d-{i}", "conv_transpose2d", [lc.step(x, w, b, kwargs=kw)]))
    x = lc.randn(rng, 3, 4, 5)  # unbatched, no bias
    out.append(
        lc.function_case("conv_transpose2d-unbatched", "conv_transpose2d", [lc.step(x, lc.randn(rng, 3, 2, 2, 3))])
    )
    for i, kw in enumerate([{}, {"stride": 2, "output_padding": 1}, {"groups": 2, "padding": 1}, {"dilation": 2}]):
        x, w = lc.randn(rng, 2, 4, 6), lc.randn(rng, 4, 3, 3)
        out.append(
            lc.function_case(
                f"conv_transpose1d-{i}",
                "conv_transpose1d",
                [lc.step(x, w, lc.randn(rng, 3 * kw.get("groups", 1)), kwargs=kw)],
            )
        )
    out.append(
        lc.function_case(
            "conv_transpose1d-unbatched", "conv_transpose1d", [lc.step(lc.randn(rng, 4, 5), lc.randn(rng, 4, 2, 2))]
        )
    )
    out.append(
        lc.function_case(
            "conv_transpose2d-float32",
            "conv_transpose2d",
            [
                lc.step(
                    lc.randn(rng, 2, 3, 5, 5, dtype="float32"),
                    lc.randn(rng, 3, 2, 3, 3, dtype="float32"),
                    lc.randn(rng, 2, dtype="float32"),
                    kwargs={"stride": 2},
                )
            ],
        )
    )

    # modules, parameters drawn from numpy
    conv2d = [
        ((1, 6, 5), {}, (2, 1, 9, 9)),
        ((3, 4, 3), {"stride": 2, "padding": 1}, (2, 3, 7, 8)),
        ((2, 4, (3, 2)), {"dilation": (2, 1), "padding": (1, 2), "bias": False}, (1, 2, 7, 6)),
        ((4, 6, 3), {"groups": 2}, (2, 4, 5, 5)),
        ((4, 4, 3), {"groups": 4}, (1, 4, 5, 5)),  # depthwise
        ((2, 3, (4, 3)), {"padding": "same"}, (1, 2, 6, 5)),  # even kernel: the extra row at the bottom
        ((2, 3, 3), {"padding": "same", "dilation": 2}, (1, 2, 7, 6)),
        ((2, 3, 3), {"padding": "valid"}, (1, 2, 5, 5)),
        ((2, 3, 3), {"padding": 1, "padding_mode": "reflect"}, (2, 2, 5, 4)),
        ((2, 3, 3), {"padding": (2, 1), "padding_mode": "replicate"}, (1, 2, 5, 4)),
        ((2, 3, 3), {"padding": (1, 2), "padding_mode": "circular", "stride": 2}, (1, 2, 5, 6)),
        ((2, 3, (2, 4)), {"padding": "same", "padding_mode": "circular"}, (1, 2, 5, 6)),
        ((2, 3, 3), {}, (2, 5, 6)),  # unbatched
    ]
    for i, (args, kw, shape) in enumerate(conv2d):
        out.append(lc.module_case(f"Conv2d-{i}", "Conv2d", args, kw, seed=i, steps=[lc.step(lc.randn(rng, *shape))]))
    conv1d = [
        ((2, 3, 3), {}, (2, 2, 7)),
        ((2, 4, 4), {"stride": 2, "padding": 1, "dilation": 2}, (2, 2, 9)),
        ((4, 6, 3), {"groups": 2, "bias": False}, (1, 4, 6)),
        ((2, 3, 4), {"padding": "same"}, (2, 2, 6)),
        ((2, 3, 3), {"padding": 2, "padding_mode": "circular"}, (1, 2, 5)),
        ((2, 3, 3), {"padding": 2, "padding_mode": "reflect"}, (1, 2, 5)),
        ((2, 3, 3), {}, (2, 6)),  # unbatched
    ]
    for i, (args, kw, shape) in enumerate(conv1d):
        out.append(
            lc.module_case(f"Conv1d-{i}", "Conv1d", args, kw, seed=50 + i, steps=[lc.step(lc.randn(rng, *shape))])
        )
    transposed = [
        ("ConvTranspose2d", (3, 2, 3), {"stride": 2, "padding": 1, "output_padding": 1}, (2, 3, 4, 4), {}),
        ("ConvTranspose2d", (4, 6, (2, 3)), {"groups": 2, "dilation": 2, "bias": False}, (1, 4, 3, 4), {}),
        ("ConvTranspose2d", (3, 2, 3), {"stride": 2, "padding": 1}, (2, 3, 4, 4), {"output_size": [8, 8]}),
        ("ConvTranspose2d", (3, 2, 3), {"stride": 3}, (3, 4, 4), {"output_size": [2, 12, 13]}),  # unbatched
        ("ConvTranspose1d", (3, 2, 3), {"stride": 2}, (2, 3, 5), {}),
        ("ConvTranspose1d", (2, 4, 2), {"stride": 2, "groups": 2}, (2, 2, 5), {"output_size": [11]}),
    ]
    for i, (target, args, kw, shape, fkw) in enumerate(transposed):
        out.append(
            lc.module_case(
                f"{target}-{i}", target, args, kw, seed=80 + i, steps=[lc.step(lc.randn(rng, *shape), kwargs=fkw)]
            )
        )
    out.append(
        lc.module_case(
            "Conv2d-float32",
            "Conv2d",
            (3, 4, 3),
            {"padding": 1},
            dtype="float32",
            seed=99,
            steps=[lc.step(lc.randn(rng, 2, 3, 6, 6, dtype="float32"))],
        )
    )
    return out


if __name__ == "__main__":
    lc.record("conv", cases())
