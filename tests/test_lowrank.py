"""`svd_lowrank`, `pca_lowrank` and `lobpcg` against torch's recorded results (tests/lowrank_cases.py; the
seeded random draws are torch's, so the results agree to rounding), and their gradients by gradcheck in
float64 (torch passes the same checks: FG_TEST_AGAINST_TORCH=1)."""

import ferrograd as fg
import lowrank_cases
import numpy as np
import pytest
import recorded
from ferrograd.autograd import gradcheck

EXPECTED = recorded.expected("lowrank", lowrank_cases.CASES)
# lobpcg stops at a residual of sqrt(eps) (1.5e-8 in float64), so its iterates' rounding shows past that


@pytest.mark.parametrize("name", sorted(lowrank_cases.CASES))
def test_matches_torch(name):
    recorded.check(name, lowrank_cases.CASES[name], EXPECTED[name])


def _matrix(m, n, rank=None, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, n)) if rank is None else rng.standard_normal((m, rank)) @ rng.standard_normal((rank, n))
    return fg.tensor(a, requires_grad=True)


def test_svd_lowrank_gradients():
    A = _matrix(7, 5)
    # q = n: the factorization is exact, so each call gives the same values whatever its random draw
    assert gradcheck(lambda a: fg.svd_lowrank(a, q=5)[1], (A,))
    assert gradcheck(lambda a: (lambda U, S, V: (U * S) @ V.mT)(*fg.svd_lowrank(a, q=5)), (A,))
    assert gradcheck(lambda a: (lambda U, S, V: U @ U.mT)(*fg.svd_lowrank(a, q=3)), (_matrix(7, 5, rank=3),))
    wide = _matrix(4, 6, seed=1)
    assert gradcheck(lambda a: fg.svd_lowrank(a, q=4, niter=1)[1], (wide,))


def test_pca_lowrank_gradients():
    assert gradcheck(lambda a: fg.pca_lowrank(a, q=5)[1], (_matrix(7, 5, seed=2),))
    assert gradcheck(lambda a: fg.pca_lowrank(a, q=4, center=False)[1], (_matrix(6, 4, seed=3),))


def _spd(m, seed):
    return fg.tensor(lowrank_cases._spd(m, seed=seed), requires_grad=True)


def test_lobpcg_gradients_through_its_custom_backward():
    S = _spd(9, seed=4)
    E, X = fg.lobpcg(S, k=2)
    assert type(E.grad_fn).__name__ == "LOBPCGAutogradFunctionBackward"
    assert gradcheck(lambda a: fg.lobpcg(a, k=2)[0], (S,))
    # the eigenvectors' projector is sign-free; a tight tol makes them accurate enough for finite differences
    # (an odd and an even k: the Sylvester solve's sign flips with them when the largest are taken)
    for k, largest in ((2, True), (3, True), (2, False)):

        def projector(a, k=k, largest=largest):
            _, X = fg.lobpcg(a, k=k, tol=1e-12, largest=largest)
            return X @ X.mT

        assert gradcheck(projector, (S,))


def test_lobpcg_backward_refuses_what_torch_refuses():
    S = _spd(9, seed=6)
    B = fg.eye(9, dtype=fg.float64)
    E, _ = fg.lobpcg(S, k=1, B=B)
    with pytest.raises(ValueError, match=r"lobpcg.backward does not support backward with B != I yet."):
        E.sum().backward()


def test_lobpcg_symmetrizes_a_grad_input():
    """A requiring grad is replaced by (A + Aᵀ) / 2, so its gradient is symmetric."""
    S = _spd(9, seed=7)
    E, _ = fg.lobpcg(S, k=1)
    E.sum().backward()
    assert fg.allclose(S.grad, S.grad.mT)
