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
        "rfft_grad_fn": fg.fft.rfft(x.requires_grad_()).grad_fn.name(),
    }


def real_n_dim():
    x = _real(24).float().reshape(2, 3, 4)
    spectrum = _complex(12, fg.complex128).reshape(3, 4)
    return {
        "rfft2": fg.fft.rfft2(x),
        "rfft2_s_ortho": fg.fft.rfft2(x, s=(4, 5), norm="ortho"),
        "rfftn": fg.fft.rfftn(x),
        "rfftn_dim": fg.fft.rfftn(x, dim=(2, 0), norm="forward"),
        "rfftn_s_minus_one": fg.fft.rfftn(x, s=(-1, 3)),
        "rfftn_int": fg.fft.rfftn(fg.arange(6).reshape(2, 3)),
        "rfftn_non_contiguous": fg.fft.rfftn(x.transpose(0, 2)),
        "irfft2": fg.fft.irfft2(spectrum),
        "irfft2_s": fg.fft.irfft2(spectrum, s=(2, 5), norm="ortho"),
        "irfftn": fg.fft.irfftn(spectrum.reshape(3, 2, 2)),
        "irfftn_dim": fg.fft.irfftn(spectrum, dim=0, norm="forward"),
        "irfftn_s_minus_one": fg.fft.irfftn(spectrum, s=(2, -1)),
        "irfftn_real_input": fg.fft.irfftn(x[0]),
        "round_trip": fg.fft.irfftn(fg.fft.rfftn(x), s=x.shape),
        "empty_dims_fftn": fg.fft.fftn(x, dim=()),
        "zero_dim_fftn": fg.fft.fftn(fg.tensor(1.5)),
    }


def hermitian():
    x = _real(12).double().reshape(3, 4)
    z = _complex(12).reshape(3, 4)
    return {
        "hfft": fg.fft.hfft(z),
        "hfft_n_odd": fg.fft.hfft(z, n=5, norm="ortho"),
        "hfft_dim0_pad": fg.fft.hfft(z, n=8, dim=0, norm="forward"),
        "hfft_real_input": fg.fft.hfft(x),
        "hfft_int": fg.fft.hfft(fg.arange(4)),
        "ihfft": fg.fft.ihfft(x),
        "ihfft_n_ortho": fg.fft.ihfft(x, n=7, norm="ortho"),
        "ihfft_dim0": fg.fft.ihfft(x, dim=0, norm="forward"),
        "ihfft_int": fg.fft.ihfft(fg.arange(4)),
        "hfft2": fg.fft.hfft2(z),
        "hfft2_s": fg.fft.hfft2(z, s=(2, 5), norm="ortho"),
        "hfftn": fg.fft.hfftn(z.reshape(3, 2, 2)),
        "hfftn_dim": fg.fft.hfftn(z, dim=0, norm="forward"),
        "ihfft2": fg.fft.ihfft2(x),
        "ihfft2_s": fg.fft.ihfft2(x, s=(2, 5), norm="forward"),
        "ihfftn": fg.fft.ihfftn(x.reshape(3, 2, 2), norm="ortho"),
        "ihfftn_dim": fg.fft.ihfftn(x, dim=0),
        "round_trip": fg.fft.hfft(fg.fft.ihfft(x), n=4),
    }


def shifts():
    x = fg.arange(10.0).reshape(2, 5)
    z = _complex(6).reshape(2, 3)
    return {
        "fftshift": fg.fft.fftshift(x),
        "ifftshift": fg.fft.ifftshift(x),
        "fftshift_dim": fg.fft.fftshift(x, dim=1),
        "ifftshift_dims": fg.fft.ifftshift(x, dim=(1, 0)),
        "fftshift_complex": fg.fft.fftshift(z),
        "ifftshift_complex_dim": fg.fft.ifftshift(z, dim=-1),
        "fftshift_of_freqs": fg.fft.fftshift(fg.fft.fftfreq(7)),
        "fftshift_int": fg.fft.fftshift(fg.arange(5)),
        "fftshift_empty": fg.fft.fftshift(fg.ones(0, 3)),
        "fftshift_non_contiguous": fg.fft.fftshift(z.t()),
        "roll_complex": fg.roll(z, 1),
        "flip_complex": fg.flip(z, (0, 1)),
        "fftshift_bad_dim": error(fg.fft.fftshift, x, dim=5),
        "fftshift_zero_dim": error(fg.fft.fftshift, fg.tensor(1.0)),
    }


