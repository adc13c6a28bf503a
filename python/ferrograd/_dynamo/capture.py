"""The compiled-call cache: on a call whose guards (each tensor argument's shape, dtype, requires_grad and
contiguity, the other arguments' values, which arguments are the same tensor, grad mode, the modules'
training flags) have no entry, the function runs eagerly while the core records the traceable ops; later
calls with those guards run the captured graph in Rust (`_core.CompiledGraph`), with no Python per op.
What cannot be captured runs eagerly: a warning names the reason once, or `fullgraph=True` raises
`exc.Unsupported`. Beyond `recompile_limit` entries the function runs eagerly, as torch does."""

import warnings
import weakref

from .. import _core
from . import config
from .exc import Unsupported

_EAGER = object()
# every cache, for `torch._dynamo.reset()`
LIVE: "weakref.WeakSet[CompiledFunction]" = weakref.WeakSet()
_ONE_TENSOR = ("t",)


def _flatten(value, tensors):
    """The tensors of `value` (tensors, and lists/tuples of them) in order; the structure to rebuild it."""
    if isinstance(value, _core.Tensor):
        tensors.append(value)
        return ("t",)
    if isinstance(value, (list, tuple)):
        return (type(value), tuple(_flatten(v, tensors) for v in value))
    return ("c", value)


def _rebuild(spec, tensors):
    if spec[0] == "t":
        return next(tensors)
    if spec[0] == "c":
        return spec[1]
    return spec[0](_rebuild(s, tensors) for s in spec[1])


class CompiledFunction:
    """`fn` (or a module's call) under the cache; `module`'s parameters and buffers are inputs too."""

    def __init__(self, fn, fullgraph, recompile_limit, module=None):
        self.fn, self.fullgraph = fn, fullgraph
        # the module, as a call that returns it: held weakly by `Module.compile`'s cache (which the module holds)
        if module is None or isinstance(module, weakref.ref):
            self._module = module
        else:
            self._module = lambda: module
        self.recompile_limit = config.recompile_limit if recompile_limit is None else recompile_limit
        self.cache = {}
        self.warned = False
        self.break_reason = None  # why the last capture could not be replayed (`explain` reports it)
        LIVE.add(self)

    @property
    def module(self):
        """The module whose tensors are inputs; None for a plain function."""
        return None if self._module is None else self._module()

    def _explain(self, reason):
        if self.fullgraph:
            raise Unsupported(reason)
        if not self.warned:
            self.warned = True
            module = self.module
            name = f"{type(module).__name__}.__call__" if module is not None else getattr(self.fn, "__qualname__", "?")
            warnings.warn(f"ferrograd.compile: graph break in {name}: {reason}; it runs eagerly", stacklevel=3)

    def __call__(self, *args, **kwargs):
        if _core._is_capturing():  # called inside another capture: its ops are that capture's
            return self.fn(*args, **kwargs)
        arg_tensors = []
        try:
            if not kwargs and all(isinstance(a, _core.Tensor) for a in args):
                # tensors only (the common call): their count is the structure
                spec, arg_tensors = len(args), list(args)
            else:
                spec = repr(_flatten((args, tuple(sorted(kwargs.items()))), arg_tensors))
            module = self._module
            if module is None:
                inputs, training = arg_tensors, ()
            else:
                # its parameters and buffers (each once, `parameters()` then `buffers()` order) and its modules'
                # training flags, from one walk of the module tree in the core
                state, training = _core._module_state(module())
                inputs = state + arg_tensors
            # `spec`: the arguments' structure and constants (repr, so that 1, 1.0 and True differ), or a count of
            # tensors; one bytes object for every tensor's shape, dtype, requires_grad, contiguity and aliasing
            key = (spec, _core._guard_signature(inputs), _core.is_grad_enabled(), training)
            hash(key)
        except TypeError:
            self._explain("an argument is neither a tensor nor a hashable constant")
            return self.fn(*args, **kwargs)
        entry = self.cache.get(key)
        if entry is _EAGER:
            return self.fn(*args, **kwargs)
        if entry is not None:
            graph, out_spec = entry
            outs = graph(inputs)
            return outs[0] if out_spec == _ONE_TENSOR else _rebuild(out_spec, iter(outs))
        if len(self.cache) >= self.recompile_limit:
            warnings.warn(f"torch._dynamo hit config.recompile_limit ({self.recompile_limit})", stacklevel=2)
            return self.fn(*args, **kwargs)
        return self._capture(key, inputs, args, kwargs)

    def _capture(self, key, inputs, args, kwargs):
        hooked = self.module is not None and any(
            m._forward_hooks or m._forward_pre_hooks for m in self.module.modules()
        )
        _core._capture_begin(inputs)
        try:
            if hooked:
                _core._capture_unsupported("a module hook")
            out = self.fn(*args, **kwargs)
        except BaseException:
            _core._capture_abort()
            raise
        out_tensors = []
        out_spec = _flatten(out, out_tensors)
        result = _core._capture_finish(out_tensors)
        if isinstance(result, str):
            self.cache[key] = _EAGER
            self.break_reason = result
            self._explain(result)
        else:
            self.cache[key] = (result, out_spec)
        return out
