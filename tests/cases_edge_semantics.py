"""Cases whose answer is a dtype, a length or graph metadata rather than a smooth value, found by the differential
check (tools/edge_diff.py): arange's length and values from float arguments in every dtype, clamp's result dtype
over its bounds' kinds, and `t[idx] = v`'s requires_grad and grad_fn. Recorded from torch by
tests/golden/record_edge_semantics.py into tests/golden/edge_semantics.json; compared by
tests/test_edge_semantics.py."""

import math

import ferrograd as fg
import recorded

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


# The core defects the differential test (tests/differential_calls.py) found, each as torch answers it.
NAN, INF = float("nan"), float("inf")


def _grad(fn, values, dtype="float32"):
    def case():
        x = fg.tensor(values, dtype=getattr(fg, dtype), requires_grad=True)
        y = fn(x)
        y.sum().backward()
        return {"out": y, "grad": x.grad}

    return case


def _value(fn):
    def case():
        return {"out": fn()}

    return case


def _raises(fn):
    def case():
        return {"error": recorded.error(fn)}

    return case


def _masked_fill_value_grads():
    """Both gradients of `masked_fill` with a float64 0-dim tensor value and a mask broadcast along the rows."""
    x = fg.arange(6.0).reshape(2, 3).requires_grad_()
    v = fg.tensor(2.0, dtype=fg.float64, requires_grad=True)
    y = x.masked_fill(fg.tensor([True, False, True]), v)
    (y * fg.arange(6.0).reshape(2, 3)).sum().backward()
    return {"out": y, "self_grad": x.grad, "value_grad": v.grad}


def _fill_with_tensor():
    """`fill_` with a 0-dim tensor value (pytorch/examples word_language_model/generate.py fills with a sampled
    index): cast into the tensor's dtype, into views, and differentiable in the value (FillBackward3)."""
    value = fg.tensor(1.5, dtype=fg.float64, requires_grad=True)
    x = fg.tensor([1.0, 2.0, 3.0], dtype=fg.float64, requires_grad=True)
    filled = (x * 2).fill_(value)
    (filled * fg.tensor([1.0, 2.0, 4.0], dtype=fg.float64)).sum().backward()
    base = fg.zeros(2, 3)
    base[:, 1].fill_(fg.tensor(7.0))
    graph = fg.zeros(2, 3, requires_grad=True) * 1
    graph[0].fill_(value)
    return {
        "float": fg.zeros(3).fill_(fg.tensor(2.5)),
        "float-into-int": fg.zeros(3, dtype=fg.int64).fill_(fg.tensor(2.7)),
        "double-into-int32": fg.zeros(2, dtype=fg.int32).fill_(fg.tensor(-3.9, dtype=fg.float64)),
        "bool-into-int": fg.zeros(2, dtype=fg.int64).fill_(fg.tensor(True)),
        "int-into-float": fg.zeros(2).fill_(fg.tensor(3)),
        "float-into-bool": fg.zeros(2, dtype=fg.bool).fill_(fg.tensor(0.5)),
        "empty": fg.zeros(0).fill_(fg.tensor(1.0)),
        "column-view": base,
        "grad_fn": filled.grad_fn.name(),
        "value-grad": value.grad,
        "x-grad": x.grad,
        "view-of-graph": graph,
        "view-of-graph-grad_fn": graph.grad_fn.name(),
        "one-dim-value": recorded.error(lambda: fg.zeros(2).fill_(fg.ones(1))),
        "two-dim-value": recorded.error(lambda: fg.zeros(2).fill_(fg.ones(1, 1))),
        "leaf": recorded.error(lambda: fg.zeros(2, requires_grad=True).fill_(fg.tensor(1.0))),
    }


def _no_grad_sum_int():
    with fg.no_grad():
        return fg.tensor([1.5, 2.0], requires_grad=True).sum(dtype=fg.int64)


