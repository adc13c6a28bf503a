"""`nn.Module`: the base class of layers and models, with PyTorch's registration, traversal, state_dict,
hooks, conversion and printing.

Parameters, buffers and submodules live in the dicts `_parameters`, `_buffers` and `_modules` (in
registration order); `__getattr__` only runs for those names, since everything else is a normal attribute.
Calling a module without hooks goes straight to `forward`.
"""

import functools
import warnings
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Mapping
from itertools import islice

from ... import _core, _device, _utils, _zero_grad
from ..._core import Tensor
from ..._type import typename as _typename
from ...grad_mode import no_grad
from ...utils import swap_tensors as _swap_tensors
from ...utils.hooks import BackwardHook, RemovableHandle
from ..parameter import Buffer, Parameter
from . import _call_hooks
from ._call_hooks import HOOKED as _HOOKED
from ._call_hooks import CallHooks


def _future_swap():
    """`torch.__future__.get_swap_module_params_on_conversion()` (loaded with its module, on first use)."""
    from ... import __future__ as future

    return future.get_swap_module_params_on_conversion()


__all__ = [
    "Module",
    "register_module_forward_pre_hook",
    "register_module_forward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_full_backward_hook",
]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"

# Hooks every module runs (debugging and profiling tools register these).
_global_forward_pre_hooks = CallHooks()
_global_forward_hooks = CallHooks()
_global_forward_hooks_always_called: OrderedDict[int, bool] = OrderedDict()
_global_forward_hooks_with_kwargs: OrderedDict[int, bool] = OrderedDict()
_global_backward_pre_hooks = CallHooks()
_global_backward_hooks = CallHooks()


