"""`torch.cuda.amp`: the deprecated CUDA spellings of `torch.amp` (each warns, then disables itself: no CUDA)."""

from ..amp import _deprecated

autocast = _deprecated.autocast_class("cuda", None)
GradScaler = _deprecated.grad_scaler_class("cuda")
custom_fwd = _deprecated.cuda_custom_fwd
custom_bwd = _deprecated.cuda_custom_bwd

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd"]
