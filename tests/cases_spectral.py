"""Cases for `torch.stft`, `torch.istft` and `torch.signal.windows` recorded from torch
(tests/golden/record_spectral.py) and checked by tests/test_spectral.py: spectra over the options (windows,
hops, centring and its pad modes, normalisation, one-sided or full, complex input, window alignment, batches,
dtype promotion), inverses with and without `length`, the windows at lengths 0 to 8 (symmetric and periodic,
with their parameters), warnings, gradients, and the argument errors with torch's messages."""

import math
import warnings

import ferrograd as fg
from cases_misc_vocab import _warned
from recorded import error


def _signal(n=20, dtype=fg.float64):
    return fg.tensor([math.sin(0.7 * i) + 0.25 * math.cos(2.3 * i) + 0.01 * i for i in range(n)], dtype=dtype)


def _hann(n, dtype=fg.float64):
    return fg.hann_window(n, dtype=dtype)


def _spectra():
    x = _signal()
    batch = fg.stack([x, x.flip(0) * 0.5])
    w = _hann(8)
    complex_signal = fg.complex(x, x.flip(0))
    return {
        "hann": fg.stft(x, 8, window=w, return_complex=True),
        "hop 3": fg.stft(x, 8, hop_length=3, window=w, return_complex=True),
        "short window": fg.stft(x, 8, win_length=5, window=_hann(5), return_complex=True),
        "short rectangle": fg.stft(x, 8, win_length=6, window=fg.ones(6, dtype=fg.float64), return_complex=True),
        "not centred": fg.stft(x, 8, window=w, center=False, return_complex=True),
        "aligned": fg.stft(x, 8, 2, 4, _hann(4), center=False, return_complex=True, align_to_window=True),
        "not aligned": fg.stft(x, 8, 2, 4, _hann(4), center=False, return_complex=True, align_to_window=False),
        "constant pad": fg.stft(x, 8, window=w, pad_mode="constant", return_complex=True),
        "replicate pad": fg.stft(x, 8, window=w, pad_mode="replicate", return_complex=True),
        "circular pad": fg.stft(x, 8, window=w, pad_mode="circular", return_complex=True),
        "normalized": fg.stft(x, 8, window=w, normalized=True, return_complex=True),
        "two-sided": fg.stft(x, 8, window=w, onesided=False, return_complex=True),
        "batch": fg.stft(batch, 8, window=w, return_complex=True),
        "float32": fg.stft(_signal(dtype=fg.float32), 8, window=_hann(8, fg.float32), return_complex=True),
        "promoted": fg.stft(_signal(dtype=fg.float32), 8, window=w, return_complex=True).dtype,
        "complex input": fg.stft(complex_signal, 8, window=w),
        "odd n_fft": fg.stft(x, 7, window=_hann(7), return_complex=True),
        "whole signal": fg.stft(x, 20, window=_hann(20), center=False, return_complex=True),
        "method": x.stft(8, window=w, return_complex=True),
        "real output": _warned(lambda: fg.stft(x, 8, window=w, return_complex=False)),
        "no window": _warned(lambda: fg.stft(x, 8, return_complex=True)),
    }


def _stft_errors():
    x = _signal()
    return {
        "return_complex missing": error(lambda: fg.stft(x, 8, window=_hann(8))),
        "n_fft too large": error(lambda: fg.stft(x, 30, window=_hann(30), return_complex=True, center=False)),
        "hop 0": error(lambda: fg.stft(x, 8, hop_length=0, window=_hann(8), return_complex=True)),
        "long window": error(lambda: fg.stft(x, 8, win_length=9, return_complex=True)),
        "window size": error(lambda: fg.stft(x, 8, window=fg.ones(7, dtype=fg.float64), return_complex=True)),
        "3-D": error(lambda: fg.stft(fg.ones(2, 3, 20), 8, window=fg.ones(8), return_complex=True)),
        "integers": error(lambda: fg.stft(fg.arange(20), 8, window=fg.ones(8), return_complex=True)),
        "aligned centred": error(lambda: fg.stft(x, 8, return_complex=True, align_to_window=True)),
        "onesided complex": error(
            lambda: fg.stft(fg.complex(x, x), 8, window=_hann(8), onesided=True, return_complex=True)
        ),
        "too short to pad": error(lambda: fg.stft(fg.ones(3), 8, window=fg.ones(8), return_complex=True)),
    }


