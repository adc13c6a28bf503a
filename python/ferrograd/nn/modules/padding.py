"""Padding layers over `F.pad`: zero, constant, reflection, replication and circular, for 1 to 3 dims.

The class tree is torch's (`ZeroPad2d` is a `ConstantPad2d`), so are the reprs and the checks: the circular
layers check the input's rank themselves (ValueError), the others leave every check to `F.pad`.
"""

from .. import functional as F
from .module import Module
from .utils import _ntuple

__all__ = [
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
]

_pads = {1: _ntuple(2, "_pair"), 2: _ntuple(4, "_quadruple"), 3: _ntuple(6)}


class _CircularPadNd(Module):
    """Circular padding; `padding` is an int (every side) or a tuple. The layer checks the input's rank."""

    __constants__ = ["padding"]
    _dims = 0

    def _check_input_dim(self, input):
        dims = (self._dims + 1, self._dims + 2)  # the class's, whatever the padding's length
        if input.dim() not in dims:
            raise ValueError(f"expected {dims[0]}D or {dims[1]}D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        return F.pad(input, self.padding, "circular")

    def extra_repr(self) -> str:
        return f"{self.padding}"


class CircularPad1d(_CircularPadNd):
    """Pads the last dim of a (C, W) or (N, C, W) input circularly: (left, right), or an int for both."""

    _dims = 1

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pads[1](padding)


class CircularPad2d(_CircularPadNd):
    """Pads the last 2 dims circularly: (left, right, top, bottom), or an int for all four."""

    _dims = 2

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pads[2](padding)


class CircularPad3d(_CircularPadNd):
    """Pads the last 3 dims circularly: (left, right, top, bottom, front, back), or an int for all six."""

    _dims = 3

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pads[3](padding)


class _ReflectionPadNd(Module):
    """Padding of mode "reflect"; `padding` is an int (every side) or a tuple."""

    __constants__ = ["padding"]

    def forward(self, input):
        return F.pad(input, self.padding, "reflect")

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_ReflectionPadNd):
    """Pads the last dim with its reflection (the edge not repeated): (left, right), or an int for both."""

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pads[1](padding)


class ReflectionPad2d(_ReflectionPadNd):
    """Pads the last 2 dims with their reflection: (left, right, top, bottom), or an int for all four."""

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pads[2](padding)


class ReflectionPad3d(_ReflectionPadNd):
    """Pads the last 3 dims with their reflection: (left, right, top, bottom, front, back), or an int."""

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pads[3](padding)


class _ReplicationPadNd(Module):
    """Padding of mode "replicate"; `padding` is an int (every side) or a tuple."""

    __constants__ = ["padding"]

    def forward(self, input):
        return F.pad(input, self.padding, "replicate")

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReplicationPad1d(_ReplicationPadNd):
    """Pads the last dim by repeating its edge values: (left, right), or an int for both."""

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pads[1](padding)


class ReplicationPad2d(_ReplicationPadNd):
    """Pads the last 2 dims by repeating their edges: (left, right, top, bottom), or an int for all four."""

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pads[2](padding)


class ReplicationPad3d(_ReplicationPadNd):
    """Pads the last 3 dims by repeating their edges: (left, right, top, bottom, front, back), or an int."""

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pads[3](padding)


class _ConstantPadNd(Module):
    """Pads with `value`; `padding` is an int (every side) or a tuple."""

    __constants__ = ["padding", "value"]

    def __init__(self, value) -> None:
        super().__init__()
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with `value`: (left, right), or an int for both."""

    def __init__(self, padding, value) -> None:
        super().__init__(value)
        self.padding = _pads[1](padding)


class ConstantPad2d(_ConstantPadNd):
    """Pads the last 2 dims with `value`: (left, right, top, bottom), or an int for all four."""

    def __init__(self, padding, value) -> None:
        super().__init__(value)
        self.padding = _pads[2](padding)


class ConstantPad3d(_ConstantPadNd):
    """Pads the last 3 dims with `value`: (left, right, top, bottom, front, back), or an int for all six."""

    def __init__(self, padding, value) -> None:
        super().__init__(value)
        self.padding = _pads[3](padding)


class ZeroPad1d(ConstantPad1d):
    """Pads the last dim with zeros: (left, right), or an int for both."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pads the last 2 dims with zeros: (left, right, top, bottom), or an int for all four."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pads the last 3 dims with zeros: (left, right, top, bottom, front, back), or an int for all six."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"
