"""Shared by the checkpoint tests (test_serialization*.py): round trips and exact comparisons."""

import io
import json
import math
import struct

import ferrograd as fg
import numpy as np
from helpers import fg_dtype


def round_trip(obj, tmp_path, how="path", **load_args):
    if how == "path":
        path = tmp_path / "ckpt"
        fg.save(obj, path)
        return fg.load(path, **load_args)
    buf = io.BytesIO()
    fg.save(obj, buf)
    buf.seek(0)
    return fg.load(buf, **load_args)


def tensor_bits(t):
    t = t.detach()
    if t.dtype == fg.bfloat16:
        t = t.float()  # exact: every bfloat16 is a float32
    return np.array(t.numpy()).tobytes()


def assert_same(a, b, at="obj"):
    """`b` is `a` loaded back: same types all the way down, tensors bit for bit with their flags."""
    assert type(a) is type(b), f"{at}: {type(a).__name__} came back as {type(b).__name__}"
    if isinstance(a, fg.Tensor):
        assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape), at
        assert a.stride() == b.stride() and a.storage_offset() == b.storage_offset(), at
        assert a.requires_grad == b.requires_grad, at
        assert tensor_bits(a) == tensor_bits(b), at
    elif isinstance(a, float):
        assert (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b)), at
    elif isinstance(a, dict):
        assert list(a) == list(b), at
        for k in a:
            assert type(k) is type(next(x for x in b if x == k)), f"{at}: key {k!r}"
            assert_same(a[k], b[k], f"{at}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), at
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{at}[{i}]")
    else:
        assert a == b, at


SPECIAL_FLOATS = [0.0, -0.0, 1.5, -2.25, math.inf, -math.inf, math.nan, 1e-40, 3.0e38, 65504.0, 6e-8]
INT_RANGES = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767)}
INT_RANGES |= {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


def values_of(name, n, rng):
    if name == "bool":
        return fg.tensor(rng.integers(0, 2, n).astype(bool))
    if name in INT_RANGES:
        lo, hi = INT_RANGES[name]
        vals = [lo, hi, 0, -1 if lo < 0 else 1] + [int(x) for x in rng.integers(lo, hi, max(n - 4, 0), endpoint=True)]
        return fg.tensor(vals[:n], dtype=fg_dtype(name))
    vals = (SPECIAL_FLOATS + list(rng.standard_normal(n)))[:n]
    return fg.tensor(vals, dtype=fg.float64).to(fg_dtype(name))


def header_of(data):
    (n,) = struct.unpack("<Q", data[:8])
    return json.loads(data[8 : 8 + n])


def describe(obj):
    """A JSON-able account of a loaded object, the same whichever library (ferrograd, or torch through the shim)
    loaded it: types, dtypes, shapes, strides, offsets, flags and values all the way down."""
    if isinstance(obj, fg.Tensor):
        flat = obj.detach().reshape(-1)
        if obj.dtype == fg.bfloat16 or obj.dtype == fg.float16:
            flat = flat.float()  # exact
        return {
            "tensor": type(obj).__name__,
            "dtype": str(obj.dtype).rpartition(".")[2],
            "shape": list(obj.shape),
            "stride": list(obj.stride()),
            "offset": obj.storage_offset(),
            "requires_grad": obj.requires_grad,
            "values": flat.tolist(),
        }
    if isinstance(obj, dict):
        return {type(obj).__name__: [[describe(k), describe(v)] for k, v in obj.items()]}
    if isinstance(obj, (list, tuple)):
        return {type(obj).__name__: [describe(x) for x in obj]}
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return {type(obj).__name__: obj}
    raise TypeError(f"describe: {type(obj).__name__}")
