"""`torch.backends`: no CUDA, cuDNN or MPS backend (the settings programs write to them are kept and unused)."""

import types


def _backend(name, **settings):
    module = types.ModuleType(f"{__name__}.{name}")
    module.is_available = lambda: False
    module.is_built = lambda: False
    module.__dict__.update(settings)
    return module


cuda = _backend("cuda")
cudnn = _backend("cudnn", enabled=True, deterministic=False, benchmark=False, allow_tf32=True)
mps = _backend("mps")

__all__ = ["cuda", "cudnn", "mps"]
