"""Cases for the padding layers and F.pad's modes recorded from torch (tests/golden/record_padding.py) and
checked by tests/test_nn_padding.py: reprs and attributes, forwards, the input checks and their messages."""

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
from recorded import error

LAYERS = {
    "ZeroPad1d": [2, (1, 2)],
    "ZeroPad2d": [2, (1, 1, 2, 0), [1, 2, 3, 4]],
    "ZeroPad3d": [1, (1, 0, 2, 1, 0, 1)],
    "ConstantPad1d": [(2, 3.5), ((1, 0), -1)],
    "ConstantPad2d": [((1, 2, 3, 4), 1), (1, 2.5)],
    "ConstantPad3d": [(1, -1.0), ((0, 1, 1, 0, 1, 1), 7)],
    "ReflectionPad1d": [2, (1, 2)],
    "ReflectionPad2d": [1, (1, 1, 2, 0)],
    "ReflectionPad3d": [1, (1, 0, 1, 1, 0, 1)],
    "ReplicationPad1d": [2, (3, 1)],
    "ReplicationPad2d": [1, (1, 2, 3, 0)],
    "ReplicationPad3d": [(1, 2, 0, 1, 2, 1), 1],
    "CircularPad1d": [1, (3, 1)],
    "CircularPad2d": [(1, 2, 2, 0), 1],
    "CircularPad3d": [1, (1, 0, 2, 1, 0, 1)],
}


def _make(name, args):
    cls = getattr(nn, name)
    return cls(*args) if name.startswith("Constant") else cls(args)


def _input(dims, batch=True):
    spatial = (3, 3, 4)[3 - dims :]
    shape = (1, 2, *spatial) if batch else (2, *spatial)
    return fg.tensor(np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) * 0.5 - 3.0)


def _layer_case(name):
    def case():
        out = {}
        dims = int(name[-2])
        for i, args in enumerate(LAYERS[name]):
            m = _make(name, args)
            out[f"repr{i}"] = repr(m)
            out[f"padding{i}"] = list(m.padding)
            if hasattr(m, "value"):
                out[f"value{i}"] = m.value
            out[f"batched{i}"] = m(_input(dims))
            out[f"unbatched{i}"] = m(_input(dims, batch=False))
        m = _make(name, LAYERS[name][0])
        out["type_path"] = f"{type(m).__module__.split('.', 1)[1]}.{type(m).__name__}"
        out["mro"] = [c.__name__ for c in type(m).__mro__][:3]
        out["too_few_dims"] = error(m, fg.ones(*([3] * dims)))
        out["too_many_dims"] = error(m, fg.ones(*([1] * (dims + 3))))
        return out

    return case


