"""The compiled-call cache: on a call whose guards (each tensor argument's shape, dtype, requires_grad and
contiguity, the other arguments' values, which arguments are the same tensor, grad mode, the modules'
training flags) have no entry, the function runs eagerly while the core records the traceable ops; later
calls with those guards run the captured graph in Rust (`_core.CompiledGraph`), with no Python per op.
What cannot be captured runs eagerly: a warning names the reason once, or `fullgraph=True` raises
`exc.Unsupported`. Beyond `recompile_limit` entries the function runs eagerly, as torch does."""

import warnings

from .. import _core
from . import config
from .exc import Unsupported

_EAGER = object()


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


def _module_state(module):
    """`module`'s parameters and buffers (each once, in `parameters()` then `buffers()` order) and its modules'
    training flags, from one walk of the module tree: the guards read them on every call, and the generic
    `modules()`/`parameters()` walks cost several times as much (85 µs a call on a 2-block GPT)."""
    modules, stack, seen = [], [module], set()
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        modules.append(current)
        stack.extend(reversed([child for child in current._modules.values() if child is not None]))
    parameters, buffers, seen_tensors = [], [], set()
    for current in modules:
        for into, registry in ((parameters, current._parameters), (buffers, current._buffers)):
            for tensor in registry.values():
                if tensor is not None and id(tensor) not in seen_tensors:
                    seen_tensors.add(id(tensor))
                    into.append(tensor)
    return parameters + buffers, tuple(m.training for m in modules)


def _guard(spec, tensors, training):
    seen = {}
    tensor_guards = tuple(
        (tuple(t.shape), t.dtype, t.requires_grad, t.is_contiguous(), seen.setdefault(id(t), i))
        for i, t in enumerate(tensors)
    )
    return (repr(spec), tensor_guards, _core.is_grad_enabled(), training)


class CompiledFunction:
    """`fn` (or a module's call) under the cache; `module`'s parameters and buffers are inputs too."""

    def __init__(self, fn, fullgraph, recompile_limit, module=None):
        self.fn, self.fullgraph, self.module = fn, fullgraph, module
        self.recompile_limit = config.recompile_limit if recompile_limit is None else recompile_limit
        self.cache = {}
        self.warned = False

    def _state(self):
        """The module's tensors (inputs of every call) and its training flags; none for a plain function."""
        if self.module is None:
            return [], ()
        return _module_state(self.module)

    def _explain(self, reason):
        if self.fullgraph:
            raise Unsupported(reason)
        if not self.warned:
            self.warned = True
            name = getattr(self.fn, "__qualname__", repr(self.fn))
            warnings.warn(f"ferrograd.compile: graph break in {name}: {reason}; it runs eagerly", stacklevel=3)

    def __call__(self, *args, **kwargs):
        if _core._is_capturing():  # called inside another capture: its ops are that capture's
            return self.fn(*args, **kwargs)
        arg_tensors = []
        try:
            spec = _flatten((args, tuple(sorted(kwargs.items()))), arg_tensors)
            state, training = self._state()
            key = _guard(spec, state + arg_tensors, training)
            hash(key)
        except TypeError:
            self._explain("an argument is neither a tensor nor a hashable constant")
            return self.fn(*args, **kwargs)
        entry = self.cache.get(key)
        if entry is _EAGER:
            return self.fn(*args, **kwargs)
        if entry is not None:
            graph, out_spec = entry
            return _rebuild(out_spec, iter(graph(state + arg_tensors)))
        if len(self.cache) >= self.recompile_limit:
            warnings.warn(f"torch._dynamo hit config.recompile_limit ({self.recompile_limit})", stacklevel=2)
            return self.fn(*args, **kwargs)
        return self._capture(key, state + arg_tensors, args, kwargs)

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
            self._explain(result)
        else:
            self.cache[key] = (result, out_spec)
        return out