FOUND = {
    "zero_dim-flip": _value(lambda: fg.tensor(1.5).flip([0])),
    "zero_dim-flip-neg": _value(lambda: fg.tensor(1.5).flip([-1])),
    "zero_dim-movedim": _value(lambda: fg.tensor(1.5).movedim(-1, 0)),
    "zero_dim-permute-empty": _value(lambda: fg.tensor(1.5).permute(())),
    "zero_dim-permute-no-dims": _raises(lambda: fg.tensor(1.5).permute()),
    "permute-dims-keyword": _value(lambda: fg.zeros(2, 3).permute(dims=(1, 0)).shape),
    "median-empty-columns": _value(lambda: list(fg.zeros(3, 0).median(0))),
    "median-empty-columns-keepdim": _value(lambda: list(fg.zeros(2, 0, 3).median(0, keepdim=True))),
    "chunk-empty": _value(lambda: list(fg.zeros(0).chunk(2, 0))),
    "chunk-empty-rows": _value(lambda: [t.shape for t in fg.zeros(0, 3).chunk(3, 0)]),
    "clamp-nan-min": _value(lambda: fg.tensor([1.0, -2.0, NAN]).clamp(min=NAN)),
    "clamp-nan-max": _value(lambda: fg.tensor([1.0, -2.0]).clamp(max=NAN)),
    "clamp-nan-both": _value(lambda: fg.tensor([1.0, -2.0], dtype=fg.float64).clamp(NAN, 0.0)),
    "clamp-nan-min-grad": _grad(lambda x: x.clamp(min=NAN), [1.0, -2.0]),
    "argmax-bool": _raises(lambda: fg.tensor([False, True]).argmax()),
    "argmin-bool-dim": _raises(lambda: fg.tensor([[False, True]]).argmin(1)),
    "pow-bool-bool": _raises(lambda: fg.tensor([True]) ** fg.tensor([False])),
    "pow-number-bool": _raises(lambda: True ** fg.tensor([True])),
    "pow-bool-number": _value(lambda: fg.tensor([True, False]) ** True),
    "pow-int-negative-tensor": _value(lambda: fg.tensor([2, 1, -1, 0]) ** fg.tensor([-1, -1, -1, 2])),
    "pow-int-negative-0d": _value(lambda: fg.tensor([2, 1, -1]) ** fg.tensor(-3)),
    "pow-int32-negative-number": _raises(lambda: fg.tensor([2], dtype=fg.int32) ** -1),
    "pow-int8-negative-number": _raises(lambda: fg.tensor([2], dtype=fg.int8) ** -2),
    "sub-bool-number": _raises(lambda: fg.sub(fg.tensor([1.5]), True)),
    "sub-bool-tensor-alpha": _raises(lambda: fg.tensor([1.5]).sub(fg.tensor([True]), alpha=2)),
    "sub-two-bools": _raises(lambda: fg.tensor([True]) - fg.tensor([True])),
    "add-bool-alpha-neg": _value(lambda: fg.add(fg.tensor([True, False]), fg.tensor([True, True]), alpha=-1)),
    "add-bool-alpha-zero": _value(lambda: fg.add(fg.tensor([True, False]), fg.tensor([False, True]), alpha=0)),
    "add-bool-alpha-float": _raises(lambda: fg.add(fg.tensor([False]), fg.tensor([True]), alpha=2.5)),
    "add-int32-0d-number-alpha": _value(lambda: fg.add(fg.tensor(5, dtype=fg.int32), 2, alpha=-1)),
    "add-int32-bool-alpha": _value(
        lambda: fg.add(fg.tensor([1, 2], dtype=fg.int32), fg.tensor([True, False]), alpha=2)
    ),
    "add-float64-number-alpha": _value(lambda: fg.tensor([0.1], dtype=fg.float64).add(0.1, alpha=3)),
    "add-float64-huge-number-alpha": _value(lambda: fg.tensor([1e38], dtype=fg.float64).add(1e38, alpha=-1)),
    "add-int32-overflow-alpha": _value(lambda: fg.tensor([1.5]).add(fg.tensor(-(2**31), dtype=fg.int32), alpha=2)),
    "add-int-float-alpha-float-result": _value(lambda: fg.add(fg.tensor([1, 2], dtype=fg.int32), 0.0, alpha=0.5)),
    "add-int-float-alpha-int-result": _raises(lambda: fg.add(fg.tensor([1, 2]), 1, alpha=0.5)),
    "add_-int32-overflow-alpha": _value(lambda: fg.tensor([1.0]).add_(fg.tensor([2**31 - 1], dtype=fg.int32), alpha=2)),
    "add_-int-float-alpha": _raises(lambda: fg.tensor([1], dtype=fg.int32).add_(0.0, alpha=0.5)),
    "add-bool-alpha-false": _value(lambda: fg.add(fg.tensor([True, False]), fg.tensor([False, True]), alpha=False)),
    "add-float-bool-alpha": _raises(lambda: fg.add(fg.tensor([1.0]), fg.tensor([2.0]), alpha=True)),
    "permute-empty-kwargs": _value(lambda: fg.zeros(2, 3).permute(1, 0, **{}).shape),
    "masked_fill-int32-overflow": _raises(lambda: fg.tensor([1], dtype=fg.int32).masked_fill(fg.tensor([True]), 2**31)),
    "masked_fill-int8-overflow": _raises(lambda: fg.tensor([1], dtype=fg.int8).masked_fill(fg.tensor([True]), 200)),
    "masked_fill-uint8-minus-one": _value(lambda: fg.tensor([1], dtype=fg.uint8).masked_fill(fg.tensor([True]), -1)),
    "masked_fill-int32-float": _value(lambda: fg.tensor([1], dtype=fg.int32).masked_fill(fg.tensor([True]), -1.5)),
    "masked_fill-int32-inf": _raises(lambda: fg.tensor([1], dtype=fg.int32).masked_fill(fg.tensor([True]), INF)),
    "masked_fill-int64-nan": _raises(lambda: fg.tensor([1]).masked_fill(fg.tensor([True]), NAN)),
    "masked_fill-half-overflow": _raises(
        lambda: fg.tensor([1.0], dtype=fg.float16).masked_fill(fg.tensor([True]), 1e6)
    ),
    "masked_fill-half-inf": _value(lambda: fg.tensor([1.0], dtype=fg.float16).masked_fill(fg.tensor([True]), INF)),
    "masked_fill-float32-overflow": _raises(lambda: fg.tensor([1.0]).masked_fill(fg.tensor([True]), 1e39)),
    "fill_-int32-overflow": _raises(lambda: fg.tensor([1], dtype=fg.int32).fill_(2**31)),
    "fill_-int16-max": _value(lambda: fg.tensor([1], dtype=fg.int16).fill_(32767)),
    "xlogy-grad-x0": _grad(lambda x: fg.xlogy(x, fg.tensor([6.0, 0.0, -1.0, 6.0])), [0.0, 0.0, 0.0, 2.0]),
    "xlogy-grad-number": _grad(lambda x: fg.xlogy(x, 6.0), [0.0, 2.0]),
    "xlog1py-grad-x0": _grad(lambda x: fg.special.xlog1py(x, fg.tensor([6.0, -1.0, 0.0])), [0.0, 0.0, 2.0]),
    "smooth_l1-nan-grad": _grad(
        lambda x: fg.nn.functional.smooth_l1_loss(x, fg.tensor([0.3, 0.3, 0.3])), [NAN, 1.0, 0.2]
    ),
    "huber-nan-grad": _grad(lambda x: fg.nn.functional.huber_loss(x, fg.tensor([0.3, 0.3])), [NAN, 5.0]),
    "add-alpha-grad": _grad(lambda x: x.add(x.detach() * 2, alpha=3), [1.0, 2.0]),
    "amax-nan-grad": _grad(lambda x: x.amax(), [1.0, NAN, 2.0]),
    "amin-nan-grad-dim": _grad(lambda x: x.amin(0), [[1.0, NAN], [0.5, 2.0]]),
    "max-nan-grad": _grad(lambda x: x.max(), [1.0, NAN, 2.0]),
    "prod-0d-inf-grad": _grad(lambda x: x.prod(), INF),
    "prod-0d-nan-grad": _grad(lambda x: x.prod(), NAN),
    "prod-0d-dim-grad": _grad(lambda x: x.prod(0), 0.0),
    "prod-1d-inf-grad": _grad(lambda x: x.prod(), [INF]),
    "masked_fill-broadcast-self": _grad(
        lambda x: x.masked_fill(fg.tensor([[True, False], [False, True]]), 0.0), [1.0, 2.0]
    ),
    "masked_fill_-broadcast-self": _raises(
        lambda: fg.tensor([1.0, 2.0]).masked_fill_(fg.tensor([[True, False], [False, True]]), 0.0)
    ),
    "masked_fill-tensor-value-grad_fn": _value(
        lambda: fg.zeros(2, requires_grad=True).masked_fill(fg.tensor([True, False]), fg.tensor(3.0)).grad_fn.name()
    ),
    "masked_fill-tensor-value-grads": _masked_fill_value_grads,
    "masked_fill-complex-number": _value(
        lambda: fg.tensor([1 + 1j, 2 - 1j, 3j]).masked_fill(fg.tensor([True, False, True]), 1 + 2j)
    ),
    "masked_fill-float-complex-number": _raises(lambda: fg.zeros(3).masked_fill(fg.tensor([True, False, True]), 2j)),
    "masked_fill-float64-complex-tensor": _raises(
        lambda: fg.zeros(3, dtype=fg.float64).masked_fill(fg.tensor([True, False, True]), fg.tensor(1j))
    ),
    "masked_fill-int-nan-tensor": _value(
        lambda: fg.tensor([1, 2], dtype=fg.int32).masked_fill(fg.tensor([True, False]), fg.tensor(7.9))
    ),
    "roll-repeated-dim-adds": _value(lambda: fg.arange(5.0).roll((1, 2), (0, 0))),
    "roll-huge-shift": _value(lambda: fg.arange(5.0).roll(2**62)),
    "roll-two-shifts-no-dims": _raises(lambda: fg.zeros(3).roll((1, 2))),
    "roll-no-shifts": _raises(lambda: fg.zeros(3).roll(())),
    "flip-0d-twice": _raises(lambda: fg.tensor(1.0).flip(0, -1)),
    "flip-roll-tril-triu-grad": _grad(
        lambda x: (
            x.reshape(2, 3, 4).flip(0, 2).roll((1, -1), (1, 2)).tril(-1).triu(-2) * fg.arange(24.0).reshape(2, 3, 4)
        ),
        [float(i) for i in range(24)],
    ),
    "flip-roll-complex": _value(lambda: fg.tensor([[1 + 1j, 2 - 1j], [3j, 4.0]]).flip(1).roll(1, 0)),
    "tril-triu-complex": _value(
        lambda: [fg.tensor([[1 + 1j, 2 - 1j], [3j, 4.0]]).tril(), fg.tensor([[1j, 2.0]]).triu(1)]
    ),
    "tril-bool": _value(lambda: fg.tensor([[True, False], [True, True]]).t().tril()),
    "tril-transposed-int-band": _value(lambda: [fg.arange(12).reshape(3, 4).t().tril(1), fg.ones(2, 3).triu(-100)]),
    "tril-far-diagonals": _value(lambda: [fg.ones(3, 3).tril(100), fg.ones(2, 3).tril(-5), fg.ones(2, 3).triu(5)]),
    "int64-to-float32-rounds-once": _value(
        lambda: [
            fg.tensor([2**60 + 2**36 + 1, -(2**60) - 2**36 - 1]).float(),
            fg.tensor([[2**60 + 2**36 + 1, 0]])[:, 0].float(),
        ]
    ),
    "int64-to-half-rounds-through-float32": _value(
        lambda: [fg.tensor([2**60 + 2**36 + 1]).bfloat16(), fg.tensor([2049, 65519, 65520]).half()]
    ),
    "float32-to-16-bit-floats-halfway": _value(
        lambda: [
            fg.tensor([1 + 2**-11, 1 + 3 * 2**-11, 65519.99, 1e-8, -0.0]).half(),
            fg.tensor([1 + 2**-8, 1 + 3 * 2**-8]).bfloat16(),
        ]
    ),
    "where-int32-overflow": _raises(lambda: fg.where(fg.tensor([True]), fg.tensor([1], dtype=fg.int32), 2**62)),
    "where-overflow-first": _raises(lambda: fg.where(fg.tensor([True]), 2**62, fg.tensor([1], dtype=fg.int32))),
    "where-float32-overflow": _raises(lambda: fg.where(fg.tensor([True]), fg.tensor([1.0]), 1e300)),
    "where-int8-overflow": _raises(lambda: fg.where(fg.tensor([True]), fg.tensor([1], dtype=fg.int8), 300)),
    "logit-grad-zeros": _grad(lambda x: x.logit(), [-0.0, 0.0, 1.0, 0.5, 1.5], "float64"),
    "mish-grad-huge": _grad(lambda x: 3 * fg.nn.functional.mish(x), [1e308, -1e308, 0.5, -0.0], "float64"),
    "var-correction-past-n": _grad(lambda x: x.var(correction=2), [1.5], "float64"),
    "var-correction-past-n-two": _grad(lambda x: x.var(correction=2), [1.5, 2.0], "float64"),
    "var-correction-past-n-dim": _grad(lambda x: x.reshape(1, 2).var(dim=1, correction=2), [1.5, 2.0], "float64"),
    "var-correction-past-n-dim-3": _grad(lambda x: x.reshape(1, 2).var(dim=1, correction=3), [1.5, 2.0], "float64"),
    "std-correction-past-n": _grad(lambda x: x.std(correction=2), [1.5, 2.0], "float64"),
    "std-tiny-float32": _value(lambda: fg.tensor([1e-30, 0.0]).std()),
    "var-tiny-float32-dim": _value(lambda: fg.tensor([[1e-30, 0.0, 3e-30]]).var(1)),
    "cumprod-grad-zero-inf": _grad(lambda x: x.cumprod(0), [2.0, 0.0, INF, 3.0], "float64"),
    "cumprod-grad-two-zeros": _grad(lambda x: x.cumprod(0), [0.0, 0.0, 2.0, 3.0], "float64"),
    "cumprod-grad-zero-nan": _grad(lambda x: x.cumprod(0), [2.0, 0.0, NAN, 3.0], "float64"),
    "cumprod-grad-inf-row-beside-zero": _grad(lambda x: x.cumprod(1), [[0.3, 1e-3, -INF], [NAN, 1.5, -0.0]]),
    "remainder-grad-divisor-inf": _grad(
        lambda y: fg.remainder(fg.tensor([-1.0, 5.0, INF], dtype=fg.float64), y), [INF, -INF, 2.0], "float64"
    ),
    "fmod-grad-divisor-inf": _grad(
        lambda y: fg.fmod(fg.tensor([-1.0, 5.0, INF], dtype=fg.float64), y), [INF, -INF, 2.0], "float64"
    ),
    "rmod-no-derivative": _raises(lambda: (3.0 % fg.tensor([2.0], requires_grad=True)).sum().backward()),
    "cumsum-int-dtype-of-grad-input": _raises(
        lambda: fg.tensor([1.0, 2.0], requires_grad=True).cumsum(0, dtype=fg.int64)
    ),
    "sum-int-dtype-of-grad-input": _raises(lambda: fg.tensor([1.0, 2.0], requires_grad=True).sum(dtype=fg.int64)),
    "prod-int-dtype-of-grad-input": _raises(lambda: fg.tensor([1.0, 2.0], requires_grad=True).prod(dtype=fg.int32)),
    "sum-int-dtype-no-grad-mode": _value(_no_grad_sum_int),
    "mean-int-dtype": _raises(lambda: fg.tensor([1.0, 2.0]).mean(dtype=fg.int64)),
    "mean-int-input": _raises(lambda: fg.tensor([1, 2]).mean()),
    "pow-int-base-exponent-grad": _grad(lambda y: fg.tensor([3, 5, 7]) ** y, [0.3, 1.7, -0.4], "float64"),
    "fill_-tensor-value": _fill_with_tensor,
    "fill_-number-grad_fn": _value(lambda: (fg.ones(2, requires_grad=True) * 1).fill_(2.0).grad_fn.name()),
    "zero_-grad_fn": _value(lambda: (fg.ones(2, requires_grad=True) * 1).zero_().grad_fn.name()),
}

