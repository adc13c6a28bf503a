"""The dicts of hooks that `Module.__call__` runs, watched so that a call can tell with one check that no
module anywhere has any: `HOOKED` holds the `id` of every such dict that is not empty (and `UNWATCHED` once
a plain dict took the place of one). While `HOOKED` is empty, a call goes straight to `forward`; when it is
not, the call looks at its own module's dicts as before, so a stale entry only costs time.
"""

import threading
from collections import OrderedDict

__all__ = ["CallHooks", "COMPILED", "HOOKED", "ONLY_COMPILED", "UNWATCHED", "NAMES", "watch"]

HOOKED: set[object] = set()
# in `HOOKED` once any module was compiled (`Module.compile`): its calls then look for their compiled call
COMPILED = "a module was compiled"
ONLY_COMPILED = {COMPILED}  # `HOOKED` when modules were compiled but none has hooks
UNWATCHED = "a hook dict that is not a CallHooks"

# the per-module dicts that make a call run its hooks (the `_with_kwargs`/`_always_called` ones only flag them)
NAMES = frozenset(("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks", "_backward_hooks"))

# one mutation at a time, so that the check of emptiness and the set's update cannot interleave; reentrant,
# since `update` stores through `__setitem__` and `__del__` may run inside a mutation
_lock = threading.RLock()


def _mutator(name):
    method = getattr(OrderedDict, name)

    def tracked(self, *args, **kwargs):
        with _lock:
            try:
                return method(self, *args, **kwargs)
            finally:
                if self:
                    HOOKED.add(id(self))
                else:
                    HOOKED.discard(id(self))

    tracked.__name__ = tracked.__qualname__ = name
    tracked.__doc__ = method.__doc__
    return tracked


class CallHooks(OrderedDict):
    """An OrderedDict of hooks that keeps `HOOKED` up to date on every change."""

    __slots__ = ()

    __setitem__ = _mutator("__setitem__")
    __delitem__ = _mutator("__delitem__")
    __ior__ = _mutator("__ior__")
    pop = _mutator("pop")
    popitem = _mutator("popitem")
    clear = _mutator("clear")
    update = _mutator("update")
    setdefault = _mutator("setdefault")

    def __repr__(self):
        # printed as the plain OrderedDict torch keeps hooks in (`print(module._forward_pre_hooks)`)
        return repr(OrderedDict(self))

    def __del__(self):
        if HOOKED is not None and _lock is not None:  # None while the interpreter shuts down
            with _lock:
                HOOKED.discard(id(self))


def watch(hooks):
    """`hooks` as it may be stored where Module.__call__ looks: a CallHooks, or anything else (then every call
    checks its module's dicts from now on)."""
    if type(hooks) is not CallHooks:
        HOOKED.add(UNWATCHED)
    return hooks
