"""Cases whose answer is a dtype, a length or graph metadata rather than a smooth value, found by the differential
check (tools/edge_diff.py): arange's length and values from float arguments in every dtype, clamp's result dtype
over its bounds' kinds, and `t[idx] = v`'s requires_grad and grad_fn. Recorded from torch by
tests/golden/record_edge_semantics.py into tests/golden/edge_semantics.json; compared by
tests/test_edge_semantics.py."""

import ferrograd as fg

# (start, end, step) with float arguments: negative steps, steps that do not divide the range, ends that land
# a hair above a step, tiny and huge magnitudes
ARANGE_ARGS = [
    (-5.3, 2.1, 0.7),
    (-5, 1.0, 0.1),
    (0, 1, 0.1),
    (0.0, 0.3, 0.1),
    (1.0, 0.0, -0.1),
    (0, 10, 0.3),
    (-1.0, 1.0, 0.2),
    (2.5, -2.5, -0.5),
    (0, 3.0000001, 1),
    (0, 1e-3, 1e-4),
    (1, 2.5),
    (5.5,),
    (0.5, 10.5, 1.5),
    (-10, -1, 0.9),
    (1e6, 1e6 + 1, 0.1),
    (0.3, -0.3, -0.1),
    (10, 0, -3.3),
    (0, 1, 1 / 3),
    (-2.9, 7.2),
]
ARANGE_DTYPES = [None, "float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "uint8"]


def _arange_case(args, dtype):
    def case():
        kwargs = {} if dtype is None else {"dtype": getattr(fg, dtype)}
        return {"out": fg.arange(*args, **kwargs)}

    return case


def _clamp_case(x_dtype, bound):
    def case():
        x = fg.tensor([0, 1, 2], dtype=getattr(fg, x_dtype))
        lo, hi = bound()
        out = {"clamp": fg.clamp(x, lo, hi), "clip": fg.clip(x, lo, hi)}
        if hi is None:
            out["clamp_min"] = fg.clamp_min(x, lo)
        return out

    return case


CLAMP_BOUNDS = {
    "number": lambda: (1, None),
    "float-number": lambda: (1.5, None),
    "number-and-0d-f64": lambda: (1.5, fg.tensor(2.0, dtype=fg.float64)),
    "0d-f64": lambda: (fg.tensor(0.5, dtype=fg.float64), None),
    "1d-f64": lambda: (fg.tensor([0.5], dtype=fg.float64), None),
    "0d-f64-and-1d-f64": lambda: (fg.tensor(0.5, dtype=fg.float64), fg.tensor([1.5], dtype=fg.float64)),
    "0d-f64-and-0d-f16": lambda: (fg.tensor(0.5, dtype=fg.float64), fg.tensor(1.5, dtype=fg.float16)),
    "0d-i8": lambda: (fg.tensor(1, dtype=fg.int8), None),
    "1d-f32": lambda: (fg.tensor([0.5]), None),
}


def _clamp_mixed_rejected(x_dtype, bound):
    """A number with a tensor bound that is not 0-dim (or needs grad) matches neither of torch's overloads."""

    def case():
        x = fg.tensor([0, 1, 2], dtype=getattr(fg, x_dtype))
        try:
            fg.clamp(x, *bound())
        except TypeError:
            return {"raised": "TypeError"}
        return {"raised": None}

    return case


CLAMP_REJECTED = {
    "number-and-1d": lambda: (1.5, fg.tensor([2.0])),
    "0d-rg-and-number": lambda: (fg.tensor(0.5, requires_grad=True), 2),
}


def _setitem_case(target, value, index, no_grad):
    def case():
        base = fg.tensor([0.0, 1.0, 2.0, 3.0, 4.0], requires_grad=target != "plain")
        if target == "nonleaf":
            base = base * 1
        t = base if target == "leaf-rg" else base[1:]
        v = {
            "number": lambda: 5.0,
            "tensor": lambda: fg.tensor(5.0),
            "tensor-rg": lambda: fg.tensor(5.0, requires_grad=True),
            "vector-rg": lambda: fg.tensor([5.0], requires_grad=True),
        }[value]()
        idx = {"int": 1, "slice": slice(1, 3), "long": fg.tensor([0, 2]), "mask": fg.arange(t.shape[0]) % 2 == 0}
        try:
            if no_grad:
                with fg.no_grad():
                    t[idx[index]] = v
            else:
                t[idx[index]] = v
        except RuntimeError as e:
            return {"raised": str(e).split(".")[0]}
        out = {
            "t": t,
            "requires_grad": t.requires_grad,
            "grad_fn": type(t.grad_fn).__name__ if t.grad_fn is not None else None,
            "base_grad_fn": type(base.grad_fn).__name__ if base.grad_fn is not None else None,
        }
        if no_grad and t is not base:
            # torch renames a view's grad_fn after its base changed under no_grad (AsStridedBackward0); ferrograd
            # keeps the view's own (SliceBackward0): a known difference in the name only
            del out["grad_fn"]
        return out

    return case


CASES = {}
for _args in ARANGE_ARGS:
    for _dt in ARANGE_DTYPES:
        CASES[f"arange{_args}-{_dt}"] = _arange_case(_args, _dt)
for _x in ["float32", "float16", "int64", "uint8"]:
    for _name, _bound in CLAMP_BOUNDS.items():
        CASES[f"clamp-{_x}-{_name}"] = _clamp_case(_x, _bound)
    for _name, _bound in CLAMP_REJECTED.items():
        CASES[f"clamp-{_x}-{_name}-rejected"] = _clamp_mixed_rejected(_x, _bound)
for _target in ["plain", "leaf-rg", "nonleaf", "view-of-leaf-rg"]:
    for _value in ["number", "tensor", "tensor-rg", "vector-rg"]:
        for _index in ["int", "slice", "long", "mask"]:
            for _ng in [False, True]:
                CASES[f"setitem-{_target}-{_value}-{_index}-no_grad={_ng}"] = _setitem_case(
                    _target, _value, _index, _ng
                )
