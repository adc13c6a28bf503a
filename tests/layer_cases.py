"""Cases that run a layer (an `nn` module or an `nn.functional` function) on given inputs and weights, shared
by the `tests/golden/record_*.py` scripts (which run them on torch, through tools/torch_shim) and the tests
(which run them on ferrograd and compare with the recording).

A case is plain JSON:
    {"id": ..., "kind": "module" | "function", "target": "Conv2d" | "conv_transpose2d", "args": [...],
     "kwargs": {...}, "dtype": "float64", "params": {name: array}, "steps": [step, ...]}
a step: {"inputs": [value, ...], "kwargs": {name: value}, "train": bool, "backward": bool, "frozen": [index]};
a value is a literal or a tensor as `recorded.encode` writes it; float tensors among a step's inputs
require grad, except those at the frozen indices.
Running a case returns {"outputs": [[tensor, ...] per step], "input_grads": [[...] per step],
"param_grads": {...}, "buffers": {...}, "repr": str}, recorded and compared by tests/recorded.py. Each
backward step uses upstream gradients drawn from `numpy.random.default_rng(seed)` in output order, so both
frameworks see the same ones.
"""

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
from recorded import encode, golden_path, require_torch

FLOAT_DTYPES = ("float32", "float64")
_NP = {"float32": np.float32, "float64": np.float64, "bool": np.bool_, "int64": np.int64}


def is_tensor_value(value):
    return isinstance(value, dict) and set(value) == {"tensor", "dtype", "shape"}


def pack(value):
    """Arguments as JSON, tuples kept apart from lists ({"tuple": [...]}): reprs print them differently."""
    if isinstance(value, tuple):
        return {"tuple": [pack(v) for v in value]}
    if isinstance(value, list):
        return [pack(v) for v in value]
    if isinstance(value, dict) and not is_tensor_value(value):
        return {k: pack(v) for k, v in value.items()}
    return value


def unpack(value):
    if isinstance(value, dict) and set(value) == {"tuple"}:
        return tuple(unpack(v) for v in value["tuple"])
    if isinstance(value, dict) and set(value) == {"callable"}:  # an nn.functional function, e.g. an activation
        return getattr(F, value["callable"])
    if isinstance(value, dict) and "module" in value and set(value) <= {"module", "args", "kwargs"}:
        # a module argument (a TransformerEncoder's layer or norm): built here, its parameters set by the case
        kwargs = unpack(value.get("kwargs", {}))
        if isinstance(kwargs.get("dtype"), str):
            kwargs["dtype"] = getattr(fg, kwargs["dtype"])
        return getattr(nn, value["module"])(*unpack(value.get("args", [])), **kwargs)
    if isinstance(value, list):
        return [unpack(v) for v in value]
    if isinstance(value, dict) and not is_tensor_value(value):
        return {k: unpack(v) for k, v in value.items()}
    return value


def decode(value, requires_grad=False):
    """A case value as the framework's: tensors (float ones requiring grad if asked), also inside lists and
    tuples, and literals."""
    if isinstance(value, list):
        return [decode(v, requires_grad) for v in value]
    if isinstance(value, dict) and set(value) == {"tuple"}:
        return tuple(decode(v, requires_grad) for v in value["tuple"])
    if not is_tensor_value(value):
        return unpack(value)
    data = np.asarray(value["tensor"], dtype=_NP[value["dtype"]]).reshape(value["shape"])
    t = fg.tensor(data, dtype=getattr(fg, value["dtype"]))
    if requires_grad and value["dtype"] in FLOAT_DTYPES:
        t.requires_grad_(True)
    return t


def tensor_value(a, dtype="float64"):
    """Encode a numpy array (or nested lists) as a case value; floats rounded to 6 decimals (the recording
    stays small, and both frameworks read the same numbers)."""
    a = np.asarray(a)
    if dtype in FLOAT_DTYPES:
        a = np.round(a.astype(np.float64), 6)
    return {
        "tensor": a.astype(_NP[dtype] if dtype not in FLOAT_DTYPES else np.float64).tolist(),
        "dtype": dtype,
        "shape": list(a.shape),
    }


def _flatten(out):
    if isinstance(out, (tuple, list)):
        return [t for item in out for t in _flatten(item)]
    return [out]


