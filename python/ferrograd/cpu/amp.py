"""`torch.cpu.amp`: the deprecated CPU spellings of `torch.amp.autocast` and `torch.amp.GradScaler`."""

from .. import bfloat16
from ..amp import _deprecated

autocast = _deprecated.autocast_class("cpu", bfloat16)
GradScaler = _deprecated.grad_scaler_class("cpu")

__all__ = ["GradScaler", "autocast"]
