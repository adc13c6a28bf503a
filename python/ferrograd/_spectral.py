"""`torch.stft` and `torch.istft` (and their Tensor methods), composed as torch composes them: frames are an
`unfold` view of the (padded) signal, windowed and transformed by `fft.rfft`/`fft.fft`; the inverse transforms
each frame back, windows it again and overlap-adds with `F.fold`, divided by the overlap-added squared window.
Every step is a differentiable op with its own rule, so both differentiate (and twice) with no rule of their own,
as in torch, whose gradients also come from the composing ops."""

import builtins

from . import _core, _utils
from ._core import Tensor

_NO_WINDOW = (
    "A window was not provided. A rectangular window will be applied,which is known to cause spectral leakage. "
    "Other windows such as torch.hann_window or torch.hamming_window are recommended to reduce spectral leakage."
    "To suppress this warning and use a rectangular window, explicitly set `window=torch.ones(n_fft, "
    "device=<device>)`."
)
_NO_WINDOW_INVERSE = (
    "A window was not provided. A rectangular window will be applied.Please provide the same window used by stft "
    "to make the inversion lossless.To suppress this warning and use a rectangular window, explicitly set "
    "`window=torch.ones(n_fft, device=<device>)`."
)
_REAL_OUTPUT = (
    "stft with return_complex=False is deprecated. In a future pytorch release, stft will return complex tensors "
    "for all inputs, and return_complex=False will raise an error.\nNote: you can still call torch.view_as_real "
    "on the complex output to recover the old return format."
)
_NEEDS_RETURN_COMPLEX = (
    "stft requires the return_complex parameter be given for real inputs, and will further require that "
    "return_complex=True in a future PyTorch release."
)
_ONESIDED_COMPLEX = "Cannot have onesided output if window or input is complex"
# below this the overlap-added window cannot be divided by (torch's bound)
_ENVELOPE_FLOOR = 1e-11


def _check_ints(name, **values):
    # torch's argument parser: sizes are ints (or None where optional)
    for key, value in values.items():
        if value is not None and (isinstance(value, builtins.bool) or not isinstance(value, builtins.int)):
            raise TypeError(f"{name}(): argument '{key}' must be int, not {type(value).__name__}")


def _legacy(t):
    return f"torch.{t.dtype._legacy_name}"


def _sizes(t):
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def _window_text(window):
    return "None" if window is None else f"{_legacy(window)}{{{_sizes(window)}}}"


def _flag(value):
    return "None" if value is None else str(builtins.int(value))


def _padded_window(window, win_length, n_fft, dtype):
    """The window centred in n_fft zeros (a rectangle of ones when not given)."""
    if window is None:
        window = _core.ones(win_length, dtype=dtype)
    if win_length == n_fft:
        return window
    left = (n_fft - win_length) // 2
    return _pad(window, [left, n_fft - win_length - left], 0)


def _pad(input, pad, value):
    from .nn import functional as F

    return F.pad(input, pad, "constant", value)


def _fft(name):
    from . import fft

    return getattr(fft, name)


