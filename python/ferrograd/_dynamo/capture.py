"""The compiled-call cache: on a call whose guards (each tensor input's shape, dtype, requires_grad and
contiguity, the other arguments' values, which inputs are the same tensor, grad mode, the modules' training
flags; computed in the core, `_core.CompiledCall`) have no entry, the function runs eagerly while the core
records the traceable ops; later calls with those guards run the captured graph in Rust
(`_core.CompiledGraph`), with no Python per op. What cannot be captured runs eagerly: a warning names the
reason once, or `fullgraph=True` raises `exc.Unsupported`. Beyond `recompile_limit` entries the function runs
eagerly, as torch does."""

import types
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


def _bindings(fn, found=None, seen=None, depth=0):
    """Where a plain function (and the Python functions it names, a few levels down) reaches a module, an
    optimizer, a tensor or a plain value (a number, a string) it is not given: `(globals, name)` for a global its
    code names, `(cell, None)` for a variable it closes over, and `(group, key)` for the options of an optimizer
    whose `step()` is Python's. Its graph holds those objects as constants (an optimizer: the one whose update it
    replays), so the cache watches the bindings
    (`_core.CompiledCall._watch`), as torch guards a global's identity. An attribute of another object (a
    `trainer.model`) is not followed."""
    from ..nn import Module
    from ..optim import Optimizer
    from ..optim._fused import FusedOptimizer

    found = [] if found is None else found
    seen = set() if seen is None else seen
    if isinstance(fn, types.MethodType):
        fn = fn.__func__
    code = getattr(fn, "__code__", None)
    if code is None or id(fn) in seen or depth > 3:
        return found
    seen.add(id(fn))

    def note(holder, name, value):
        if isinstance(value, (_core.Tensor, Module, Optimizer)) or _plain(value):
            found.append((holder, name))
            if isinstance(value, Optimizer) and not isinstance(value, FusedOptimizer):
                # a Python `step()` reads its options (`lr`) once, at the capture; a fused one at each replay
                found.extend((group, key) for group in value.param_groups for key in group if key != "params")
        elif isinstance(value, types.FunctionType):
            _bindings(value, found, seen, depth + 1)

    for cell in fn.__closure__ or ():
        try:
            note(cell, None, cell.cell_contents)
        except ValueError:  # an empty cell (a name assigned after the inner function was made)
            pass
    fn_globals = fn.__globals__
    for name in _names(code):
        if name in fn_globals:
            note(fn_globals, name, fn_globals[name])
    return found


def _has_uninitialized_lazy(module, fn):
    """Whether `module`, or a module `fn` reaches through its globals and closure, holds a lazy layer that has not
    seen its first input yet."""
    from ..nn.modules.lazy import LazyModuleMixin

    if module is not None:
        tops = [module]
    else:
        values = [holder[name] if name is not None else holder.cell_contents for holder, name in _bindings(fn)]
        tops = [v for v in values if hasattr(v, "modules") and callable(v.modules)]
    return any(isinstance(m, LazyModuleMixin) and m.has_uninitialized_params() for top in tops for m in top.modules())


def _names(code, names=None):
    """The global names a code object and the code nested in it (lambdas, comprehensions) read, in order."""
    names = {} if names is None else names
    names.update(dict.fromkeys(code.co_names))
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _names(const, names)
    return names


_PLAIN = (int, float, complex, str, bytes, bool, type(None))
_BOOKKEEPING: set[str] = set()


def _plain(value):
    return isinstance(value, _PLAIN) or (type(value) is tuple and all(_plain(v) for v in value))


def _attributes(modules):
    """Each module's plain attributes, the ones its `forward` may read as constants (not its registries, hooks
    or training flag, which the guards read already): `(module, name, value)`."""
    from ..nn import Module

    if not _BOOKKEEPING:
        _BOOKKEEPING.update(Module().__dict__, ("training", "_compiled_call_impl", "_compile_options"))
    return [(m, k, v) for m in modules for k, v in m.__dict__.items() if k not in _BOOKKEEPING]


def _same_attributes(old, new):
    """The same object, or an equal plain value (a number, a string, a tuple of them set again)."""
    return len(old) == len(new) and all(
        a[0] is b[0] and a[1] == b[1] and (a[2] is b[2] or (_plain(a[2]) and type(a[2]) is type(b[2]) and a[2] == b[2]))
        for a, b in zip(old, new)
    )


