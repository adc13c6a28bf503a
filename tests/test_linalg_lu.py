"""The LU family (`linalg.lu_factor`, `lu_factor_ex`, `lu`, `lu_solve`, `torch.lu`, `lu_unpack`, `lu_solve`) and
`linalg.vecdot`: the factors against their definition (P L U = A, LAPACK's pivot choice) and the solves against
numpy.linalg, in float64 and float32, batched and non-contiguous; gradients against finite differences in float64
(first and second order); errors, bounds, grad_fn names and saved fields against PyTorch
(tests/golden/linalg_lu.json; cases in tests/cases_linalg_lu.py)."""

import warnings

import ferrograd as fg
import numpy as np
import pytest
from cases_linalg_lu import CASES
from ferrograd.autograd import gradcheck, gradgradcheck
from recorded import check, expected
from test_linalg import TOL, layouts, leaf

EXPECTED = expected("linalg_lu", CASES)
RNG = np.random.default_rng(0)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])


def reference_getrf(a):
    """Textbook partial pivoting (first largest magnitude in the column) in numpy: (LU, 1-based pivots)."""
    lu = a.astype(np.float64).copy()
    m, n = lu.shape
    pivots = []
    for j in range(min(m, n)):
        p = j + int(np.argmax(np.abs(lu[j:, j])))
        pivots.append(p + 1)
        lu[[j, p]] = lu[[p, j]]
        if lu[j, j] != 0:
            lu[j + 1 :, j] /= lu[j, j]
            lu[j + 1 :, j + 1 :] -= np.outer(lu[j + 1 :, j], lu[j, j + 1 :])
    return lu, np.array(pivots, dtype=np.int32)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 3, 4, 4), (2, 4, 2)])
