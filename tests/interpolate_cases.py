"""Cases of `nn.functional.interpolate` and the upsampling modules, shared by tests/golden/record_interpolate.py
(which runs them with torch) and tests/test_interpolate.py (which compares ferrograd with the recording).

A resampling case returns the output, the input's gradient for the loss sum(out * w) with distinct weights
w = 1, 2, 3, ... (so a gradient sent to the wrong element shows), and the grad_fn names of the output and,
in float64, of the gradient (computed with create_graph from weights that require grad).
"""

import math

import ferrograd as fg
import numpy as np
from recorded import error

F = fg.nn.functional


def _input(shape, seed, dtype="float64"):
    values = np.random.default_rng(seed).standard_normal(shape)
    return fg.tensor(values, dtype=getattr(fg, dtype))


def _resample(shape, kwargs, seed=0, dtype="float64", values=None):
    def case():
        x = _input(shape, seed, dtype) if values is None else fg.tensor(values, dtype=getattr(fg, dtype))
        x.requires_grad_(True)
        out = F.interpolate(x, **kwargs)
        w = fg.arange(1, out.numel() + 1, dtype=out.dtype).reshape(out.shape)
        w.requires_grad_(dtype == "float64")  # so the gradient has a graph (create_graph) to name
        (grad,) = fg.autograd.grad((out * w).sum(), x, create_graph=dtype == "float64")
        result = {"out": out, "grad": grad, "grad_fn": out.grad_fn.name()}
        # (area to one element is torch's mean, whose backward ferrograd names DivBackward0, not DivBackward1)
        if dtype == "float64" and result["grad_fn"] != "MeanBackward1":
            result["grad_grad_fn"] = grad.grad_fn.name()
        return result

    return case


CASES = {}
# (input shape, modes, keyword sets): every mode with every keyword set that applies to it
_LINEAR = {1: "linear", 2: "bilinear", 3: "trilinear"}
_SIZES = {
    1: [
        {"size": 9},
        {"size": 3},
        {"size": 1},
        {"scale_factor": 2},
        {"scale_factor": 0.5},
        {"scale_factor": 1.7},
        {"scale_factor": 1.7, "recompute_scale_factor": True},
        {"scale_factor": 0.35, "recompute_scale_factor": False},
        {"scale_factor": 1},
    ],
    2: [
        {"size": (7, 9)},
        {"size": (3, 4)},
        {"size": (1, 1)},
        {"size": 5},
        {"scale_factor": 2},
        {"scale_factor": (1.5, 0.6)},
        {"scale_factor": 2.3},
        {"scale_factor": 2.3, "recompute_scale_factor": True},
        {"scale_factor": (0.45, 3.1), "recompute_scale_factor": False},
        {"scale_factor": 1.0},
    ],
    3: [
        {"size": (4, 6, 3)},
        {"scale_factor": 1.5},
        {"scale_factor": (0.7, 2, 1.3)},
        {"size": (2, 2, 2)},
    ],
}
_SHAPES = {1: (2, 3, 6), 2: (1, 2, 5, 6), 3: (1, 2, 3, 4, 5)}


def _name(kwargs):
    return ",".join(f"{k}={v}" for k, v in kwargs.items()).replace(" ", "")


for _dims, _shape in _SHAPES.items():
    _modes = ["nearest", "nearest-exact", "area", _LINEAR[_dims]] + (["bicubic"] if _dims == 2 else [])
    for _mode in _modes:
        for _i, _kw in enumerate(_SIZES[_dims]):
            _corner_options = [None] if _mode in ("nearest", "nearest-exact", "area") else [False, True]
            for _corners in _corner_options:
                kwargs = dict(_kw, mode=_mode)
                if _corners is not None:
                    kwargs["align_corners"] = _corners
                CASES[f"{_dims}d-{_mode}-{_name(kwargs)}"] = _resample(_shape, kwargs, seed=_i)

# an input of one pixel, a plane of size one, float32 and 16-bit floats, NaN and infinity
for _mode in ["nearest", "bilinear", "bicubic"]:
    CASES[f"one-pixel-{_mode}"] = _resample((1, 2, 1, 1), {"size": (3, 4), "mode": _mode})
    CASES[f"float32-{_mode}"] = _resample((2, 3, 6, 7), {"scale_factor": 1.6, "mode": _mode}, dtype="float32")
    CASES[f"float16-{_mode}"] = _resample((1, 2, 5, 7), {"scale_factor": 1.7, "mode": _mode}, dtype="float16")
    CASES[f"bfloat16-{_mode}"] = _resample((1, 2, 5, 7), {"size": (4, 9), "mode": _mode}, dtype="bfloat16")
