"""Cases for the in-place forms (`exp_`), aliases (`arccos`, `fix`) and `out=` of the unary registry ops,
recorded from torch (tests/golden/record_inplace_out.py) and checked by tests/test_inplace_out.py: errors
and their messages, grad_fn names and gradients after in-place writes, values at the domain's edges."""

import warnings

import ferrograd as fg
from recorded import error


def _leaf(values):
    return fg.tensor(values, dtype=fg.float64, requires_grad=True)


def _errors():
    return {
        "leaf exp_": error(lambda: _leaf([1.0]).exp_()),
        "leaf view sin_": error(lambda: _leaf([1.0, 2.0])[0].sin_()),
        "int sqrt_": error(lambda: fg.tensor([1, 2]).sqrt_()),
        "bool exp_": error(lambda: fg.tensor([True]).exp_()),
        "bool abs_": error(lambda: fg.tensor([True]).abs_()),
        "int frac_": error(lambda: fg.tensor([1]).frac_()),
        "out requires grad": error(lambda: fg.sqrt(_leaf([1.0]), out=fg.empty(1))),
        "out cast": error(lambda: fg.sqrt(fg.tensor([1.0]), out=fg.empty(1, dtype=fg.int64))),
        "out int->bool": error(lambda: fg.abs(fg.tensor([1]), out=fg.empty(1, dtype=fg.bool))),
        "out not a tensor": error(lambda: fg.exp(fg.tensor([1.0]), out=3)),
    }


def _inplace_history():
    out = {}
    for name in ("abs", "arccos", "arcsin", "arctan", "fix", "exp2", "rsqrt", "sigmoid", "frac"):
        leaf = _leaf([0.25, 0.5, 0.75])
        t = leaf * 2 - 1
        getattr(t, name + "_")()
        out[name + " grad_fn"] = t.grad_fn.name()
        out[name + " values"] = t
        t.sum().backward()
        out[name + " grad"] = leaf.grad
    base = _leaf([[0.1, 0.2], [0.3, 0.4]]) * 1
    base[:, 1].exp_()
    out["view grad_fn"] = base.grad_fn.name()
    out["view values"] = base
    return out


def _edges():
    x = fg.tensor([0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1.0, -1.0, 2.5, -2.5])
    out = {}
    for name in ("abs", "sqrt", "rsqrt", "reciprocal", "log", "exp", "sign", "fix", "frac", "arctanh", "relu"):
        t = x.clone()
        getattr(t, name + "_")()
        out[name] = t
    return out


