"""`torch.cuda` as torch's CPU build answers it: no CUDA. Seeding is a no-op (programs seed every device).
`torch.cuda.amp` (loaded on first use) holds the deprecated CUDA autocast and GradScaler, disabled."""

from .. import _lazy_submodules
from .._device import NO_CUDA


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def _no_cuda(*args, **kwargs):
    raise AssertionError(NO_CUDA)


current_device = get_device_name = get_device_properties = set_device = synchronize = init = _no_cuda
reset_peak_memory_stats = reset_max_memory_allocated = mem_get_info = _no_cuda


def memory_allocated(device=None):
    """Bytes held by tensors on the GPU: none (torch answers 0 before CUDA is initialised)."""
    return 0


max_memory_allocated = memory_reserved = max_memory_reserved = memory_allocated


def memory_stats(device=None):
    """The caching allocator's statistics: empty, as torch's before CUDA is initialised."""
    import collections

    return collections.OrderedDict()


def manual_seed(seed):
    """Seeds nothing: there is no CUDA generator (torch's CPU build does the same)."""


def manual_seed_all(seed):
    """Seeds nothing: there is no CUDA generator (torch's CPU build does the same)."""


def empty_cache():
    """Nothing to free."""


def is_bf16_supported(including_emulation=True):
    return False


_lazy_submodules.install(globals(), {"amp"})