_SPECIAL = [[[[1.0, math.nan, 2.0, -1.0], [math.inf, 0.0, -math.inf, 3.0], [0.5, -0.0, 1.0, 2.0]]]]
for _mode, _kw in [
    ("nearest", {"scale_factor": 2}),
    ("bilinear", {"scale_factor": 2}),
    ("bilinear", {"scale_factor": 1}),
    ("bicubic", {"size": (5, 6)}),
    ("bilinear", {"size": (2, 2), "align_corners": True}),
]:
    CASES[f"special-{_mode}-{_name(_kw)}"] = _resample(None, dict(_kw, mode=_mode), values=_SPECIAL)


def _empty_batch():
    x = fg.zeros(0, 2, 3, 4, requires_grad=True)
    out = F.interpolate(x, scale_factor=2, mode="bilinear")
    out.sum().backward()
    return {"out": out, "grad": x.grad}


def _uint8():
    x = fg.tensor(np.arange(2 * 3 * 4).reshape(1, 2, 3, 4) * 10, dtype=fg.uint8)
    return {
        "nearest": F.interpolate(x, scale_factor=1.5),
        "nearest-exact": F.interpolate(x, size=(5, 3), mode="nearest-exact"),
        "nearest-1d": F.interpolate(x[0], size=7),
    }


def _non_contiguous():
    x = _input((2, 3, 6, 5), 3).transpose(2, 3)
    return {
        "bilinear": F.interpolate(x, size=(7, 4), mode="bilinear"),
        "nearest": F.interpolate(x, size=(7, 4)),
        "bicubic": F.interpolate(x[:, ::2], scale_factor=1.5, mode="bicubic", align_corners=True),
    }


def _modules():
    x = _input((1, 2, 3, 4), 4)
    modules = [
        fg.nn.Upsample(scale_factor=2),
        fg.nn.Upsample(size=(5, 6), mode="bilinear"),
        fg.nn.Upsample(scale_factor=(2, 1.5), mode="bicubic", align_corners=True),
        fg.nn.UpsamplingNearest2d(scale_factor=2),
        fg.nn.UpsamplingBilinear2d(size=5),
        fg.nn.UpsamplingBilinear2d(scale_factor=1.5),
    ]
    out = {}
    for i, m in enumerate(modules):
        out[f"repr-{i}"] = repr(m)
        out[f"out-{i}"] = m(x)
    out["attributes"] = [modules[1].size, modules[2].scale_factor, modules[3].mode, modules[4].align_corners]
    out["scale-int"] = fg.nn.Upsample(scale_factor=3).scale_factor
    return out


