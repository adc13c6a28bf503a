"""`Optimizer`: param groups, per-parameter state, state dicts, and the one-call fused step.

The bookkeeping is PyTorch's: the same group dicts, state keys, state_dict layout and error messages.
The update of ferrograd's own optimizers is in `_fused.py`.
"""

import warnings
from collections import OrderedDict, defaultdict
from itertools import chain

from .. import _zero_grad
from .._core import Tensor, float32
from .._type import typename as _typename

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """A default that a param group must give itself."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class _StepHandle:
    """Removes a step hook (`torch.utils.hooks.RemovableHandle` for optimizer hooks)."""

    _next_id = 0

    def __init__(self, hooks):
        self._hooks = hooks
        self.id = _StepHandle._next_id
        _StepHandle._next_id += 1

    def remove(self):
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _copy_group_values(value):
    """A copy of a saved param group's values (numbers, tuples, lists, tensors), as `deepcopy` would."""
    if isinstance(value, Tensor):
        return value.clone()
    if isinstance(value, dict):
        return {k: _copy_group_values(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_copy_group_values(v) for v in value)
    return value


class Optimizer:
    """Base class of the optimizers: holds `defaults`, `param_groups` and `state`; a subclass defines
    `step()` (ferrograd's own optimizers derive from `_fused.FusedOptimizer`, whose step is one Rust call)."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
                + _typename(params)
            )
        if isinstance(params, set):
            warnings.warn(
                "optimizer parameters need to be organized in ordered collections, but the ordering of tensors "
                "in sets will change between runs. Please use a list instead. This will be an error in a future "
                "release.",
                FutureWarning,
                stacklevel=2,
            )
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__.setdefault("_optimizer_step_pre_hooks", OrderedDict())
        self.__dict__.setdefault("_optimizer_step_post_hooks", OrderedDict())
        self.defaults.setdefault("differentiable", False)

    def __repr__(self):
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    # ---- param groups ----

    def add_param_group(self, param_group):
        """Adds a group of parameters (a dict with "params" and any per-group options)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering of tensors "
                "in sets will change between runs. Please use a list instead."
            )
        else:
            params = list(params)
        tensors, names = [], []
        for p in params:
            if isinstance(p, tuple):
                names.append(p[0])
                tensors.append(p[1])
            else:
                tensors.append(p)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        for p in tensors:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(p))
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if len(tensors) != len(set(tensors)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this will cause an "
                "error; see github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )
        seen = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {which} to the optimizer"
                )
        if not seen.isdisjoint(tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ---- gradients and the step ----

    def zero_grad(self, set_to_none=True):
        """Resets the gradients: to None (the default), or to zeros in place."""
        if not _zero_grad.captured(self, self._all_params(), set_to_none):
            self._zero_grad(set_to_none)

    def _all_params(self):
        """Every group's parameters in order, lazily (an eager `zero_grad` never lists them)."""
        return chain.from_iterable(group["params"] for group in self.param_groups)

    def _zero_grad_to_none(self):
        self._zero_grad(True)

    def _zero_grad_to_zeros(self):
        self._zero_grad(False)

    def _zero_grad(self, set_to_none):
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if grad.grad_fn is not None:
                        grad = grad.detach()
                        p.grad = grad
                    else:
                        grad.requires_grad_(False)
                    grad.zero_()

    def step(self, closure=None):
        """Performs one update of every parameter that has a gradient; returns the closure's loss."""
        raise NotImplementedError

    def _run_step_pre_hooks(self, args, kwargs):
        """Runs the step pre-hooks in order; a hook may return `(new_args, new_kwargs)` for the step."""
        for hook in list(self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(
                        f"{type(self).__name__}.step must return None or a tuple of (new_args, new_kwargs), "
                        f"but got {result}."
                    )
                args, kwargs = result
        return args, kwargs

    def register_step_pre_hook(self, hook):
        """`hook(optimizer, args, kwargs)` before each step; returns a handle with `remove()`."""
        handle = _StepHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook):
        """`hook(optimizer, args, kwargs)` after each step; returns a handle with `remove()`."""
        handle = _StepHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    # ---- state dicts ----

    def state_dict(self):
        """`{'state': {index: {...}}, 'param_groups': [{..., 'params': [indices]}]}`, parameters numbered in
        order across the groups. The state tensors are the optimizer's own (not copies), as in PyTorch."""
        index = {}
        start = 0
        param_groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                index.setdefault(id(p), i)
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(packed["params"])
            param_groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": param_groups}

    def load_state_dict(self, state_dict):
        """Loads a `state_dict()`: options per group, state per parameter (cast to the parameter's dtype,
        except `step`)."""
        groups = self.param_groups
        saved_groups = [_copy_group_values(g) for g in state_dict["param_groups"]]
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
            )
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
            )
        )
        # `step` stays as saved, except in fused or capturable groups, where PyTorch keeps it float32
        fused_ids = {
            i
            for g in state_dict["param_groups"]
            if g.get("fused", False) or g.get("capturable", False)
            for i in g["params"]
        }

        def cast(param, value, param_id, key=None):
            if isinstance(value, Tensor):
                if key == "step":
                    return value.to(dtype=float32) if param_id in fused_ids else value
                return value.to(dtype=param.dtype) if param.is_floating_point() else value
            if isinstance(value, dict):
                return {k: cast(param, v, param_id, k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v, param_id) for v in value)
            return value

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = cast(id_map[k], v, k)
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})
