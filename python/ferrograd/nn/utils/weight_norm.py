"""The older `nn.utils.weight_norm` hook: `weight` recomputed as g * v / ||v|| before each forward from the
parameters `weight_g` and `weight_v` (torch recommends `parametrizations.weight_norm` instead)."""

import warnings

from ..._norm_functions import norm_except_dim
from ...grad_mode import no_grad
from ..parameter import Parameter
from ._norm_hooks import remove_norm_hook

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def _weight_norm(v, g, dim=0):
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook: `<name> = _weight_norm(<name>_v, <name>_g, dim)`."""

    name: str
    dim: int

    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        # warned from here, as torch's: the warning names weight_norm's line
        warnings.warn(
            "`torch.nn.utils.weight_norm` is deprecated in favor of `torch.nn.utils.parametrizations.weight_norm`.",
            FutureWarning,
            stacklevel=2,
        )
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Splits `module.<name>` into a magnitude `<name>_g` and a direction `<name>_v` (deprecated in torch)."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Puts back `module.<name>` as one plain parameter."""
    return remove_norm_hook(module, name, WeightNorm, "weight_norm")
