"""`torch.jit`, for programs that script or trace a model and go on using it in Python.

ferrograd compiles no TorchScript. `script` and `trace` return callables and module copies of torch's
classes (`ScriptFunction`, `RecursiveScriptModule`, `TopLevelTracedModule`) that run the original Python
eagerly, so results are exactly eager's; a traced function keeps its Python control flow rather than freezing
the path its example took. The decorators (`ignore`, `unused`, `export`, `interface`) return what they are
given, and the flags and contexts are accepted. What has no eager meaning is refused with the reason:
`save` and `load` of TorchScript archives (save the `state_dict` with `ferrograd.save` instead). As in
torch 2.15, the entry points torch deprecates warn with torch's FutureWarning."""

import contextlib
import os
import typing
import warnings
from typing import Final, NamedTuple

from ..futures import Future
from ._script import (
    RecursiveScriptModule,
    ScriptFunction,
    ScriptModule,
    TopLevelTracedModule,
    TracedModule,
    copy_module,
    refuse_save,
)

__all__ = [
    "Attribute",
    "Error",
    "Final",
    "Future",
    "RecursiveScriptModule",
    "ScriptFunction",
    "ScriptModule",
    "ScriptWarning",
    "TopLevelTracedModule",
    "TracedModule",
    "TracerWarning",
    "TracingCheckError",
    "annotate",
    "enable_onednn_fusion",
    "export",
    "fork",
    "freeze",
    "fuser",
    "ignore",
    "interface",
    "is_scripting",
    "is_tracing",
    "isinstance",
    "load",
    "onednn_fusion_enabled",
    "optimize_for_inference",
    "optimized_execution",
    "save",
    "script",
    "script_if_tracing",
    "set_fusion_strategy",
    "trace",
    "trace_module",
    "unused",
    "wait",
]

_builtin_isinstance = isinstance


class Error(Exception):
    """torch's `jit.Error`, raised by scripted code."""


class TracerWarning(Warning):
    """Warned by torch when a trace may not generalise."""


class ScriptWarning(Warning):
    """torch's warning category for scripting."""


class TracingCheckError(Exception):
    """Raised by torch when a trace's check run disagrees with the trace."""


class Attribute(NamedTuple):
    """`jit.Attribute(value, type)`: outside scripting, just the pair."""

    value: typing.Any
    type: typing.Any


def _deprecated(name, instead="Please switch to `torch.compile` or `torch.export`."):
    warnings.warn(f"`torch.jit.{name}` is deprecated. {instead}", FutureWarning, stacklevel=3)


_USE_COMPILE = "Please use `torch.compile` instead."
_USE_EXPORT = "Please switch to `torch.export`."

_tracing = [False]


def is_scripting():
    """False: ferrograd never runs code as TorchScript."""
    return False


def is_tracing():
    """True while `trace` runs the traced function on its example inputs."""
    return _tracing[0]


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """torch's `jit.script`: a module becomes a `RecursiveScriptModule` copy sharing its parameters, a
    function a `ScriptFunction`; both run eagerly. A class is returned as it is."""
    _deprecated("script")
    if _builtin_isinstance(obj, (ScriptModule, ScriptFunction)):
        return obj
    from ..nn.modules.module import Module

    if _builtin_isinstance(obj, Module):
        return copy_module(obj, RecursiveScriptModule)
    if _builtin_isinstance(obj, type):
        if obj.__module__ == "builtins":
            raise TypeError(f"{obj} is a built-in class")
        return obj
    if callable(obj):
        return ScriptFunction(obj)
    if type(obj).__module__ == "builtins":
        raise TypeError(f"{type(obj)} is a built-in class")
    raise TypeError(f"cannot script an object of type {type(obj).__name__}")


def _example_call(function, example_inputs, example_kwarg_inputs):
    """Runs `function` on the example inputs with `is_tracing()` true, as torch's tracer does."""
    if example_kwarg_inputs is not None and not _builtin_isinstance(example_kwarg_inputs, dict):
        raise RuntimeError("example_kwarg_inputs should be a dict")
    if example_inputs is None and example_kwarg_inputs is None:
        raise TypeError("trace needs example_inputs (or example_kwarg_inputs) to run the function on")
    args = () if example_inputs is None else example_inputs
    from .._core import Tensor

    # torch's reading: a tensor or a dict is the one argument, any other sequence (a list) the arguments
    if _builtin_isinstance(args, (Tensor, dict)):
        args = (args,)
    elif not _builtin_isinstance(args, tuple):
        args = tuple(args)
    _tracing[0], was = True, _tracing[0]
    try:
        function(*args, **(example_kwarg_inputs or {}))
    finally:
        _tracing[0] = was


def trace(
    func,
    example_inputs=None,
    optimize=None,
    check_trace=True,
    check_inputs=None,
    check_tolerance=1e-05,
    strict=True,
    _force_outplace=False,
    _module_class=None,
    _compilation_unit=None,
    example_kwarg_inputs=None,
    _store_inputs=True,
):
    """torch's `jit.trace`: runs `func` once on the example inputs, then returns a `TopLevelTracedModule`
    copy (for a module) or a `ScriptFunction` that runs it eagerly on any input."""
    _deprecated("trace")
    from ..nn.modules.module import Module

    if _builtin_isinstance(func, ScriptModule):
        return func
    if _builtin_isinstance(func, Module):
        _deprecated("trace_method")
        _example_call(func, example_inputs, example_kwarg_inputs)
        return copy_module(func, TopLevelTracedModule, TracedModule)
    _example_call(func, example_inputs, example_kwarg_inputs)
    return ScriptFunction(func)


