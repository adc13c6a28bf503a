"""What tools/fuzz.py calls: every public entry point of ferrograd, and hostile values for its arguments.

Call `i` of a run is built from `random.Random(f"{seed}:{i}")` alone, so any call can be rebuilt (to
describe a crash, or to replay it) without running the ones before it.
"""

import ctypes
import inspect
import io
import math
import os
import random

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import ferrograd.optim as optim
import ferrograd.optim.lr_scheduler as lr_scheduler
import ferrograd.utils.data as data
import numpy as np

# Far past any machine (2**40 elements of 1 byte = 1 TiB), or past int64: never a size that could be made.
HUGE = [2**40, 2**62, 2**63 - 1, 2**63, 2**64, 10**19, -(2**63), -(2**63) - 1]
SMALL_INTS = [0, 1, 2, 3, -1, -2, -3]
FLOATS = [0.0, -0.0, 0.5, 1.0, -1.0, 1e-30, 1e308, math.nan, math.inf, -math.inf]
DTYPES = [fg.float32, fg.float64, fg.float16, fg.bfloat16, fg.int64, fg.int32, fg.int16, fg.int8, fg.uint8, fg.bool]

# Not fuzzed, with the reason: they start processes, wait for peers, or change the interpreter itself.
SKIPPED = {
    "distributed": "needs MPI peers",
    "set_num_threads": "global thread pool (a huge count would start that many threads)",
    "set_num_interop_threads": "global thread pool",
    "compile": "returns its argument",
}

# Their defaults build millions of parameters (each call would take seconds).
HEAVY_MODULES = {"nn.Transformer"}

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_KEEP = []  # the names and fake structs the capsules point to stay alive


def bad_capsule(rng):
    """A PyCapsule that is not a valid DLPack tensor: wrong name, null-ish or garbage struct."""
    kind = rng.randrange(3)
    if kind == 0:
        name = b"not_dltensor"
        _KEEP.append(name)
        return _capsule_new(ctypes.c_void_p(8), name, None)
    if kind == 1:
        name = b"used_dltensor"  # already consumed
        _KEEP.append(name)
        return _capsule_new(ctypes.c_void_p(8), name, None)
    # the right name over zeroed memory: a DLManagedTensor with a null data pointer, ndim 0, no deleter
    buf = ctypes.create_string_buffer(256)
    name = b"dltensor"
    _KEEP.append((buf, name))
    if len(_KEEP) > 1000:
        del _KEEP[:500]
    return _capsule_new(ctypes.addressof(buf), name, None)


class FakeDLPack:
    """An object that claims the DLPack protocol and answers badly."""

    def __init__(self, rng):
        self.rng = rng

    def __dlpack__(self, *args, **kwargs):
        if self.rng.random() < 0.5:
            return bad_capsule(self.rng)
        return "not a capsule"

    def __dlpack_device__(self):
        return self.rng.choice([(1, 0), (2, 0), (99, 5), "cpu", None])


_LEGACY_CHECKPOINT = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "golden", "torch_files", "legacy", "views.pt"
)


def checkpoint_bytes(rng):
    """A checkpoint written by ferrograd.save (or, one time in four, by torch in its legacy format), then
    truncated or with bytes changed."""
    if rng.randrange(4) == 0:
        with open(_LEGACY_CHECKPOINT, "rb") as f:
            raw = bytearray(f.read())
    else:
        buf = io.BytesIO()
        fg.save({"w": fg.arange(6.0).reshape(2, 3), "n": 3}, buf)
        raw = bytearray(buf.getvalue())
    kind = rng.randrange(3)
    if kind == 0:
        raw = raw[: rng.randrange(len(raw))]
    elif kind == 1:
        for _ in range(rng.randrange(1, 8)):
            raw[rng.randrange(len(raw))] = rng.randrange(256)
    else:
        raw = bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
    return bytes(raw)


def checkpoint_file(rng):
    path = f"ckpt_{rng.randrange(10**9)}.pt"
    with open(path, "wb") as f:
        f.write(checkpoint_bytes(rng))
    return path


