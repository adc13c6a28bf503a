"""`torch.fft` over the core's three transforms (torch's primitives, rustfft): `Tensor._fft_c2c` (complex to
complex), `_fft_r2c` (a real signal's forward transform, its non-negative frequencies along the last dim when
one-sided) and `_fft_c2r` (the real inverse of a Hermitian half-spectrum), each over a list of dims and recorded
as torch's FftC2CBackward0/FftR2CBackward0/FftC2RBackward0. This facade composes them as torch does: inputs
promoted (integers through the default float dtype, the halves refused as torch's CPU), `n`/`s` pad with zeros or
trim, `norm` picks the scale, the inverse real transforms and the Hermitian ones conjugate; and the frequencies
and shifts."""

import builtins
import math

from . import _core
from ._core import Tensor

__all__ = [
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "hfft2",
    "hfftn",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "ihfft2",
    "ihfftn",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]

_NORMS = (None, "backward", "ortho", "forward")


def _promoted(input: Tensor, require_complex: builtins.bool = False) -> Tensor:
    """`input` as torch transforms it: complex and float32/float64 as they are (complex when `require_complex`:
    zero imaginary parts), integers and bools through the default float dtype; the halves refused as torch's
    CPU does."""
    if input.is_complex():
        return input
    if input.dtype in (_core.float16, _core.bfloat16):
        raise NotImplementedError(f"Unsupported dtype {input.dtype._scalar_type_name}")
    if not input.is_floating_point():
        input = input.to(_core.get_default_dtype())
    if require_complex:
        return input.to(_core.complex128 if input.dtype == _core.float64 else _core.complex64)
    return input


def _scale(norm, n: builtins.int, forward: builtins.bool) -> builtins.float:
    if norm not in _NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    if norm == "ortho":
        return 1 / math.sqrt(n)
    divides = norm == "forward" if forward else norm in (None, "backward")
    return 1 / n if divides else 1.0


def _resized(x: Tensor, dims, sizes) -> Tensor:
    """`x` trimmed to `sizes` along `dims`, or padded there with zeros."""
    for dim, n in zip(dims, sizes):
        size = x.shape[dim]
        if n < size:
            x = x.narrow(dim, 0, n)
        elif n > size:
            pad_shape = list(x.shape)
            pad_shape[dim] = n - size
            x = _core.cat([x, _core.zeros(pad_shape, dtype=x.dtype)], dim)
    return x


def _wrap_dim(x: Tensor, d: builtins.int) -> builtins.int:
    if x.ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if not -x.ndim <= d < x.ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-x.ndim}, {x.ndim - 1}], but got {d})")
    return d % x.ndim


def _dims_and_sizes(x: Tensor, s, dim):
    """torch's `s`/`dim` rules: both given pair up; `s` alone names the last len(s) dims; `dim` alone keeps their
    sizes; neither is every dim; an `s` of -1 keeps that dim's size."""
    if dim is not None:
        dims = [_wrap_dim(x, d) for d in ([dim] if isinstance(dim, builtins.int) else dim)]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        s = [s] if isinstance(s, builtins.int) else list(s)
        if dim is not None and len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > x.ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {x.ndim} dimensions.")
        if dim is None:
            dims = list(range(x.ndim - len(s), x.ndim))
        sizes = [x.shape[d] if n == -1 else n for d, n in zip(dims, s)]
    elif dim is None:
        dims, sizes = list(range(x.ndim)), list(x.shape)
    else:
        sizes = [x.shape[d] for d in dims]
    for n in sizes:
        if n < 1:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return dims, sizes


def _one_dim(x: Tensor, n, dim):
    """A one-dim transform's `n` and `dim` as `_dims_and_sizes`' (no -1 "keep the size" here)."""
    d = _wrap_dim(x, dim)
    n = x.shape[d] if n is None else n
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return [d], [n]


def _c2c(input: Tensor, dims, sizes, norm, forward: builtins.bool) -> Tensor:
    if not dims:
        # nothing to transform (`dim=()`, a 0-dim tensor): torch returns the (complex) input's values
        return input.clone()
    x = _resized(input, dims, sizes)
    return x._fft_c2c(dims, forward, _scale(norm, math.prod(sizes), forward))