class CompiledFunction(_core.CompiledCall):
    """`fn` (or a module's call) under the cache; `module`'s parameters and buffers are inputs too (held
    weakly when it is a weak reference). A call of tensors only whose graph returns one tensor runs in the
    core (`_core.CompiledCall.__call__`); the rest comes here (`_call_slow`)."""

    def __new__(cls, fn, fullgraph, recompile_limit, module=None):
        return super().__new__(cls, module=module)

    def __init__(self, fn, fullgraph, recompile_limit, module=None):
        self.fn, self.fullgraph = fn, fullgraph
        self.recompile_limit = config.recompile_limit if recompile_limit is None else recompile_limit
        self.warned = False
        self.break_reason = None  # why the last capture could not be replayed (`explain` reports it)
        self._captured_attributes = None  # the modules' plain attributes the cached graphs were captured with
        LIVE.add(self)

    def _guarded_modules(self):
        module = self.module
        tops = [module] if module is not None else self._watched_modules
        return list({id(m): m for top in tops for m in top.modules()}.values())

    def _check_attributes(self):
        """Called by the core after any module attribute was set: a graph holds the attributes its `forward` read
        as constants, so another value empties the cache (torch guards each attribute read)."""
        if self._captured_attributes is not None and not _same_attributes(
            self._captured_attributes, _attributes(self._guarded_modules())
        ):
            self.cache.clear()
            self._captured_attributes = None

    def _explain(self, reason, stacklevel=5):
        if self.fullgraph:
            raise Unsupported(reason)
        if not self.warned:
            self.warned = True
            module = self.module
            name = f"{type(module).__name__}.__call__" if module is not None else getattr(self.fn, "__qualname__", "?")
            warnings.warn(f"ferrograd.compile: graph break in {name}: {reason}; it runs eagerly", stacklevel=stacklevel)

    def _call_slow(self, args, kwargs, guards):
        """A call the core did not run: a first call for its guards, a graph break, arguments that are not all
        tensors, several outputs, or a call inside another capture (`guards` is None unless all are tensors)."""
        if _core._is_capturing():  # called inside another capture: its ops are that capture's
            return self.fn(*args, **kwargs)
        if guards is not None:
            key, inputs = guards
            rekey = lambda: self._guards(inputs)[0]
        else:
            arg_tensors = []
            try:
                # the arguments' structure and constants (repr, so that 1, 1.0 and True differ)
                spec = repr(_flatten((args, tuple(sorted(kwargs.items()))), arg_tensors))
                signature, inputs = self._guards(arg_tensors)
                key = (spec, signature)
                hash(key)
            except TypeError:
                self._explain("an argument is neither a tensor nor a hashable constant", stacklevel=4)
                return self.fn(*args, **kwargs)
            rekey = lambda: (spec, self._guards(arg_tensors)[0])
        entry = self.cache.get(key)
        if entry is _EAGER:
            return self.fn(*args, **kwargs)
        if entry is not None and not entry[0].is_current:
            # Python read a tensor's data during the capture, and the tensor was written since
            del self.cache[key]
            entry = None
        if entry is not None:
            graph, out_spec = entry
            outs = graph(inputs)
            return outs[0] if out_spec is None else _rebuild(out_spec, iter(outs))
        if len(self.cache) >= self.recompile_limit:
            warnings.warn(f"torch._dynamo hit config.recompile_limit ({self.recompile_limit})", stacklevel=2)
            return self.fn(*args, **kwargs)
        return self._capture(key, rekey, inputs, args, kwargs)

    def _capture(self, key, rekey, inputs, args, kwargs):
        """Runs `fn` eagerly under a capture and caches its graph under `key` (`rekey()` once the capture
        made a plain function watch its globals and closure)."""
        if _has_uninitialized_lazy(self.module, self.fn):
            # as torch's Dynamo initialises lazy modules before it traces: this call gives them their shapes
            # eagerly, and the next one captures
            return self.fn(*args, **kwargs)
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
            if self.module is None and not self._watching:
                bindings = _bindings(self.fn)
                if bindings:
                    self._watch(bindings)
                    key = rekey()
            # an empty cache (emptied by the core when a binding changed, or by `reset()`) has no attributes to keep
            if self._captured_attributes is None or not self.cache:
                self._captured_attributes = _attributes(self._guarded_modules())
            # None: one tensor, which the core's call returns without rebuilding
            self.cache[key] = (result, None if out_spec == _ONE_TENSOR else out_spec)
        return out
