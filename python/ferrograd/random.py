"""`torch.random`: the default generator's seed and state (`manual_seed`, `seed`, `initial_seed`,
`get_rng_state`, `set_rng_state`, also at the top level as torch has them), `fork_rng` (the CPU state saved and
restored around a block: there are no other devices' generators) and `thread_safe_generator`."""

import builtins

from . import _core
from ._core import Generator, default_generator

__all__ = [
    "Generator",
    "default_generator",
    "fork_rng",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "seed",
    "set_rng_state",
    "thread_safe_generator",
]


def manual_seed(seed) -> Generator:
    """Seeds the default generator (after `int(seed)`, as PyTorch) and returns it."""
    return _core.manual_seed(builtins.int(seed))


def initial_seed() -> "builtins.int":
    """The seed of the default generator."""
    return default_generator.initial_seed()


def seed() -> "builtins.int":
    """Seeds the default generator nondeterministically and returns the seed."""
    return default_generator.seed()


def get_rng_state():
    """The default generator's state: PyTorch's 5056-byte uint8 tensor (its mt19937 words, seed, and
    normal caches), which torch's `set_rng_state` accepts too."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """Restores the default generator from `get_rng_state()` (ferrograd's or torch's)."""
    default_generator.set_state(new_state)


def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """A context manager (or decorator) restoring the default generator's state when the block ends (unless
    `enabled` is False). `devices` and `device_type` name other devices' generators, which ferrograd lacks."""
    import contextlib  # loaded when first needed (not at `import ferrograd`)

    @contextlib.contextmanager
    def forked():
        if not enabled or device_type == "meta":
            yield
            return
        state = get_rng_state()
        try:
            yield
        finally:
            set_rng_state(state)

    return forked()


def thread_safe_generator():
    """The generator of the DataLoader thread worker this runs in; None elsewhere (the default generator is used).
    ferrograd's DataLoader workers are processes, so this is None."""
    return None