@_utils.tensor_arguments
def stft(
    input: Tensor,
    n_fft: builtins.int,
    hop_length=None,
    win_length=None,
    window=None,
    center: builtins.bool = True,
    pad_mode: str = "reflect",
    normalized: builtins.bool = False,
    onesided=None,
    return_complex=None,
    align_to_window=None,
) -> Tensor:
    """The short-time Fourier transform: the spectra of windowed frames of `input`, (freq, frames) per signal."""
    _check_ints("stft", n_fft=n_fft, hop_length=hop_length, win_length=win_length)
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        from .nn import functional as F

        dims = input.dim()
        pad = n_fft // 2
        extended = input.view([1] * (3 - dims) + list(input.shape))
        input = F.pad(extended, [pad, pad], pad_mode)
        input = input.view(input.shape[builtins.len(input.shape) - dims :])
    hop_length = n_fft >> 2 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if window is None:
        _utils.warn_once_at_caller(_NO_WINDOW)
    complex_in = input.is_complex() or (window is not None and window.is_complex())
    if return_complex is None:
        if not complex_in:
            raise RuntimeError(_NEEDS_RETURN_COMPLEX)
        return_complex = True
    elif not return_complex:
        _utils.warn_once_at_caller(_REAL_OUTPUT)
    _check_stft(input, n_fft, hop_length, win_length, window, normalized, onesided, return_complex, align_to_window)
    onesided = not complex_in if onesided is None else onesided
    if onesided and complex_in:
        raise RuntimeError(_ONESIDED_COMPLEX)
    signal = input if input.dim() == 2 else input.unsqueeze(0)
    padded = _padded_window(window, win_length, n_fft, input.dtype)
    if align_to_window and win_length < n_fft:
        # frames placed so that their windows, not their starts, step by hop_length from the first sample
        left = (n_fft - win_length) // 2
        signal = _pad(signal, [left, n_fft - win_length - left], 0)
    frames = signal.unfold(-1, n_fft, hop_length) * padded
    spectrum = _fft("rfft" if onesided else "fft")(frames, dim=-1, norm="ortho" if normalized else "backward")
    spectrum = spectrum.transpose(1, 2)
    if input.dim() == 1:
        spectrum = spectrum.squeeze(0)
    return spectrum if return_complex else _core.view_as_real(spectrum)


