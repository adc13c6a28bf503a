"""linalg.householder_product / orgqr (what parametrizations.orthogonal's householder map runs): against the
product of the reflectors built in numpy, batched, complex, k < n and k = 0; gradchecked in float64; torch's
errors."""

import ferrograd as fg
import numpy as np
import pytest
from helpers import gradcheck


def _reflector_product(A, tau):
    m, n = A.shape
    Q = np.eye(m, dtype=A.dtype)
    for i in range(len(tau)):
        v = np.zeros(m, dtype=A.dtype)
        v[i] = 1
        v[i + 1 :] = A[i + 1 :, i]
        Q = Q @ (np.eye(m, dtype=A.dtype) - tau[i] * np.outer(v, v.conj()))
    return Q[:, :n]


@pytest.mark.parametrize("shape, k", [((4, 3), 3), ((5, 2), 1), ((3, 3), 0), ((2, 4, 3), 2), ((1, 1), 1)])
def test_against_the_reflectors(shape, k, rng):
    A = rng.standard_normal(shape)
    tau = rng.uniform(0, 2, shape[:-2] + (k,))
    got = fg.linalg.householder_product(fg.tensor(A), fg.tensor(tau)).numpy()
    flat_A = A.reshape(-1, *shape[-2:])
    flat_tau = tau.reshape(len(flat_A), k)
    want = np.stack([_reflector_product(a, t) for a, t in zip(flat_A, flat_tau)]).reshape(got.shape)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fg.orgqr(fg.tensor(A), fg.tensor(tau)).numpy(), got)


def test_complex(rng):
    A = rng.standard_normal((4, 3)) + 1j * rng.standard_normal((4, 3))
    tau = rng.uniform(0, 2, 3) + 1j * rng.uniform(-0.5, 0.5, 3)
    got = fg.linalg.householder_product(fg.tensor(A), fg.tensor(tau)).numpy()
    np.testing.assert_allclose(got, _reflector_product(A, tau), rtol=1e-12, atol=1e-12)


def test_float32_gives_an_orthogonal_q_from_geqrf(rng):
    A = fg.tensor(rng.standard_normal((6, 4)), dtype=fg.float32)
    reflectors, tau = A.geqrf()
    Q = fg.linalg.householder_product(reflectors, tau)
    assert Q.dtype == fg.float32
    np.testing.assert_allclose((Q.mT @ Q).numpy(), np.eye(4), atol=1e-5)


def test_gradcheck(rng):
    gradcheck(fg.linalg.householder_product, [rng.standard_normal((2, 4, 3)), rng.uniform(0, 2, (2, 2))])


@pytest.mark.parametrize(
    "A, tau, kind, message",
    [
        ((3,), (1,), RuntimeError, "input must have at least 2 dimensions."),
        ((2, 3), (1,), RuntimeError, r"input.shape\[-2\] must be greater than or equal to input.shape\[-1\]"),
        ((3, 2), (3,), RuntimeError, r"input.shape\[-1\] must be greater than or equal to tau.shape\[-1\]"),
        (
            (3, 2),
            (1, 1),
            RuntimeError,
            "Expected tau to have one dimension less than input, but got tau.ndim equal "
            "to 2 and input.ndim is equal to 2",
        ),  # fmt: skip
        (
            (2, 3, 2),
            (3, 1),
            RuntimeError,
            r"Expected batch dimensions of tau to be equal to input.shape\[:-2\], but "
            r"got \[3\]",
        ),  # fmt: skip
    ],
)
def test_errors(A, tau, kind, message):
    with pytest.raises(kind, match=message):
        fg.linalg.householder_product(fg.ones(A), fg.ones(tau))


def test_dtype_errors():
    with pytest.raises(RuntimeError, match="tau dtype Double does not match input dtype Float"):
        fg.linalg.householder_product(fg.ones(3, 2), fg.ones(1, dtype=fg.float64))
    with pytest.raises(NotImplementedError, match="\"orgqr_cpu\" not implemented for 'Long'"):
        fg.linalg.householder_product(fg.ones(3, 2, dtype=fg.int64), fg.ones(1, dtype=fg.int64))
    with pytest.raises(TypeError, match="must be Tensor"):
        fg.linalg.householder_product([[1.0]], fg.ones(1))