CASES.update(FOUND)


def _saved_fields(make):
    """The grad_fn's name and the `_saved_*` fields it shows."""

    def case():
        node = make(fg.arange(12.0).reshape(3, 4).requires_grad_()).grad_fn
        return {"out": [node.name()] + sorted(k for k in dir(node) if k.startswith("_saved"))}

    return case


def _arange_threaded(dtype):
    """A float arange long enough to be cut into one piece a thread (two here): its values across the boundary
    between the pieces, in each piece's tail past its last pair of vector runs, and a sample of the rest."""

    def case():
        threads = fg.get_num_threads()
        fg.set_num_threads(2)
        try:
            out = fg.arange(-3000, 3000, 0.017, dtype=getattr(fg, dtype))
        finally:
            fg.set_num_threads(threads)
        half = (out.shape[0] + 1) // 2
        return {"len": out.shape[0], "sample": out[::1009], "boundary": out[half - 40 : half + 40], "end": out[-40:]}

    return case


LERP_START = [0.1 * i - 1.3 for i in range(20)]
LERP_END = [1.7 - 0.13 * i for i in range(20)]


def _lerp(dtype, weight):
    def case():
        a, b = (fg.tensor(v, dtype=getattr(fg, dtype)) for v in (LERP_START, LERP_END))
        w = fg.tensor(weight, dtype=getattr(fg, dtype)) if isinstance(weight, list) else weight
        return {"out": fg.lerp(a, b, w)}

    return case


