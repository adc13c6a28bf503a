"""`stft`/`istft` against PyTorch (tests/golden/spectral.json; cases in tests/cases_spectral.py), against a
per-frame numpy transform, and their gradients against finite differences in float64."""

import ferrograd as fg
import numpy as np
import pytest
from cases_spectral import CASES
from helpers import gradcheck
from recorded import check, expected

EXPECTED = expected("spectral", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])


@pytest.mark.parametrize("n_fft,hop", [(8, 2), (16, 5), (9, 3)])
def test_stft_is_the_spectrum_of_each_windowed_frame(n_fft, hop):
    rng = np.random.default_rng(n_fft)
    x = rng.standard_normal(64)
    window = np.hanning(n_fft + 1)[:-1]
    got = fg.stft(fg.tensor(x), n_fft, hop, window=fg.tensor(window), center=False, return_complex=True).numpy()
    starts = range(0, len(x) - n_fft + 1, hop)
    want = np.stack([np.fft.rfft(x[s : s + n_fft] * window) for s in starts], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_istft_inverts_stft():
    rng = np.random.default_rng(1)
    x = fg.tensor(rng.standard_normal((3, 50)))
    window = fg.hann_window(16, dtype=fg.float64)
    spectrum = fg.stft(x, 16, 4, window=window, return_complex=True)
    back = fg.istft(spectrum, 16, 4, window=window, length=50)
    np.testing.assert_allclose(back.numpy(), x.numpy(), atol=1e-12)


def test_gradcheck_stft():
    x = np.sin(np.arange(12.0))
    w = np.hanning(7)[:-1]
    gradcheck(lambda a, b: fg.stft(a, 6, 2, window=b, return_complex=False), [x, w])


def test_gradcheck_istft():
    spectrum = np.fft.rfft(np.sin(np.arange(20.0)).reshape(5, 4), axis=1).T  # (freq 3, frames 5)
    parts = np.stack([spectrum.real, spectrum.imag], axis=-1)
    window = fg.hann_window(4, dtype=fg.float64)
    gradcheck(lambda p: fg.istft(fg.view_as_complex(p), 4, 1, window=window, length=7), [parts])
