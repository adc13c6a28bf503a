"""`torch.fft` (issue 28): the recorded cases of tests/cases_fft.py against PyTorch (tests/golden/fft.json),
values against numpy.fft on random inputs, gradients against finite differences (gradcheck and gradgradcheck,
complex inputs as their real and imaginary parts)."""

import ferrograd as fg
import numpy as np
import pytest
from cases_fft import CASES
from ferrograd.autograd import gradgradcheck
from helpers import gradcheck
from recorded import check, expected

EXPECTED = expected("fft", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
@pytest.mark.parametrize("n", [None, 5, 12])
def test_against_numpy(rng, norm, n):
    a = rng.standard_normal((3, 8)) + 1j * rng.standard_normal((3, 8))
    z = fg.tensor(a)
    np.testing.assert_allclose(fg.fft.fft(z, n=n, norm=norm).numpy(), np.fft.fft(a, n=n, norm=norm), rtol=1e-10)
    np.testing.assert_allclose(fg.fft.ifft(z, n=n, dim=0, norm=norm).numpy(), np.fft.ifft(a, n=n, axis=0, norm=norm))
    np.testing.assert_allclose(fg.fft.fft2(z, norm=norm).numpy(), np.fft.fft2(a, norm=norm), rtol=1e-10)
    np.testing.assert_allclose(
        fg.fft.ifftn(z, s=(4, 6), norm=norm).numpy(), np.fft.ifftn(a, s=(4, 6), axes=(0, 1), norm=norm)
    )


@pytest.mark.parametrize("n", [None, 7, 10])
def test_real_transforms_against_numpy(rng, n):
    a = rng.standard_normal((4, 9))
    np.testing.assert_allclose(fg.fft.rfft(fg.tensor(a), n=n).numpy(), np.fft.rfft(a, n=n), rtol=1e-10, atol=1e-12)
    spectrum = np.fft.rfft(a, axis=0)
    got = fg.fft.irfft(fg.tensor(spectrum), n=n, dim=0, norm="ortho").numpy()
    np.testing.assert_allclose(got, np.fft.irfft(spectrum, n=n, axis=0, norm="ortho"), rtol=1e-10, atol=1e-12)


def test_complex64_against_numpy(rng):
    a = (rng.standard_normal(1000) + 1j * rng.standard_normal(1000)).astype(np.complex64)
    got = fg.fft.fft(fg.tensor(a))
    assert got.dtype == fg.complex64
    np.testing.assert_allclose(got.numpy(), np.fft.fft(a), rtol=1e-4, atol=1e-3)


DIFFERENTIABLE = [
    pytest.param(lambda x, y: fg.view_as_real(fg.fft.fft(fg.complex(x, y), norm="ortho")), id="fft"),
    pytest.param(lambda x, y: fg.view_as_real(fg.fft.ifft(fg.complex(x, y), n=5, dim=0)), id="ifft_pad"),
    pytest.param(lambda x, y: fg.view_as_real(fg.fft.fft2(fg.complex(x, y), s=(2, 2))), id="fft2_trim"),
    pytest.param(lambda x, y: fg.fft.fft(x * y).abs(), id="real_input_abs"),
    pytest.param(lambda x, y: fg.fft.rfft(x * y, n=5).abs(), id="rfft_abs"),
    pytest.param(lambda x, y: fg.fft.irfft(fg.complex(x, y), n=5, dim=0), id="irfft"),
]


DIFFERENTIABLE += [
    pytest.param(lambda x, y: fg.view_as_real(fg.fft.rfft2(x * y, s=(4, 5), norm="ortho")), id="rfft2"),
    pytest.param(lambda x, y: fg.view_as_real(fg.fft.rfftn(x - y, dim=(1, 0))), id="rfftn_dims"),
    pytest.param(lambda x, y: fg.fft.irfft2(fg.complex(x, y)), id="irfft2"),
    pytest.param(lambda x, y: fg.fft.irfftn(fg.complex(x, y), s=(2, 5), norm="forward"), id="irfftn_odd"),
    pytest.param(lambda x, y: fg.fft.hfft(fg.complex(x, y), n=7), id="hfft"),
    pytest.param(lambda x, y: fg.view_as_real(fg.fft.ihfft(x * y, dim=0).resolve_conj()), id="ihfft"),
    pytest.param(lambda x, y: fg.fft.hfft2(fg.complex(x, y), norm="ortho"), id="hfft2"),
    pytest.param(lambda x, y: fg.view_as_real(fg.fft.ihfftn(x * y, s=(2, 6))), id="ihfftn"),
    pytest.param(lambda x, y: fg.view_as_real(fg.fft.ifft(x * y).resolve_conj()), id="ifft_real"),
    pytest.param(lambda x, y: fg.view_as_real(fg.fft.fftshift(fg.complex(x, y))), id="fftshift"),
    pytest.param(lambda x, y: fg.fft.ifftshift(x * y, dim=1), id="ifftshift_real"),
]


@pytest.mark.parametrize("fn", DIFFERENTIABLE)
def test_gradcheck(rng, fn):
    gradcheck(fn, [rng.standard_normal((3, 4)), rng.standard_normal((3, 4))])


@pytest.mark.parametrize("fn", DIFFERENTIABLE)
def test_gradgradcheck(rng, fn):
    inputs = [fg.tensor(rng.standard_normal((3, 4)), requires_grad=True) for _ in range(2)]
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("s", [None, (3, 6), (5, 7)])
def test_real_n_dim_against_numpy(rng, s):
    a = rng.standard_normal((2, 4, 6))
    x = fg.tensor(a)
    np.testing.assert_allclose(
        fg.fft.rfftn(x, s=s).numpy(), np.fft.rfftn(a, s=s, axes=None if s is None else (1, 2)), rtol=1e-10, atol=1e-12
    )
    np.testing.assert_allclose(
        fg.fft.rfft2(x, s=s, norm="ortho").numpy(), np.fft.rfft2(a, s=s, norm="ortho", axes=(1, 2))
    )
    spectrum = np.fft.rfftn(a)
    got = fg.fft.irfftn(fg.tensor(spectrum), s=s).numpy()
    np.testing.assert_allclose(
        got, np.fft.irfftn(spectrum, s=s, axes=None if s is None else (1, 2)), rtol=1e-10, atol=1e-12
    )
    got = fg.fft.irfft2(fg.tensor(spectrum), s=s, norm="forward").numpy()
    np.testing.assert_allclose(got, np.fft.irfft2(spectrum, s=s, norm="forward", axes=(1, 2)), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("n", [None, 5, 8])
def test_hermitian_against_numpy(rng, n):
    a = rng.standard_normal((3, 5)) + 1j * rng.standard_normal((3, 5))
    got = fg.fft.hfft(fg.tensor(a), n=n, dim=0, norm="ortho").numpy()
    np.testing.assert_allclose(got, np.fft.hfft(a, n=n, axis=0, norm="ortho"), rtol=1e-10, atol=1e-12)
    r = a.real
    got = fg.fft.ihfft(fg.tensor(r), n=n).resolve_conj().numpy()
    np.testing.assert_allclose(got, np.fft.ihfft(r, n=n), rtol=1e-10, atol=1e-12)
    # hfftn/ihfftn: the conjugate-symmetric counterparts of irfftn/rfftn (numpy has no n-dim forms)
    m = r.shape[-1] if n is None else n
    got = fg.fft.hfftn(fg.tensor(a), s=(3, m)).numpy()
    np.testing.assert_allclose(got, np.fft.irfftn(a.conj(), s=(3, m), axes=(0, 1)) * 3 * m, rtol=1e-10, atol=1e-10)
    got = fg.fft.ihfftn(fg.tensor(r), s=(3, m)).resolve_conj().numpy()
    np.testing.assert_allclose(got, np.fft.rfftn(r, s=(3, m), axes=(0, 1)).conj() / (3 * m), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("shape", [(7,), (4, 5), (2, 3, 4)])
def test_shifts_against_numpy(rng, shape):
    a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    np.testing.assert_array_equal(fg.fft.fftshift(fg.tensor(a)).numpy(), np.fft.fftshift(a))
    np.testing.assert_array_equal(fg.fft.ifftshift(fg.tensor(a.real)).numpy(), np.fft.ifftshift(a.real))
    np.testing.assert_array_equal(fg.fft.fftshift(fg.tensor(a), dim=-1).numpy(), np.fft.fftshift(a, axes=-1))
    axes = tuple(range(len(shape)))[::-1]
    np.testing.assert_array_equal(fg.fft.ifftshift(fg.tensor(a), dim=axes).numpy(), np.fft.ifftshift(a, axes=axes))


def test_complex_gather_ops_keep_pairs(rng):
    a = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    z = fg.tensor(a)
    np.testing.assert_array_equal(fg.roll(z, (1, -2), (0, 1)).numpy(), np.roll(a, (1, -2), (0, 1)))
    np.testing.assert_array_equal(fg.roll(z, 5).numpy(), np.roll(a, 5))
    np.testing.assert_array_equal(z.flip(1).numpy(), a[:, ::-1])
    np.testing.assert_array_equal(z.t().flip(0).numpy(), a.T[::-1])