def _functional():
    x = fg.tensor(np.arange(4.0).reshape(1, 1, 4))
    ones = fg.ones
    return {
        "circular_crop_left": F.pad(x, (-1, 2), mode="circular"),
        "circular_crop_right": F.pad(x, (2, -2), mode="circular"),
        "circular_both": F.pad(fg.ones(1, 3, 3), (-1, -1, 2, 2), mode="circular"),
        "circular_to_empty": F.pad(x, (-4, 0), mode="circular"),
        "circular_int": F.pad(fg.tensor([[[1, 2, 3]]]), (2, 1), mode="circular"),
        "circular_bool": F.pad(fg.tensor([[[True, False]]]), (1, 1), mode="circular"),
        "circular_empty_batch": F.pad(ones(0, 3, 2), (1, 1), mode="circular"),
        "reflect_crop_left": F.pad(x, (-2, 3), mode="reflect"),
        "reflect_crop_right": F.pad(x, (3, -2), mode="reflect"),
        "reflect_3d": F.pad(fg.tensor(np.arange(8.0).reshape(1, 1, 2, 2, 2)), (1, 1, 1, 1, 1, 1), mode="reflect"),
        "reflect_empty_batch": F.pad(ones(0, 1, 3, 3), (1, 1, 1, 1), mode="reflect"),
        "replicate_crop": F.pad(x, (-2, 3), mode="replicate"),
        "replicate_3d": F.pad(fg.tensor(np.arange(8.0).reshape(1, 2, 2, 2)), (1, 0, 0, 2, 1, 1), mode="replicate"),
        "replicate_int32": F.pad(fg.tensor([[[1, 2, 3]]], dtype=fg.int32), (1, 1), mode="replicate"),
        "reflect_value_0": F.pad(x, (1, 1), mode="reflect", value=0),
        "constant_int_value": F.pad(fg.tensor([1, 2]), (1, 1), value=2.5),
        "constant_crop_to_empty": F.pad(x, (-4, 0)),
        "circular_wraps_twice": error(F.pad, x, (5, 0), mode="circular"),
        "circular_negative_size": error(F.pad, x, (-5, 0), mode="circular"),
        "circular_empty_dim": error(F.pad, ones(1, 3, 0), (1, 1), mode="circular"),
        "circular_value": error(F.pad, x, (1, 1), mode="circular", value=2),
        "circular_1d_input": error(F.pad, ones(4), (1, 1), mode="circular"),
        "circular_wrong_rank": error(F.pad, ones(3, 4), (1, 1, 1, 1), mode="circular"),
        "reflect_6d": error(F.pad, ones(1, 1, 1, 1, 1, 3), (1, 1, 1, 1, 1, 1, 1, 1), mode="reflect"),
        "reflect_too_long": error(F.pad, ones(3), (1, 1, 1, 1), mode="reflect"),
        "reflect_odd": error(F.pad, ones(3), (1, 1, 1), mode="reflect"),
        "reflect_W": error(F.pad, ones(1, 3, 3), (3, 1, 0, 0), mode="reflect"),
        "reflect_H": error(F.pad, ones(1, 3, 3), (0, 0, 3, 1), mode="reflect"),
        "reflect_D": error(F.pad, ones(1, 3, 3, 3), (0, 0, 0, 0, 3, 1), mode="reflect"),
        "reflect_negative_too_big": error(F.pad, x, (-2, 4), mode="reflect"),
        "reflect_too_small_1d": error(F.pad, ones(1, 1, 3), (-3, 0), mode="reflect"),
        "reflect_too_small_2d": error(F.pad, ones(1, 3, 3), (-3, 0, -4, 0), mode="reflect"),
        "replicate_too_small_3d": error(F.pad, ones(1, 3, 3, 3), (0, 0, 0, 0, 0, -3), mode="replicate"),
        "reflect_empty_channel": error(F.pad, ones(1, 0, 3), (1, 1), mode="reflect"),
        "replicate_empty_unbatched": error(F.pad, ones(0, 3), (1, 1), mode="replicate"),
        "replicate_empty_width": error(F.pad, ones(1, 1, 3, 0), (1, 1, 1, 1), mode="replicate"),
        "reflect_bool": error(F.pad, fg.ones(1, 2, 3, dtype=fg.bool), (1, 1), mode="reflect"),
        "replicate_bool_2d": error(F.pad, fg.ones(1, 2, 3, dtype=fg.bool), (1, 1, 1, 1), mode="replicate"),
        "constant_negative_size": error(F.pad, x, (-3, -2)),
        "unknown_mode": error(F.pad, x, (1, 1), mode="foo"),
        "value_not_a_number": error(F.pad, x, (1, 1), value="a"),
    }


def _grad_fns():
    names = {}
    for mode in ("constant", "reflect", "replicate", "circular"):
        for k in (1, 2, 3):
            x = fg.ones(*([2] + [3] * (k + 1)), requires_grad=True)
            names[f"{mode}{k}"] = type(F.pad(x, (1, 1) * k, mode=mode).grad_fn).__name__
    return names


CASES = {name: _layer_case(name) for name in LAYERS}
CASES["functional"] = _functional
CASES["grad_fns"] = _grad_fns