# gather, topk, sort, median and t[index]/t[mask] taking their values by index rows (ops/along_dim.rs,
# ops/advanced_index.rs); lerp in the dtype with torch's fused formula; arange across threads
ALONG_DIM = {
    "gather-negative-index": _raises(lambda: fg.zeros(3, 4).gather(1, fg.tensor([[-1]]))),
    "gather-index-past-the-end": _raises(lambda: fg.zeros(3, 4).gather(0, fg.tensor([[0], [3]]))),
    "gather-int32-index": _value(
        lambda: fg.arange(12.0).reshape(3, 4).gather(0, fg.tensor([[1, 2], [0, 0]], dtype=fg.int32))
    ),
    "gather-empty-self": _raises(lambda: fg.zeros(3, 0).gather(1, fg.zeros(3, 1, dtype=fg.int64))),
    "gather-0d": _value(lambda: fg.tensor(3.0).gather(0, fg.tensor(0))),
    "scatter_add-negative-index": _raises(lambda: fg.zeros(3, 4).scatter_add(1, fg.tensor([[-1]]), fg.ones(1, 1))),
    "gather-saved-fields": _saved_fields(lambda x: x.gather(1, fg.tensor([[0, 1], [1, 2], [3, 3]]))),
    "index-saved-fields": _saved_fields(lambda x: x[fg.tensor([2, 0])]),
    "mask-saved-fields": _saved_fields(lambda x: x[x > 3]),
    "topk-saved-fields": _saved_fields(lambda x: x.topk(2, 1).values),
    "gather-grad-repeats": _grad(
        lambda x: x.gather(1, fg.tensor([[0, 0, 2], [1, 1, 1]])) * fg.tensor([[1.0, 2, 3], [4, 5, 6]]),
        [[1.0, 2, 3], [4, 5, 6]],
    ),
    "gather-grad-dim0-smaller-index": _grad(
        lambda x: x.gather(0, fg.tensor([[2, 0], [2, 2]])) * fg.tensor([[1.0, 2], [3, 4]]),
        [[1.0, 2, 3], [4, 5, 6], [7, 8, 9]],
    ),
    "gather-grad-complex": _grad(
        lambda x: fg.view_as_real(x.gather(0, fg.tensor([1, 1, 0]))) * fg.tensor([1.0, 2.0]), [1 + 2j, -3j], "complex64"
    ),
    "topk-grad-dim0": _grad(lambda x: x.topk(2, 0).values * fg.tensor([[1.0], [10.0]]), [[3.0, 1], [5, 2], [4, 9]]),
    "sort-grad": _grad(lambda x: x.sort(descending=True).values * fg.arange(4.0), [2.0, -1, 7, 0.5]),
    "median-ties": _value(lambda: [list(fg.tensor(r).reshape(1, -1).median(1)) for r in MEDIAN_ROWS]),
    "median-nan-rows": _value(lambda: list(fg.tensor([[1.0, NAN, 0.0, NAN], [3.0, 2.0, 1.0, 0.0]]).median(1))),
    "median-grad-keepdim": _grad(lambda x: x.median(1, keepdim=True).values * 3, [[3.0, 1, 2], [0, 5, 4]]),
    "median-grad-dim0": _grad(lambda x: x.median(0).values, [[3.0, 1, 2], [0, 5, 4], [1, 1, 1]], "float64"),
    "index-two-tensors-grad": _grad(
        lambda x: x[fg.tensor([1, 0, 1]), fg.tensor([[2], [0]])] * fg.arange(6.0).reshape(2, 3),
        [[1.0, 2, 3], [4, 5, 6]],
    ),
    "index-int32-negative-grad": _grad(
        lambda x: x[fg.tensor([-1, 0, -1], dtype=fg.int32)] * 2, [[1.0, 2], [3, 4], [5, 6]]
    ),
    "index-out-of-range": _raises(lambda: fg.zeros(3, 2)[fg.tensor([3])]),
    "mask-rows-grad": _grad(
        lambda x: x[fg.tensor([True, False, True])] * fg.tensor([1.0, 10]), [[1.0, 2], [3, 4], [5, 6]]
    ),
    "mask-elements-grad": _grad(lambda x: x[x > 2.5] * fg.arange(1.0, 5.0), [[1.0, 4, 3], [2, 6, 5]]),
    "mask-wrong-shape": _raises(lambda: fg.zeros(3, 2)[fg.tensor([True, False])]),
    "mask-0d": _value(lambda: fg.arange(3.0)[fg.tensor(True)]),
    "cumsum-float32-accumulates-in-double": _value(lambda: fg.tensor([1e8, 1.0, -1e8, 1.0]).cumsum(0)),
    "cumsum-grad-dim0": _grad(lambda x: x.cumsum(0) * fg.tensor([[1.0, 2], [3, 4]]), [[1.0, 2], [3, 4]]),
}
MEDIAN_ROWS = [[1.0, 2, 2, 2, 3], [2.0, 2, 1, 2, 3], [5.0, 1, 1, 1, 1, 5, 5], [0.0, -0.0, 0.0, -0.0]]
ALONG_DIM.update({f"arange-threaded-{d}": _arange_threaded(d) for d in ["float32", "float64", "float16", "bfloat16"]})
for _dtype in ["float32", "float64", "float16"]:
    for _w in [0.3, 0.5, 0.7, 1.0, 0.0, -0.2, 1.5]:
        ALONG_DIM[f"lerp-{_dtype}-{_w}"] = _lerp(_dtype, _w)
    ALONG_DIM[f"lerp-{_dtype}-tensor-weight"] = _lerp(_dtype, [0.05 * i for i in range(20)])
