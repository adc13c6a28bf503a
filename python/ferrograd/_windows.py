"""torch's window functions (`hann_window`, `hamming_window`, `blackman_window`, `bartlett_window`,
`kaiser_window`), composed of core ops over an `arange` in the window's dtype as ATen composes them: a periodic
window of length N is the symmetric window of length N + 1 without its last point."""

import builtins
import math

from . import _core
from ._arg_errors import type_name
from ._core import Tensor
from ._write_out import _name

__all__ = ["bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window"]

_HAMMING_ALPHA = 0.54
_HAMMING_BETA = 0.46
_BLACKMAN_A0, _BLACKMAN_A1, _BLACKMAN_A2 = 0.42, 0.5, 0.08
_KAISER_BETA = 12.0


def _window_dtype(name, dtype, requires_grad):
    dtype = _core.get_default_dtype() if dtype is None else dtype
    if not isinstance(dtype, _core.dtype):
        raise TypeError(f"{name}(): argument 'dtype' must be torch.dtype, not {type_name(dtype)}")
    if not dtype.is_floating_point:
        kind = _name(dtype, c_name=True)
        flag = "true" if requires_grad else "false (default)"
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype={kind}, device=cpu, layout=Strided "
            f"(default), requires_grad={flag}, pinned_memory=false, memory_format=(nullopt))"
        )
    return dtype


def _check_length(name, window_length):
    if isinstance(window_length, builtins.bool) or not isinstance(window_length, builtins.int):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not {type_name(window_length)}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")


def _window(name, window_length, periodic, dtype, requires_grad, symmetric):
    """`symmetric(n, length)`: the symmetric window of `length` points at positions `n` (an arange)."""
    _check_length(name, window_length)
    dtype = _window_dtype(name, dtype, requires_grad)
    if window_length == 0:
        out = _core.zeros(0, dtype=dtype)
    elif window_length == 1:
        out = _core.ones(1, dtype=dtype)
    else:
        length = window_length + 1 if periodic else window_length
        out = symmetric(_core.arange(length, dtype=dtype), length)
        if periodic:
            out = out.narrow(0, 0, window_length).contiguous()
    return out.requires_grad_() if requires_grad else out


def _cosine_sum(n, length, a0, a1, a2=0.0):
    angle = n * (2 * math.pi / (length - 1))
    out = a0 - a1 * angle.cos()
    return out + a2 * (2 * angle).cos() if a2 else out


def hamming_window(
    window_length: builtins.int,
    periodic: builtins.bool = True,
    alpha: builtins.float = _HAMMING_ALPHA,
    beta: builtins.float = _HAMMING_BETA,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory: builtins.bool = False,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """``alpha - beta * cos(2 pi n / (N - 1))``."""
    return _window(
        "hamming_window",
        window_length,
        periodic,
        dtype,
        requires_grad,
        lambda n, length: _cosine_sum(n, length, alpha, beta),
    )


def hann_window(
    window_length: builtins.int,
    periodic: builtins.bool = True,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory: builtins.bool = False,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """``0.5 - 0.5 * cos(2 pi n / (N - 1))`` (a Hamming window with alpha = beta = 0.5)."""
    return _window(
        "hann_window", window_length, periodic, dtype, requires_grad, lambda n, length: _cosine_sum(n, length, 0.5, 0.5)
    )


def blackman_window(
    window_length: builtins.int,
    periodic: builtins.bool = True,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory: builtins.bool = False,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """``0.42 - 0.5 * cos(2 pi n / (N - 1)) + 0.08 * cos(4 pi n / (N - 1))``."""
    return _window(
        "blackman_window",
        window_length,
        periodic,
        dtype,
        requires_grad,
        lambda n, length: _cosine_sum(n, length, _BLACKMAN_A0, _BLACKMAN_A1, _BLACKMAN_A2),
    )


def bartlett_window(
    window_length: builtins.int,
    periodic: builtins.bool = True,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory: builtins.bool = False,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """The triangle ``1 - |2 n / (N - 1) - 1|``."""

    def triangle(n, length):
        return 1 - (n * (2.0 / (length - 1)) - 1).abs()

    return _window("bartlett_window", window_length, periodic, dtype, requires_grad, triangle)


def kaiser_window(
    window_length: builtins.int,
    periodic: builtins.bool = True,
    beta: builtins.float = _KAISER_BETA,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory: builtins.bool = False,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """``I0(beta * sqrt(1 - ((n - a) / a)^2)) / I0(beta)`` with ``a = (N - 1) / 2``."""

    def kaiser(n, length):
        middle = (length - 1) / 2.0
        inner = 1 - ((n - middle) / middle).square()
        return (beta * inner.clamp_min(0).sqrt()).i0() / _core.tensor(beta, dtype=n.dtype).i0()

    return _window("kaiser_window", window_length, periodic, dtype, requires_grad, kaiser)
