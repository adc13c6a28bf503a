"""Cases for `torch.fft`'s complex transforms (issue 28) recorded from torch (tests/golden/record_fft.py) and
checked by tests/test_fft.py: odd and even lengths, padding and trimming with `n`/`s`, `dim`, the three norms,
real and integer inputs (torch's promotion), non-contiguous input, the errors, the frequencies, gradients."""

import ferrograd as fg
import numpy as np
from recorded import error


def _real(n=6):
    return fg.tensor(np.arange(n) ** 1.5 - 2.0)


def _complex(n=6, dtype=fg.complex64):
    k = np.arange(n)
    return fg.tensor(k + 1j * np.cos(k), dtype=dtype)


def one_dim():
    z = _complex()
    return {
        "fft_real": fg.fft.fft(_real()),
        "fft_odd": fg.fft.fft(_complex(5)),
        "fft_pad": fg.fft.fft(_real(), n=8),
        "fft_trim_ortho": fg.fft.fft(z, n=4, norm="ortho"),
        "fft_forward_norm": fg.fft.fft(z, norm="forward"),
        "ifft": fg.fft.ifft(z),
        "ifft_forward_norm": fg.fft.ifft(z, norm="forward"),
        "ifft_ortho_odd_pad": fg.fft.ifft(_complex(5, fg.complex128), n=7, norm="ortho"),
        "fft_dim0": fg.fft.fft(z.reshape(3, 2), dim=0),
        "fft_non_contiguous": fg.fft.fft(z.reshape(2, 3).t(), dim=0),
        "fft_int": fg.fft.fft(fg.tensor([1, 2, 3])),
        "fft_bool": fg.fft.fft(fg.tensor([True, False, True])),
        "fft_float64": fg.fft.fft(_real().double()).dtype,
        "round_trip": fg.fft.ifft(fg.fft.fft(z)),
        "length_one": fg.fft.fft(fg.tensor([2.5])),
    }


def real_transforms():
    x = _real(7).float()
    spectrum = _complex(5, fg.complex128)
    return {
        "rfft": fg.fft.rfft(x),
        "rfft_pad_ortho": fg.fft.rfft(x, n=10, norm="ortho"),
        "rfft_dim0": fg.fft.rfft(x[:6].reshape(2, 3), dim=0),
        "rfft_int": fg.fft.rfft(fg.tensor([1, 2, 3])),
        "irfft": fg.fft.irfft(spectrum),
        "irfft_odd_forward": fg.fft.irfft(spectrum, n=7, norm="forward"),
        "irfft_trim": fg.fft.irfft(spectrum, n=4),
        "irfft_pad": fg.fft.irfft(spectrum, n=12),
        "irfft_n1": fg.fft.irfft(spectrum, n=1),
        "irfft_real_input": fg.fft.irfft(fg.tensor([1.0, 2.0, 3.0])),
        "irfft_int": fg.fft.irfft(fg.tensor([1, 2, 3])),
        "irfft_dim0": fg.fft.irfft(spectrum.reshape(5, 1), dim=0),
        "round_trip": fg.fft.irfft(fg.fft.rfft(x), n=7),
        "rfft_complex": error(fg.fft.rfft, fg.ones(3, dtype=fg.cfloat)),
        "irfft_length_one": error(fg.fft.irfft, fg.ones(1, dtype=fg.cfloat)),
    }


def n_dim():
    z = _complex(12).reshape(3, 4)
    return {
        "fft2": fg.fft.fft2(z),
        "ifft2": fg.fft.ifft2(z, norm="ortho"),
        "fftn": fg.fft.fftn(z.reshape(2, 3, 2)),
        "fftn_s": fg.fft.fftn(z, s=(4, 3)),
        "fftn_dim": fg.fft.fftn(z, dim=0),
        "fftn_s_minus_one": fg.fft.fftn(z, s=(-1, 2), dim=(0, 1)),
        "ifftn_s_last_dims": fg.fft.ifftn(z.reshape(3, 2, 2), s=(3, 3)),
        "fft2_real": fg.fft.fft2(_real(12).reshape(4, 3)),
    }


def errors():
    x = _real()
    return {
        "n_zero": error(fg.fft.fft, x, n=0),
        "n_negative": error(fg.fft.fft, x, n=-1),
        "empty": error(fg.fft.fft, fg.zeros(0)),
        "zero_dim": error(fg.fft.fft, fg.tensor(1.0)),
        "bad_norm": error(fg.fft.fft, x, norm="bad"),
        "bad_dim": error(fg.fft.fft, x, dim=2),
        "half": error(fg.fft.fft, fg.ones(4, dtype=fg.float16)),
        "s_dim_lengths": error(fg.fft.fftn, x.reshape(2, 3), s=(2,), dim=(0, 1)),
        "repeated_dims": error(fg.fft.fftn, x.reshape(2, 3), dim=(0, 0)),
    }


def frequencies():
    return {
        "fftfreq_odd": fg.fft.fftfreq(5, d=0.5),
        "fftfreq_even": fg.fft.fftfreq(6),
        "fftfreq_float64": fg.fft.fftfreq(4, dtype=fg.float64),
        "rfftfreq": fg.fft.rfftfreq(7, 2.0),
        "rfftfreq_even": fg.fft.rfftfreq(8),
    }


def _grads(fn, *tensors):
    leaves = [t.detach().clone().requires_grad_(True) for t in tensors]
    y = fn(*leaves)
    w = fg.arange(1, y.numel() + 1, dtype=y.dtype).reshape(y.shape)
    return [y, *fg.autograd.grad((y * w).sum(), leaves)]


def gradients():
    z = _complex(6, fg.complex128)
    x = _real(5).double()
    return {
        "fft": _grads(lambda a: fg.view_as_real(fg.fft.fft(a, norm="ortho")), z),
        "ifft_pad": _grads(lambda a: fg.view_as_real(fg.fft.ifft(a, n=8)), z),
        "fft_trim_forward": _grads(lambda a: fg.view_as_real(fg.fft.fft(a, n=4, norm="forward")), z),
        "fft2": _grads(lambda a: fg.view_as_real(fg.fft.fft2(a)), z.reshape(2, 3)),
        "real_input_abs": _grads(lambda a: fg.fft.fft(a).abs(), x),
        "rfft_abs": _grads(lambda a: fg.fft.rfft(a, n=6).abs(), x),
        "irfft": _grads(lambda a: fg.fft.irfft(a, n=7, norm="ortho"), z[:4]),
        "grad_fn": fg.fft.fft(z.requires_grad_()).grad_fn.name(),
    }


CASES = {f.__name__: f for f in (one_dim, real_transforms, n_dim, errors, frequencies, gradients)}
