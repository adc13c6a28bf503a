"""`nn.utils.skip_init`: a module built without running its parameter initialization."""

import inspect

from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """An instance of `module_cls` (which must take `device`) whose parameters hold unspecified values."""
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    # torch builds on the meta device and allocates empty storage; ferrograd has no meta device, so the
    # module is built where it lives and its (unspecified) values are whatever its initialization left
    kwargs["device"] = kwargs.pop("device", "cpu")
    return module_cls(*args, **kwargs)