def test_lu_factor_matches_reference_and_reconstructs(dtype, shape):
    a = RNG.standard_normal(shape)
    flat = a.reshape(-1, *shape[-2:])
    want = [reference_getrf(m) for m in flat]
    tol = TOL[dtype]
    for t in layouts(a, dtype):
        LU, pivots = fg.linalg.lu_factor(t)
        assert LU.dtype == t.dtype and pivots.dtype == fg.int32 and LU.shape == shape
        np.testing.assert_array_equal(pivots.numpy().reshape(len(flat), -1), np.stack([w[1] for w in want]))
        np.testing.assert_allclose(LU.double().numpy().reshape(flat.shape), np.stack([w[0] for w in want]), atol=tol)
        P, L, U = fg.linalg.lu(t)
        np.testing.assert_allclose((P @ L @ U).double().numpy(), a, atol=10 * tol)
        for got, unpacked in zip((P, L, U), fg.lu_unpack(LU, pivots)):
            np.testing.assert_allclose(got.numpy(), unpacked.numpy(), atol=tol)
        ex = fg.linalg.lu_factor_ex(t)
        assert (ex.info.numpy() == 0).all() and ex.info.shape == shape[:-2] and ex.info.dtype == fg.int32


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve_matches_numpy(dtype, left, adjoint):
    a = RNG.standard_normal((2, 4, 4)) + 3 * np.eye(4)
    b = RNG.standard_normal((3, 1, 4, 2) if left else (3, 1, 2, 4))
    op = np.swapaxes(a, -1, -2) if adjoint else a
    if left:
        want = np.linalg.solve(op, b)
    else:
        want = np.swapaxes(np.linalg.solve(np.swapaxes(op, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)
    for t in layouts(a, dtype):
        LU, pivots = fg.linalg.lu_factor(t)
        got = fg.linalg.lu_solve(LU, pivots, fg.tensor(b, dtype=t.dtype), left=left, adjoint=adjoint)
        assert got.shape == want.shape and got.dtype == t.dtype
        np.testing.assert_allclose(got.numpy(), want, rtol=TOL[dtype], atol=TOL[dtype])


def test_torch_lu_and_lu_solve_warn_once_each():
    a = fg.tensor(RNG.standard_normal((3, 3)) + 3 * np.eye(3))
    b = fg.tensor(RNG.standard_normal((3, 2)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            LU, pivots = fg.lu(a)
            x = fg.lu_solve(b, LU, pivots)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a.numpy(), b.numpy()), rtol=1e-10)
    # torch warns once a process (TORCH_WARN_ONCE): an earlier test may have used them up, never twice here
    assert len([w for w in caught if "torch.lu is deprecated" in str(w.message)]) <= 1
    assert len([w for w in caught if "torch.lu_solve is deprecated" in str(w.message)]) <= 1


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
def test_triangular_solve_matches_numpy(upper, transpose):
    a = RNG.standard_normal((2, 4, 4)) + 3 * np.eye(4)
    b = RNG.standard_normal((3, 1, 4, 2))
    tri = np.triu(a) if upper else np.tril(a)
    want = np.linalg.solve(np.swapaxes(tri, -1, -2) if transpose else tri, b)
    for t in layouts(a, "float64"):
        got = fg.triangular_solve(fg.tensor(b), t, upper=upper, transpose=transpose)
        np.testing.assert_allclose(got.solution.numpy(), want, rtol=1e-10)
        np.testing.assert_array_equal(got.cloned_coefficient.numpy(), np.broadcast_to(a, (3, 2, 4, 4)))


@pytest.mark.parametrize("increasing", [False, True])
def test_torch_vander_matches_numpy(increasing):
    x = RNG.standard_normal(5)
    for n in (None, 0, 1, 3, 7):
        got = fg.vander(fg.tensor(x), n, increasing)
        np.testing.assert_allclose(got.numpy(), np.vander(x, n, increasing), rtol=1e-12)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
def test_geqrf_matches_numpy_raw_qr(shape):
    a = RNG.standard_normal(shape)
    # numpy's mode='raw' is LAPACK's geqrf output, in Fortran order
    h, tau = np.linalg.qr(a, mode="raw")
    for t in layouts(a, "float64"):
        got = fg.geqrf(t)
        np.testing.assert_allclose(got.a.numpy(), h.T, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got.tau.numpy(), tau, rtol=1e-10, atol=1e-12)


def test_vecdot_matches_numpy():
    x, y = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((3, 4))
    got = fg.linalg.vecdot(fg.tensor(x), fg.tensor(y))
    np.testing.assert_allclose(got.numpy(), (x * y).sum(-1), rtol=1e-12)
    got = fg.linalg.vecdot(fg.tensor(x), fg.tensor(y[:, :1]), dim=1)
    np.testing.assert_allclose(got.numpy(), (x * y[:, :1]).sum(1), rtol=1e-12)


@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", float("inf"), float("-inf"), 1, -1])
def test_cond_matches_numpy(p):
    a = RNG.standard_normal((2, 4, 4))
    for t in layouts(a, "float64"):
        np.testing.assert_allclose(fg.linalg.cond(t, p).numpy(), np.linalg.cond(a, p), rtol=1e-9)
    if p in (None, 2, -2):
        wide = RNG.standard_normal((3, 5))
        np.testing.assert_allclose(fg.linalg.cond(fg.tensor(wide), p).numpy(), np.linalg.cond(wide, p), rtol=1e-9)


def test_tensorinv_and_tensorsolve_match_numpy():
    a = RNG.standard_normal((4, 6, 8, 3))
    np.testing.assert_allclose(
        fg.linalg.tensorinv(fg.tensor(a), ind=2).numpy(), np.linalg.tensorinv(a, ind=2), rtol=1e-8, atol=1e-10
    )
    b = RNG.standard_normal((4, 6))
    np.testing.assert_allclose(
        fg.linalg.tensorsolve(fg.tensor(a), fg.tensor(b)).numpy(), np.linalg.tensorsolve(a, b), rtol=1e-8, atol=1e-10
    )
    a = RNG.standard_normal((6, 2, 3))
    b = RNG.standard_normal((2, 3))
    np.testing.assert_allclose(
        fg.linalg.tensorsolve(fg.tensor(a), fg.tensor(b), dims=(0,)).numpy(),
        np.linalg.tensorsolve(a, b, axes=(0,)),
        rtol=1e-8,
        atol=1e-10,
    )


def _well_conditioned(*shape):
    """A random matrix whose partial pivoting is stable under gradcheck's perturbations."""
    a = RNG.standard_normal(shape)
    k = min(shape[-2:])
    a[..., :k, :k] += 4 * np.eye(k)[: shape[-2], : shape[-1]]
    return a


def _lu_solve(left, adjoint):
    def fn(a, b):
        LU, pivots = fg.linalg.lu_factor(a)
        return fg.linalg.lu_solve(LU, pivots, b, left=left, adjoint=adjoint)

    return fn


def _unpacked(a):
    P, L, U = fg.lu_unpack(*fg.linalg.lu_factor(a))
    return L, U


GRADCHECKS = {
    "lu_factor_square": (lambda a: fg.linalg.lu_factor(a).LU, lambda: [_well_conditioned(2, 3, 3)]),
    "lu_factor_tall": (lambda a: fg.linalg.lu_factor(a).LU, lambda: [_well_conditioned(4, 2)]),
    "lu_factor_wide": (lambda a: fg.linalg.lu_factor_ex(a).LU, lambda: [_well_conditioned(2, 2, 4)]),
    "lu_square": (lambda a: fg.linalg.lu(a)[1:], lambda: [_well_conditioned(3, 3)]),
    "lu_tall": (lambda a: fg.linalg.lu(a)[1:], lambda: [_well_conditioned(2, 4, 3)]),
    "lu_wide": (lambda a: fg.linalg.lu(a)[1:], lambda: [_well_conditioned(3, 5)]),
    "lu_wide_l_only": (lambda a: fg.linalg.lu(a).L, lambda: [_well_conditioned(2, 4)]),
    "lu_wide_u_only": (lambda a: fg.linalg.lu(a).U, lambda: [_well_conditioned(2, 4)]),
    "lu_tall_l_only": (lambda a: fg.linalg.lu(a).L, lambda: [_well_conditioned(4, 2)]),
    "lu_tall_u_only": (lambda a: fg.linalg.lu(a).U, lambda: [_well_conditioned(4, 2)]),
    "lu_unpack_square": (_unpacked, lambda: [_well_conditioned(3, 3)]),
    "lu_unpack_wide": (_unpacked, lambda: [_well_conditioned(2, 3)]),
    "lu_unpack_tall": (_unpacked, lambda: [_well_conditioned(2, 3, 2)]),
    "torch_lu": (lambda a: fg.lu(a)[0], lambda: [_well_conditioned(3, 3)]),
    "lu_solve": (_lu_solve(True, False), lambda: [_well_conditioned(3, 3), RNG.standard_normal((3, 2))]),
    "lu_solve_adjoint": (_lu_solve(True, True), lambda: [_well_conditioned(2, 3, 3), RNG.standard_normal((3, 2))]),
    "lu_solve_right": (_lu_solve(False, False), lambda: [_well_conditioned(3, 3), RNG.standard_normal((2, 2, 3))]),
    "lu_solve_right_adjoint": (_lu_solve(False, True), lambda: [_well_conditioned(3, 3), RNG.standard_normal((1, 3))]),
    "cond_2": (fg.linalg.cond, lambda: [_well_conditioned(2, 3, 3)]),
    "cond_minus_2_wide": (lambda a: fg.linalg.cond(a, -2), lambda: [RNG.standard_normal((2, 4))]),
    "cond_nuc": (lambda a: fg.linalg.cond(a, "nuc"), lambda: [_well_conditioned(3, 3)]),
    "tensorinv": (lambda a: fg.linalg.tensorinv(a.reshape(2, 3, 6), ind=2), lambda: [_well_conditioned(6, 6)]),
    "tensorsolve": (
        lambda a, b: fg.linalg.tensorsolve(a.reshape(2, 3, 6), b),
        lambda: [_well_conditioned(6, 6), RNG.standard_normal((2, 3))],
    ),
    "triangular_solve": (
        lambda b, a: fg.triangular_solve(b, a),
        lambda: [RNG.standard_normal((3, 2)), _well_conditioned(2, 3, 3)],
    ),
    "triangular_solve_lower_transpose_unit": (
        lambda b, a: fg.triangular_solve(b, a, upper=False, transpose=True, unitriangular=True),
        lambda: [RNG.standard_normal((2, 3, 2)), _well_conditioned(3, 3)],
    ),
    "triangular_solve_transpose_with_copy": (
        lambda b, a: fg.triangular_solve(b, a, transpose=True),
        lambda: [RNG.standard_normal((3, 1)), _well_conditioned(3, 3)],
    ),
    "vecdot": (fg.linalg.vecdot, lambda: [RNG.standard_normal((2, 3)), RNG.standard_normal(3)]),
    "vecdot_vectors": (fg.linalg.vecdot, lambda: [RNG.standard_normal(3), RNG.standard_normal(3)]),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKS))
def test_gradcheck(name):
    fn, make = GRADCHECKS[name]
    inputs = [leaf(a) for a in make()]
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)
