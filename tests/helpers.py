"""Shared helpers for ferrograd's tests: dtype tables, torch's promotion rules,
tensor layouts (contiguous and not), numpy comparisons and a small gradcheck.

The suite is also run against real PyTorch through a shim package named `ferrograd`
(`from torch import *`), with FG_TEST_AGAINST_TORCH=1; the few places where ferrograd
intentionally differs from torch (the module name in reprs) go through MODULE_PREFIX.
"""

import os

import ferrograd as fg
import numpy as np

AGAINST_TORCH = os.environ.get("FG_TEST_AGAINST_TORCH") == "1"
# `repr(fg.float64)` is "ferrograd.float64" (torch: "torch.float64").
MODULE_PREFIX = "torch." if AGAINST_TORCH else "ferrograd."
DTYPE_PREFIX = MODULE_PREFIX

# ---------------------------------------------------------------------------
# dtypes
# ---------------------------------------------------------------------------

DTYPE_NAMES = ["float32", "float64", "int64", "bool", "uint8", "int8", "int16", "int32", "float16", "bfloat16"]
FLOAT_NAMES = ["float32", "float64"]
NP_DTYPES = {
    "float32": np.float32,
    "float64": np.float64,
    "int64": np.int64,
    "bool": np.bool_,
    "uint8": np.uint8,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "float16": np.float16,
}

