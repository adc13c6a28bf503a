"""`torch.signal`: window functions (`signal.windows`)."""

from . import windows

__all__ = ["windows"]
