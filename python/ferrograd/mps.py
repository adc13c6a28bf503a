"""`torch.mps` as torch answers it off a Mac: no Metal backend, so what needs one raises its RuntimeError
(`manual_seed` alone does nothing, as there)."""


def is_available():
    return False


def device_count():
    return 0


def _without_mps(what):
    def refuse(*args, **kwargs):
        raise RuntimeError(f"Cannot execute {what}() without MPS backend.")

    return refuse


synchronize = _without_mps("deviceSynchronize")
empty_cache = _without_mps("emptyCache")
seed = get_rng_state = set_rng_state = _without_mps("getDefaultGenerator")


def manual_seed(seed):
    """Seeds nothing: there is no MPS generator."""