# torch.promote_types for every pair (the table in torch's c10/core/ScalarType.cpp).
_ORDER = ["uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "bool", "bfloat16"]
_TABLE = """
u1 i2 i2 i4 i8 f2 f4 f8 u1 bf
i2 i1 i2 i4 i8 f2 f4 f8 i1 bf
i2 i2 i2 i4 i8 f2 f4 f8 i2 bf
i4 i4 i4 i4 i8 f2 f4 f8 i4 bf
i8 i8 i8 i8 i8 f2 f4 f8 i8 bf
f2 f2 f2 f2 f2 f2 f4 f8 f2 f4
f4 f4 f4 f4 f4 f4 f4 f8 f4 f4
f8 f8 f8 f8 f8 f8 f8 f8 f8 f8
u1 i1 i2 i4 i8 f2 f4 f8 b1 bf
bf bf bf bf bf f4 f4 f8 bf bf
"""
_SHORT = {
    "u1": "uint8",
    "i1": "int8",
    "i2": "int16",
    "i4": "int32",
    "i8": "int64",
    "f2": "float16",
    "f4": "float32",
    "f8": "float64",
    "b1": "bool",
    "bf": "bfloat16",
}
PROMOTION = {
    (a, b): _SHORT[cell] for a, row in zip(_ORDER, _TABLE.strip().split("\n")) for b, cell in zip(_ORDER, row.split())
}


def fg_dtype(name):
    return getattr(fg, name)


def dtype_name(dtype):
    """Name ("float32", ...) of a ferrograd dtype, by equality with the module's dtypes."""
    for name in DTYPE_NAMES:
        if dtype == fg_dtype(name):
            return name
    raise AssertionError(f"unexpected dtype {dtype!r}")


def is_float(name):
    return name in ("float16", "bfloat16", "float32", "float64")


def promote(a, b):
    return PROMOTION[a, b]


def _combine(higher, lower):
    """torch's combine_categories (c10/core/ScalarType / TensorIterator result_type)."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if is_float(higher):
        return higher
    if higher == "bool" or is_float(lower):
        return promote(higher, lower)
    return higher


def result_dtype(*operands):
    """torch's result type of a binary op. Each operand is ("tensor", dtype_name, ndim)
    or ("scalar", python_value). Dimensioned tensors beat zero-dim tensors, which beat
    Python scalars, unless the lower-priority operand is of a higher category
    (bool < integer < floating); a Python float then means the default dtype float32."""
    dim = zero = wrapped = None
    for op in operands:
        if op[0] == "scalar":
            v = op[1]
            name = "bool" if isinstance(v, bool) else "int64" if isinstance(v, int) else "float32"
            wrapped = name if wrapped is None else promote(wrapped, name)
        elif op[2] == 0:
            zero = op[1] if zero is None else promote(zero, op[1])
        else:
            dim = op[1] if dim is None else promote(dim, op[1])
    return _combine(dim, _combine(zero, wrapped))


def tensor_operand(t):
    return ("tensor", dtype_name(t.dtype), t.dim())


# ---------------------------------------------------------------------------
# layouts: tensors with given values but various strides
# ---------------------------------------------------------------------------


class Layout:
    """A way to build a tensor of logical shape `shape` as a view of a storage tensor.

    storage_shape(shape): shape of the (contiguous) array to create;
    fg_view(t, shape): ferrograd view of a storage tensor with the logical shape;
    np_view(a, shape): the same view in numpy (the reference values).
    """

    def __init__(self, name, applies, storage_shape, fg_view, np_view):
        self.name = name
        self.applies = applies
        self.storage_shape = storage_shape
        self.fg_view = fg_view
        self.np_view = np_view

    def __repr__(self):
        return self.name


def _swap_last(shape):
    shape = list(shape)
    shape[-1], shape[-2] = shape[-2], shape[-1]
    return tuple(shape)


CONTIGUOUS = Layout("contiguous", lambda s: True, tuple, lambda t, s: t, lambda a, s: a)
TRANSPOSED = Layout(
    "transposed",
    lambda s: len(s) >= 2,
    _swap_last,
    lambda t, s: t.transpose(-1, -2),
    lambda a, s: a.swapaxes(-1, -2),
)
# Every other element along dim 0, starting at 1: a step and a storage offset.
STEPPED = Layout(
    "stepped",
    lambda s: len(s) >= 1,
    lambda s: (2 * s[0] + 1,) + tuple(s[1:]),
    lambda t, s: t[1::2],
    lambda a, s: a[1::2],
)
# Dim 0 broadcast from size 1 (stride 0).
EXPANDED = Layout(
    "expanded",
    lambda s: len(s) >= 1,
    lambda s: (1,) + tuple(s[1:]),
    lambda t, s: t.expand(*s),
    lambda a, s: np.broadcast_to(a, s),
)
LAYOUTS = [CONTIGUOUS, TRANSPOSED, STEPPED, EXPANDED]


def layouts_for(shape):
    return [lay for lay in LAYOUTS if lay.applies(shape)]


DOMAINS = {
    "any": lambda rng, s: rng.uniform(-2.0, 2.0, s),
    "small": lambda rng, s: rng.uniform(-1.5, 1.5, s),  # exp
    "positive": lambda rng, s: rng.uniform(0.5, 2.0, s),  # log, pow, base of x ** y
    "nonzero": lambda rng, s: rng.choice([-1.0, 1.0], s) * rng.uniform(0.5, 2.0, s),  # divisors
    "ties": lambda rng, s: rng.integers(-2, 3, s).astype(np.float64),  # comparisons
    "unit": lambda rng, s: rng.uniform(-0.9, 0.9, s),  # asin, acos, tan
    "prob": lambda rng, s: rng.uniform(0.05, 0.95, s),  # logit
    "above1": lambda rng, s: rng.uniform(1.2, 3.0, s),  # acosh
}


def random_array(rng, shape, domain="any", dtype_name_="float64"):
    if dtype_name_ == "int64":
        low = 1 if domain in ("positive", "nonzero") else -5
        return rng.integers(low, 6, shape).astype(np.int64)
    if dtype_name_ == "bool":
        return rng.integers(0, 2, shape).astype(np.bool_)
    a = np.asarray(DOMAINS[domain](rng, shape), dtype=np.float64)
    return a.astype(NP_DTYPES[dtype_name_])


def make_input(rng, shape, layout=CONTIGUOUS, dtype_name_="float64", domain="any"):
    """Returns (numpy reference values, ferrograd tensor with those values in `layout`)."""
    storage = random_array(rng, layout.storage_shape(shape), domain, dtype_name_)
    base = fg.tensor(storage, dtype=fg_dtype(dtype_name_))
    t = layout.fg_view(base, shape)
    ref = np.array(layout.np_view(storage, shape))
    assert t.shape == ref.shape
    return ref, t


# ---------------------------------------------------------------------------
# comparisons
# ---------------------------------------------------------------------------

TOL = {
    "float32": {"rtol": 2e-5, "atol": 2e-6},
    "float64": {"rtol": 1e-10, "atol": 1e-12},
    "float16": {"rtol": 1e-3, "atol": 1e-5},
    **{name: {"rtol": 0, "atol": 0} for name in ["bool", "uint8", "int8", "int16", "int32", "int64"]},
}


def to_numpy(t):
    """A copy of a tensor's values (works for tensors that require grad)."""
    return np.array(t.detach().numpy())


def assert_tensor(t, expected, dtype=None, rtol=None, atol=None):
    """Check a ferrograd tensor against a numpy array: shape, dtype (if given) and values
    (nan == nan). `atol` may be an array broadcastable to the shape."""
    expected = np.asarray(expected)
    assert t.shape == expected.shape, f"shape {tuple(t.shape)} != expected {expected.shape}"
    if dtype is not None:
        assert dtype_name(t.dtype) == dtype, f"dtype {t.dtype!r} != expected {dtype}"
    name = dtype_name(t.dtype)
    actual = to_numpy(t)
    assert actual.dtype == NP_DTYPES[name], f"numpy() dtype {actual.dtype} for {t.dtype!r}"
    tol = dict(TOL[name])
    if rtol is not None:
        tol["rtol"] = rtol
    if atol is not None:
        tol["atol"] = atol
    if not is_float(name):
        np.testing.assert_array_equal(actual, expected.astype(actual.dtype))
    else:
        ok = np.isclose(actual, expected.astype(np.float64), equal_nan=True, **tol)
        assert ok.all(), f"values differ ({(~ok).sum()} of {ok.size})\nactual:\n{actual}\nexpected:\n{expected}"


# ---------------------------------------------------------------------------
# gradcheck
# ---------------------------------------------------------------------------


def gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, seed=0):
    """Compare ferrograd's vector-Jacobian product with central finite differences.

    fn: takes len(inputs) float64 tensors, returns a tensor.
    inputs: numpy arrays (any float dtype; used as float64).
    The analytical side runs `fn` on leaves requiring grad and calls
    `out.backward(v)` with a random upstream gradient v; the numerical side calls `fn`
    on perturbed copies (no grad) and computes sum(v * d out / d x_i) per element.
    """
    arrays = [np.array(a, dtype=np.float64) for a in inputs]
    leaves = [fg.tensor(a, dtype=fg.float64, requires_grad=True) for a in arrays]
    out = fn(*leaves)
    assert out.requires_grad, "output does not require grad"
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(tuple(out.shape))
    out.backward(fg.tensor(v, dtype=fg.float64))

    def f_np():
        return fn(*[fg.tensor(a, dtype=fg.float64) for a in arrays]).detach().numpy().astype(np.float64)

    for i, (a, leaf) in enumerate(zip(arrays, leaves)):
        assert leaf.grad is not None, f"input {i}: .grad is None after backward"
        assert leaf.grad.shape == a.shape, f"input {i}: grad shape {tuple(leaf.grad.shape)} != {a.shape}"
        assert dtype_name(leaf.grad.dtype) == "float64", f"input {i}: grad dtype {leaf.grad.dtype!r}"
        analytical = to_numpy(leaf.grad)
        numerical = np.zeros_like(a)
        for idx in np.ndindex(*a.shape):
            orig = a[idx]
            a[idx] = orig + eps
            f_plus = f_np()
            a[idx] = orig - eps
            f_minus = f_np()
            a[idx] = orig
            numerical[idx] = np.sum(v * (f_plus - f_minus)) / (2 * eps)
        if not np.allclose(analytical, numerical, rtol=rtol, atol=atol):
            raise AssertionError(
                f"gradient of input {i} (shape {a.shape}) differs from finite differences\n"
                f"analytical (v^T J):\n{analytical}\nnumerical (v^T J):\n{numerical}\n"
                f"max abs diff: {np.max(np.abs(analytical - numerical))}"
            )