def build(case):
    """The module of a module case (parameters copied in), or the function of a function case."""
    if case["kind"] == "function":
        return getattr(F, case["target"])
    kwargs = unpack(case.get("kwargs", {}))
    if case.get("dtype") is not None:
        kwargs["dtype"] = getattr(fg, case["dtype"])
    module = getattr(nn, case["target"])(*unpack(case.get("args", [])), **kwargs)
    with fg.no_grad():
        named = dict(module.named_parameters())
        for name, value in case.get("params", {}).items():
            named[name].copy_(decode(value))
    return module


def run(case):
    """Run every step of a case; the results as JSON-able values."""
    target = build(case)
    results = {"outputs": [], "input_grads": []}
    for step_no, step in enumerate(case["steps"]):
        frozen = step.get("frozen", [])
        inputs = []
        for i, v in enumerate(step.get("inputs", [])):
            # {"ref": j}: the very tensor of input j (self-attention passes one tensor as query, key and value)
            ref = isinstance(v, dict) and set(v) == {"ref"}
            inputs.append(inputs[v["ref"]] if ref else decode(v, step.get("backward", False) and i not in frozen))
        kwargs = {k: decode(v) for k, v in step.get("kwargs", {}).items()}
        if case["kind"] == "module":
            target.train(step.get("train", True))
        if step.get("no_grad", False):
            with fg.no_grad():
                out = [t for t in _flatten(target(*inputs, **kwargs)) if t is not None]
        else:
            out = [t for t in _flatten(target(*inputs, **kwargs)) if t is not None]
        results["outputs"].append(out)
        if step.get("backward", False):
            rng = np.random.default_rng(1000 + step_no)
            loss = None
            for t in out:
                if t.requires_grad:
                    upstream = fg.tensor(rng.standard_normal(tuple(t.shape)), dtype=t.dtype)
                    term = (t * upstream).sum()
                    loss = term if loss is None else loss + term
            loss.backward()
            leaves = [t for t in _flatten(inputs) if isinstance(t, fg.Tensor)]
            results["input_grads"].append([t.grad for t in leaves])
        else:
            results["input_grads"].append([])
    if case["kind"] == "module":
        results["param_grads"] = {n: p.grad for n, p in target.named_parameters()}
        results["buffers"] = dict(target.named_buffers())
        results["repr"] = repr(target)
    return results


def random_params(case, rng, scale=0.5):
    """Parameters for a module case drawn uniformly from ±scale, in the module's own parameter order: the
    module is built (on whichever framework records) for the names and shapes only, the values come from numpy."""
    return {
        n: tensor_value(rng.uniform(-scale, scale, tuple(p.shape)), case.get("dtype") or "float32")
        for n, p in build(case).named_parameters()
    }


def module_case(case_id, target, args=(), kwargs=None, dtype="float64", steps=(), seed=0, scale=0.5):
    """A module case with parameters drawn from numpy (seeded)."""
    case = {
        "id": case_id,
        "kind": "module",
        "target": target,
        "args": pack(list(args)),
        "kwargs": pack(kwargs or {}),
        "dtype": dtype,
        "steps": list(steps),
    }
    case["params"] = random_params(case, np.random.default_rng(seed), scale)
    return case


def function_case(case_id, target, steps):
    return {"id": case_id, "kind": "function", "target": target, "steps": list(steps)}


def step(*inputs, kwargs=None, train=True, backward=True, frozen=(), no_grad=False):
    """One call; the float tensors among `inputs` require grad (when backward) except those at `frozen`;
    no_grad runs the forward under no_grad (and no backward)."""
    return {
        "inputs": pack(list(inputs)),
        "kwargs": pack(kwargs or {}),
        "train": train,
        "backward": backward and not no_grad,
        "frozen": list(frozen),
        "no_grad": no_grad,
    }


def randn(rng, *shape, dtype="float64"):
    return tensor_value(rng.standard_normal(shape), dtype)


def raises(exc, message, fn):
    """`fn()` raises `exc` whose text contains `message` (torch's phrase)."""
    import pytest

    with pytest.raises(exc) as info:
        fn()
    assert message in str(info.value), str(info.value)


def record(name, cases):
    """Run `cases` (on torch: a record script) and write tests/golden/<name>.json, each case beside its results."""
    import json

    require_torch()
    path = golden_path(name)
    entries = [{"case": case, "expected": {k: encode(v) for k, v in run(case).items()}} for case in cases]
    with open(path, "w") as f:
        json.dump({"torch": fg.__version__, "cases": entries}, f, separators=(",", ":"))
    print(f"wrote {path}: {len(entries)} cases")