CASES.update(ALONG_DIM)


def _tied_rows(n, levels, dtype="float32", specials=False):
    """Three rows of n values from `levels` kinds (a fixed scramble), with NaN and -0.0 among them when `specials`."""
    values = [[float((i * 7 + r * 5 + i * i) % levels) for i in range(n)] for r in range(3)]
    if specials:
        kinds = {0: -0.0, 1: NAN}
        values = [[kinds.get(int(v), v) if dtype.startswith(("float", "bfloat")) else v for v in row] for row in values]
    return fg.tensor(values, dtype=getattr(fg, dtype))


def _tied_orders(n, levels, dtype):
    """Each order torch's sort and topk kernels give three rows of ties: both ways, stable or not, partial-sorted
    (k·64 <= n) or selected, sorted or not."""

    def case():
        t = _tied_rows(n, levels, dtype, specials=n == 40)
        out = {}
        for largest in [False, True]:
            out[f"sort-{largest}"] = t.sort(1, largest).indices
            for k, ordered in [(1, True), (3, True), (n // 2, True), (n // 2, False), (4, False)]:
                out[f"topk-{largest}-{k}-{ordered}"] = t.topk(k, 1, largest, ordered).indices
        out["stable"] = t.sort(dim=1, stable=True).indices
        return out

    return case


# the order of tied values: torch's sort (stable=False) leaves them as libstdc++'s std::sort does, its topk as
# std::partial_sort (k·64 <= n) or std::nth_element (then std::sort of the k - 1 before the k-th) does
TIES = {
    f"ties-{dtype}-{n}": _tied_orders(n, levels, dtype)
    for dtype in ["float32", "float64", "int64", "float16"]
    for n, levels in [(17, 2), (40, 3), (200, 4)]
}
TIES["sort-ties-bool"] = _value(lambda: (_tied_rows(40, 3) > 0.5).sort(1).indices)
TIES["sort-ties-dim0"] = _value(lambda: _tied_rows(40, 3).T.sort(0, descending=True).indices)
TIES["topk-ties-dim0"] = _value(lambda: _tied_rows(40, 3).T.topk(5, 0).indices)
TIES["argsort-ties"] = _value(lambda: fg.argsort(_tied_rows(40, 3), 1))
TIES["msort-ties"] = _value(lambda: fg.msort(_tied_rows(20, 2).T))
TIES["topk-grad-ties"] = _grad(lambda x: x.topk(3, 1).values * fg.tensor([1.0, 10, 100]), [[2.0, 2, 1, 2, 2, 0]] * 2)
TIES["sort-grad-ties"] = _grad(lambda x: x.sort(1).values * fg.arange(1.0, 21.0), [[1.0, 0] * 10])
CASES.update(TIES)


def _nonzero_layout(shape, every):
    """nonzero's index list as torch lays it out (each dim's indices contiguous: strides (1, n)), and the tuple forms
    as views of it (`_base`, offsets), for a mask set at every `every`-th element (none when 0)."""

    def case():
        size = math.prod(shape)
        mask = (fg.arange(size) % every == 0).reshape(shape) if every else fg.zeros(shape, dtype=fg.bool)
        listed, tuples = mask.nonzero(), [mask.nonzero(as_tuple=True), fg.where(mask)]
        out = {"list": listed, "strides": list(listed.stride()), "contiguous": listed.is_contiguous()}
        out["argwhere_strides"] = list(fg.argwhere(mask).stride())
        for name, parts in zip(["as_tuple", "where"], tuples):
            out[name] = list(parts)
            out[name + "_layout"] = [[p.storage_offset(), p.is_contiguous(), p._base is not None] for p in parts]
        return out

    return case


NONZERO_LAYOUT = {
    f"nonzero-layout-{'x'.join(map(str, shape))}-{every}": _nonzero_layout(shape, every)
    for shape, every in [((4, 5), 3), ((7,), 2), ((2, 3, 4), 5), ((3, 2, 2, 5), 4), ((2, 1, 2, 1, 3), 2)]
    + [((0, 3), 1), ((3, 4), 0)]
}
NONZERO_LAYOUT["nonzero-layout-0d"] = _value(lambda: fg.tensor(True).nonzero(as_tuple=True))
CASES.update(NONZERO_LAYOUT)
