"""`FusedOptimizer`: the base of ferrograd's optimizers, whose `step()` is one Rust call.

`step()` gathers, for every param group, the parameters that have a gradient, their gradients and their
state tensors, and hands them all to its Rust update rule (`_core.OptimRule`) at once: the GIL is released and
every parameter and state tensor is rewritten in its own memory (see rust/core/src/optim). The state is
PyTorch's: the same keys, made on a parameter's first step, `step` a 0-dim float32 tensor.

`foreach=`, `fused=` and `capturable=` are accepted for compatibility and change nothing: ferrograd always
takes its fused path. `differentiable=True` (autograd through the step) is not supported.
"""

from .. import _core, zeros_like
from .._core import Tensor, float32
from ..grad_mode import enable_grad, no_grad
from .optimizer import Optimizer


def _default_scalar_dtype():
    """The dtype of 0-dim state such as `step`: float32 (ferrograd's default dtype)."""
    return float32


class FusedOptimizer(Optimizer):
    """An optimizer whose update is a Rust rule (`_rule`, a `_core.OptimRule`).

    The rule declares the state it keeps: the keys of its per-element buffers for a group's options
    (`_rule.buffer_names(group)`, in the kernel's order) and its 0-dim counters with their first values
    (`_rule.counters`). A subclass adds the options an old saved state may lack (`_group_defaults`, filled
    in on load).
    """

    _rule: _core.OptimRule
    _group_defaults: dict[str, object] = {}

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for key, value in self._group_defaults.items():
                group.setdefault(key, value)
        _steps_as_tensors(self, extra=[name for name, _ in self._rule.counters[1:]])

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns `closure()`'s loss if one is given."""
        return self._step(closure)

    def _step(self, closure):
        """`step()` of the fused optimizers: hooks, the closure under grad mode, then one Rust call."""
        args, kwargs = (self,) if closure is None else (self, closure), {}
        args, kwargs = self._run_step_pre_hooks(args, kwargs)
        closure = args[1] if len(args) > 1 else kwargs.get("closure")
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            if _core._is_capturing():
                self._capture_update()
            else:
                self._update()
        for hook in list(self._optimizer_step_post_hooks.values()):
            hook(self, args, kwargs)
        return loss

    def _capture_update(self):
        """The update inside a compiled step: a node that calls `_replay_update` again at each replay, reading the
        groups' options then (a scheduler's new `lr` needs no new capture). Hooks run in Python, which a replay
        does not repeat: a step with hooks is not captured."""
        if self._optimizer_step_pre_hooks or self._optimizer_step_post_hooks:
            _core._capture_unsupported("an optimizer step hook")
        _core._capture_effect("optimizer.step", list(self._all_params()), self, "_replay_update")

    def _replay_update(self):
        with no_grad():
            self._update()

    def _update(self):
        rows = []
        for group in self.param_groups:
            names = self._rule.buffer_names(group)
            counter_names = [name for name, _ in self._rule.counters]
            stateful = bool(names or counter_names)  # (plain SGD leaves `state` empty)
            params, grads, buffers, counters, fresh = [], [], [], [], []
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                params.append(p)
                grads.append(grad)
                if stateful:
                    state = self.state[p]
                    fresh.append(self._init_state(p, group, state))
                    buffers.append([state[k] for k in names])
                    counters.append([state[k] for k in counter_names])
                else:
                    fresh.append(False)
                    buffers.append([])
                    counters.append([])
            if params:
                rows.append((group, params, grads, buffers, counters, fresh))
        if rows:
            self._rule.step(rows)

    def _init_state(self, p, group, state):
        """Creates `p`'s state on its first step (in PyTorch's key order); returns whether it did."""
        if len(state) != 0:
            return False
        state["step"] = _zero_step(group)
        for name, first in self._rule.counters[1:]:
            state[name] = _core.tensor(first, dtype=_default_scalar_dtype())
        for name in self._rule.buffer_names(group):
            state[name] = self._initial_buffer(p, name, group)
        return True

    def _initial_buffer(self, p, name, group):
        return zeros_like(p)


def _check_fused_flags(fused, foreach, differentiable):
    """PyTorch's checks on `fused=`/`foreach=`/`differentiable=`; ferrograd's step is always fused."""
    if differentiable:
        raise NotImplementedError(
            "differentiable=True is not supported: ferrograd's optimizers update parameters in place without "
            "recording a graph"
        )
    if fused and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def _check_lr_tensor(lr):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")


_INVALID = {"lr": "Invalid learning rate: {}", "eps": "Invalid epsilon value: {}"}


def _check_options(**options):
    """PyTorch's constructor checks, in the order given: a one-element `lr`, non-negative values ("Invalid
    learning rate: -1.0", "Invalid weight_decay value: -1", ...), betas in [0, 1)."""
    for name, value in options.items():
        if name == "betas":
            for i in (0, 1):
                if not 0.0 <= value[i] < 1.0:
                    raise ValueError(f"Invalid beta parameter at index {i}: {value[i]}")
            continue
        if name == "lr":
            _check_lr_tensor(value)
        if not 0.0 <= value:
            raise ValueError(_INVALID.get(name, f"Invalid {name} value: {{}}").format(value))


def _zero_step(group=None):
    """A fresh `step` counter: float32 with `fused=True` (as PyTorch's fused path keeps it), else the default
    scalar dtype."""
    dtype = float32 if group is not None and group.get("fused") else _default_scalar_dtype()
    return _core.tensor(0.0, dtype=dtype)


def _steps_as_tensors(optimizer, extra=()):
    """`__setstate__` of PyTorch's optimizers: a `step` (and `extra` counters) saved as numbers become
    0-dim tensors."""
    for group in optimizer.param_groups:
        for p in group["params"]:
            p_state = optimizer.state.get(p, [])
            if len(p_state) == 0:
                continue
            for key in ("step", *extra):
                if key in p_state and not isinstance(p_state[key], Tensor):
                    dtype = float32 if group.get("fused") and key == "step" else _default_scalar_dtype()
                    p_state[key] = _core.tensor(float(p_state[key]), dtype=dtype)