def _inverses():
    x = _signal()
    w = _hann(8)
    spectrum = fg.stft(x, 8, window=w, return_complex=True)
    two_sided = fg.stft(x, 8, window=w, onesided=False, return_complex=True)
    batch = fg.stft(fg.stack([x, 2 * x]), 8, window=w, return_complex=True)
    ramp = fg.arange(12.0, dtype=fg.float64)
    flat = fg.ones(4, dtype=fg.float64)
    rect = fg.stft(ramp, 4, hop_length=1, window=flat, center=False, return_complex=True)
    bumped = two_sided.clone()
    bumped[0, 0] = bumped[0, 0] + 1j
    return {
        "round trip": fg.istft(spectrum, 8, window=w, length=20),
        "default length": fg.istft(spectrum, 8, window=w),
        "longer": fg.istft(spectrum, 8, window=w, length=30),
        "shorter": fg.istft(spectrum, 8, window=w, length=5),
        "two-sided": fg.istft(two_sided, 8, window=w, onesided=False),
        "two-sided complex": fg.istft(bumped, 8, window=w, onesided=False, return_complex=True),
        "two-sided real part": fg.istft(bumped, 8, window=w, onesided=False),
        "normalized": fg.istft(
            fg.stft(x, 8, window=w, normalized=True, return_complex=True), 8, window=w, normalized=True
        ),  # fmt: skip
        "batch": fg.istft(batch, 8, window=w),
        "not centred": fg.istft(rect, 4, hop_length=1, window=flat, center=False),
        "complex64": fg.istft(spectrum.to(fg.complex64), 8, window=_hann(8, fg.float32), length=20),
        "method": spectrum.istft(8, window=w, length=20),
        "no window": _warned(lambda: fg.istft(fg.stft(x, 8, window=flat.new_ones(8), return_complex=True), 8)),
    }


def _istft_errors():
    x = _signal()
    w = _hann(8)
    spectrum = fg.stft(x, 8, window=w, return_complex=True)
    return {
        "real input": error(lambda: fg.istft(spectrum.real, 8, window=w)),
        "empty": error(lambda: fg.istft(spectrum[:, :0], 8, window=w)),
        "4-D": error(lambda: fg.istft(spectrum[None, None], 8, window=w)),
        "frequencies": error(lambda: fg.istft(spectrum[:3], 8, window=w)),
        "two-sided frequencies": error(lambda: fg.istft(spectrum, 8, window=w, onesided=False)),
        "hop": error(lambda: fg.istft(spectrum, 8, hop_length=9, window=w)),
        "win_length": error(lambda: fg.istft(spectrum, 8, win_length=9)),
        "window size": error(lambda: fg.istft(spectrum, 8, window=fg.ones(7))),
        "onesided complex": error(lambda: fg.istft(spectrum, 8, window=w, return_complex=True)),
        # torch's own message here ends in a tensor's printout: the type is what is compared
        "zero envelope": error(lambda: fg.istft(spectrum, 8, window=w, center=False)).type,
    }


def _gradients():
    x = _signal().requires_grad_()
    w = _hann(8).requires_grad_()
    power = fg.stft(x, 8, window=w, return_complex=True).abs().pow(2).sum()
    gx, gw = fg.autograd.grad(power, (x, w))
    y = _signal().requires_grad_()
    back = fg.istft(fg.stft(y * y, 8, window=_hann(8), return_complex=True), 8, window=_hann(8), length=20)
    (gy,) = fg.autograd.grad((back * fg.arange(20.0, dtype=fg.float64)).sum(), (y,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # return_complex=False's deprecation: `_spectra` checks it
        real = fg.stft(x, 8, window=_hann(8), return_complex=False)
    return {"input": gx, "window": gw, "round trip": gy, "real output grad_fn": real.grad_fn.name()}


_WINDOWS = {
    "bartlett": {}, "blackman": {}, "cosine": {}, "exponential": {"tau": 2.5}, "gaussian": {"std": 1.7},
    "general_cosine": {"a": [0.5, 0.3, 0.2]}, "general_hamming": {"alpha": 0.6}, "hamming": {}, "hann": {},
    "kaiser": {"beta": 5.0}, "nuttall": {},
}  # fmt: skip


def _windows():
    import ferrograd.signal.windows as windows

    out = {}
    for name, options in _WINDOWS.items():
        fn = getattr(windows, name)
        for M in (0, 1, 2, 7, 8):
            out[f"{name} {M}"] = fn(M, dtype=fg.float64, **options)
            out[f"{name} {M} periodic"] = fn(M, sym=False, dtype=fg.float64, **options)
        out[f"{name} float32"] = fn(9, **options)
        out[f"{name} default"] = fn(6) if name != "general_cosine" else fn(6, a=[1.0])
    out["exponential centred"] = windows.exponential(7, center=1.5, sym=False, dtype=fg.float64)
    out["kaiser 0"] = windows.kaiser(5, beta=0.0, dtype=fg.float64)
    out["requires_grad"] = windows.hann(4, requires_grad=True).requires_grad
    out["negative M"] = error(lambda: windows.hann(-1))
    out["integer dtype"] = error(lambda: windows.cosine(4, dtype=fg.int64))
    out["tau"] = error(lambda: windows.exponential(4, tau=0.0))
    out["centre symmetric"] = error(lambda: windows.exponential(4, center=1.0))
    out["std"] = error(lambda: windows.gaussian(4, std=-1.0))
    out["beta"] = error(lambda: windows.kaiser(4, beta=-1.0))
    out["no coefficients"] = error(lambda: windows.general_cosine(4, a=[]))
    out["coefficients"] = error(lambda: windows.general_cosine(4, a=3))
    out["sparse layout"] = error(lambda: windows.hann(4, layout=fg.sparse_coo))
    return out


CASES = {
    "windows": _windows,
    "spectra": _spectra,
    "stft errors": _stft_errors,
    "inverses": _inverses,
    "istft errors": _istft_errors,
    "gradients": _gradients,
}
