"""User-defined differentiable functions: `class F(Function)` with static `forward` and `backward`.

`F.apply(*args)` runs `forward` without recording, then gives its outputs one backward node (named
`FBackward`) whose rule calls `F.backward` with the output gradients.
"""

import functools

from .. import _core
from .._core import Tensor, is_grad_enabled
from .._tensor_helpers import _zeros_like
from ..grad_mode import no_grad
from . import forward_ad

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx:
    """The `ctx` passed to `forward` and `backward`."""

    def __init__(self):
        self.to_save = ()
        self.dirty_tensors = ()
        self.non_differentiable = ()
        self.materialize_grads = True
        self.needs_input_grad = ()
        self._saved = None

    def save_for_backward(self, *tensors):
        self.to_save = tensors

    @property
    def saved_tensors(self):
        if self._saved is None:
            # before backward (or outside it) the saved tensors are the ones given
            return tuple(self.to_save)
        return self._saved

    def mark_dirty(self, *tensors):
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors):
        self.non_differentiable = tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


class Function:
    """Base class of custom autograd functions."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function to use it with "
            "backward mode AD."
        )

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with forward mode AD."
        )

    @classmethod
    def _apply_forward_ad(cls, args, kwargs, tangents):
        """Forward AD through the function: its outputs become dual tensors carrying `jvp`'s result."""
        if cls.jvp is Function.jvp:
            Function.jvp(None)
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        with no_grad():
            out = cls.forward(ctx, *args, **kwargs)
            grad_inputs = [
                t if t is not None or not isinstance(a, Tensor) else _zeros_like(a) for a, t in zip(args, tangents)
            ]
            tangent_out = cls.jvp(ctx, *grad_inputs)
        single = isinstance(out, Tensor)
        outs = (out,) if single else tuple(out)
        tans = (tangent_out,) if single else tuple(tangent_out)
        duals = [
            forward_ad.make_dual(o.detach(), t) if isinstance(o, Tensor) and isinstance(t, Tensor) else o
            for o, t in zip(outs, tans)
        ]
        return duals[0] if single else tuple(duals)

    @classmethod
    def apply(cls, *args, **kwargs):
        if forward_ad._jvp_bodies[0] and any(isinstance(a, Tensor) and a.requires_grad for a in args):
            raise RuntimeError(
                "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, ...), it "
                "must override the setup_context staticmethod. For more details, please see "
                "https://pytorch.org/docs/main/notes/extending.func.html"
            )
        if forward_ad._active():
            tangents = [forward_ad.unpack_dual(a).tangent if isinstance(a, Tensor) else None for a in args]
            if any(t is not None for t in tangents):
                return cls._apply_forward_ad(args, kwargs, tangents)
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        with no_grad():
            out = cls.forward(ctx, *args, **kwargs)
        tensor_inputs = [a for a in args if isinstance(a, Tensor)]
        if not (is_grad_enabled() and any(t.requires_grad for t in tensor_inputs)):
            return out
        single = isinstance(out, Tensor)
        outs = (out,) if single else tuple(out)
        non_diff = {id(t) for t in ctx.non_differentiable}
        diff_pos = [i for i, o in enumerate(outs) if isinstance(o, Tensor) and id(o) not in non_diff]
        # an output that is an input (or marked dirty) is returned as a new record sharing its memory
        dirty = {id(t) for t in ctx.dirty_tensors}
        fresh = [outs[i] if id(outs[i]) in dirty else outs[i].detach() for i in diff_pos]
        input_pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        # shape/dtype of every tensor output (non-differentiable ones too: their gradient is zeros)
        shapes = [(o.shape, o.dtype) if isinstance(o, Tensor) else None for o in outs]
        # torch's save_for_backward takes None too: the node keeps the tensors, their places keep the Nones
        n_saved = len(ctx.to_save)
        saved_nones = frozenset(i for i, t in enumerate(ctx.to_save) if t is None)
        saved = tuple(t for t in ctx.to_save if t is not None)
        ctx.to_save = ()  # the node keeps them (version-checked); ctx must not, or it would form a cycle
        # The closure below is owned by the backward node, so it must not capture `outs` or `args`:
        # the outputs own the node (a cycle Python's gc cannot see through Rust), and the inputs
        # would be kept alive by the graph.
        n_outs, n_args = len(outs), len(args)

        def run_backward(grads, saved_tensors):
            if saved_nones:
                kept = iter(saved_tensors)
                saved_tensors = tuple(None if i in saved_nones else next(kept) for i in range(n_saved))
            ctx._saved = saved_tensors
            try:
                full = [None] * n_outs
                for pos, g in zip(diff_pos, grads):
                    full[pos] = g
                if ctx.materialize_grads:
                    full = [
                        g if g is not None or sd is None else _core.zeros(*sd[0], dtype=sd[1])
                        for g, sd in zip(full, shapes)
                    ]
                result = cls.backward(ctx, *full)
            finally:
                ctx._saved = None
            result = result if isinstance(result, tuple) else (result,)
            if len(result) < n_args:
                raise RuntimeError(
                    f"function {cls.__name__}Backward returned an incorrect number of gradients (expected {n_args}, "
                    f"got {len(result)})"
                )
            return tuple(result[i] for i in input_pos)

        attached = _core._attach_custom(fresh, tensor_inputs, run_backward, f"{cls.__name__}Backward", saved)
        outs = list(outs)
        for pos, t in zip(diff_pos, attached):
            outs[pos] = t
        return outs[0] if single else tuple(outs)


def once_differentiable(fn):
    """Marks a backward as not differentiable itself: it runs with grad mode off."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            return fn(ctx, *args)

    return wrapper