def _deprecated():
    import warnings

    x = _input((1, 1, 2, 3), 5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = {
            "upsample": F.upsample(x, scale_factor=2, mode="bilinear"),
            "nearest": F.upsample_nearest(x, size=(3, 4)),
            "bilinear": F.upsample_bilinear(x, scale_factor=2),
        }
    out["warnings"] = [str(w.message) for w in caught]
    return out


CASES.update({"empty-batch": _empty_batch, "uint8": _uint8, "non-contiguous": _non_contiguous})
CASES.update({"modules": _modules, "deprecated": _deprecated})

_X3, _X4, _X5 = ((2, 3, 4), (1, 2, 4, 4), (1, 1, 2, 3, 4))


def _errors():
    x3, x4, x5 = (fg.ones(*s) for s in (_X3, _X4, _X5))
    calls = {
        "both": lambda: F.interpolate(x4, size=4, scale_factor=2),
        "neither": lambda: F.interpolate(x4),
        "size-length": lambda: F.interpolate(x4, size=(4,)),
        "size-type": lambda: F.interpolate(x4, size=(4.0, 4)),
        "scale-length": lambda: F.interpolate(x4, scale_factor=(2, 2, 2)),
        "recompute-with-size": lambda: F.interpolate(x4, size=4, recompute_scale_factor=True),
        "corners-nearest": lambda: F.interpolate(x4, scale_factor=2, align_corners=True),
        "corners-area": lambda: F.interpolate(x4, scale_factor=2, mode="area", align_corners=False),
        "corners-nearest-exact": lambda: F.interpolate(x4, scale_factor=2, mode="nearest-exact", align_corners=False),
        "linear-4d": lambda: F.interpolate(x4, scale_factor=2, mode="linear"),
        "trilinear-4d": lambda: F.interpolate(x4, scale_factor=2, mode="trilinear"),
        "bilinear-3d": lambda: F.interpolate(x3, scale_factor=2, mode="bilinear"),
        "trilinear-3d": lambda: F.interpolate(x3, scale_factor=2, mode="trilinear"),
        "linear-5d": lambda: F.interpolate(x5, scale_factor=2, mode="linear"),
        "bilinear-5d": lambda: F.interpolate(x5, scale_factor=2, mode="bilinear"),
        "bicubic-3d": lambda: F.interpolate(x3, scale_factor=2, mode="bicubic"),
        "bicubic-5d": lambda: F.interpolate(x5, scale_factor=2, mode="bicubic"),
        "unknown-mode": lambda: F.interpolate(x4, scale_factor=2, mode="cubic"),
        "2d-input": lambda: F.interpolate(fg.ones(2, 4), scale_factor=2),
        "6d-input": lambda: F.interpolate(fg.ones(1, 1, 1, 1, 1, 2), scale_factor=2),
        "antialias-nearest": lambda: F.interpolate(x4, scale_factor=2, antialias=True),
        "antialias-3d": lambda: F.interpolate(x3, scale_factor=2, mode="linear", antialias=True),
        "size-zero": lambda: F.interpolate(x4, size=0),
        "size-negative": lambda: F.interpolate(x4, size=(2, -3), mode="bilinear"),
        "size-zero-1d": lambda: F.interpolate(x3, size=0, mode="linear"),
        "size-zero-3d": lambda: F.interpolate(x5, size=(1, 0, 2)),
        "scale-tiny": lambda: F.interpolate(x4, scale_factor=0.1),
        "scale-negative": lambda: F.interpolate(x4, scale_factor=-1.0, mode="bicubic"),
        "scale-nan": lambda: F.interpolate(x4, scale_factor=math.nan),
        "scale-inf": lambda: F.interpolate(x4, scale_factor=math.inf, mode="bilinear"),
        "too-large": lambda: F.interpolate(x4, size=10**12),
        "empty-input-plane": lambda: F.interpolate(fg.ones(1, 1, 0, 4), scale_factor=2),
        "empty-channels": lambda: F.interpolate(fg.ones(1, 0, 4, 4), scale_factor=2, mode="bilinear"),
        "empty-channels-1d": lambda: F.interpolate(fg.ones(1, 0, 4), scale_factor=2, mode="linear"),
        "int-nearest": lambda: F.interpolate(fg.ones(1, 2, 3, 3, dtype=fg.int32), scale_factor=2),
        "int-nearest-1d": lambda: F.interpolate(fg.ones(1, 2, 3, dtype=fg.int64), scale_factor=2),
        "int-bilinear": lambda: F.interpolate(fg.ones(1, 2, 3, 3, dtype=fg.int32), scale_factor=2, mode="bilinear"),
        "int-bicubic": lambda: F.interpolate(fg.ones(1, 2, 3, 3, dtype=fg.int64), scale_factor=2, mode="bicubic"),
        "int-linear": lambda: F.interpolate(fg.ones(1, 2, 3, dtype=fg.int32), scale_factor=2, mode="linear"),
        "bool-trilinear": lambda: F.interpolate(fg.ones(1, 1, 2, 2, 2, dtype=fg.bool), size=3, mode="trilinear"),
        "bool-nearest-3d": lambda: F.interpolate(fg.ones(1, 1, 2, 2, 2, dtype=fg.bool), size=3),
        "uint8-linear": lambda: F.interpolate(fg.ones(1, 2, 3, dtype=fg.uint8), scale_factor=2, mode="linear"),
        "int-area": lambda: F.interpolate(fg.ones(1, 2, 3, 3, dtype=fg.int32), size=2, mode="area"),
        "int-area-3d": lambda: F.interpolate(fg.ones(1, 1, 2, 2, 2, dtype=fg.int32), size=3, mode="area"),
    }
    return {name: error(fn) for name, fn in calls.items()}


CASES["errors"] = _errors


def _area_zero():
    x = _input((1, 2, 4, 4), 6)
    return {"2d": F.interpolate(x, scale_factor=0.1, mode="area"), "1d": F.interpolate(x[0], size=0, mode="area")}


CASES["area-zero-size"] = _area_zero