def _out_forms():
    x = fg.tensor([[0.5, 1.0, 2.0]])
    full = fg.zeros(2, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fg.exp(x, out=full)
    return {
        "resized out": full,
        "resized warning": [str(w.message).partition(" (Triggered internally")[0] for w in caught],
        "float64 out": fg.log(x, out=fg.empty(0, dtype=fg.float64)),
        "int32 out of int64 abs": error(lambda: fg.abs(fg.tensor([-1, 2]), out=fg.empty(2, dtype=fg.int32))),
        "float64 out of float32 floor": error(lambda: fg.floor(x, out=fg.empty(3, dtype=fg.float64))),
        "float out of int64 sqrt": fg.sqrt(fg.tensor([1, 4]), out=fg.empty(2, dtype=fg.float64)),
        "relu out": error(lambda: fg.relu(x, out=fg.empty(3))),
        "float16 out": fg.sqrt(x, out=fg.empty(1, 3, dtype=fg.float16)),
        "fix_ function": fg.fix_(fg.tensor([1.5, -1.5])),
        "arccos function": fg.arccos(fg.tensor([0.5])),
    }


def _x():
    return fg.tensor([[-1.5, 0.25, 2.0], [0.5, -0.75, 3.0]], dtype=fg.float64)


# (method, arguments): the aliases and in-place forms of methods with arguments (rust/python/src/tensor/forms.rs)
METHOD_FORMS = [
    ("multiply", (2.5,)),
    ("subtract", (1.0,)),
    ("divide", (4.0,)),
    ("true_divide", (3.0,)),
    ("greater", (0.3,)),
    ("greater_equal", (0.25,)),
    ("less", (0.5,)),
    ("less_equal", (0.5,)),
    ("not_equal", (2.0,)),
    ("negative", ()),
    ("multiply_", (2.0,)),
    ("subtract_", (0.5,)),
    ("divide_", (2.0,)),
    ("true_divide_", (2.0,)),
    ("negative_", ()),
    ("eq_", (2.0,)),
    ("ne_", (2.0,)),
    ("lt_", (0.5,)),
    ("le_", (0.5,)),
    ("gt_", (0.5,)),
    ("ge_", (0.5,)),
    ("greater_", (0.0,)),
    ("less_equal_", (0.0,)),
    ("fmod_", (0.7,)),
    ("remainder_", (0.7,)),
    ("floor_divide_", (0.7,)),
    ("clamp_min_", (0.0,)),
    ("clamp_max_", (0.5,)),
    ("clip_", (-1.0, 1.0)),
    ("tril_", ()),
    ("triu_", (1,)),
    ("square_", ()),
    ("round_", ()),
    ("logit_", (0.1,)),
    ("copysign_", (-1.0,)),
    ("float_power_", (2,)),
    ("hypot_", (fg.tensor([1.0, -1.0, 0.5], dtype=fg.float64),)),
    ("nextafter_", (fg.tensor([1.0, -1.0, 0.5], dtype=fg.float64),)),
    ("ldexp_", (fg.tensor([1, -2, 3]),)),
]


def _method_forms():
    out = {}
    for name, args in METHOD_FORMS:
        x = _x()
        out[name] = getattr(x, name)(*args)
        out[name + " is self"] = out[name] is x if name.endswith("_") else None
        if name == "floor_divide_":
            continue  # torch has no derivative for it: it fails at backward, ferrograd at the write
        leaf = fg.tensor(_x().tolist(), dtype=fg.float64, requires_grad=True)
        t = leaf * 1
        r = getattr(t, name)(*args)
        out[name + " grad_fn"] = None if r.grad_fn is None else r.grad_fn.name()
        if r.requires_grad:
            r.sum().backward()
            out[name + " grad"] = leaf.grad
    x = _x()
    out["lerp_"] = x.lerp_(fg.ones(2, 3, dtype=fg.float64), 0.25)
    out["atan2_"] = _x().atan2_(fg.tensor([1.0, -1.0, 0.5], dtype=fg.float64))
    out["arctan2_"] = _x().arctan2_(fg.tensor([1.0, -1.0, 0.5], dtype=fg.float64))
    out["int gt_"] = fg.tensor([1, 2, 3]).gt_(1)
    out["polygamma_"] = _x().polygamma_(1)
    leaf = fg.tensor([0.5, 1.25, 3.0], dtype=fg.float64, requires_grad=True)
    shifted = leaf * 1
    out["polygamma_ grad_fn"] = shifted.polygamma_(1).grad_fn.name()
    out["polygamma_ grad"] = fg.autograd.grad(shifted.sum(), leaf)[0]
    out["polygamma_ saved n"] = shifted.grad_fn._saved_n
    out["mvlgamma_"] = fg.tensor([[1.5, 2.0, 7.25]], dtype=fg.float64).mvlgamma_(2)
    out["mvlgamma_ float32"] = fg.tensor([3.0, 0.75]).mvlgamma_(1)
    out["int gcd_"] = fg.tensor([4, 6, -9]).gcd_(fg.tensor([6]))
    out["int lcm_"] = fg.tensor([4, 6, -9]).lcm_(fg.tensor([6]))
    out["heaviside_"] = _x().heaviside_(fg.tensor([0.5], dtype=fg.float64))
    graph = fg.tensor(_x().tolist(), dtype=fg.float64, requires_grad=True) * 1
    out["heaviside_ grad_fn"] = graph.heaviside_(fg.tensor([0.5], dtype=fg.float64)).grad_fn.name()
    # the type only: torch names the in-place op (aten::heaviside_), ferrograd the op whose values it took
    out["heaviside_ backward"] = error(lambda: graph.sum().backward()).type
    out["int tril_ leaf"] = error(lambda: fg.tensor([[1.0]], requires_grad=True).tril_())
    out["function multiply"] = fg.multiply(_x(), 2)
    out["function negative"] = fg.negative(_x())
    out["function greater_equal"] = fg.greater_equal(_x(), 0.25)
    return out


CASES = {
    "method forms": _method_forms,
    "errors": _errors,
    "inplace history": _inplace_history,
    "edges": _edges,
    "out forms": _out_forms,
}
