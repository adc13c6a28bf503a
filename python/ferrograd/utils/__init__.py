"""`ferrograd.utils`: helpers beside the tensor library (`hooks`: handles for module hooks; `data`: datasets,
samplers and the DataLoader; `dlpack`: DLPack capsules)."""

import copyreg
import weakref

from .. import _lazy_submodules
from . import hooks

__all__ = ["data", "dlpack", "hooks", "swap_tensors"]


def swap_tensors(t1, t2):
    """Swaps what `t1` and `t2` are (values, shape, dtype, history, gradient, class and attributes), each keeping
    its identity: torch's checks, then the tensors' records exchanged in the core. A plain tensor has no
    `__dict__` here, unlike torch's, so it can swap with another plain tensor but not with a subclass instance."""
    for t, name in ((t1, "t1"), (t2, "t2")):
        own = t._own_weakrefs()  # a leaf's registry entry is ferrograd's, not the user's
        if any(all(ref is not o for o in own) for ref in weakref.getweakrefs(t)):
            raise RuntimeError(f"Cannot swap {name} because it has weakref associated with it")
    t1_slots = set(copyreg._slotnames(t1.__class__))  # type: ignore[attr-defined]
    t2_slots = set(copyreg._slotnames(t2.__class__))  # type: ignore[attr-defined]
    if t1_slots != t2_slots:
        raise RuntimeError("Cannot swap t1 and t2 if they have different slots")
    for t, name in ((t1, "t1"), (t2, "t2")):
        use_count = t._use_count()
        if use_count > 1:
            raise RuntimeError(
                f"Expected use_count of {name} to be 1 or 2 with an AccumulateGrad node but got {use_count} "
                "make sure you are not holding references to the tensor in other places."
            )
    has_dict = hasattr(t1, "__dict__"), hasattr(t2, "__dict__")
    if type(t1) is not type(t2) and has_dict[0] != has_dict[1]:
        raise RuntimeError(
            f"swap_tensors: ferrograd cannot swap a {type(t1).__name__} with a {type(t2).__name__} (a plain tensor "
            "has no __dict__ here)"
        )
    t1._swap_tensor_impl(t2)  # first: it refuses views, before anything Python-side changed
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    if has_dict[0]:
        t1.__dict__, t2.__dict__ = t2.__dict__, t1.__dict__
    for slot in t1_slots:
        held = hasattr(t1, slot), hasattr(t2, slot)
        if held == (True, True):
            a, b = getattr(t1, slot), getattr(t2, slot)
            setattr(t1, slot, b)
            setattr(t2, slot, a)
        elif held[0]:
            setattr(t2, slot, getattr(t1, slot))
            delattr(t1, slot)
        elif held[1]:
            setattr(t1, slot, getattr(t2, slot))
            delattr(t2, slot)


# `data` (with its worker machinery: most of `import ferrograd` otherwise) loads on first use
_lazy_submodules.install(globals(), {"data", "dlpack"})
TYPE_CHECKING = False  # True for type checkers only, which see the plain import
if TYPE_CHECKING:
    from . import data, dlpack