def register_module_forward_pre_hook(hook):
    """`hook(module, args)` before every module's forward; a non-None result replaces the args."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """`hook(module, args, output)` after every module's forward; a non-None result replaces the output."""
    handle = RemovableHandle(
        _global_forward_hooks, extra_dict=[_global_forward_hooks_with_kwargs, _global_forward_hooks_always_called]
    )
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook):
    """`hook(module, grad_output)` for every module, before the gradients of its inputs are computed."""
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook):
    """`hook(module, grad_input, grad_output)` for every module, once the gradients of its inputs are known."""
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What `load_state_dict` returns: the keys the module expected but did not get, and the extra ones."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(text, spaces):
    """Indents every line but the first by `spaces` (blank lines stay empty)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join((" " * spaces + line) if line.strip() else "" for line in lines[1:])


class _WrappedHook:
    """A hook called as `hook(module, *args)` while its module (held weakly) is alive."""

    def __init__(self, hook, module=None):
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = module is not None
        if self.with_module:
            self.module = weakref.ref(module)

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self):
        state = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            state["module"] = self.module()
        return state

    def __setstate__(self, state):
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


def _forward_unimplemented(self, *input):
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


# The per-instance dicts Module.__init__ creates, and what `__setstate__` restores for old pickles.
_HOOK_DICTS = (
    "_backward_pre_hooks",
    "_backward_hooks",
    "_forward_hooks",
    "_forward_hooks_with_kwargs",
    "_forward_hooks_always_called",
    "_forward_pre_hooks",
    "_forward_pre_hooks_with_kwargs",
    "_state_dict_hooks",
    "_state_dict_pre_hooks",
    "_load_state_dict_pre_hooks",
    "_load_state_dict_post_hooks",
)


class Module:
    """Base class for all neural network modules; subclasses define `forward` and assign their parameters,
    buffers and submodules as attributes in `__init__` (after `super().__init__()`)."""

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if cls.__module__.startswith("ferrograd.") and init is not None and _takes_device(init):
            cls.__init__ = _build_on_device(init)

    def __init__(self, *args, **kwargs):
        if not self.call_super_init and kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'"
            )
        if not self.call_super_init and args:
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} were given"
            )
        state = self.__dict__
        state["training"] = True
        state["_parameters"] = {}
        state["_buffers"] = {}
        state["_non_persistent_buffers_set"] = set()
        state["_is_full_backward_hook"] = None
        for name in _HOOK_DICTS:
            state[name] = CallHooks() if name in _call_hooks.NAMES else OrderedDict()
        state["_modules"] = {}
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward = _forward_unimplemented

    # ---- registration ----

    def _check_new_name(self, kind, registry, name):
        """PyTorch's checks on a buffer or parameter name (`registry` is the dict it goes into)."""
        if registry not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in self.__dict__[registry]:
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name, tensor, persistent=True):
        """Adds a buffer (state that is not a parameter, e.g. running statistics); a persistent one is part of
        `state_dict`. `tensor=None` registers the name with no tensor."""
        self._check_new_name("buffer", "_buffers", name)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_typename(tensor)}' object to buffer '{name}' (torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Adds a parameter (an `nn.Parameter`, or None to register the name without one)."""
        self._check_new_name("parameter", "_parameters", name)
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' (torch.nn.Parameter or None required)"
            )
        elif param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created explicitly. "
                f"To express '{name}' as a function of another Tensor, compute the value in the forward() method."
            )
        else:
            self._parameters[name] = param

    def add_module(self, name, module):
        """Adds a child module, reachable as the attribute `name`."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def register_module(self, name, module):
        """Alias of `add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target):
        """The submodule at the dotted path `target` ('' is this module)."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        """Replaces (or, unless `strict`, adds) the submodule at the dotted path `target`."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError("`" + "module" + f"` is not an nn.Module, found {type(module)}")
        parent = self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]) and not isinstance(getattr(parent, atoms[-1]), Module):
            raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target):
        """The parameter at the dotted path `target`."""
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer at the dotted path `target`."""
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buffer

    def get_extra_state(self):
        """Extra (picklable) state a subclass puts in its state_dict; defined together with `set_extra_state`."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called. Please file an issue "
            "at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to report this bug."
        )

    def set_extra_state(self, state):
        """Restores what `get_extra_state` returned, when a state_dict is loaded."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called. Please file an issue "
            "at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to report this bug."
        )

    # ---- attributes ----

    def __getattr__(self, name):
        # only reached when normal lookup fails: the registered names
        state = self.__dict__
        if "_parameters" in state:
            if name in state["_parameters"]:
                return state["_parameters"][name]
            if name in state["_buffers"]:
                return state["_buffers"][name]
            if name in state["_modules"]:
                return state["_modules"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        state = self.__dict__
        params = state.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._remove_name(name, state, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' (torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
            return
        modules = state.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._remove_name(name, state, self._parameters, self._buffers, self._non_persistent_buffers_set)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as child module '{name}' (torch.nn.Module or None expected)"
                )
            modules[name] = value
            return
        buffers = state.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
            return
        if name in _call_hooks.NAMES:
            _call_hooks.watch(value)
        object.__setattr__(self, name, value)
        _core._module_attribute_set()  # a compiled call compares the attributes its graphs read as constants

    @staticmethod
    def _remove_name(name, *containers):
        for c in containers:
            if name in c:
                if isinstance(c, dict):
                    del c[name]
                else:
                    c.discard(name)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)
            _core._module_attribute_set()

    def __dir__(self):
        keys = (
            dir(self.__class__)
            + list(self.__dict__)
            + list(self._parameters)
            + list(self._modules)
            + list(self._buffers)
        )
        return sorted(k for k in keys if not k[0].isdigit())

    def __getstate__(self):
        state = self.__dict__.copy()
        # `Module.compile()`'s cache holds this module and its graphs: a copy compiles itself anew (`_compile_options`)
        state.pop("_compiled_call_impl", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in _HOOK_DICTS:
            hooks = self.__dict__.setdefault(name, OrderedDict())
            if name in _call_hooks.NAMES and type(hooks) is not CallHooks:
                self.__dict__[name] = CallHooks(hooks)  # from an older pickle
        self.__dict__.setdefault("_non_persistent_buffers_set", set())
        self.__dict__.setdefault("_is_full_backward_hook", None)
        options = self.__dict__.get("_compile_options")
        if options is not None:
            self.compile(*options[0], **options[1])

    # ---- traversal ----

    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse=True):
        """This module's parameters (and its submodules', if `recurse`), each once, in registration order."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(dotted name, parameter) pairs, as `parameters`."""
        yield from self._named_members(
            lambda m: m._parameters.items(), prefix=prefix, recurse=recurse, remove_duplicate=remove_duplicate
        )

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(
            lambda m: m._buffers.items(), prefix=prefix, recurse=recurse, remove_duplicate=remove_duplicate
        )

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self, remove_duplicate=True):
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(dotted name, module) for this module ('' or `prefix`) and every submodule, depth first."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    # ---- modes and gradients ----

    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Drops (or, with `set_to_none=False`, zeroes in place) the `.grad` of every parameter."""
        if not _zero_grad.captured(self, self.parameters(), set_to_none):
            self._zero_grad(set_to_none)

    def _zero_grad_to_none(self):
        self._zero_grad(True)

    def _zero_grad_to_zeros(self):
        self._zero_grad(False)

    def _zero_grad(self, set_to_none):
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    def share_memory(self):
        """Moves every parameter, its existing gradient and every buffer to shared memory in place
        (`Tensor.share_memory_`), so that processes forked or sent this module train the same tensors."""
        for module in self.modules():
            for param in module._parameters.values():
                if param is not None:
                    param.share_memory_()
                    if param.grad is not None:
                        param.grad.share_memory_()
            for buf in module._buffers.values():
                if buf is not None:
                    buf.share_memory_()
        return self

    def apply(self, fn):
        """Calls `fn` on every submodule (children first) and then on this module; returns this module."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---- conversion ----

    def _apply(self, fn, recurse=True):
        """Gives every parameter (and its grad) `fn(data)`, and every buffer `fn(buffer)`. A parameter keeps
        its object by default (optimizers that hold it keep working), through `.data`; `torch.__future__`'s
        switches replace it by a new Parameter, or swap the new tensor into it (`utils.swap_tensors`)."""
        from ... import __future__ as future

        if recurse:
            for module in self.children():
                module._apply(fn)
        swap = future.get_swap_module_params_on_conversion()
        overwrite = future.get_overwrite_module_params_on_conversion()
        for key, param in self._parameters.items():
            if param is None:
                continue
            with no_grad():
                applied = fn(param)
            grad = param.grad
            if swap:
                if grad is not None:
                    param.grad = None  # the gradient's object is swapped on its own, below
                try:
                    _swap_tensors(param, Parameter(applied, requires_grad=param.requires_grad))
                except Exception as e:
                    if grad is not None:
                        param.grad = grad
                    raise RuntimeError(f"_apply(): Couldn't swap {self._get_name()}.{key}") from e
                out = param
            elif overwrite:
                out = self._parameters[key] = Parameter(applied, param.requires_grad)
            else:
                with no_grad():
                    param.data = applied
                out = param
            if grad is not None:
                with no_grad():
                    grad_applied = fn(grad)
                if swap or not overwrite:
                    # the gradient keeps its object too (torch swaps it; its values are what matter here)
                    grad.data = grad_applied
                    out.grad = grad
                else:
                    out.grad = grad_applied.requires_grad_(grad.requires_grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def cpu(self):
        return self._apply(lambda t: t)

    def cuda(self, device=None):
        raise AssertionError("Torch not compiled with CUDA enabled")  # what torch's CPU build raises

    def type(self, dst_type):
        """Casts every parameter and buffer to `dst_type` (a dtype)."""
        return self._apply(lambda t: t.to(dst_type))

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self, *, device, recurse=True):
        """Replaces every parameter and buffer with an uninitialised one of the same shape and dtype on `device`
        (here zero-filled): how a module built on the meta device gets memory."""
        return self._apply(lambda t: _empty_on(t, device), recurse=recurse)

    def to(self, *args, **kwargs):
        """`to(device=None, dtype=None, non_blocking=False)`, `to(dtype)`, `to(tensor)`: moves and/or casts the
        floating-point parameters and buffers in place (integer ones keep their dtype)."""
        device, dtype = _parse_to(args, kwargs)
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(
                f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={dtype}"
            )

        def convert(t):
            return t.to(device=device, dtype=dtype if t.is_floating_point() else None)

        return self._apply(convert)

    # ---- hooks ----

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """`hook(module, args)` (or `hook(module, args, kwargs)` with `with_kwargs`) before `forward`; a non-None
        result replaces the args (or is an `(args, kwargs)` pair)."""
        handle = RemovableHandle(self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """`hook(module, args, output)` (or `hook(module, args, kwargs, output)`) after `forward`; a non-None
        result replaces the output. `always_call` runs it even when forward raised."""
        handle = RemovableHandle(
            self._forward_hooks, extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called]
        )
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """`hook(module, grad_output)` when the gradients of the outputs are known; a non-None result replaces
        grad_output."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """`hook(module, grad_input, grad_output)` once the gradients of the inputs are computed; a non-None
        result replaces grad_input."""
        if self._is_full_backward_hook is False:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a single Module. Please use only "
                "one of them."
            )
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook):
        """The deprecated form: `hook(module, grad_input, grad_output)` on the node that made the output."""
        if self._is_full_backward_hook is True:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a single Module. Please use only "
                "one of them."
            )
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def _get_backward_hooks(self):
        """(full backward hooks, old-style backward hooks) this module runs."""
        full = list(_global_backward_hooks.values())
        old = []
        if self._is_full_backward_hook is True:
            full += self._backward_hooks.values()
        elif self._is_full_backward_hook is False:
            old += self._backward_hooks.values()
        return full, old

    def _get_backward_pre_hooks(self):
        return [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]

    # ---- calling ----

    def __call__(self, *args, **kwargs):
        # `_HOOKED` is empty while no module anywhere has a hook or was compiled (the common case): one check,
        # not nine
        if _HOOKED:
            compiled = self.__dict__.get("_compiled_call_impl")
            if compiled is not None:
                return compiled(*args, **kwargs)
            if _HOOKED != _call_hooks.ONLY_COMPILED:  # some module has hooks: this call looks for its own
                return self._call_impl(*args, **kwargs)
        # `_call_impl`'s forward, inline: one Python frame less on every call of every module
        try:
            return self.forward(*args, **kwargs)
        except (AttributeError, TypeError) as e:
            # a non-tensor input: PyTorch's TypeError, not an AttributeError from inside forward
            typed = _utils.as_type_error(e, self.forward, args, kwargs)
            if typed is e:
                raise
            raise typed from None

    def _call_impl(self, *args, **kwargs):
        if _HOOKED and (
            self._forward_pre_hooks
            or self._forward_hooks
            or self._backward_hooks
            or self._backward_pre_hooks
            or _global_forward_pre_hooks
            or _global_forward_hooks
            or _global_backward_pre_hooks
            or _global_backward_hooks
        ):
            return self._call_with_hooks(args, kwargs)
        try:
            return self.forward(*args, **kwargs)
        except (AttributeError, TypeError) as e:
            typed = _utils.as_type_error(e, self.forward, args, kwargs)
            if typed is e:
                raise
            raise typed from None

    def compile(self, *args, **kwargs):
        """torch's `Module.compile`: from now on this module's calls go through `ferrograd.compile` (with these
        arguments), its hooks included; the module itself stays the same object, and its state dict keys."""
        from ... import _compile

        # weakly: the module holds the compiled call, which must not hold the module back (no cycle)
        module = weakref.ref(self)

        def call(*call_args, **call_kwargs):
            return module()._call_impl(*call_args, **call_kwargs)

        call.__qualname__ = f"{type(self).__name__}.__call__"
        call._compiled_module = module  # its parameters and buffers are inputs of the graph, as OptimizedModule's
        compiled = _compile.compile(call, *args, **kwargs)
        # the cache itself when there is one: a call skips the wrapper function
        self._compiled_call_impl = getattr(compiled, "_compiled", compiled)
        self.__dict__["_compile_options"] = (args, kwargs)
        _call_hooks.HOOKED.add(_call_hooks.COMPILED)

    def _call_with_hooks(self, args, kwargs):
        called = set()
        result = None
        try:
            full_backward, old_backward = self._get_backward_hooks()
            backward_pre = self._get_backward_pre_hooks()
            for hook_id, hook in (*_global_forward_pre_hooks.items(), *self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    new = hook(self, args, kwargs)
                    if new is not None:
                        if not (isinstance(new, tuple) and len(new) == 2):
                            raise RuntimeError(
                                "forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got "
                                f"{new}."
                            )
                        args, kwargs = new
                else:
                    new = hook(self, args)
                    if new is not None:
                        args = new if isinstance(new, tuple) else (new,)
            bw_hook = None
            if full_backward or backward_pre:
                bw_hook = BackwardHook(self, full_backward, backward_pre)
                args = bw_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called or hook_id in _global_forward_hooks_always_called:
                    called.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs or hook_id in _global_forward_hooks_with_kwargs:
                    new = hook(self, args, kwargs, result)
                else:
                    new = hook(self, args, result)
                if new is not None:
                    result = new
            if bw_hook is not None:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn(
                        "For backward hooks to be called, module output should be a Tensor or a tuple of Tensors but "
                        f"received {type(result)}",
                        stacklevel=3,
                    )
                result = bw_hook.setup_output_hook(result)
            if old_backward:
                self._attach_old_backward_hooks(result, old_backward)
            return result
        except Exception:
            self._run_always_called(args, kwargs, result, called)
            raise

    def _attach_old_backward_hooks(self, result, hooks):
        var = result
        while not isinstance(var, Tensor):
            var = next(v for v in var.values() if isinstance(v, Tensor)) if isinstance(var, dict) else var[0]
        if var.grad_fn is not None:
            for hook in hooks:
                var.grad_fn.register_hook(_WrappedHook(hook, self))

    def _run_always_called(self, args, kwargs, result, called):
        """After forward (or a hook) raised: the `always_call` forward hooks that have not run yet."""
        for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
            always = hook_id in self._forward_hooks_always_called or hook_id in _global_forward_hooks_always_called
            if not always or hook_id in called:
                continue
            try:
                if hook_id in self._forward_hooks_with_kwargs:
                    new = hook(self, args, kwargs, result)
                else:
                    new = hook(self, args, result)
                if new is not None:
                    result = new
            except Exception as e:
                warnings.warn(
                    "module forward hook with ``always_call=True`` raised an exception that was silenced as another "
                    f"error was raised in forward: {e}",
                    stacklevel=4,
                )

    # ---- state_dict ----

    def register_state_dict_pre_hook(self, hook):
        """`hook(module, prefix, keep_vars)` before `state_dict` saves this module."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook):
        """`hook(module, state_dict, prefix, local_metadata)` after `state_dict` saved this module (returns None)."""
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_load_state_dict_pre_hook(self, hook):
        """`hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)`
        before this module's entries are loaded."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = _WrappedHook(hook, self)
        return handle

    def register_load_state_dict_post_hook(self, hook):
        """`hook(module, incompatible_keys)` after `load_state_dict` visited this module."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of every parameter and persistent buffer by dotted name (detached unless
        `keep_vars`), this module's own first, then each child's."""
        if args:
            warnings.warn(
                "Positional args are being deprecated, use kwargs instead. Refer to "
                "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict for details.",
                FutureWarning,
                stacklevel=2,
            )
            destination = args[0] if destination is None else destination
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            if hook(self, destination, prefix, local_metadata) is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        """Copies this module's own entries of `state_dict` into its parameters and buffers (no recursion)."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        local_state = {k: v for k, v in self._parameters.items() if v is not None}
        local_state.update(
            (k, v) for k, v in self._buffers.items() if v is not None and k not in self._non_persistent_buffers_set
        )
        assign = local_metadata.get("assign_to_params_buffers", False)
        swap = _future_swap()
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like object from '
                    f"checkpoint but received {type(value)}"
                )
                continue
            if param.dim() == 0 and value.dim() == 1 and value.shape[0] == 1:
                value = value[0]
            if value.shape != param.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {value.shape} from checkpoint, "
                    f"the shape in current model is {param.shape}."
                )
                continue
            try:
                with no_grad():
                    if swap:
                        loaded = param.module_load(value, assign=assign)
                        if loaded is value or loaded is param:
                            raise RuntimeError(
                                "module_load returned one of self or other, please .detach() the result if "
                                "returning one of the inputs in module_load"
                            )
                        if isinstance(param, Parameter):
                            if isinstance(loaded, Parameter):
                                loaded.requires_grad_(param.requires_grad)
                            else:
                                loaded = Parameter(loaded, requires_grad=param.requires_grad)
                        _swap_tensors(param, loaded)
                        del loaded
                    elif assign:
                        if isinstance(param, Parameter):
                            if isinstance(value, Parameter):
                                value.requires_grad_(param.requires_grad)
                            else:
                                value = Parameter(value, requires_grad=param.requires_grad)
                        setattr(self, name, value)
                    else:
                        if param.is_meta and not value.is_meta:
                            warnings.warn(
                                f"for {key}: copying from a non-meta parameter in the checkpoint to a meta parameter "
                                "in the current model, which is a no-op. (Did you mean to pass `assign=True` to assign "
                                "items in the state dictionary to their corresponding key in the module instead of "
                                "copying them in place?)",
                                stacklevel=2,
                            )
                        param.copy_(value)
            except Exception as ex:
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model are {param.size()} '
                    f"and whose dimensions in the checkpoint are {value.size()}, an exception occurred : {ex.args}."
                )
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    head, dot, _ = key[len(prefix) :].partition(".")
                    if (dot and head not in self._modules) or (not dot and head not in local_state):
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copies `state_dict`'s tensors into the parameters and buffers (in place, or with `assign` as the new
        tensors). Returns `_IncompatibleKeys(missing_keys, unexpected_keys)`; with `strict`, any of those or a
        shape mismatch raises RuntimeError listing them."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        _load_into(self, state_dict, "", metadata, assign, missing_keys, unexpected_keys, error_msgs)
        if strict:
            if unexpected_keys:
                error_msgs.insert(
                    0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected_keys))
                )
            if missing_keys:
                error_msgs.insert(
                    0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing_keys))
                )
        if error_msgs:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__, "\n\t".join(error_msgs))
            )
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ---- printing ----

    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The module's own settings for its repr (one line, or several separated by newlines)."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        body = ""
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                body = extra_lines[0]
            else:
                body = "\n  " + "\n  ".join(lines) + "\n"
        return self._get_name() + "(" + body + ")"


_module_call = Module.__call__


def _call_chain(seq, input, start=0, first=None):
    """`seq(input)` for a Sequential-like module whose forward feeds `input` through `seq._modules` in order,
    while no module has hooks (the caller checked): each child's forward is called from here, not through its
    `__call__`, with the errors the calls would raise. With `start`, the first `start` modules already ran on
    `first` and gave `input`."""
    modules = seq._modules.values()
    if start:
        modules = islice(modules, start, None)
    else:
        first = input
    try:
        for module in modules:
            input = module.forward(input) if type(module).__call__ is _module_call else module(input)
        return input
    except (AttributeError, TypeError) as e:
        if not callable(module):  # None in the chain
            raise TypeError(f"'{type(module).__name__}' object is not callable") from None
        typed = e
        if type(module).__call__ is _module_call:  # what the child's own call would have raised
            typed = _utils.as_type_error(e, module.forward, (input,), {})
        outer = _utils.as_type_error(typed, seq.forward, (first,), {})
        if outer is e:
            raise
        raise outer from None


def _load_into(module, state_dict, prefix, metadata, assign, missing_keys, unexpected_keys, error_msgs):
    """`load_state_dict`'s walk: this module's entries, then each child's (with the keys under its prefix)."""
    local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
    if assign:
        local_metadata["assign_to_params_buffers"] = assign
    module._load_from_state_dict(state_dict, prefix, local_metadata, True, missing_keys, unexpected_keys, error_msgs)
    for name, child in module._modules.items():
        if child is not None:
            child_prefix = prefix + name + "."
            child_state = {k: v for k, v in state_dict.items() if k.startswith(child_prefix)}
            _load_into(child, child_state, child_prefix, metadata, assign, missing_keys, unexpected_keys, error_msgs)
    incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
    for hook in module._load_state_dict_post_hooks.values():
        if hook(module, incompatible) is not None:
            raise AssertionError(
                "Hooks registered with ``register_load_state_dict_post_hook`` are not expected to return new "
                "values, if incompatible_keys need to be modified, it should be done inplace."
            )


def _takes_device(init):
    code = getattr(init, "__code__", None)
    return code is not None and "device" in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]


def _empty_on(t, device):
    return _core.zeros(t.shape, dtype=t.dtype, device=device)


def _build_on_device(init):
    """`init` of a layer with torch's `device=` argument, made to honour `device='meta'`: the layer is built under
    `with device('meta')`, so the factories its `__init__` calls make meta parameters and buffers."""

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        device = kwargs.get("device")
        if device is None or _device.resolve(device) is not _device.META or _device._default_device is _device.META:
            return init(self, *args, **kwargs)
        with _device.META:
            return init(self, *args, **kwargs)

    return __init__


def _parse_to(args, kwargs):
    """(device, dtype) from the argument forms of `Module.to` / `Tensor.to`."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    kwargs.pop("copy", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    rest = list(args)
    if rest and isinstance(rest[-1], bool):
        rest.pop()  # non_blocking
    if len(rest) > 2:
        raise TypeError(f"to() received an invalid combination of arguments - got {len(args)} positional arguments")
    for a in rest:
        if isinstance(a, _core.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            device, dtype = a.device, a.dtype
        elif a is None:
            continue
        elif isinstance(a, (str, int)) or hasattr(a, "type"):
            device = a
        else:
            raise TypeError(f"to() received an invalid combination of arguments - got ({type(a).__name__})")
    if device is not None:
        device = _device.resolve(device)
    return device, dtype
