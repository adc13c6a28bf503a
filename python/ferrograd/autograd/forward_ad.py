"""`ferrograd.autograd.forward_ad`: dual tensors over the reverse-mode engine.

ferrograd propagates no tangents during the forward pass. `make_dual(primal, tangent)` returns a tensor with the
primal's values that records a graph (a new leaf requiring grad, or a view of a primal that is such a leaf), and
remembers its tangent for the current level. `unpack_dual(y)` computes y's tangent from the recorded graph when
asked: the sum over the level's duals d of J(y, d)·tangent(d), by the double-vjp trick (uᵀJ is linear in a dummy u;
its vjp with the tangent is J·v). The values are torch's. What differs: a dual reports `requires_grad=True` (torch's
does not unless its primal does), and reverse-mode gradients taken through a dual reach its primal only when that is
a leaf (a parameter, say), stopping at the dual otherwise; and code run under `no_grad` records no graph, so its
outputs have no tangent. A custom `Function` with a `jvp` gives its outputs new duals carrying what its `jvp`
returned.
"""

from typing import NamedTuple

from .._core import Tensor
from .._tensor_helpers import _empty_like, _zeros_like
from ..grad_mode import enable_grad
from .gradients import grad as _engine_grad

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "dual_level"]

_current_level = -1
# How many forward-mode transform bodies (`func.jvp`, `jacfwd`, `hessian`) are running. Their double-vjp would
# silently miss what a custom Function's backward does not differentiate, so such a Function refuses to run
# there, with the error torch gives for a Function without `setup_context` under any transform.
_jvp_bodies = [0]
_duals: dict = {}  # level -> list of (dual, primal, tangent)


def enter_dual_level():
    """Enters a new forward grad level (only one may exist at a time) and returns it."""
    global _current_level
    if _current_level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _current_level += 1
    _duals[_current_level] = []
    return _current_level


def exit_dual_level(*, level=None):
    """Exits the latest level: the tangents of its dual tensors are forgotten."""
    global _current_level
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != _current_level:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. This is not supported."
        )
    _duals.pop(level, None)
    _current_level = level - 1


def _size(t):
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def make_dual(tensor, tangent, *, level=None):
    """A tensor with `tensor`'s values whose tangent (forward gradient) at `level` is `tangent` (used as is when
    its layout is the primal's, else copied into the primal's layout)."""
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to enter_dual_level() first."
        )
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if tuple(tensor.shape) != tuple(tangent.shape):
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original Tensor, this is "
            f"not supported. Tensor is of size {_size(tensor)} while the given forward gradient is of size "
            f"{_size(tangent)}."
        )
    if level not in _duals:
        raise RuntimeError("Dual level must be a positive number.")
    if tangent.stride() != tensor.stride() or tangent.dtype != tensor.dtype:
        tangent = _empty_like(tensor).copy_(tangent)
    # a leaf that requires grad (a parameter) keeps its place in the graph: backward through the dual reaches it.
    # Anything else starts a new leaf, so that no dual's graph runs through another's (J·v would count twice).
    dual = tensor.view_as(tensor) if tensor.requires_grad and tensor.is_leaf else tensor.detach().requires_grad_(True)
    _duals[level].append((dual, tensor, tangent))
    return dual


class UnpackedDualTensor(NamedTuple):
    """What `unpack_dual` returns: the primal and its tangent (None when it has none)."""

    primal: Tensor
    tangent: Tensor | None


def _tangent(tensor, entries):
    """Σ_d J(tensor, d)·tangent(d) over the level's duals, or None when `tensor` depends on none of them."""
    if not (tensor.requires_grad and (tensor.is_floating_point() or tensor.is_complex())):
        return None
    with enable_grad():
        dummy = _zeros_like(tensor).requires_grad_(True)
        duals = [d for d, _, _ in entries]
        vjps = _engine_grad([tensor], duals, [dummy], retain_graph=True, create_graph=True, allow_unused=True)
        used = [(g, t) for g, (_, _, t) in zip(vjps, entries) if g is not None]
        if not used:
            return None
        live = [(g, t) for g, t in used if g.requires_grad]
        if not live:
            return _zeros_like(tensor)
        (jv,) = _engine_grad([g for g, _ in live], [dummy], [t for _, t in live], retain_graph=True, allow_unused=True)
    return jv.detach() if jv is not None else _zeros_like(tensor)


def unpack_dual(tensor, *, level=None):
    """`UnpackedDualTensor(primal, tangent)`: `tensor`'s values and its tangent at `level` (None outside a level,
    or for a tensor that does not depend on any dual tensor of the level)."""
    if level is None:
        level = _current_level
    if level < 0 or level not in _duals or not isinstance(tensor, Tensor):
        return UnpackedDualTensor(tensor, None)
    entries = _duals[level]
    for dual, primal, tangent in entries:
        if dual is tensor:
            return UnpackedDualTensor(primal.view_as(primal), tangent)
    return UnpackedDualTensor(tensor, _tangent(tensor, entries))


class dual_level:
    """Context manager (and decorator) for forward AD: enters a level on entry, exits it (forgetting the tangents)
    on exit. Only one level may be active."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, exc_type, exc_value, traceback):
        exit_dual_level()

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with dual_level():
                return func(*args, **kwargs)

        return wrapper


def _active():
    return _current_level >= 0 and bool(_duals.get(_current_level))