def first_gradient(f):
    """x -> the gradient of sum(w · f(x)²) (w = 1, 2, 3, ...) for gradcheck of f's backward (its gradient of
    gradient): built with create_graph when x requires grad; the square keeps it dependent on x where f's own
    gradient is not (a max pool's)."""

    def gradient(x):
        create_graph = x.requires_grad
        leaf = x if create_graph else x.detach().requires_grad_()
        y = f(leaf)
        w = fg.arange(1, y.numel() + 1, dtype=y.dtype).reshape(y.shape)
        (g,) = fg.autograd.grad((y * w * y).sum(), [leaf], create_graph=create_graph)
        return g

    return gradient


def reduce_to(g, shape):
    """Sum a broadcast gradient `g` down to `shape` (undoing numpy broadcasting)."""
    g = np.asarray(g)
    lead = g.ndim - len(shape)
    if lead:
        g = g.sum(axis=tuple(range(lead)))
    axes = tuple(d for d, n in enumerate(shape) if n == 1 and g.shape[d] != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape)


# ---------------------------------------------------------------------------
# values recorded from PyTorch
# ---------------------------------------------------------------------------

GOLDEN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")


def golden(name):
    """The values a `tests/golden/record_*.py` script recorded from torch into `tests/golden/<name>.json`.

    Tests compare ferrograd against these; run with FG_TEST_AGAINST_TORCH=1 (`make test-torch`) the same
    tests compare torch itself against them, which checks the recording.
    """
    import json

    with open(os.path.join(GOLDEN_DIR, f"{name}.json")) as f:
        return json.load(f)


def rss_bytes():
    """This process's resident memory, in bytes."""
    return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def fused_tolerances(dtype):
    """How close a fused kernel comes to the composition of tensor ops it replaces."""
    return dict(rtol=2e-4, atol=2e-5) if dtype == fg.float32 else dict(rtol=1e-10, atol=1e-12)


def assert_same(got, want, dtype):
    """A fused kernel's result (or gradient) against the composition's, within `fused_tolerances`."""
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), **fused_tolerances(dtype))
