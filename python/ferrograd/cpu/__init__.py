"""`torch.cpu`: the device-agnostic queries for the CPU (one device, always available) and `torch.cpu.amp`."""

from .. import _lazy_submodules

__all__ = ["amp", "current_device", "device_count", "is_available", "synchronize"]


def is_available():
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def synchronize(device=None):
    """Nothing to wait for: CPU kernels have finished when they return."""


_lazy_submodules.install(globals(), {"amp"})
