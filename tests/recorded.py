"""Cases evaluated both by PyTorch (recorded once into tests/golden/<area>.json) and by ferrograd (compared).

A case is a function of no arguments that builds its inputs from numpy or literals, runs through
`import ferrograd as fg` (which is torch itself under tools/torch_shim) and returns a dict of results:
tensors, numbers, strings, lists of them, or `error(fn)` for what a call raises. `record(cases, path)` is
what a `tests/golden/record_<area>.py` script runs with the torch python; `check(case, expected)` is what
the tests run.
"""

import json
import math
import os
import sys

import ferrograd as fg
import numpy as np

TORCH_PREFIX = "torch."


class Raised:
    """What a call raised: exception type name and message (or nothing)."""

    def __init__(self, exc):
        self.type = None if exc is None else type(exc).__name__
        self.message = None if exc is None else str(exc)


def error(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as e:  # the point is to record any exception
        return Raised(e)
    return Raised(None)


def _dtype_name(dtype):
    return str(dtype).rpartition(".")[2]


def encode(value):
    """A JSON-able form of a case result."""
    if isinstance(value, fg.Tensor):
        t = value.detach()
        if t.dtype in (fg.float16, fg.bfloat16):
            t = t.float()
        shape = list(t.shape)
        if t.is_complex():
            # complex values as [re, im] pairs (torch's conj is lazy: resolved first)
            t = fg.view_as_real(t.resolve_conj())
        return {"tensor": np.asarray(t.numpy()).tolist(), "dtype": _dtype_name(value.dtype), "shape": shape}
    if isinstance(value, complex):
        return {"complex": [value.real, value.imag]}
    if isinstance(value, Raised):
        return {"raised": value.type, "message": value.message}
    if isinstance(value, fg.dtype):
        return {"dtype": _dtype_name(value)}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {"dict": [[str(k), encode(v)] for k, v in value.items()]}  # a list: JSON keeps its order
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"cannot record a {type(value).__name__}")


def record(cases, path):
    """Runs every case (with torch, through the shim) and writes their encoded results to `path`."""
    out = {name: {k: encode(v) for k, v in fn().items()} for name, fn in cases.items()}
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {len(out)} cases to {path}", file=sys.stderr)


TOL = {
    "complex128": (1e-9, 1e-12),
    "complex64": (2e-5, 2e-6),
    "float64": (1e-9, 1e-12),
    "float32": (2e-5, 2e-6),
    "float16": (2e-3, 1e-4),
    "bfloat16": (1e-2, 1e-3),
}


def _normalize_text(s):
    return s.replace(TORCH_PREFIX, "ferrograd.")


def _compare(actual, expected, where, tol):
    if isinstance(expected, dict) and "tensor" in expected:
        assert isinstance(actual, dict) and "tensor" in actual, f"{where}: expected a tensor, got {actual!r}"
        assert actual["shape"] == expected["shape"], f"{where}: shape {actual['shape']} != {expected['shape']}"
        assert actual["dtype"] == expected["dtype"], f"{where}: dtype {actual['dtype']} != {expected['dtype']}"
        a = np.asarray(actual["tensor"], dtype=np.float64)
        e = np.asarray(expected["tensor"], dtype=np.float64)
        rtol, atol = tol or TOL.get(expected["dtype"], (0, 0))
        ok = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
        assert ok.all(), f"{where}: values differ ({(~ok).sum()} of {ok.size})\nactual:\n{a}\nexpected:\n{e}"
    elif isinstance(expected, dict) and "complex" in expected:
        assert isinstance(actual, dict) and "complex" in actual, f"{where}: expected a complex number, got {actual!r}"
        rtol, atol = tol or TOL["float64"]
        assert np.allclose(actual["complex"], expected["complex"], rtol=rtol, atol=atol, equal_nan=True), where
    elif isinstance(expected, dict) and "raised" in expected:
        assert isinstance(actual, dict) and "raised" in actual, f"{where}: expected an exception record"
        assert actual["raised"] == expected["raised"], (
            f"{where}: raised {actual['raised']} ({actual['message']}), expected {expected['raised']} "
            f"({expected['message']})"
        )
        if expected["message"] is not None:
            assert _normalize_text(actual["message"]) == _normalize_text(expected["message"]), (
                f"{where}: message\n  {actual['message']}\nexpected\n  {expected['message']}"
            )
    elif isinstance(expected, dict) and "dict" in expected:
        assert isinstance(actual, dict) and "dict" in actual, f"{where}: expected a dict, got {actual!r}"
        keys = [k for k, _ in actual["dict"]]
        assert keys == [k for k, _ in expected["dict"]], f"{where}: keys {keys}"
        for (k, a), (_, e) in zip(actual["dict"], expected["dict"]):
            _compare(a, e, f"{where}[{k!r}]", tol)
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), f"{where}: {actual!r} != {expected!r}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, f"{where}[{i}]", tol)
    elif isinstance(expected, float) and not isinstance(actual, bool):
        assert isinstance(actual, (int, float)), f"{where}: {actual!r} is not a number"
        rtol, atol = tol or TOL["float64"]
        assert math.isclose(actual, expected, rel_tol=rtol, abs_tol=atol) or (
            math.isnan(actual) and math.isnan(expected)
        ), f"{where}: {actual!r} != {expected!r}"
    elif isinstance(expected, str):
        assert isinstance(actual, str), f"{where}: {actual!r} is not a string"
        assert _normalize_text(actual) == _normalize_text(expected), f"{where}:\n{actual}\n!=\n{expected}"
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def check(name, fn, expected, tol=None):
    """Runs case `fn` and compares each of its results with the recording `expected`."""
    results = fn()
    assert sorted(results) == sorted(expected), f"{name}: results {sorted(results)} != recorded {sorted(expected)}"
    for key, value in results.items():
        _compare(encode(value), expected[key], f"{name}.{key}", tol)


def golden_path(area):
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", f"{area}.json")


def expected(area, cases):
    """The recording tests/golden/<area>.json, checked to hold exactly the cases of `cases`."""
    with open(golden_path(area)) as f:
        recorded = json.load(f)
    missing = sorted(set(cases) ^ set(recorded))
    assert not missing, f"{area}.json and its cases differ in {missing}: rerun tests/golden/record_{area}.py"
    return recorded


def require_torch():
    """Recording scripts run against PyTorch only (through tools/torch_shim)."""
    if not fg.Tensor.__module__.startswith("torch"):
        raise SystemExit("run with PYTHONPATH=tools/torch_shim and a python that has torch")
