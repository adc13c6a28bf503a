"""`torch.fft`'s complex transforms (issue 28): the recorded cases of tests/cases_fft.py against PyTorch
(tests/golden/fft.json), values against numpy.fft on random inputs, gradients against finite differences."""

import ferrograd as fg
import numpy as np
import pytest
from cases_fft import CASES
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


@pytest.mark.parametrize("fn", DIFFERENTIABLE)
def test_gradcheck(rng, fn):
    gradcheck(fn, [rng.standard_normal((3, 4)), rng.standard_normal((3, 4))])
