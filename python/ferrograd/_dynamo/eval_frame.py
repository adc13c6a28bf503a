"""`torch.compile`'s entry point: `OptimizedModule` wraps an `nn.Module` as torch's does (the module
is the child `_orig_mod`, so state dict keys gain the `_orig_mod.` prefix; attributes read and write through
to it; `train()`/`eval()` reach it), and a compiled function is the function under `functools.wraps`.

What is checked is what torch checks when `compile` is called: `mode` against its list (for the inductor
backend), `mode` and `options` not both, the backend's name, a callable model. `fullgraph`, `dynamic` and the
options are accepted; `fullgraph` makes a capture failure raise. Unless the backend is "eager" (or a callable
of the user's), calls go through `capture.CompiledFunction`, which runs a captured graph on the ops' own
kernels and rules, or the model eagerly where capture stops.
"""

import functools

from ..nn.modules.module import Module
from .capture import CompiledFunction

__all__ = ["OptimizedModule", "compile", "list_backends"]

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")

# torch's registered backends (`torch._dynamo.list_backends(exclude_tags=None)`), the debug ones included
_BACKENDS = (
    "aot_eager",
    "aot_eager_decomp_partition",
    "aot_eager_default_partitioner",
    "aot_ts",
    "cudagraphs",
    "eager",
    "eager_debug",
    "eager_noexcept",
    "inductor",
    "openxla",
    "openxla_eval",
    "pre_dispatch_eager",
    "ts",
    "tvm",
)
_DEBUG_BACKENDS = ("aot_eager", "aot_eager_decomp_partition", "aot_eager_default_partitioner", "aot_ts", "eager")


class InvalidBackend(RuntimeError):
    """`torch._dynamo.exc.InvalidBackend`: a backend name torch does not know."""

    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}. See `torch._dynamo.list_backends()` for available backends.")


def list_backends(exclude_tags=("debug", "experimental")):
    """The backend names `compile` accepts (without the debug ones unless `exclude_tags` is None)."""
    if exclude_tags is None:
        return sorted(_BACKENDS)
    return sorted(b for b in _BACKENDS if b not in _DEBUG_BACKENDS and not b.endswith(("_debug", "_eval")))


class _CompileOptions:
    """What `compile` was asked for (`OptimizedModule.dynamo_ctx`): kept for inspection and pickling."""

    def __init__(self, backend, mode, options, fullgraph, dynamic, recompile_limit=None):
        self.backend, self.mode, self.options = backend, mode, options
        self.fullgraph, self.dynamic, self.recompile_limit = fullgraph, dynamic, recompile_limit

    def __repr__(self):
        return f"_CompileOptions(backend={self.backend!r}, mode={self.mode!r}, fullgraph={self.fullgraph})"


class OptimizedModule(Module):
    """A compiled `nn.Module`: calls run the original module (`_orig_mod`) through the capture, with its hooks."""

    # the attributes that belong to the wrapper; any other is the original module's
    _opt_mod_attributes = {"_orig_mod", "dynamo_ctx", "_torchdynamo_orig_callable", "get_compiler_config", "forward"}

    def __init__(self, mod, dynamo_ctx):
        super().__init__()
        self._orig_mod = mod
        self.dynamo_ctx = dynamo_ctx
        self._torchdynamo_orig_callable = mod.__call__
        if dynamo_ctx.backend == "eager" or not isinstance(dynamo_ctx.backend, str):
            self.forward = mod.__call__
        else:
            self.forward = CompiledFunction(mod.__call__, dynamo_ctx.fullgraph, dynamo_ctx.recompile_limit, mod)

    @property
    def training(self):
        return self._orig_mod.training

    @training.setter
    def training(self, value):
        # Module.__init__ sets the default before `_orig_mod` exists; the mode is the original module's
        if "_modules" in self.__dict__ and "_orig_mod" in self._modules:
            self._orig_mod.training = value

    def __getattr__(self, name):
        modules = self.__dict__.get("_modules")
        if modules is None or "_orig_mod" not in modules:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        if name == "_orig_mod":
            return modules["_orig_mod"]
        return getattr(modules["_orig_mod"], name)

    def __setattr__(self, name, value):
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return super().__setattr__(name, value)
        return setattr(self._orig_mod, name, value)

    def __delattr__(self, name):
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return super().__delattr__(name)
        return delattr(self._orig_mod, name)

    def __len__(self):
        if hasattr(type(self._orig_mod), "__len__"):
            return len(self._orig_mod)
        raise TypeError(f"{type(self._orig_mod).__name__} does not support len()")

    def __dir__(self):
        own = self._orig_mod.__dir__()
        return own + [name for name in super().__dir__() if name not in own]

    def __reduce__(self):
        return (self.__class__, (self._orig_mod, self.dynamo_ctx))


def _check_backend(backend):
    if isinstance(backend, str):
        if backend not in _BACKENDS:
            raise InvalidBackend(backend)
    elif not callable(backend):
        raise InvalidBackend(backend)


def compile(  # torch's name
    model=None,
    *,
    fullgraph=False,
    dynamic=None,
    backend="inductor",
    mode=None,
    options=None,
    name=None,
    disable=False,
    recompile_limit=None,
    isolate_recompiles=False,
    dynamic_shapes=None,
):
    """`torch.compile`: torch's arguments and checks; the model runs through `CompiledFunction`."""
    if backend is None:
        backend = "inductor"
    if model is None:

        def decorate(model):
            if model is None:
                raise RuntimeError("Model can't be None")
            return compile(
                model,
                fullgraph=fullgraph,
                dynamic=dynamic,
                backend=backend,
                mode=mode,
                options=options,
                name=name,
                disable=disable,
                recompile_limit=recompile_limit,
                isolate_recompiles=isolate_recompiles,
                dynamic_shapes=dynamic_shapes,
            )

        return decorate
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is None and options is None:
        mode = "default"
    if backend == "inductor" and mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    _check_backend(backend)
    if disable:
        return model
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    context = _CompileOptions(backend, mode, options, fullgraph, dynamic, recompile_limit)
    if isinstance(model, Module):
        return OptimizedModule(model, context)
    if backend == "eager" or not isinstance(backend, str):
        run = model
    else:
        # `Module.compile` hands over the module's call marked with its module (whose tensors are inputs)
        run = CompiledFunction(model, fullgraph, recompile_limit, getattr(model, "_compiled_module", None))

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return run(*args, **kwargs)

    compiled._compiled = run  # the cache, for tests and `reset()`
    return compiled
