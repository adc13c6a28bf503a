"""`linalg.eig` and `linalg.eigvals`: the definition (A V = V diag(L), columns of norm 1) over float32, float64,
complex64 and complex128, batched and non-contiguous, on hard matrices (defective, companion, scaled far from
1); sorted eigenvalues, eigenvector moduli, gradients of phase-independent losses, errors and grad_fn names
against PyTorch (tests/golden/linalg_eig.json; cases in tests/cases_linalg_eig.py); gradients against finite
differences in float64 for real and complex inputs."""

import ferrograd as fg
import numpy as np
import pytest
from cases_linalg_eig import CASES, moduli, order, sorted_values
from ferrograd.autograd import gradcheck
from helpers import AGAINST_TORCH
from recorded import check, expected

EXPECTED = expected("linalg_eig", CASES)
TOL = {"float64": 1e-10, "complex128": 1e-10, "float32": 2e-4, "complex64": 2e-4}
COMPLEX_OF = {"float64": "complex128", "float32": "complex64", "complex128": "complex128", "complex64": "complex64"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])


def _sample(rng, shape, dtype):
    a = rng.standard_normal(shape)
    return a + 1j * rng.standard_normal(shape) if dtype.startswith("complex") else a


def _layouts(a, dtype):
    t = fg.tensor(a, dtype=getattr(fg, dtype))
    view = fg.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2)), dtype=getattr(fg, dtype)).mT
    return [t, view]


def _assert_decomposes(A, L, V, tol):
    a, w, v = (t.detach().numpy().astype(np.complex128) for t in (A, L, V))
    scale = max(1.0, np.abs(a).max())
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=tol * scale * a.shape[-1])
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1.0, atol=tol * 10)


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128", "complex64"])
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (5, 5), (3, 6, 6), (2, 1, 4, 4), (16, 16)])
def test_definition(dtype, shape, rng):
    a = _sample(rng, shape, dtype)
    for A in _layouts(a, dtype):
        L, V = fg.linalg.eig(A)
        assert L.dtype == V.dtype == getattr(fg, COMPLEX_OF[dtype])
        assert L.shape == shape[:-1] and V.shape == shape
        _assert_decomposes(A, L, V, TOL[dtype])
        want = np.linalg.eigvals(a.astype(np.complex128)).reshape(-1, shape[-1])
        want = np.take_along_axis(want, order(want), axis=-1)
        got = sorted_values(L).numpy().reshape(-1, shape[-1])
        np.testing.assert_allclose(got, want, atol=TOL[dtype] * 100)
        np.testing.assert_array_equal(fg.linalg.eigvals(A).numpy(), L.numpy())


@pytest.mark.parametrize(
    "a",
    [
        np.array([[2.0, 1.0, 0.0], [0.0, 2.0, 1.0], [0.0, 0.0, 2.0]]),  # a Jordan block: one defective eigenvalue
        np.diag(np.ones(7), -1),  # a nilpotent shift
        np.zeros((4, 4)),
        np.eye(5)[::-1].copy(),  # a permutation: eigenvalues ±1
        np.roll(np.eye(6), 1, axis=0),  # a cycle: the sixth roots of unity, all of modulus 1
        np.vstack([np.array([[-1.0, 2.0, -3.0, 4.0, -5.0]]), np.eye(5)[:-1]]),  # a companion matrix
        np.arange(36.0).reshape(6, 6) * 1e200,
        np.arange(36.0).reshape(6, 6) * 1e-200,
    ],
)
def test_hard_matrices_converge(a):
    A = fg.tensor(a)
    L, V = fg.linalg.eig(A)
    assert np.isfinite(L.numpy()).all() and np.isfinite(V.numpy()).all()
    scale = max(np.abs(a).max(), np.finfo(float).tiny)
    w, v = L.numpy(), V.numpy()
    np.testing.assert_allclose((a / scale) @ v, v * (w / scale), atol=1e-8)
    want = np.linalg.eigvals(a / scale)
    np.testing.assert_allclose(np.abs(np.prod(w / scale)), np.abs(np.prod(want)), atol=1e-6)
    np.testing.assert_allclose(np.sum(w / scale), np.sum(want), atol=1e-6)


def test_real_spectrum_stays_real(rng):
    """A real matrix whose eigenvalues are all real gets exactly real eigenvalues and eigenvectors (the shifts
    stay real), as LAPACK's dgeev gives them."""
    q, _ = np.linalg.qr(rng.standard_normal((5, 5)))
    a = q @ np.diag([3.0, -1.0, 0.5, 2.0, -4.0]) @ np.linalg.inv(q)
    L, V = fg.linalg.eig(fg.tensor(a))
    assert (L.imag.numpy() == 0).all() and (V.imag.numpy() == 0).all()


