"""`torch.xpu` as torch's CPU build answers it: no Intel GPU. Programs ask `torch.xpu.is_available()` while
choosing a device (pytorch/examples' mnist_forward_forward); the queries, seeding and freeing answer as
`torch.cuda`'s do here, and what needs a device raises torch's AssertionError."""

from .cuda import (  # the same answers as torch.cuda's here
    device_count,
    empty_cache,
    is_available,
    is_initialized,
    manual_seed,
    manual_seed_all,
    memory_allocated,
)

__all__ = [
    "current_device",
    "device_count",
    "empty_cache",
    "get_device_name",
    "is_available",
    "is_initialized",
    "manual_seed",
    "manual_seed_all",
    "memory_allocated",
    "seed",
    "synchronize",
]

NO_XPU = "Torch not compiled with XPU enabled"


def _no_xpu(*args, **kwargs):
    raise AssertionError(NO_XPU)


current_device = get_device_name = get_device_properties = set_device = synchronize = init = _no_xpu
get_rng_state = set_rng_state = _no_xpu


def seed():
    """Seeds nothing: there is no XPU generator."""
