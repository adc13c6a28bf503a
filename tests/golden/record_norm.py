"""Records torch's normalisation layers for tests/test_nn_norm.py; run with torch's Python:
`/work/torchenv/bin/python tests/golden/record_norm.py`."""

import _torch_path  # noqa: F401  (first: `import ferrograd` is torch)
import layer_cases as lc
import numpy as np


def train_then_eval(rng, shape, train_steps=3, eval_steps=1):
    """Training steps (each with a backward), then eval steps: running statistics move, then get used."""
    steps = [lc.step(lc.tensor_value(rng.standard_normal(shape) * 2 + 1)) for _ in range(train_steps)]
    return steps + [lc.step(lc.randn(rng, *shape), train=False) for _ in range(eval_steps)]


def cases():
    rng = np.random.default_rng(22)
    out = []
    batchnorm = [
        ("BatchNorm1d", (3,), {}, (4, 3)),
        ("BatchNorm1d", (3,), {"momentum": 0.3}, (4, 3, 5)),
        ("BatchNorm1d", (3,), {"momentum": None}, (4, 3, 2)),  # cumulative average
        ("BatchNorm1d", (3,), {"affine": False}, (5, 3)),
        ("BatchNorm1d", (3,), {"track_running_stats": False}, (4, 3, 2)),
        ("BatchNorm1d", (3,), {"bias": False, "eps": 1e-3}, (4, 3)),
        ("BatchNorm2d", (2,), {}, (3, 2, 3, 4)),
        ("BatchNorm2d", (2,), {"momentum": None, "affine": False}, (2, 2, 3, 3)),
        ("BatchNorm2d", (2,), {"track_running_stats": False, "affine": False}, (2, 2, 2, 3)),
        ("BatchNorm3d", (2,), {}, (2, 2, 2, 3, 2)),
        ("BatchNorm3d", (3,), {"momentum": None, "affine": False}, (2, 3, 2, 2, 2)),
    ]
    for i, (target, args, kw, shape) in enumerate(batchnorm):
        out.append(lc.module_case(f"{target}-{i}", target, args, kw, seed=i, steps=train_then_eval(rng, shape)))
    # eval straight away: the initial running statistics (0 and 1)
    out.append(
        lc.module_case(
            "BatchNorm2d-eval", "BatchNorm2d", (2,), {}, seed=9, steps=train_then_eval(rng, (2, 2, 2, 2), 0, 2)
        )
    )
    instance = [
        ("InstanceNorm1d", (3,), {}, (2, 3, 5)),
        ("InstanceNorm1d", (3,), {"affine": True}, (3, 5)),  # unbatched
        ("InstanceNorm1d", (3,), {"affine": True, "track_running_stats": True}, (2, 3, 4)),
        ("InstanceNorm2d", (2,), {}, (2, 2, 3, 3)),
        ("InstanceNorm2d", (2,), {"affine": True, "track_running_stats": True, "momentum": 0.5}, (2, 2, 3, 2)),
        ("InstanceNorm3d", (2,), {"affine": True}, (2, 2, 2, 3, 2)),
        ("InstanceNorm3d", (2,), {"track_running_stats": True}, (2, 2, 3, 2)),  # unbatched
    ]
    for i, (target, args, kw, shape) in enumerate(instance):
        out.append(lc.module_case(f"{target}-{i}", target, args, kw, seed=20 + i, steps=train_then_eval(rng, shape)))
    layer = [
        ((4,), {}, (2, 3, 4)),
        (((3, 4),), {}, (2, 3, 4)),
        ((4,), {"elementwise_affine": False}, (3, 4)),
        ((4,), {"bias": False, "eps": 1e-3}, (2, 4)),
    ]
    for i, (args, kw, shape) in enumerate(layer):
        out.append(
            lc.module_case(f"LayerNorm-{i}", "LayerNorm", args, kw, seed=30 + i, steps=[lc.step(lc.randn(rng, *shape))])
        )
    group = [
        ((2, 4), {}, (3, 4, 5)),
        ((1, 4), {}, (2, 4, 2, 3)),
        ((4, 4), {"affine": False}, (2, 4, 3)),
        ((3, 6), {"eps": 1e-3, "bias": False}, (2, 6)),
    ]
    for i, (args, kw, shape) in enumerate(group):
        out.append(
            lc.module_case(f"GroupNorm-{i}", "GroupNorm", args, kw, seed=40 + i, steps=[lc.step(lc.randn(rng, *shape))])
        )
    rms = [
        ((4,), {}, (2, 3, 4)),
        (((3, 4),), {"eps": 1e-6}, (2, 3, 4)),
        ((4,), {"elementwise_affine": False}, (3, 4)),
        ((4,), {"eps": 0.0}, (2, 4)),
    ]
    for i, (args, kw, shape) in enumerate(rms):
        out.append(
            lc.module_case(f"RMSNorm-{i}", "RMSNorm", args, kw, seed=60 + i, steps=[lc.step(lc.randn(rng, *shape))])
        )
    out.append(
        lc.module_case(
            "RMSNorm-float32",
            "RMSNorm",
            (5,),
            {},
            dtype="float32",
            seed=64,
            steps=[lc.step(lc.randn(rng, 3, 5, dtype="float32"))],
        )
    )
    # functional forms without buffers
    out.append(
        lc.function_case("rms_norm", "rms_norm", [lc.step(lc.randn(rng, 2, 3, 4), (3, 4), lc.randn(rng, 3, 4), 1e-3)])
    )
    out.append(lc.function_case("rms_norm-default-eps", "rms_norm", [lc.step(lc.randn(rng, 3, 4), [4])]))
    out.append(
        lc.function_case(
            "batch_norm-batch-stats",
            "batch_norm",
            [lc.step(lc.randn(rng, 4, 3, 2), None, None, lc.randn(rng, 3), lc.randn(rng, 3), True)],
        )
    )
    out.append(
        lc.function_case(
            "batch_norm-eval",
            "batch_norm",
            [
                lc.step(
                    lc.randn(rng, 4, 3),
                    lc.randn(rng, 3),
                    lc.tensor_value(rng.uniform(0.5, 2, 3)),
                    None,
                    lc.randn(rng, 3),
                    False,
                    frozen=(1, 2),  # running statistics take no gradient
                )
            ],
        )
    )
    out.append(
        lc.function_case("group_norm", "group_norm", [lc.step(lc.randn(rng, 2, 6, 3), 3, lc.randn(rng, 6), None, 1e-4)])
    )
    out.append(
        lc.function_case(
            "instance_norm",
            "instance_norm",
            [lc.step(lc.randn(rng, 2, 3, 4), kwargs={"weight": lc.randn(rng, 3), "eps": 1e-3})],
        )
    )
    out.append(
        lc.function_case(
            "layer_norm",
            "layer_norm",
            [lc.step(lc.randn(rng, 2, 3, 4), (3, 4), lc.randn(rng, 3, 4), lc.randn(rng, 3, 4))],
        )
    )
    out.append(
        lc.module_case(
            "BatchNorm1d-float32",
            "BatchNorm1d",
            (3,),
            {},
            dtype="float32",
            seed=50,
            steps=[lc.step(lc.randn(rng, 8, 3, dtype="float32")) for _ in range(2)]
            + [lc.step(lc.randn(rng, 8, 3, dtype="float32"), train=False)],
        )
    )
    return out


if __name__ == "__main__":
    lc.record("norm", cases())
