"""`ferrograd.amp` (`torch.amp`): `autocast` and `GradScaler`.

`GradScaler("cpu")` scales, unscales and skips steps with inf/NaN gradients as torch's does; the CUDA one
disables itself with torch's warning. `autocast` blocks set and report torch's autocast state, but ferrograd
does not compute in bfloat16/float16 inside them yet: a CPU region runs in float32 (with a one-time warning).
"""

from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]