def real_errors():
    z = fg.ones(3, 4, dtype=fg.cfloat)
    x = fg.ones(3, 4)
    return {
        "ihfft_complex": error(fg.fft.ihfft, z),
        "rfftn_complex": error(fg.fft.rfftn, z),
        "rfft2_complex": error(fg.fft.rfft2, z),
        "ihfftn_complex": error(fg.fft.ihfftn, z),
        "ihfft2_complex": error(fg.fft.ihfft2, z),
        "irfftn_length_one": error(fg.fft.irfftn, fg.ones(3, 1, dtype=fg.cfloat)),
        "hfft_length_one": error(fg.fft.hfft, fg.ones(1, dtype=fg.cfloat)),
        "rfftn_no_dims": error(fg.fft.rfftn, x, dim=()),
        "irfftn_no_dims": error(fg.fft.irfftn, z, dim=()),
        "hfftn_no_dims": error(fg.fft.hfftn, z, dim=()),
        "ihfftn_zero_dim": error(fg.fft.ihfftn, fg.tensor(1.0)),
        "s_too_long": error(fg.fft.fftn, x, s=(2, 2, 2)),
        "rfft2_one_dim": error(fg.fft.rfft2, fg.ones(4)),
        "irfft_zero_dim": error(fg.fft.irfft, fg.tensor(1.0)),
        "irfftn_s_zero": error(fg.fft.irfftn, z, s=(0, 5)),
        "rfftn_s_negative": error(fg.fft.rfftn, x, s=(-2,)),
        "rfft_empty": error(fg.fft.rfft, fg.ones(0)),
        "hfft_half": error(fg.fft.hfft, fg.ones(4, dtype=fg.float16)),
    }


def _grad_fn_chain(t):
    names = []
    node = t.grad_fn
    while node is not None and "AccumulateGrad" not in node.name():
        names.append(node.name())
        node = node.next_functions[0][0]
    return names


def grad_fns():
    x = _real(12).double().reshape(3, 4).requires_grad_()
    z = _complex(12, fg.complex128).reshape(3, 4).requires_grad_()
    F = fg.fft
    return {
        "fft_real": _grad_fn_chain(F.fft(x)),
        "ifft_real": _grad_fn_chain(F.ifft(x)),
        "fft": _grad_fn_chain(F.fft(z)),
        "fft_pad": _grad_fn_chain(F.fft(z, n=5))[0],
        "fftn": _grad_fn_chain(F.fftn(z)),
        "fft2_real": _grad_fn_chain(F.fft2(x)),
        "rfft": _grad_fn_chain(F.rfft(x)),
        "rfft2": _grad_fn_chain(F.rfft2(x)),
        "rfftn": _grad_fn_chain(F.rfftn(x)),
        "irfft": _grad_fn_chain(F.irfft(z)),
        "irfft2": _grad_fn_chain(F.irfft2(z)),
        "irfftn": _grad_fn_chain(F.irfftn(z)),
        "hfft": _grad_fn_chain(F.hfft(z)),
        "ihfft": _grad_fn_chain(F.ihfft(x)),
        "hfft2": _grad_fn_chain(F.hfft2(z)),
        "ihfft2": _grad_fn_chain(F.ihfft2(x)),
        "hfftn": _grad_fn_chain(F.hfftn(z)),
        "ihfftn": _grad_fn_chain(F.ihfftn(x)),
        "fftshift": _grad_fn_chain(F.fftshift(z)),
        "ifftshift_real": _grad_fn_chain(F.ifftshift(x, dim=0)),
    }


def real_gradients():
    x = _real(12).double().reshape(3, 4)
    z = _complex(12, fg.complex128).reshape(3, 4)
    F = fg.fft
    return {
        "rfft2": _grads(lambda a: fg.view_as_real(F.rfft2(a, norm="ortho")), x),
        "rfftn_s": _grads(lambda a: fg.view_as_real(F.rfftn(a, s=(4, 5))), x),
        "irfft2": _grads(lambda a: F.irfft2(a), z),
        "irfftn_odd": _grads(lambda a: F.irfftn(a, s=(3, 5), norm="forward"), z),
        "hfft": _grads(lambda a: F.hfft(a, n=5), z),
        "ihfft": _grads(lambda a: fg.view_as_real(F.ihfft(a).resolve_conj()), x),
        "hfft2": _grads(lambda a: F.hfft2(a, norm="ortho"), z),
        "ihfftn": _grads(lambda a: fg.view_as_real(F.ihfftn(a, s=(2, 5))), x),
        "fft_real": _grads(lambda a: fg.view_as_real(F.fft(a, n=6)), x),
        "ifft_real": _grads(lambda a: fg.view_as_real(F.ifft(a, dim=0).resolve_conj()), x),
        "fftshift": _grads(lambda a: fg.view_as_real(F.fftshift(a)), z),
    }


CASES = {
    f.__name__: f
    for f in (
        one_dim,
        real_transforms,
        n_dim,
        errors,
        frequencies,
        gradients,
        real_n_dim,
        hermitian,
        shifts,
        real_errors,
        grad_fns,
        real_gradients,
    )
}