def tensor_value(rng, dtype=None):
    """A small tensor of some awkward kind: 0-dim, empty, non-contiguous, expanded, with NaN, needing grad."""
    nrng = np.random.default_rng(rng.randrange(2**32))
    dtype = dtype or rng.choice(DTYPES[:6] + [fg.bool, fg.float32, fg.float32])
    shape = rng.choice([(), (0,), (3,), (2, 3), (0, 3), (1, 1), (2, 3, 4), (4, 1, 2, 3)])
    values = nrng.standard_normal(shape) * 3
    if rng.random() < 0.15 and values.size:
        values.flat[rng.randrange(values.size)] = rng.choice([math.nan, math.inf, -math.inf])
    t = fg.tensor(values, dtype=fg.float64)
    t = t.to(dtype) if dtype not in (fg.bool,) else t > 0
    kind = rng.randrange(7)
    if kind == 1 and t.ndim >= 2:
        t = t.transpose(0, 1)
    elif kind == 2 and t.ndim >= 1 and t.shape[0] > 1:
        t = t[::2]
    elif kind == 3 and t.ndim >= 1:
        t = t.unsqueeze(0).expand(2, *t.shape)
    elif kind == 4 and t.dtype.is_floating_point:
        t = t.requires_grad_()
    elif kind == 5 and t.dtype.is_floating_point:
        t = t.detach().requires_grad_() * 1.0  # non-leaf
    return t


def shape_value(rng):
    n = rng.randrange(4)
    pool = SMALL_INTS + HUGE if rng.random() < 0.5 else [0, 1, 2, 3]
    seq = [rng.choice(pool) for _ in range(n)]
    return tuple(seq) if rng.random() < 0.7 else list(seq)


