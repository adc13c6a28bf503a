"""`torch.device` and what programs ask about devices: ferrograd computes on the CPU, and answers as torch's
CPU build does (`cuda.is_available()` is False, `.cuda()` raises `AssertionError: Torch not compiled with CUDA
enabled`). It also has torch's 'meta' device: tensors with a shape, dtype and strides but no data
(`rust/core/src/ops/meta.rs`); the factories that can make them ask `resolve`, the others `check`."""

import builtins

from . import _core
from ._arg_errors import type_name

_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia", "xla", "lazy",
    "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)  # fmt: skip
NO_CUDA = "Torch not compiled with CUDA enabled"


def _parse(spec):
    if not spec:
        raise RuntimeError("Device string must not be empty")
    kind, sep, index = spec.partition(":")
    if kind not in _TYPES:
        raise RuntimeError(f"Expected one of {', '.join(_TYPES)} device type at start of device string: {spec}")
    if not sep:
        return kind, None
    if not index.isdigit() or (len(index) > 1 and index[0] == "0"):
        raise RuntimeError(f"Invalid device string: '{spec}'")
    return kind, builtins.int(index)


class device:  # torch's name
    """A device: `device('cpu')`, `device('cpu:0')`, `device('cpu', 0)`, `device(type='cpu', index=None)`.
    Any device torch names can be described; only the CPU holds tensors."""

    __slots__ = ("_type", "_index")

    def __init__(self, type, index=None):  # torch's argument name
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(): a device object takes no index")
            kind, idx = type.type, type.index
        elif isinstance(type, builtins.int) and not isinstance(type, builtins.bool):
            if type < 0:
                raise RuntimeError(f"Device index must not be negative, got {type}")
            kind, idx = "cuda", type  # torch: a bare index is an accelerator's
        elif isinstance(type, str):
            kind, idx = _parse(type)
            if index is not None:
                if idx is not None:
                    raise RuntimeError(
                        f"type (string) must not include an index because index was passed explicitly: {type}"
                    )
                if not isinstance(index, builtins.int) or index < 0:
                    raise RuntimeError(f"Device index must not be negative, got {index}")
                idx = index
        else:
            raise TypeError(
                f"device() received an invalid combination of arguments - got ({builtins.type(type).__name__})"
            )
        object.__setattr__(self, "_type", kind)
        object.__setattr__(self, "_index", idx)

    @property
    def type(self):
        return self._type

    @property
    def index(self):
        return self._index

    def __setattr__(self, name, value):
        raise AttributeError(f"attribute '{name}' of 'torch.device' objects is not writable")

    def __eq__(self, other):
        return isinstance(other, device) and (self._type, self._index) == (other._type, other._index)

    def __hash__(self):
        return hash((self._type, self._index))

    def __str__(self):
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __repr__(self):
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __reduce__(self):
        return device, (self._type, self._index)

    def __enter__(self):
        """`with torch.device('meta'):` makes this the default device of factories without `device=` (and so of
        the parameters of layers built inside), until the block ends."""
        _context_defaults.append(_default_device)
        set_default_device(self)
        return self

    def __exit__(self, *exc):
        set_default_device(_context_defaults.pop())


CPU = device("cpu")
META = device("meta")
_context_defaults: list[device] = []  # the default device outside each `with device(...)` block entered


def resolve(spec):
    """The device of a `device=` argument of a factory that can make meta tensors: the CPU or 'meta' (the default
    device for None); else torch's error."""
    if spec is None:
        return _default_device
    if isinstance(spec, str) and spec == "meta":
        return META
    d = spec if isinstance(spec, device) else None
    if d is not None and d.type == "meta":
        return META
    return check(spec)


def of_like(t, spec):
    """The `device=` a `*_like` or `new_*` factory passes on: the one asked for, else `t`'s (torch's rule: a meta
    input gives a meta result, a CPU one a CPU result even under `with torch.device('meta')`)."""
    if spec is not None:
        return spec
    return META if t.is_meta else (CPU if _default_device is META else None)


def check(spec):
    """The device of a `device=` argument, if ferrograd can put a tensor there (the CPU); else torch's error."""
    if isinstance(spec, device):
        d = spec
    elif isinstance(spec, (str, builtins.int)) and not isinstance(spec, builtins.bool):
        d = device(spec)
    else:
        raise TypeError(f"argument 'device' must be torch.device, not {type_name(spec)}")
    if d.type == "cuda":
        raise AssertionError(NO_CUDA)
    if d.type == "meta":
        raise NotImplementedError(
            "ferrograd cannot make this tensor on the 'meta' device (its factories that can: "
            "empty, zeros, ones, full, rand, randn, arange, tensor and the *_like ones)"
        )
    if d.type != "cpu":
        raise RuntimeError(f"ferrograd computes on the CPU only: no '{d.type}' device (torch's CPU build has none)")
    return CPU


def check_optional(spec):
    """A layer's `device=None` argument: nothing to check when it is None; 'meta' is honoured by `Module`, which
    builds such a layer under `with device('meta')`."""
    return None if spec is None else resolve(spec)


_default_device = CPU


def set_default_device(device):
    """`torch.set_default_device`: the CPU (or None: the CPU again); another device raises, as it would at the
    first factory call in torch's CPU build."""
    global _default_device
    _default_device = CPU if device is None else resolve(device)
    _core._set_default_meta(_default_device is META)


def get_default_device():
    return _default_device


def get_device_module(device=None):
    """The module of a device type (`ferrograd.cpu`, `ferrograd.cuda`, ...); the CPU's when none is given (there is
    no accelerator)."""
    import importlib

    if isinstance(device, builtins.str):
        device = globals()["device"](device)
    if device is not None and not isinstance(device, globals()["device"]):
        raise TypeError(f"get_device_module(): expected a device, a str or None, not {type(device).__name__}")
    kind = "cpu" if device is None else device.type
    try:
        return importlib.import_module(f"ferrograd.{kind}")
    except ImportError:
        raise RuntimeError(
            f"Device '{kind}' does not have a corresponding module registered as 'torch.{kind}'."
        ) from None


def _cuda(self, device=None, non_blocking=False, memory_format=None):
    raise AssertionError(NO_CUDA)


def _cpu(self, memory_format=None):
    if self.is_meta:
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    return self


def _get_device(self):
    return -1


# The device side of `Tensor` (installed by `_tensor_python`): `.device` a device object, `.is_cuda`, `.is_cpu`,
# `.cpu()`, `.cuda()`.
TENSOR_ATTRIBUTES = {
    "device": property(lambda self: META if self.is_meta else CPU, doc="The CPU, or 'meta' for a meta tensor."),
    "is_cuda": property(lambda self: False),
    "is_cpu": property(lambda self: not self.is_meta),
    "cpu": _cpu,
    "cuda": _cuda,
    "get_device": _get_device,
}
