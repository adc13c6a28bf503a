"""`torch.xpu` as torch's CPU build answers it: no Intel GPU. Programs ask `torch.xpu.is_available()` while
choosing a device (pytorch/examples' mnist_forward_forward); seeding and freeing are no-ops, as there."""

NO_XPU = "Torch not compiled with XPU enabled"


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def _no_xpu(*args, **kwargs):
    raise AssertionError(NO_XPU)


current_device = get_device_name = get_device_properties = set_device = synchronize = init = _no_xpu
get_rng_state = set_rng_state = _no_xpu


def manual_seed(seed):
    """Seeds nothing: there is no XPU generator."""


def manual_seed_all(seed):
    """Seeds nothing: there is no XPU generator."""


def seed():
    """Seeds nothing: there is no XPU generator."""


def empty_cache():
    """Nothing to free."""


def memory_allocated(device=None):
    return 0
