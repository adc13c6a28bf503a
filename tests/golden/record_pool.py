"""Records torch's pooling layers for tests/test_nn_pool.py: `/work/torchenv/bin/python tests/golden/record_pool.py`."""

import _torch_path  # noqa: F401  (first: `import ferrograd` is torch)
import layer_cases as lc
import numpy as np


def ties(rng, *shape):
    """Small integers: many equal values in a window (the first maximum wins)."""
    return lc.tensor_value(rng.integers(-2, 3, shape).astype(np.float64))


def cases():
    rng = np.random.default_rng(21)
    out = []
    fn = [
        ("max_pool1d", (2, 3, 9), {"kernel_size": 3, "stride": 2, "padding": 1, "return_indices": True}),
        ("max_pool1d", (2, 3, 9), {"kernel_size": 2, "dilation": 3, "return_indices": True}),
        ("max_pool1d", (2, 3, 8), {"kernel_size": 3, "stride": 2, "ceil_mode": True, "return_indices": True}),
        ("max_pool1d", (3, 7), {"kernel_size": 2, "stride": 1, "padding": 1}),  # unbatched
        ("max_pool2d", (2, 2, 7, 6), {"kernel_size": 3, "stride": 2, "padding": 1, "return_indices": True}),
        ("max_pool2d", (1, 2, 7, 7), {"kernel_size": 2, "dilation": 2, "ceil_mode": True, "return_indices": True}),
        ("avg_pool1d", (2, 3, 9), {"kernel_size": 3, "stride": 2, "padding": 1}),
        ("avg_pool1d", (2, 3, 9), {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False}),
        ("avg_pool1d", (2, 3, 8), {"kernel_size": 3, "stride": 2, "ceil_mode": True, "padding": 1}),
        ("avg_pool1d", (3, 8), {"kernel_size": 4}),
        ("avg_pool2d", (2, 2, 5, 6), {"kernel_size": 3, "stride": 2, "padding": 1, "divisor_override": 4}),
        ("avg_pool2d", (1, 2, 6, 5), {"kernel_size": 2, "ceil_mode": True, "divisor_override": 3}),
        ("adaptive_avg_pool1d", (2, 3, 7), {"output_size": 3}),
        ("adaptive_avg_pool1d", (2, 3, 6), {"output_size": [4]}),
        ("adaptive_avg_pool1d", (3, 5), {"output_size": 1}),
        ("adaptive_max_pool1d", (2, 3, 7), {"output_size": 3, "return_indices": True}),
        ("adaptive_max_pool1d", (2, 3, 5), {"output_size": 7, "return_indices": True}),  # windows overlap
        ("adaptive_max_pool1d", (3, 8), {"output_size": 4}),
        ("adaptive_max_pool2d", (2, 2, 7, 5), {"output_size": (3, 2), "return_indices": True}),
        ("adaptive_max_pool2d", (2, 6, 6), {"output_size": (None, 4), "return_indices": True}),
        ("adaptive_max_pool2d", (1, 2, 4, 5), {"output_size": 1, "return_indices": True}),
    ]
    for i, (target, shape, kw) in enumerate(fn):
        x = lc.randn(rng, *shape)
        out.append(lc.function_case(f"{target}-{i}", target, [lc.step(x, kwargs=kw)]))
        if target.startswith(("max", "adaptive_max")):
            out.append(lc.function_case(f"{target}-{i}-ties", target, [lc.step(ties(rng, *shape), kwargs=kw)]))
    x = np.array([[[1.0, np.nan, 3.0, np.nan, 3.0, -1.0]]])
    for target, kw in [("max_pool1d", {"kernel_size": 3, "stride": 1}), ("adaptive_max_pool1d", {"output_size": 2})]:
        out.append(
            lc.function_case(
                f"{target}-nan", target, [lc.step(lc.tensor_value(x), kwargs={**kw, "return_indices": True})]
            )
        )
    modules = [
        ("MaxPool1d", (3,), {"stride": 2, "padding": 1}, (2, 3, 8)),
        ("MaxPool2d", (2,), {}, (2, 3, 6, 6)),
        (
            "MaxPool2d",
            ((3, 2),),
            {"stride": (2, 1), "padding": (1, 0), "dilation": (1, 2), "ceil_mode": True},
            (1, 2, 7, 7),
        ),
        ("AvgPool1d", (3,), {"stride": 1, "padding": 1, "count_include_pad": False}, (2, 2, 6)),
        ("AvgPool2d", (2,), {}, (2, 3, 6, 6)),
        ("AvgPool2d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False}, (1, 2, 6, 7)),
        ("AvgPool2d", (2,), {"divisor_override": 2}, (1, 2, 4, 4)),
        ("AdaptiveAvgPool1d", (3,), {}, (2, 2, 7)),
        ("AdaptiveAvgPool2d", ((None, 3),), {}, (2, 2, 5, 7)),
        ("AdaptiveAvgPool2d", (1,), {}, (2, 3, 4, 4)),
        ("AdaptiveMaxPool1d", (3,), {"return_indices": True}, (2, 2, 7)),
        ("AdaptiveMaxPool2d", ((2, 3),), {}, (2, 2, 5, 7)),
    ]
    for i, (target, args, kw, shape) in enumerate(modules):
        out.append(
            lc.module_case(f"{target}-{i}", target, args, kw, dtype=None, steps=[lc.step(lc.randn(rng, *shape))])
        )
    return out


if __name__ == "__main__":
    lc.record("pool", cases())