def trace_module(
    mod,
    inputs,
    optimize=None,
    check_trace=True,
    check_inputs=None,
    check_tolerance=1e-05,
    strict=True,
    _force_outplace=False,
    _module_class=None,
    _compilation_unit=None,
    example_inputs_is_kwarg=False,
    _store_inputs=True,
):
    """torch's `jit.trace_module`: `inputs` maps method names to example inputs; each method is run once."""
    _deprecated("trace_module")
    if not _builtin_isinstance(inputs, dict):
        raise AttributeError("expected a dictionary of (method_name, input) pairs")
    for method_name, example in inputs.items():
        method = getattr(mod, method_name)
        if example_inputs_is_kwarg:
            _example_call(method, None, example)
        else:
            _example_call(method, example, None)
    return copy_module(mod, TopLevelTracedModule, TracedModule)


def save(m, f, _extra_files=None):
    """Refused: a TorchScript archive holds compiled TorchScript code, which ferrograd does not produce."""
    _deprecated("save", _USE_EXPORT)
    refuse_save()


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    """Refused for a TorchScript archive (ferrograd cannot run TorchScript code); the file must exist first,
    with torch's errors."""
    _deprecated("load", _USE_EXPORT)
    if _builtin_isinstance(f, (str, os.PathLike)):
        if not os.path.exists(f):
            raise ValueError(f"The provided filename {f} does not exist")
        if os.path.isdir(f):
            raise ValueError(f"The provided filename {f} is a directory")
    raise NotImplementedError(
        "ferrograd cannot run TorchScript archives (torch.jit.save's files hold TorchScript code); load the "
        "state_dict saved with torch.save into the model's Python class instead"
    )


def ignore(drop=False, **kwargs):
    """`@jit.ignore` or `@jit.ignore(drop=True)`: the function is left as it is (it runs as Python anyway)."""
    if callable(drop):
        return drop
    return lambda function: function


def unused(fn):
    """`@jit.unused`: the function is left as it is."""
    return fn


def export(fn):
    """`@jit.export`: the method is left as it is (a copy made by `script` keeps every method)."""
    return fn


def interface(obj):
    """`@jit.interface`: the class is left as it is."""
    _deprecated("interface", _USE_COMPILE)
    return obj


def script_if_tracing(fn):
    """`@jit.script_if_tracing`: the function is left as it is."""
    return fn


def annotate(the_type, the_value):
    """`jit.annotate(T, value)`: `value`, as outside TorchScript."""
    return the_value


def isinstance(obj, target_type):
    """`jit.isinstance`: `isinstance` that also checks the element types of `list[T]`, `dict[K, V]`,
    `tuple[...]` and `Optional[T]` containers, as TorchScript's refinement does."""
    origin = typing.get_origin(target_type)
    args = typing.get_args(target_type)
    if origin is None:
        return _builtin_isinstance(obj, target_type)
    if origin is typing.Union:
        return any(isinstance(obj, arg) for arg in args)
    if not _builtin_isinstance(obj, origin):
        return False
    if origin is list:
        return all(isinstance(item, args[0]) for item in obj) if args else True
    if origin is dict:
        return all(isinstance(k, args[0]) and isinstance(v, args[1]) for k, v in obj.items()) if args else True
    if origin is tuple:
        return len(obj) == len(args) and all(isinstance(item, arg) for item, arg in zip(obj, args))
    return True


def fork(func, *args, **kwargs):
    """`jit.fork`: runs `func` now (eager mode has nothing to run it beside) and returns its completed future."""
    _deprecated("fork", _USE_COMPILE)
    future = Future()
    future.set_result(func(*args, **kwargs))
    return future


def wait(future):
    """`jit.wait`: the result of a future from `fork`."""
    _deprecated("wait", _USE_COMPILE)
    return future.wait()


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """`jit.freeze`: torch's checks (a scripted module, in eval mode); the module itself is returned."""
    _deprecated("freeze", _USE_COMPILE)
    if not _builtin_isinstance(mod, ScriptModule):
        raise RuntimeError(
            "Freezing expects a ScriptModule as input. Please use torch.jit.script or torch.jit.trace to script "
            "your 'nn.Module'."
        )
    if mod.training:
        raise RuntimeError(
            "Freezing is currently only implemented for modules in eval mode. Please call .eval() on your module "
            "before freezing."
        )
    return mod


def optimize_for_inference(mod, other_methods=None):
    """`jit.optimize_for_inference`: torch's check; the module itself is returned."""
    _deprecated("optimize_for_inference", _USE_COMPILE)
    if not _builtin_isinstance(mod, ScriptModule):
        raise RuntimeError(
            "optimize_for_inference expects a ScriptModule as input. Please use torch.jit.script or "
            "torch.jit.trace to script your 'nn.Module'."
        )
    return mod


@contextlib.contextmanager
def optimized_execution(should_optimize):
    """Accepted: there is no TorchScript executor to tune."""
    yield


_FUSERS = ("fuser0", "fuser1", "fuser2", "fuser3", "none")


@contextlib.contextmanager
def fuser(name):
    """Accepted for torch's fuser names: there is no TorchScript fuser to choose."""
    if name not in _FUSERS:
        raise Exception(f"unrecognized fuser option (name: {name})")
    yield


_fusion_strategy = [[("STATIC", 2), ("DYNAMIC", 10)]]


def set_fusion_strategy(strategy):
    """Records the strategy and returns the previous one, as torch does."""
    _deprecated("set_fusion_strategy", _USE_COMPILE)
    previous, _fusion_strategy[0] = _fusion_strategy[0], list(strategy)
    return previous


_onednn_fusion = [False]


def enable_onednn_fusion(enabled):
    _onednn_fusion[0] = bool(enabled)


def onednn_fusion_enabled():
    return _onednn_fusion[0]