def _check_stft(input, n_fft, hop_length, win_length, window, normalized, onesided, return_complex, align):
    def fail(message, kind=RuntimeError):
        raise kind(
            f"stft({_legacy(input)}{_sizes(input)}, n_fft={n_fft}, hop_length={hop_length}, win_length={win_length}, "
            f"window={_window_text(window)}, normalized={builtins.int(normalized)}, onesided={_flag(onesided)}, "
            f"return_complex={_flag(return_complex)}, align_to_window={_flag(align)}) : {message}"
        )

    if not (input.is_floating_point() or input.is_complex()):
        fail("expected a tensor of floating point or complex values", NotImplementedError)
    if input.dim() not in (1, 2):
        fail("expected a 1D or 2D tensor")
    length = input.shape[-1]
    if n_fft <= 0 or n_fft > length:
        fail(f"expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop_length <= 0:
        fail(f"expected hop_length > 0, but got hop_length={hop_length}")
    if win_length <= 0 or win_length > n_fft:
        fail(f"expected 0 < win_length <= n_fft, but got win_length={win_length}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win_length):
        fail(
            f"expected a 1D window tensor of size equal to win_length={win_length}, but got window with size "
            f"{_sizes(window)}"
        )


@_utils.tensor_arguments
def istft(
    input: Tensor,
    n_fft: builtins.int,
    hop_length=None,
    win_length=None,
    window=None,
    center: builtins.bool = True,
    normalized: builtins.bool = False,
    onesided=None,
    length=None,
    return_complex: builtins.bool = False,
) -> Tensor:
    """The inverse of `stft`: each frame's spectrum transformed back, windowed and overlap-added, divided by the
    overlap-added squared window."""
    _check_ints("istft", n_fft=n_fft, hop_length=hop_length, win_length=win_length, length=length)
    if not isinstance(input, Tensor) or not input.is_complex():
        raise TypeError(
            "istft requires a complex-valued input tensor matching the output from stft with return_complex=True."
        )
    hop_length = n_fft >> 2 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if window is None:
        _utils.warn_once_at_caller(_NO_WINDOW_INVERSE)
    fail = _istft_failure(input, n_fft, hop_length, win_length, window, center, normalized, onesided, length,
                          return_complex)  # fmt: skip
    fft_size = input.shape[-2] if input.dim() >= 2 else 0
    onesided = fft_size != n_fft if onesided is None else onesided
    _check_istft(input, n_fft, hop_length, win_length, window, onesided, fail)
    if onesided and (return_complex or (window is not None and window.is_complex())):
        raise RuntimeError(_ONESIDED_COMPLEX)
    spectra = (input if input.dim() == 3 else input.unsqueeze(0)).transpose(1, 2)  # (signal, frames, freq)
    norm = "ortho" if normalized else "backward"
    frames = (
        _fft("irfft")(spectra, n=n_fft, dim=-1, norm=norm) if onesided else _fft("ifft")(spectra, dim=-1, norm=norm)
    )
    if not return_complex and frames.is_complex():
        frames = frames.real
    padded = _padded_window(window, win_length, n_fft, frames.real.dtype if frames.is_complex() else frames.dtype)
    n_frames = spectra.shape[1]
    total = n_fft + hop_length * (n_frames - 1)
    signal = _overlap_add(frames * padded, total, n_fft, hop_length)
    envelope = _overlap_add((padded * padded).expand(1, n_frames, n_fft), total, n_fft, hop_length)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (total - n_fft // 2 if center else total)
    signal = signal[:, start:end]
    envelope = envelope[:, start:end]
    lowest = envelope.abs().min().item() if envelope.numel() else 0.0
    if lowest < _ENVELOPE_FLOOR:
        fail(f"window overlap add min: {lowest:g}", separator="")
    signal = signal / envelope
    if length is not None and signal.shape[-1] < length:
        signal = _pad(signal, [0, length - signal.shape[-1]], 0)
    return signal.squeeze(0) if input.dim() == 2 else signal


def _overlap_add(frames, total, n_fft, hop_length):
    """(signal, frames, n_fft) frames summed at their offsets into (signal, total) signals (`F.fold`, real and
    imaginary parts apart when complex)."""
    from .nn import functional as F

    def fold(real):
        columns = real.transpose(1, 2)
        return F.fold(columns, (1, total), (1, n_fft), stride=(1, hop_length)).reshape(real.shape[0], total)

    if frames.is_complex():
        return _core.complex(fold(frames.real), fold(frames.imag))
    return fold(frames)


def _istft_failure(input, n_fft, hop_length, win_length, window, center, normalized, onesided, length, complex_out):
    kind = "ComplexDouble" if input.dtype == _core.complex128 else "ComplexFloat"

    def fail(message, separator=" : "):
        raise RuntimeError(
            f"istft(CPU{kind}Type{_sizes(input)}, n_fft={n_fft}, hop_length={hop_length}, win_length={win_length}, "
            f"window={_window_text(window)}, center={builtins.int(center)}, normalized={builtins.int(normalized)}, "
            f"onesided={_flag(onesided)}, length={'None' if length is None else length}, "
            f"return_complex={builtins.int(complex_out)}){separator}{message}"
        )

    return fail


def _check_istft(input, n_fft, hop_length, win_length, window, onesided, fail):
    if input.numel() == 0:
        fail("input tensor cannot be empty.")
    if input.dim() + 1 not in (3, 4):
        fail(f"expected a tensor with 3 or 4 dimensions, but got {input.dim() + 1}")
    fft_size = input.shape[-2]
    if onesided and n_fft // 2 + 1 != fft_size:
        fail(
            "expected the frequency dimension (3rd to the last) of the input tensor to match n_fft / 2 + 1 when "
            f"onesided=True, but got {fft_size}"
        )
    if not onesided and n_fft != fft_size:
        fail(
            "expected the frequency dimension (3rd to the last) of the input tensor to match n_fft when "
            f"onesided=False, but got {fft_size}"
        )
    if not 0 < hop_length <= win_length:
        fail("expected 0 < hop_length <= win_length")
    if not 0 < win_length <= n_fft:
        fail("expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win_length):
        fail("Invalid window shape. window has to be 1D and length of `win_length`")


def _stft_method(
    self,
    n_fft,
    hop_length=None,
    win_length=None,
    window=None,
    center=True,
    pad_mode="reflect",
    normalized=False,
    onesided=None,
    return_complex=None,
    align_to_window=None,
):
    return stft(
        self, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided, return_complex,
        align_to_window,
    )  # fmt: skip


def _istft_method(
    self,
    n_fft,
    hop_length=None,
    win_length=None,
    window=None,
    center=True,
    normalized=False,
    onesided=None,
    length=None,
    return_complex=False,
):
    return istft(self, n_fft, hop_length, win_length, window, center, normalized, onesided, length, return_complex)


TENSOR_ATTRIBUTES: dict[str, object] = {"stft": _stft_method, "istft": _istft_method}