def value(rng, depth=0):
    """One argument value: plausible half the time, hostile otherwise."""
    kind = rng.randrange(20)
    if kind <= 4:
        return tensor_value(rng)
    if kind == 5:
        return rng.choice(SMALL_INTS)
    if kind == 6:
        return rng.choice(HUGE)
    if kind == 7:
        return rng.choice(FLOATS)
    if kind == 8:
        return rng.choice([True, False, None])
    if kind == 9:
        return rng.choice(DTYPES)
    if kind == 10:
        return shape_value(rng)
    if kind == 11:
        return rng.choice(["", "x", "mean", "sum", "none", "cpu", "cuda", "float32", "zeros", "\x00"])
    if kind == 12 and depth < 2:
        return [value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 13 and depth < 2:
        return tuple(value(rng, depth + 1) for _ in range(rng.randrange(4)))
    if kind == 14:
        return rng.choice([slice(None, None, -1), slice(2**63, None), Ellipsis, object(), lambda *a: a, {}, {"a": 1}])
    if kind == 15:
        return np.random.default_rng(rng.randrange(2**32)).standard_normal(rng.choice([(), (2,), (2, 3), (0,)]))
    if kind == 16:
        return rng.choice([bad_capsule, FakeDLPack, checkpoint_file, lambda r: io.BytesIO(checkpoint_bytes(r))])(rng)
    if kind == 17:
        return fg.device("cpu") if hasattr(fg, "device") and rng.random() < 0.5 else rng.choice(HUGE + SMALL_INTS)
    if kind == 18:
        return rng.choice(DTYPES + [fg.float32]) if rng.random() < 0.3 else tensor_value(rng, fg.int64)
    return tensor_value(rng, fg.float32)


def _params_of(func):
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    return [p for p in sig.parameters.values() if p.name != "self"]


def plausible(rng, param):
    """A value that is likely right for a parameter: its default or one like it, else a small tensor or int."""
    d = param.default
    if d is not param.empty and rng.random() < 0.5:
        return d
    if isinstance(d, bool):
        return rng.choice([True, False])
    if isinstance(d, int):
        return rng.choice([0, 1, 2, 3, -1])
    if isinstance(d, float):
        return rng.choice([0.0, 0.5, 1.0, 2.0])
    if isinstance(d, str):
        return d
    kind = rng.randrange(10)
    if kind < 6:
        return tensor_value(rng, rng.choice([fg.float32, fg.float32, fg.float64, fg.int64]))
    if kind < 9:
        return rng.choice([0, 1, 2, 3, -1, (2, 3), (1,)])
    return d if d is not param.empty else None


def focused_arguments(rng, params):
    """Plausible values for every parameter but one, which gets a hostile value (often a huge size): calls
    that get past the type checks to the sizes and the kernels."""
    args, kwargs = [], {}
    hostile = rng.randrange(len(params)) if params else -1
    for i, p in enumerate(params):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            if p.kind == p.VAR_POSITIONAL and i == hostile:
                args.extend(value(rng) for _ in range(rng.randrange(1, 3)))
            continue
        v = value(rng) if i == hostile else plausible(rng, p)
        if i == hostile and rng.random() < 0.5:
            v = rng.choice(HUGE + [-1, -2, math.nan, math.inf, (2**40,), (2**40, 2**40), (-1,), [2**62]])
        if p.name == "num_workers":
            v = 0  # a worker process per call would be slow, and is tested elsewhere
        if p.kind == p.KEYWORD_ONLY or len(args) < i:
            kwargs[p.name] = v
        else:
            args.append(v)
    return args, kwargs


def arguments(rng, params):
    """Positional and keyword arguments for a signature (or a guess when there is none)."""
    args, kwargs = [], {}
    if params is None:
        return [value(rng) for _ in range(rng.randrange(4))], kwargs
    if rng.random() < 0.5:
        return focused_arguments(rng, params)
    for p in params:
        if p.kind == p.VAR_POSITIONAL:
            args.extend(value(rng) for _ in range(rng.randrange(4)))
        elif p.kind == p.VAR_KEYWORD:
            continue
        elif p.default is p.empty or rng.random() < 0.4:
            v = value(rng)
            if p.name in ("num_workers", "n_jobs"):
                v = rng.choice([0, -1, "x", None, 0.5])
            if p.kind == p.KEYWORD_ONLY or (p.default is not p.empty and rng.random() < 0.5):
                kwargs[p.name] = v
            elif p.kind != p.KEYWORD_ONLY:
                if len(args) < list(params).index(p):
                    kwargs[p.name] = v  # an earlier optional one was left out
                else:
                    args.append(v)
    if rng.random() < 0.05:
        kwargs["not_an_argument"] = value(rng)
    return args, kwargs


def _public(obj):
    return sorted(n for n in dir(obj) if not n.startswith("_"))


def _functions(namespace, prefix):
    out = []
    for name in _public(namespace):
        if name in SKIPPED:
            continue
        obj = getattr(namespace, name)
        if callable(obj) and not inspect.ismodule(obj):
            out.append((f"{prefix}.{name}", obj))
    return out


TENSOR_DUNDERS = [
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
    "__floordiv__", "__mod__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__neg__", "__abs__",
    "__and__", "__or__", "__xor__", "__invert__", "__lshift__", "__rshift__", "__eq__", "__ne__", "__lt__",
    "__le__", "__gt__", "__ge__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ipow__", "__getitem__",
    "__setitem__", "__len__", "__bool__", "__float__", "__int__", "__index__", "__array__", "__dlpack__",
    "__dlpack_device__", "__contains__", "__iter__", "__repr__", "__format__", "__reduce_ex__", "__deepcopy__",
]  # fmt: skip
TENSOR_SETTABLE = ["grad", "requires_grad", "data"]


def _setter(name):
    def set_attribute(t, v):
        setattr(t, name, v)

    set_attribute.__name__ = f"set_{name}"
    return set_attribute


def _method(name):
    def call_method(t, *args, **kwargs):
        return getattr(t, name)(*args, **kwargs)

    call_method.__name__ = name
    return call_method


class Target:
    """One entry point: `make(rng)` gives (callable, args, kwargs) for one call."""

    def __init__(self, name, func, params, first=None):
        self.name, self.func, self.params, self.first = name, func, params, first

    def make(self, rng):
        args, kwargs = arguments(rng, self.params)
        if self.first is not None:
            args.insert(0, self.first(rng))
        return self.func, args, kwargs


def _module_instances():
    """Each nn module class with constructor arguments it accepts (the first of a few tries), for forward."""
    found = []
    tries = [(3,), (3, 3), (3, 3, 3), (2, 3, 3), (3, 3, 2), ((2, 3),), (0.5,), ()]
    for name, cls in _functions(nn, "nn"):
        if not (inspect.isclass(cls) and issubclass(cls, nn.Module)) or name in HEAVY_MODULES:
            continue
        for args in tries:
            try:
                m = cls(*args)
            except Exception:
                continue
            if sum(p.numel() for p in m.parameters()) <= 5000:  # small, so that each call is quick
                found.append((name, cls, args))
                break
    return found


def _optimizer_classes():
    return [(n, c) for n, c in _functions(optim, "optim") if inspect.isclass(c) and issubclass(c, optim.Optimizer)]


def _scheduler_classes():
    out = []
    for n, c in _functions(lr_scheduler, "optim.lr_scheduler"):
        if inspect.isclass(c) and c.__name__ not in ("Optimizer", "LRScheduler"):
            out.append((n, c))
    return out


def _param(rng):
    p = nn.Parameter(fg.tensor(np.random.default_rng(rng.randrange(2**32)).standard_normal((2, 3))))
    if rng.random() < 0.8:
        p.grad = tensor_value(rng, fg.float32) if rng.random() < 0.3 else fg.ones(2, 3)
    return p


def _optimizer(rng):
    name, cls = rng.choice(_optimizer_classes())
    return cls([_param(rng)], lr=0.1)


def build_targets():
    targets = []
    for name, f in _functions(fg, "ferrograd"):
        targets.append(Target(name, f, _params_of(f)))
    probe = fg.zeros(1)
    for name in _public(fg.Tensor) + TENSOR_DUNDERS:
        attr = getattr(fg.Tensor, name, None)
        if attr is None or not callable(attr) or not hasattr(probe, name):
            continue
        params = _params_of(attr)
        targets.append(Target(f"Tensor.{name}", _method(name), params, first=tensor_value))
    for name in TENSOR_SETTABLE:
        targets.append(Target(f"Tensor.{name}=", _setter(name), _params_of(lambda v: v), first=tensor_value))
    for name, f in _functions(F, "nn.functional"):
        targets.append(Target(name, f, _params_of(f)))
    for name, f in _functions(nn.init, "nn.init"):
        targets.append(Target(name, f, _params_of(f)))
    for namespace, prefix in [
        (fg.autograd, "autograd"),
        (data, "utils.data"),
        (nn.utils, "nn.utils"),
        (fg.quasirandom, "quasirandom"),
    ]:
        for name, f in _functions(namespace, prefix):
            targets.append(Target(name, f, _params_of(f)))
    for name, cls, good in _module_instances():
        targets.append(Target(f"{name}(...)", cls, _params_of(cls)))

        def forward(rng, cls=cls, good=good):
            return cls(*good)

        targets.append(Target(f"{name}.forward", lambda m, *a, **k: m(*a, **k), None, first=forward))
        for method in ("load_state_dict", "to", "register_buffer", "zero_grad", "train", "apply", "requires_grad_"):
            targets.append(Target(f"{name}.{method}", _bound(method), None, first=forward))
    for name, cls in _optimizer_classes():
        targets.append(Target(f"{name}(...)", cls, _params_of(cls), first=lambda r: [_param(r)]))
        for method in ("step", "zero_grad", "load_state_dict", "add_param_group"):
            targets.append(Target(f"{name}.{method}", _bound(method), None, first=lambda r, c=cls: c([_param(r)])))
    for name, cls in _scheduler_classes():
        targets.append(Target(f"{name}(...)", cls, _params_of(cls), first=_optimizer))
    targets.append(Target("ferrograd.load(checkpoint)", fg.load, _params_of(fg.load), first=checkpoint_file))
    targets.append(Target("ferrograd.load(bytes)", fg.load, None, first=lambda r: io.BytesIO(checkpoint_bytes(r))))
    targets.append(Target("from_dlpack(capsule)", fg.from_dlpack, None, first=bad_capsule))
    targets.append(Target("from_dlpack(fake)", fg.from_dlpack, None, first=FakeDLPack))
    return targets


def _bound(method):
    def call_bound(obj, *args, **kwargs):
        return getattr(obj, method)(*args, **kwargs)

    call_bound.__name__ = method
    return call_bound


def cleanup():
    """Files a call may have written in the fuzz's scratch folder."""
    for name in os.listdir("."):
        try:
            if os.path.isfile(name) and name != "stderr.txt":
                os.remove(name)
        except OSError:
            pass


def call_rng(seed, i):
    return random.Random(f"{seed}:{i}")
