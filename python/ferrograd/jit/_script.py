"""The objects `jit.script` and `jit.trace` return: `ScriptFunction`, and module copies whose classes carry
torch's names (`RecursiveScriptModule`, `TopLevelTracedModule`, `TracedModule`).

ferrograd compiles no TorchScript, so these run the original Python eagerly. A module copy is made as torch
makes one: its parameters and buffers are the same tensors as the original's, its submodules are copies of
the same kind, and its training flag is its own (`scripted.eval()` leaves the original in training mode). Its
class derives from the original's, so the original `forward` and helper methods run on the copy's own state.
That makes `isinstance(scripted, Net)` true, where torch says false."""

import copy

from ..nn.modules.module import Module

_PARAMETER_STATE = ("_parameters", "_buffers")


def refuse_save():
    raise NotImplementedError(
        "ferrograd cannot write TorchScript archives: it runs models as Python, not TorchScript. Save the "
        "weights with ferrograd.save(model.state_dict(), path) (PyTorch's format) and rebuild the model class "
        "to load them"
    )


class ScriptFunction:
    """A function `jit.script` or `jit.trace` returned: calling it calls the function."""

    def __init__(self, function):
        self._function = function
        self.name = getattr(function, "__name__", type(function).__name__)

    def __call__(self, *args, **kwargs):
        return self._function(*args, **kwargs)

    def save(self, f, **kwargs):
        refuse_save()

    def __repr__(self):
        return f"<ferrograd.jit.ScriptFunction object at {id(self):#x}>"


class ScriptModule(Module):
    """Base of every module `jit.script` or `jit.trace` returns (`isinstance(m, jit.ScriptModule)`)."""

    def __reduce_ex__(self, protocol):
        # torch pickles no script module (torch.save of one raises this); copy.deepcopy still works
        original = next(c for c in type(self).__mro__ if not issubclass(c, ScriptModule))
        path = f"{original.__module__}.{original.__qualname__}".replace("ferrograd.", "torch.", 1)
        raise RuntimeError(
            f"Tried to serialize object __torch__.{path} which does not have a __getstate__ method defined!"
        )

    def __deepcopy__(self, memo):
        duplicate = object.__new__(type(self))
        memo[id(self)] = duplicate
        duplicate.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return duplicate

    def save(self, f, **kwargs):
        refuse_save()

    def save_to_buffer(self, **kwargs):
        refuse_save()


class RecursiveScriptModule(ScriptModule):
    """What `jit.script(module)` returns; it prints as torch's does, `RecursiveScriptModule(original_name=...)`."""

    def _get_name(self):
        return "RecursiveScriptModule"

    def extra_repr(self):
        return f"original_name={self.original_name}"


class TracedModule(ScriptModule):
    """A submodule of what `jit.trace(module)` returns; prints as `Linear(original_name=Linear)`."""

    def _get_name(self):
        return self.original_name

    def extra_repr(self):
        return f"original_name={self.original_name}"


class TopLevelTracedModule(TracedModule):
    """What `jit.trace(module)` returns."""


_classes: dict = {}


def _class_for(kind, original_class):
    """`kind` mixed over `original_class`, made once per pair and named as torch names `kind`."""
    key = (kind, original_class)
    made = _classes.get(key)
    if made is None:
        made = type(kind.__name__, (kind, original_class), {"__module__": kind.__module__})
        _classes[key] = made
    return made


def copy_module(module, kind, child_kind=None):
    """A copy of `module` of class `kind` sharing its parameter and buffer tensors; its submodules become
    copies of class `child_kind` (default `kind`)."""
    if isinstance(module, ScriptModule):
        return module
    child_kind = child_kind or kind
    made = object.__new__(_class_for(kind, type(module)))
    state = made.__dict__
    for name, value in module.__dict__.items():
        state[name] = copy.copy(value) if name.startswith("_") and hasattr(value, "copy") else value
    for name in _PARAMETER_STATE:
        state[name] = dict(module.__dict__[name])
    state["_modules"] = {
        name: None if child is None else copy_module(child, child_kind) for name, child in module._modules.items()
    }
    state["original_name"] = type(module).__name__
    return made
