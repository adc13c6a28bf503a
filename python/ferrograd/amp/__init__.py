"""`ferrograd.amp` (`torch.amp`): `autocast` and `GradScaler`.

`GradScaler("cpu")` scales, unscales and skips steps with inf/NaN gradients as torch's does; the CUDA one
disables itself with torch's warning. A CPU `autocast` block runs torch's lower-precision ops in bfloat16 (or
float16) and its float32 ops in float32, following torch's CPU op lists.
"""

from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]
