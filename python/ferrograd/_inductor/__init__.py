"""`torch._inductor`: what programs reach of torch.compile's code generator. ferrograd's compile runs captured
graphs on its own kernels and writes no code, so it has no inductor; `utils.fresh_inductor_cache` and
`config` are here for the programs that use them around `torch.compile` (pytorch/tutorials'
regional_compilation recipe times cold compiles inside `fresh_inductor_cache()`)."""

from . import config, utils

__all__ = ["config", "utils"]
