"""`torch.fft`'s complex-to-complex transforms and the sample frequencies, over the core's one-dim transform
(`Tensor._fft_c2c`, rustfft): real inputs become complex (integers in the default float dtype first), `n`/`s`
pad with zeros or trim, `norm` picks the scale; `rfft`/`irfft` are composed on it. Not yet: `rfftn`/`irfftn`, the
Hermitian transforms (`hfft`, ...) and the shifts."""

import builtins
import math

from . import _core
from ._core import Tensor

__all__ = ["fft", "fft2", "fftfreq", "fftn", "ifft", "ifft2", "ifftn", "irfft", "rfft", "rfftfreq"]

_NORMS = (None, "backward", "ortho", "forward")


def _complex_input(input: Tensor) -> Tensor:
    """`input` as the complex tensor torch transforms: complex as it is, float32/float64 with zero imaginary
    parts, integers and bools through the default float dtype; the halves are refused as torch's CPU does."""
    if input.is_complex():
        return input
    if input.dtype in (_core.float16, _core.bfloat16):
        raise NotImplementedError(f"Unsupported dtype {input.dtype._scalar_type_name}")
    if not input.is_floating_point():
        input = input.to(_core.get_default_dtype())
    return input.to(_core.complex128 if input.dtype == _core.float64 else _core.complex64)


def _scale(norm, n: builtins.int, forward: builtins.bool) -> builtins.float:
    if norm not in _NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    if norm == "ortho":
        return 1 / math.sqrt(n)
    divides = norm == "forward" if forward else norm in (None, "backward")
    return 1 / n if divides else 1.0


def _resized(x: Tensor, dim: builtins.int, n: builtins.int) -> Tensor:
    """`x` trimmed to `n` along `dim`, or padded there with zeros."""
    size = x.shape[dim]
    if n < size:
        return x.narrow(dim, 0, n)
    if n > size:
        pad_shape = list(x.shape)
        pad_shape[dim] = n - size
        return _core.cat([x, _core.zeros(pad_shape, dtype=x.dtype)], dim)
    return x


def _dims_and_sizes(x: Tensor, s, dim):
    """torch's `s`/`dim` rules: both given pair up; `s` alone names the last len(s) dims; `dim` alone keeps their
    sizes; neither is every dim."""
    if dim is None:
        dims = list(range(x.ndim - len(s), x.ndim)) if s is not None else list(range(x.ndim))
    else:
        dims = [dim] if isinstance(dim, builtins.int) else list(dim)
        if s is not None and len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
    ndim = builtins.max(x.ndim, 1)
    wrapped = []
    for d in dims:
        if not -ndim <= d < ndim or x.ndim == 0:
            if x.ndim == 0:
                raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
            raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {d})")
        wrapped.append(d % ndim)
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError("FFT dims must be unique")
    sizes = [x.shape[d] for d in wrapped] if s is None else [x.shape[d] if n == -1 else n for d, n in zip(wrapped, s)]
    return wrapped, sizes


def _c2c(input: Tensor, s, dim, norm, forward: builtins.bool) -> Tensor:
    x = _complex_input(input)
    dims, sizes = _dims_and_sizes(x, s, dim)
    for n in sizes:
        if n < 1:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
    for d, n in zip(dims, sizes):
        x = _resized(x, d, n)._fft_c2c(d, forward, _scale(norm, n, forward))
    return x


def _points(n):
    """A one-dim transform's `n` as an `s` (no -1 "keep the size" here)."""
    if n is not None and n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return None if n is None else [n]


def fft(input: Tensor, n=None, dim: builtins.int = -1, norm=None) -> Tensor:
    """The one-dimensional discrete Fourier transform along `dim` (`n` points)."""
    return _c2c(input, _points(n), dim, norm, True)


def ifft(input: Tensor, n=None, dim: builtins.int = -1, norm=None) -> Tensor:
    """The one-dimensional inverse discrete Fourier transform along `dim` (`n` points)."""
    return _c2c(input, _points(n), dim, norm, False)


def rfft(input: Tensor, n=None, dim: builtins.int = -1, norm=None) -> Tensor:
    """The transform of a real signal: its `n // 2 + 1` non-negative frequencies (the others are their conjugates).
    The full transform's first half, so its gradient is torch's (zeros for the other half, inverse transform,
    real part)."""
    if input.is_complex():
        raise TypeError(f"rfft expects a real input tensor, but got {input.dtype._scalar_type_name}")
    full = fft(input, n, dim, norm)
    d = dim % builtins.max(full.ndim, 1)
    size = full.shape[d]
    half = full.narrow(d, 0, size // 2 + 1)
    # a real signal's zero-frequency (and, for an even length, Nyquist) terms are real: exactly, as torch's R2C
    real_bins = [0, size // 2] if size % 2 == 0 else [0]
    mask_shape = [1] * half.ndim
    mask_shape[d] = half.shape[d]
    keep = _core.ones(half.shape[d], dtype=_core.bool)
    for b in real_bins:
        keep[b] = False
    return _core.complex(half.real, _core.where(keep.reshape(mask_shape), half.imag, 0.0))


def irfft(input: Tensor, n=None, dim: builtins.int = -1, norm=None) -> Tensor:
    """The inverse of `rfft`: the real signal of `n` points (2 * (m - 1) for m frequencies) whose non-negative
    frequencies are `input`, the others their conjugates (the imaginary parts of the zero and Nyquist terms are
    dropped, as torch's)."""
    x = _complex_input(input)
    d = _dims_and_sizes(x, None, dim)[0][0]
    n = 2 * (x.shape[d] - 1) if n is None else n
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    half = _resized(x, d, n // 2 + 1)
    # the negative frequencies: the conjugates of bins n - n//2 - 1 .. 1, last first
    mirrored = half.narrow(d, 1, n - n // 2 - 1).conj()
    mirrored = _core.view_as_complex(_core.view_as_real(mirrored).flip(d))
    full = _core.cat([half, mirrored], d)
    return full._fft_c2c(d, False, _scale(norm, n, False)).real.contiguous()


def fftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    """The N-dimensional discrete Fourier transform over `dim` (every dim by default)."""
    return _c2c(input, s, dim, norm, True)


def ifftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    """The N-dimensional inverse discrete Fourier transform over `dim` (every dim by default)."""
    return _c2c(input, s, dim, norm, False)


def fft2(input: Tensor, s=None, dim=(-2, -1), norm=None) -> Tensor:
    """The two-dimensional discrete Fourier transform over the last two dims."""
    return _c2c(input, s, dim, norm, True)


def ifft2(input: Tensor, s=None, dim=(-2, -1), norm=None) -> Tensor:
    """The two-dimensional inverse discrete Fourier transform over the last two dims."""
    return _c2c(input, s, dim, norm, False)


def fftfreq(n: builtins.int, d=1.0, *, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """The sample frequencies of an `n`-point transform: 0, 1, ..., then the negatives, over `d * n`."""
    dtype = dtype or _core.get_default_dtype()
    k = _core.arange(n, dtype=_core.int64)
    k = _core.where(k < (n + 1) // 2, k, k - n)
    return (k.to(dtype) * (1.0 / (d * n))).requires_grad_(requires_grad)


def rfftfreq(n: builtins.int, d=1.0, *, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """The non-negative sample frequencies of an `n`-point real transform (`n // 2 + 1` of them)."""
    dtype = dtype or _core.get_default_dtype()
    k = _core.arange(n // 2 + 1, dtype=dtype)
    return (k * (1.0 / (d * n))).requires_grad_(requires_grad)