def _r2c(name, input: Tensor, n, dim, norm, forward: builtins.bool, onesided: builtins.bool) -> Tensor:
    """A one-dim transform of a real signal (torch's `_fft_r2c`; the inverse ones are its conjugate)."""
    if input.is_complex():
        raise TypeError(f"{name} expects a real input tensor, but got {input.dtype._scalar_type_name}")
    x = _promoted(input)
    dims, sizes = _one_dim(x, n, dim)
    out = _resized(x, dims, sizes)._fft_r2c(dims, _scale(norm, sizes[0], forward), onesided)
    return out if forward else out.conj()


def _c2r(input: Tensor, n, dim, norm, forward: builtins.bool) -> Tensor:
    """A one-dim real transform of a Hermitian half-spectrum (torch's `_fft_c2r`; `hfft` conjugates first)."""
    x = _promoted(input, require_complex=True)
    d = _wrap_dim(x, dim)
    last = 2 * (x.shape[d] - 1) if n is None else n
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    x = _resized(x, [d], [last // 2 + 1])
    if forward:
        x = x.conj()
    return x._fft_c2r([d], _scale(norm, last, forward), last)


def fft(input: Tensor, n=None, dim: builtins.int = -1, norm=None) -> Tensor:
    """The one-dimensional discrete Fourier transform along `dim` (`n` points)."""
    if input.is_complex():
        dims, sizes = _one_dim(input, n, dim)
        return _c2c(input, dims, sizes, norm, True)
    return _r2c("fft", input, n, dim, norm, True, False)


def ifft(input: Tensor, n=None, dim: builtins.int = -1, norm=None) -> Tensor:
    """The one-dimensional inverse discrete Fourier transform along `dim` (`n` points)."""
    if input.is_complex():
        dims, sizes = _one_dim(input, n, dim)
        return _c2c(input, dims, sizes, norm, False)
    return _r2c("ifft", input, n, dim, norm, False, False)


def rfft(input: Tensor, n=None, dim: builtins.int = -1, norm=None) -> Tensor:
    """The transform of a real signal: its `n // 2 + 1` non-negative frequencies (the others are their
    conjugates)."""
    return _r2c("rfft", input, n, dim, norm, True, True)


def irfft(input: Tensor, n=None, dim: builtins.int = -1, norm=None) -> Tensor:
    """The inverse of `rfft`: the real signal of `n` points (2 * (m - 1) for m frequencies) whose non-negative
    frequencies are `input`, the others their conjugates (the imaginary parts of the zero and Nyquist terms are
    dropped, as torch's)."""
    return _c2r(input, n, dim, norm, False)


def hfft(input: Tensor, n=None, dim: builtins.int = -1, norm=None) -> Tensor:
    """The transform of a Hermitian-symmetric signal given by its first half: a real spectrum of `n` points
    (2 * (m - 1) for m given)."""
    return _c2r(input, n, dim, norm, True)


def ihfft(input: Tensor, n=None, dim: builtins.int = -1, norm=None) -> Tensor:
    """The inverse of `hfft`: the first `n // 2 + 1` points of the Hermitian signal whose transform is the real
    `input`."""
    return _r2c("ihfft", input, n, dim, norm, False, True)


def fftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    """The N-dimensional discrete Fourier transform over `dim` (every dim by default)."""
    x = _promoted(input, require_complex=True)
    dims, sizes = _dims_and_sizes(x, s, dim)
    return _c2c(x, dims, sizes, norm, True)


def ifftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    """The N-dimensional inverse discrete Fourier transform over `dim` (every dim by default)."""
    x = _promoted(input, require_complex=True)
    dims, sizes = _dims_and_sizes(x, s, dim)
    return _c2c(x, dims, sizes, norm, False)


def fft2(input: Tensor, s=None, dim=(-2, -1), norm=None) -> Tensor:
    """The two-dimensional discrete Fourier transform over the last two dims."""
    return fftn(input, s, dim, norm)


def ifft2(input: Tensor, s=None, dim=(-2, -1), norm=None) -> Tensor:
    """The two-dimensional inverse discrete Fourier transform over the last two dims."""
    return ifftn(input, s, dim, norm)


def _real_dims_and_sizes(name, input: Tensor, s, dim):
    if input.is_complex():
        dtype = input.dtype._scalar_type_name
        if name == "ihfftn":
            raise TypeError(f"Only supports floating-point dtypes, but found: {dtype}")
        raise TypeError(f"{name} expects a real-valued input tensor, but got {dtype}")
    x = _promoted(input)
    dims, sizes = _dims_and_sizes(x, s, dim)
    if not dims:
        raise RuntimeError(f"{name} must transform at least one axis")
    return _resized(x, dims, sizes), dims, sizes


def rfftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    """The N-dimensional transform of a real signal: the last dim's `n // 2 + 1` non-negative frequencies."""
    x, dims, sizes = _real_dims_and_sizes("rfftn", input, s, dim)
    return x._fft_r2c(dims, _scale(norm, math.prod(sizes), True), True)


def rfft2(input: Tensor, s=None, dim=(-2, -1), norm=None) -> Tensor:
    """`rfftn` over the last two dims."""
    return rfftn(input, s, dim, norm)


def ihfftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    """The inverse of `hfftn`: the N-dimensional inverse transform of a real signal, the last dim's first
    `n // 2 + 1` points."""
    x, dims, sizes = _real_dims_and_sizes("ihfftn", input, s, dim)
    if len(dims) == 1:
        return x._fft_r2c(dims, _scale(norm, sizes[0], False), True).conj()
    half = x._fft_r2c(dims[-1:], 1.0, True).conj_physical()
    return half._fft_c2c(dims[:-1], False, _scale(norm, math.prod(sizes), False))


def ihfft2(input: Tensor, s=None, dim=(-2, -1), norm=None) -> Tensor:
    """`ihfftn` over the last two dims."""
    return ihfftn(input, s, dim, norm)


def _half_spectrum(name, input: Tensor, s, dim):
    """The Hermitian transforms' input (complex, resized: the last dim to `last // 2 + 1`), dims and output
    length `last` along the last dim."""
    x = _promoted(input, require_complex=True)
    dims, sizes = _dims_and_sizes(x, s, dim)
    if not dims:
        raise RuntimeError(f"{name} must transform at least one axis")
    last = 2 * (x.shape[dims[-1]] - 1) if s is None or list(s)[-1] == -1 else sizes[-1]
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    sizes[-1] = last // 2 + 1
    return _resized(x, dims, sizes), dims, sizes, last


def irfftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    """The inverse of `rfftn`: the real signal (the last dim `s[-1]` points, 2 * (m - 1) by default) whose
    non-negative frequencies along the last dim are `input`."""
    x, dims, sizes, last = _half_spectrum("irfftn", input, s, dim)
    return x._fft_c2r(dims, _scale(norm, math.prod(sizes[:-1]) * last, False), last)


def irfft2(input: Tensor, s=None, dim=(-2, -1), norm=None) -> Tensor:
    """`irfftn` over the last two dims."""
    return irfftn(input, s, dim, norm)


def hfftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    """The N-dimensional transform of a Hermitian-symmetric signal given by the first half of its last dim: a
    real spectrum."""
    x, dims, sizes, last = _half_spectrum("hfftn", input, s, dim)
    if len(dims) > 1:
        x = x._fft_c2c(dims[:-1], True, _scale(norm, math.prod(sizes[:-1]), True))
    return x.conj()._fft_c2r(dims[-1:], _scale(norm, last, True), last)


def hfft2(input: Tensor, s=None, dim=(-2, -1), norm=None) -> Tensor:
    """`hfftn` over the last two dims."""
    return hfftn(input, s, dim, norm)


def _shift(input: Tensor, dim, inverse: builtins.bool) -> Tensor:
    if dim is None:
        dims = list(range(input.ndim))
    else:
        dims = [dim] if isinstance(dim, builtins.int) else list(dim)
    shifts = [(input.shape[_wrap_dim(input, d)] + builtins.int(inverse)) // 2 for d in dims]
    return input.roll(shifts, dims)


def fftshift(input: Tensor, dim=None) -> Tensor:
    """The zero frequency moved to the middle of `dim` (every dim by default): a roll by half of each size."""
    return _shift(input, dim, False)


def ifftshift(input: Tensor, dim=None) -> Tensor:
    """The inverse of `fftshift`."""
    return _shift(input, dim, True)


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
