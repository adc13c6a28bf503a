"""The Python faces of complex numbers: the function forms of the properties (`torch.real`, `torch.imag`), and
`angle` of real tensors (torch's: pi for negatives, 0 otherwise, NaN kept)."""

from . import _core
from ._arg_errors import require_tensor
from ._core import Tensor

# is_complex, is_conj, conj, conj_physical, resolve_conj: generated function forms (`# function form` in _core.pyi)
__all__ = ["angle", "imag", "real"]


def real(input: Tensor) -> Tensor:
    require_tensor(input, "real", "input", 1)
    return input.real


def imag(input: Tensor) -> Tensor:
    require_tensor(input, "imag", "input", 1)
    return input.imag


def angle(input: Tensor) -> Tensor:
    """The argument of each element: `atan2(imag, real)` for complex input; for real input pi where negative,
    else 0 (NaN stays NaN), in the default float dtype for integers."""
    require_tensor(input, "angle", "input", 1)
    x = input if input.is_complex() or input.is_floating_point() else input.to(_core.get_default_dtype())
    return x._angle()


def _angle_method(self: Tensor) -> Tensor:
    return angle(self)


TENSOR_ATTRIBUTES: dict[str, object] = {"angle": _angle_method}
