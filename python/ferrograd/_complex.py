"""The Python faces of complex numbers: torch's function forms (`torch.real`, `torch.conj`, `torch.angle`, ...)
over the Rust methods, and `angle` of real tensors (torch's: pi for negatives, 0 otherwise, NaN kept)."""

import math

from . import _core
from ._core import Tensor

__all__ = ["angle", "conj", "conj_physical", "imag", "is_complex", "is_conj", "real", "resolve_conj"]


def is_complex(input: Tensor) -> bool:
    return input.is_complex()


def is_conj(input: Tensor) -> bool:
    return input.is_conj()


def real(input: Tensor) -> Tensor:
    return input.real


def imag(input: Tensor) -> Tensor:
    return input.imag


def conj(input: Tensor) -> Tensor:
    return input.conj()


def conj_physical(input: Tensor) -> Tensor:
    return input.conj_physical()


def resolve_conj(input: Tensor) -> Tensor:
    return input.resolve_conj()


def angle(input: Tensor) -> Tensor:
    """The argument of each element: `atan2(imag, real)` for complex input; for real input pi where negative,
    else 0 (NaN stays NaN), in the default float dtype for integers."""
    if input.is_complex():
        return input._complex_angle()
    x = input if input.is_floating_point() else input.to(_core.get_default_dtype())
    half_turns = (x < 0).to(x.dtype) * math.pi
    return _core.where(x.isnan(), x, half_turns)


def _angle_method(self: Tensor) -> Tensor:
    return angle(self)


TENSOR_ATTRIBUTES: dict[str, object] = {"angle": _angle_method}
