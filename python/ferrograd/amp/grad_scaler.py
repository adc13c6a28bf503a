"""`torch.amp.GradScaler`: loss scaling for mixed-precision training, with torch's semantics.

`GradScaler("cpu")` is enabled, as in torch: `scale(loss)` multiplies by the scale (65536 to start),
`unscale_(opt)`/`step(opt)` divide the gradients back and skip the optimizer step when one is inf or NaN, and
`update()` halves the scale after such a step or doubles it after `growth_interval` clean ones.
`GradScaler("cuda")` (the default device) warns that CUDA is not available and disables itself, as torch's does:
`scale(x)` returns x, `step(opt)` is `opt.step()`, `update()` does nothing, `get_scale()` is 1.0.
"""

import warnings
from collections import defaultdict
from enum import Enum

from .. import _core
from .._core import Tensor, float16, float32, int32
from ..grad_mode import no_grad

__all__ = ["GradScaler", "OptState"]


class OptState(Enum):
    """Where an optimizer is in the scaler's iteration: gradients as scaled, unscaled, or stepped."""

    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


def _unscale_and_check(grads, found_inf, inv_scale):
    """Multiplies every gradient by `inv_scale` in place; sets `found_inf` to 1 if any holds an inf or NaN
    (torch's `_amp_foreach_non_finite_check_and_unscale_`)."""
    for grad in grads:
        if not grad.isfinite().all():
            found_inf.fill_(1.0)
        grad.mul_(inv_scale)


class GradScaler:
    """Like `torch.amp.GradScaler(device="cuda", init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True)`."""

    def __init__(
        self,
        device="cuda",
        init_scale=2.0**16,
        growth_factor=2.0,
        backoff_factor=0.5,
        growth_interval=2000,
        enabled=True,
    ):
        self._device = device
        self._enabled = enabled
        if self._device == "cuda" and enabled:
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.", stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    # ---- the scale ----

    def _check_scale_growth_tracker(self, funcname):
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self):
        self._scale = _core.full((), self._init_scale, dtype=float32)
        self._growth_tracker = _core.full((), self._init_growth_tracker, dtype=int32)

    def scale(self, outputs):
        """`outputs` (a tensor, or nested lists/tuples/iterables of them) multiplied by the scale."""
        if not self._enabled:
            return outputs
        if self._scale is None and isinstance(outputs, Tensor):
            self._lazy_init_scale_growth_tracker()

        def apply(value):
            if isinstance(value, Tensor):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker()
                return value * self._scale
            if isinstance(value, (list, tuple)):
                return type(value)(apply(v) for v in value)
            if hasattr(value, "__iter__"):
                return map(apply, value)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply(outputs)

    # ---- unscaling and stepping ----

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        by_dtype = defaultdict(list)
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if not isinstance(param, Tensor):
                        raise AssertionError(f"expected param to be torch.Tensor, got {type(param).__name__}")
                    if param.grad is None:
                        continue
                    if not allow_fp16 and param.grad.dtype == float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    by_dtype[param.grad.dtype].append(param.grad)
            for grads in by_dtype.values():
                _unscale_and_check(grads, found_inf, inv_scale)
        return {"cpu": found_inf}

    def unscale_(self, optimizer):
        """Divides `optimizer`'s gradients by the scale (once per iteration, before `step`)."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # the reciprocal in float64, rounded once to float32 (torch's)
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = _core.full((), 0.0, dtype=float32)
        optimizer_state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        optimizer_state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """`optimizer.step(*args, **kwargs)` after unscaling, unless a gradient was inf or NaN (then None)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if optimizer_state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(optimizer_state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        result = None
        if not sum(v.item() for v in optimizer_state["found_inf_per_device"].values()):
            result = optimizer.step(*args, **kwargs)
        optimizer_state["stage"] = OptState.STEPPED
        return result

    def update(self, new_scale=None):
        """Backs the scale off after an iteration with an inf/NaN gradient, grows it after `growth_interval`
        clean ones (or sets it to `new_scale`); starts a new iteration."""
        if not self._enabled:
            return
        scale, growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = (
                    "new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                    "torch.FloatTensor with requires_grad=False."
                )
                if not isinstance(new_scale, Tensor) or new_scale.device.type != self._device:
                    raise AssertionError(reason)
                if new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError(reason)
                scale.copy_(new_scale)
        else:
            found_infs = [
                found_inf
                for state in self._per_optimizer_states.values()
                for found_inf in state["found_inf_per_device"].values()
            ]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            self._update_scale(scale, growth_tracker, sum(f.item() for f in found_infs))
        self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    def _update_scale(self, scale, growth_tracker, found_inf):
        """torch's `_amp_update_scale_`: back off and restart the count after an inf, else count the clean
        iteration and grow the scale (if it stays finite) every `growth_interval` of them."""
        if found_inf:
            scale.mul_(self._backoff_factor)
            growth_tracker.fill_(0)
            return
        successful = growth_tracker.item() + 1
        if successful == self._growth_interval:
            grown = scale * self._growth_factor
            if grown.isfinite().item():
                scale.copy_(grown)
            growth_tracker.fill_(0)
        else:
            growth_tracker.fill_(successful)

    # ---- settings and state ----

    def get_scale(self):
        if self._enabled:
            return self._init_scale if self._scale is None else self._scale.item()
        return 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if self._enabled:
            return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker.item()
        return 0

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        """The scale, factors, interval and count (empty when disabled)."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved from a disabled instance of GradScaler."
            )
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError(
                    "A GradScaler instance may only be pickled at the beginning "
                    "of an iteration, or at the end after scaler.update()."
                )
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
