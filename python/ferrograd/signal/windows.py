"""`torch.signal.windows`: scipy-style window functions of length `M`, symmetric by default (`sym=False`
gives the periodic window used for spectra), each the formula over a `linspace` as torch evaluates it (so
values agree to rounding in float32 and float64)."""

import math
from collections.abc import Iterable

import ferrograd as _fg

__all__ = [
    "bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming", "hamming",
    "hann", "kaiser", "nuttall",
]  # fmt: skip

_NUTTALL = [0.3635819, 0.4891775, 0.1365995, 0.0106411]


def _checked(name, M, dtype, layout):
    dtype = _fg.get_default_dtype() if dtype is None else dtype
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not None and layout is not _fg.strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (_fg.float32, _fg.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _trivial(M, dtype, device, requires_grad, one=True):
    """The windows of length 0 (empty) and, where `one`, 1 (a single 1), else None."""
    if M == 0:
        return _fg.empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    if M == 1 and one:
        return _fg.ones((1,), dtype=dtype, device=device, requires_grad=requires_grad)
    return None


def _points(start, end, M, dtype, device, requires_grad):
    return _fg.linspace(start, end, M, dtype=dtype, device=device, requires_grad=requires_grad)


def _span(M, sym):
    """The denominator that spreads a window over its length: M - 1 points apart when symmetric, M when
    periodic (the window of M + 1 points without its last)."""
    return M - 1 if sym else M


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=_fg.strided, device=None, requires_grad=False):
    """``exp(-|n - center| / tau)``."""
    dtype = _checked("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    empty = _trivial(M, dtype, device, requires_grad, one=False)
    if empty is not None:
        return empty
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    scale = 1 / tau
    k = _points(-center * scale, (-center + (M - 1)) * scale, M, dtype, device, requires_grad)
    return _fg.exp(-_fg.abs(k))


def cosine(M, *, sym=True, dtype=None, layout=_fg.strided, device=None, requires_grad=False):
    """``sin(pi (n + 1/2) / M)``: a half period of a sine."""
    dtype = _checked("cosine", M, dtype, layout)
    empty = _trivial(M, dtype, device, requires_grad, one=False)
    if empty is not None:
        return empty
    scale = math.pi / (M + 1 if not sym and M > 1 else M)
    return _fg.sin(_points(0.5 * scale, (0.5 + (M - 1)) * scale, M, dtype, device, requires_grad))


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=_fg.strided, device=None, requires_grad=False):
    """``exp(-((n - (M-1)/2) / std)^2 / 2)``."""
    dtype = _checked("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    empty = _trivial(M, dtype, device, requires_grad, one=False)
    if empty is not None:
        return empty
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    scale = 1 / (std * math.sqrt(2))
    k = _points(start * scale, (start + (M - 1)) * scale, M, dtype, device, requires_grad)
    return _fg.exp(-(k**2))


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=_fg.strided, device=None, requires_grad=False):
    """``I0(beta sqrt(1 - (2n/(M-1) - 1)^2)) / I0(beta)``."""
    dtype = _checked("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    trivial = _trivial(M, dtype, device, requires_grad)
    if trivial is not None:
        return trivial
    # beta in the window's dtype, as torch casts it (no NaN under the square root at the ends)
    b = _fg.tensor(beta, dtype=dtype)
    step = 2.0 * b / _span(M, sym)
    end = _fg.minimum(b, -b + (M - 1) * step)
    k = _points(-b.item(), end.item(), M, dtype, device, requires_grad)
    return _fg.i0(_fg.sqrt(b * b - k.pow(2))) / _fg.i0(b)


def bartlett(M, *, sym=True, dtype=None, layout=_fg.strided, device=None, requires_grad=False):
    """The triangle ``1 - |2n/(M-1) - 1|``."""
    dtype = _checked("bartlett", M, dtype, layout)
    trivial = _trivial(M, dtype, device, requires_grad)
    if trivial is not None:
        return trivial
    step = 2 / _span(M, sym)
    return 1 - _fg.abs(_points(-1, -1 + (M - 1) * step, M, dtype, device, requires_grad))


def general_cosine(M, *, a, sym=True, dtype=None, layout=_fg.strided, device=None, requires_grad=False):
    """``sum_i (-1)^i a_i cos(2 pi i n / (M-1))``."""
    dtype = _checked("general_cosine", M, dtype, layout)
    trivial = _trivial(M, dtype, device, requires_grad)
    if trivial is not None:
        return trivial
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    step = 2 * math.pi / _span(M, sym)
    k = _points(0, (M - 1) * step, M, dtype, device, requires_grad)
    signed = _fg.tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=dtype, requires_grad=requires_grad)
    order = _fg.arange(signed.shape[0], dtype=signed.dtype)
    return (signed.unsqueeze(-1) * _fg.cos(order.unsqueeze(-1) * k)).sum(0)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=_fg.strided, device=None, requires_grad=False):
    """``alpha - (1 - alpha) cos(2 pi n / (M-1))``."""
    return general_cosine(
        M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad
    )


def hamming(M, *, sym=True, dtype=None, layout=_fg.strided, device=None, requires_grad=False):
    """`general_hamming` with alpha 0.54."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=_fg.strided, device=None, requires_grad=False):
    """`general_hamming` with alpha 0.5."""
    return general_hamming(
        M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad
    )


def blackman(M, *, sym=True, dtype=None, layout=_fg.strided, device=None, requires_grad=False):
    """`general_cosine` with (0.42, 0.5, 0.08)."""
    dtype = _checked("blackman", M, dtype, layout)
    return general_cosine(
        M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad
    )


def nuttall(M, *, sym=True, dtype=None, layout=_fg.strided, device=None, requires_grad=False):
    """`general_cosine` with Nuttall's four coefficients (minimum 4-term Blackman-Harris)."""
    return general_cosine(
        M, a=_NUTTALL, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad
    )
