"""Handles for hooks kept in dicts (module hooks), as `torch.utils.hooks.RemovableHandle`, and the
machinery of a module's full backward hooks (`BackwardHook`)."""

import itertools
import warnings
import weakref
from collections import OrderedDict

from .._core import Tensor, is_grad_enabled
from ..autograd.function import Function

__all__ = ["RemovableHandle", "BackwardHook"]

_ids = itertools.count()


class RemovableHandle:
    """Removes the hook with this handle's `id` from its dict (and from the `extra_dict`s that flag it).

    The handle holds the dicts weakly, so it keeps no module alive; it works as a context manager too.
    """

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(_ids)
        extras = [] if extra_dict is None else [extra_dict] if isinstance(extra_dict, dict) else extra_dict
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras)

    def remove(self):
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None:
                d.pop(self.id, None)

    def __getstate__(self):
        return self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref)

    def __setstate__(self, state):
        hooks_dict, self.id = state[0], state[1]
        # a dict that is gone by now: a handle to nothing
        self.hooks_dict_ref = weakref.ref(hooks_dict if hooks_dict is not None else OrderedDict())
        self.extra_dict_ref = tuple(weakref.ref(d) for d in (state[2] if len(state) > 2 else ()) if d is not None)
        global _ids
        _ids = itertools.count(max(next(_ids), self.id + 1))

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.remove()


class BackwardHookFunction(Function):
    """Identity on the module's input (or output) tensors: its one backward node (BackwardHookFunctionBackward,
    as in PyTorch) is where the module's full backward hooks watch the gradients go by."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


class BackwardHook:
    """A module's full backward (pre-)hooks for one call: the inputs and outputs go through identity nodes;
    the output node's hook records grad_output (running the pre-hooks), the input node's hook then calls the
    full hooks with (grad_input, grad_output)."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = -1
        self.input_tensors_index = self.output_tensors_index = None
        self.output_differentiable = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        res = [None] * size
        for i, v in zip(indices, values):
            res[i] = v
        return tuple(res)

    @staticmethod
    def _apply_on_tensors(register, args):
        """Routes the tensors among `args` through one identity node and lets `register` hook it; returns the
        new args, the positions of the tensors and which of them require grad (None: nothing to hook)."""
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in index]
        differentiable = [t.requires_grad for t in tensors]
        if not (is_grad_enabled() and any(differentiable)):
            return args, None, None
        new = BackwardHookFunction.apply(*tensors)
        register(next(t.grad_fn for t in new if t.grad_fn is not None))
        out = list(args)
        for i, t in zip(index, new):
            out[i] = t
        return (tuple(out) if type(args) is tuple else type(args)(*out)), index, differentiable

    def setup_input_hook(self, args):
        def register(grad_fn):
            grad_fn.register_hook(self._input_hook)

        res, self.input_tensors_index, _ = self._apply_on_tensors(register, args)
        self.n_inputs = len(args)
        return res

    def _input_hook(self, grad_inputs, _grad_outputs):
        if self.grad_outputs is None:
            return None
        res = self._pack_with_none(self.input_tensors_index, grad_inputs, self.n_inputs)
        for hook in self.user_hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError(
                    f"Backward hook returned an invalid number of grad_input, got {len(out)}, but expected {len(res)}"
                )
            res = out
        self.grad_outputs = None
        return tuple(res[i] for i in self.input_tensors_index)

    def setup_output_hook(self, result):
        def register(grad_fn):
            grad_fn.register_hook(self._output_hook)

        single = not isinstance(result, tuple)
        args = (result,) if single else result
        res, self.output_tensors_index, self.output_differentiable = self._apply_on_tensors(register, args)
        self.n_outputs = len(args)
        return res[0] if single else res

    def _output_hook(self, grad_inputs, grad_outputs):
        # the node only sees the outputs that require grad; the others' gradients are None
        grads = iter(grad_outputs)
        per_tensor = [next(grads) if d else None for d in self.output_differentiable]
        self.grad_outputs = self._pack_with_none(self.output_tensors_index, per_tensor, self.n_outputs)
        for hook in self.user_pre_hooks:
            new = hook(self.module, self.grad_outputs)
            if new is None:
                continue
            if len(new) != len(self.grad_outputs):
                raise RuntimeError(
                    f"Backward pre hook returned an invalid number of grad_output, got {len(new)}, but expected "
                    f"{len(self.grad_outputs)}"
                )
            self.grad_outputs = new
        local = self.grad_outputs
        if self.input_tensors_index is None:
            # no input requires grad: the input node never runs, so the full hooks run here
            if self.user_hooks:
                warnings.warn(
                    "Full backward hook is firing when gradients are computed with respect to module outputs since "
                    "no inputs require gradients. See "
                    "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module."
                    "register_full_backward_hook for more details.",
                    stacklevel=2,
                )
                grad_inputs_none = (None,) * self.n_inputs
                for hook in self.user_hooks:
                    res = hook(self.module, grad_inputs_none, self.grad_outputs)
                    if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                        raise RuntimeError(
                            "Backward hook for Modules where no input requires gradient should always return None or "
                            "None for all gradients."
                        )
            self.grad_outputs = None
        return tuple(local[i] for i in self.output_tensors_index)
