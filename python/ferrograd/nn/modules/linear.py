"""`Identity`, `Linear` and `Bilinear`, initialised as PyTorch's (from ferrograd's default generator)."""

import math

from ... import _core, _device
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear"]


class Identity(Module):
    """Returns its input; takes (and ignores) any constructor arguments."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x Aᵀ + b. The weight (out_features, in_features) is kaiming_uniform_(a=√5), i.e.
    U(±1/√in_features), and so is the bias."""

    __constants__ = ["in_features", "out_features"]

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        _device.check_optional(device)
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(_core.zeros(out_features, in_features, dtype=dtype))
        if bias:
            self.bias = Parameter(_core.zeros(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        params = self._parameters
        try:
            # the registered parameters straight from their dict: `self.weight` would go through
            # Module.__getattr__ (~0.5 us each, a third of a batch-1 call)
            weight, bias = params["weight"], params["bias"]
        except KeyError:  # replaced by a plain attribute or a property: the normal lookup
            weight, bias = self.weight, self.bias
        return _core._linear(input, weight, bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Bilinear(Module):
    """y = x1ᵀ A x2 + b with A (out_features, in1_features, in2_features); A and b U(±1/√in1_features)."""

    __constants__ = ["in1_features", "in2_features", "out_features"]

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        _device.check_optional(device)
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(_core.zeros(out_features, in1_features, in2_features, dtype=dtype))
        if bias:
            self.bias = Parameter(_core.zeros(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features={self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear under another name (torch's class for MultiheadAttention's out_proj, as it prints and pickles)."""