def test_eigenvector_phase_convention(rng):
    """Each eigenvector's largest component is real and positive (zgeev's normalisation)."""
    a = _sample(rng, (6, 6), "complex128")
    V = fg.linalg.eig(fg.tensor(a)).eigenvectors.numpy()
    largest = V[np.abs(V).argmax(axis=0), np.arange(6)]
    np.testing.assert_allclose(largest.imag, 0, atol=1e-15)
    assert (largest.real > 0).all()


def _spectral(L, V):
    """Functions of the decomposition that do not depend on the eigenvalues' order or the vectors' phases."""
    weights = fg.arange(1.0, V.shape[-1] + 1, dtype=fg.float64)
    return fg.stack(
        [
            (L.real**3).sum(-1),
            (L.imag**2).sum(-1),
            (L.real * L.imag**2).sum(-1),
            ((V.abs() ** 2) * L.real.unsqueeze(-2) * weights.unsqueeze(-1)).sum((-2, -1)),
        ],
        -1,
    )


def test_gradcheck_real(rng):
    a = fg.tensor(rng.standard_normal((2, 4, 4)), requires_grad=True)
    assert gradcheck(lambda A: _spectral(*fg.linalg.eig(A)), (a,))
    assert gradcheck(lambda A: (fg.linalg.eigvals(A).real ** 2).sum(-1), (a,))


def test_gradcheck_complex_input(rng):
    a = fg.tensor(_sample(rng, (3, 3), "complex128"), requires_grad=True)
    assert gradcheck(lambda A: _spectral(*fg.linalg.eig(A)), (a,))
    # a complex output: the eigenvalues themselves (their order does not change under small perturbations)
    assert gradcheck(lambda A: fg.linalg.eigvals(A), (a,))


def test_gradient_against_moduli_finite_differences(rng):
    """The eigenvectors' part of the rule on its own: |V| (order taken from the eigenvalues)."""
    a = rng.standard_normal((4, 4))

    def f(A):
        L, V = fg.linalg.eig(A)
        return (V.abs() ** 2 * L.real.unsqueeze(-2)).sum()

    assert gradcheck(f, (fg.tensor(a, requires_grad=True),))
    assert moduli(*fg.linalg.eig(fg.tensor(a))).shape == (4, 4)


def test_second_derivative_is_refused(rng):
    """torch's rule differentiates again; ferrograd's builds V⁻ᴴ as a constant, so it refuses rather than give a
    wrong second derivative."""
    A = fg.tensor(rng.standard_normal((3, 3)), requires_grad=True)
    (g,) = fg.autograd.grad(fg.linalg.eigvals(A).real.sum(), A)
    assert g.shape == (3, 3)
    if AGAINST_TORCH:
        pytest.skip("torch's rule differentiates again")
    with pytest.raises(NotImplementedError, match="linalg.eig"):
        fg.autograd.grad(fg.linalg.eigvals(A).real.sum(), A, create_graph=True)


def test_input_unchanged_and_no_grad_eigvals_skips_vectors(rng):
    a = rng.standard_normal((3, 3))
    A = fg.tensor(a)
    with fg.no_grad():
        L = fg.linalg.eigvals(A.requires_grad_())
    assert L.grad_fn is None
    np.testing.assert_array_equal(A.detach().numpy(), a)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_real_input_spectrum_structure(dtype, rng):
    """For a real A, as LAPACK's dgeev gives them: real eigenvalues exactly real with real eigenvectors, the
    others in exact conjugate pairs with conjugate eigenvectors."""
    a = rng.standard_normal((4, 7, 7))
    L, V = fg.linalg.eig(fg.tensor(a, dtype=getattr(fg, dtype)))
    for w, v in zip(L.numpy(), V.numpy()):
        real = w.imag == 0
        assert real.sum() % 2 == 1  # odd n: an odd number of real eigenvalues
        assert (v[:, real].imag == 0).all()
        upper, lower = np.sort_complex(w[w.imag > 0]), np.sort_complex(w[w.imag < 0].conj())
        np.testing.assert_array_equal(upper, lower)
        for k in np.flatnonzero(w.imag > 0):
            mate = np.flatnonzero(w == w[k].conj())[0]
            np.testing.assert_array_equal(v[:, mate], v[:, k].conj())
