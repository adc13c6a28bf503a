"""`ferrograd.linalg`: forward values against numpy.linalg (float64 and float32, batched, non-contiguous),
gradients against finite differences in float64 (first and second order), and errors, bounds and grad_fn
names against PyTorch (tests/golden/linalg.json; cases in tests/cases_linalg.py)."""

import ferrograd as fg
import numpy as np
import pytest
from cases_linalg import CASES
from ferrograd.autograd import gradcheck, gradgradcheck
from helpers import AGAINST_TORCH
from recorded import check, expected

EXPECTED = expected("linalg", CASES)
RNG = np.random.default_rng(0)
TOL = {"float64": 1e-10, "float32": 2e-4}


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])


def well_conditioned(*batch, n=4):
    return RNG.standard_normal((*batch, n, n)) + 3 * np.eye(n)


def spd(*batch, n=4):
    m = RNG.standard_normal((*batch, n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


def layouts(a, dtype):
    """`a` as a contiguous tensor and as a transposed (non-contiguous) view holding the same values."""
    t = fg.tensor(a, dtype=getattr(fg, dtype))
    view = fg.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2)), dtype=getattr(fg, dtype)).mT
    assert not view.is_contiguous() or min(a.shape[-2:]) <= 1
    return [t, view]


def close(actual, desired, dtype):
    np.testing.assert_allclose(actual.numpy(), desired, rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("batch", [(), (3,), (2, 2)])
def test_lu_family_matches_numpy(dtype, batch):
    a = well_conditioned(*batch)
    b = RNG.standard_normal((*batch, 4, 2))
    for t in layouts(a, dtype):
        assert t.dtype == getattr(fg, dtype)
        close(fg.linalg.inv(t), np.linalg.inv(a), dtype)
        close(fg.linalg.det(t), np.linalg.det(a), dtype)
        sign, logabs = fg.linalg.slogdet(t)
        ref_sign, ref_logabs = np.linalg.slogdet(a)
        close(sign, ref_sign, dtype)
        close(logabs, ref_logabs, dtype)
        close(fg.linalg.solve(t, fg.tensor(b, dtype=t.dtype)), np.linalg.solve(a, b), dtype)
        assert fg.linalg.inv(t).dtype == t.dtype and fg.linalg.det(t).shape == batch


def test_solve_broadcasts_and_takes_vectors():
    a, b = well_conditioned(3), RNG.standard_normal((2, 1, 4, 5))
    x = fg.linalg.solve(fg.tensor(a), fg.tensor(b))
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b), rtol=1e-10)
    v = RNG.standard_normal(4)
    np.testing.assert_allclose(
        fg.linalg.solve(fg.tensor(a), fg.tensor(v)).numpy(), np.linalg.solve(a, v[None, :, None])[..., 0], rtol=1e-10
    )
    bl = RNG.standard_normal((3, 5, 4))
    xl = fg.linalg.solve(fg.tensor(a), fg.tensor(bl), left=False)
    np.testing.assert_allclose(xl.numpy() @ a, bl, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("batch", [(), (3,)])
def test_cholesky_and_eigh_match_numpy(dtype, batch):
    a = spd(*batch)
    for t in layouts(a, dtype):
        close(fg.linalg.cholesky(t), np.linalg.cholesky(a), dtype)
        close(fg.linalg.cholesky(t, upper=True), np.swapaxes(np.linalg.cholesky(a), -1, -2), dtype)
        w, v = fg.linalg.eigh(t)
        close(w, np.linalg.eigvalsh(a), dtype)
        close(fg.linalg.eigvalsh(t), np.linalg.eigvalsh(a), dtype)
        # eigenvectors: orthonormal and A V = V diag(w) (their signs are a choice)
        vn, wn = v.double().numpy(), w.double().numpy()
        tol = 10 * TOL[dtype]
        np.testing.assert_allclose(np.swapaxes(vn, -1, -2) @ vn, np.broadcast_to(np.eye(4), vn.shape), atol=tol)
        np.testing.assert_allclose(a @ vn, vn * wn[..., None, :], atol=tol * np.abs(a).max())


def test_eigh_uplo_and_sign_convention():
    a = spd(n=5)
    _, v = fg.linalg.eigh(fg.tensor(a))
    vn = v.numpy()
    largest = vn[np.abs(vn).argmax(0), np.arange(5)]
    # ferrograd's own gauge (torch leaves the signs to LAPACK, so only ferrograd is held to it)
    assert AGAINST_TORCH or (largest > 0).all()
    upper_only = np.triu(a) + np.tril(RNG.standard_normal((5, 5)), -1)
    np.testing.assert_allclose(
        fg.linalg.eigvalsh(fg.tensor(upper_only), UPLO="U").numpy(), np.linalg.eigvalsh(a), rtol=1e-10
    )


def test_norms_match_numpy():
    a = RNG.standard_normal((2, 3, 4))
    t = fg.tensor(a)
    for ord_ in ["fro", 1, -1, float("inf"), float("-inf")]:
        want = np.stack([np.linalg.norm(m, ord_) for m in a])
        np.testing.assert_allclose(fg.linalg.matrix_norm(t, ord_).numpy(), want, rtol=1e-12)
        np.testing.assert_allclose(fg.linalg.norm(t[0], ord_).numpy(), np.linalg.norm(a[0], ord_), rtol=1e-12)
    for ord_ in [0, 1, 2, 3.5, float("inf"), float("-inf")]:
        np.testing.assert_allclose(
            fg.linalg.vector_norm(t, ord_, dim=-1).numpy(), np.linalg.norm(a, ord_, axis=-1), rtol=1e-12
        )
    np.testing.assert_allclose(fg.linalg.norm(t).numpy(), np.linalg.norm(a.ravel()), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4), (3, 1), (0, 2)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_matches_numpy(dtype, shape, full):
    a = RNG.standard_normal(shape)
    for t in layouts(a, dtype):
        U, S, Vh = fg.linalg.svd(t, full_matrices=full)
        nU, nS, nVh = np.linalg.svd(a, full_matrices=full)
        assert U.shape == nU.shape and S.shape == nS.shape and Vh.shape == nVh.shape
        close(S, nS, dtype)
        k = min(shape[-2:])
        u, vh = U.double().numpy(), Vh.double().numpy()
        tol = 10 * TOL[dtype]
        np.testing.assert_allclose((u[..., :k] * S.double().numpy()[..., None, :]) @ vh[..., :k, :], a, atol=tol)
        np.testing.assert_allclose(
            np.swapaxes(u, -1, -2) @ u,
            np.broadcast_to(np.eye(u.shape[-1]), u.shape[:-2] + (u.shape[-1],) * 2),
            atol=tol,
        )
        np.testing.assert_allclose(
            vh @ np.swapaxes(vh, -1, -2),
            np.broadcast_to(np.eye(vh.shape[-2]), vh.shape[:-2] + (vh.shape[-2],) * 2),
            atol=tol,
        )
        close(fg.linalg.svdvals(t), nS, dtype)


def test_pinv_rank_and_spectral_norms_match_numpy():
    a = RNG.standard_normal((2, 5, 3))
    t = fg.tensor(a)
    np.testing.assert_allclose(fg.linalg.pinv(t).numpy(), np.linalg.pinv(a), rtol=1e-9, atol=1e-12)
    low = a[0] @ np.diag([1.0, 1.0, 0.0]) @ RNG.standard_normal((3, 3))
    assert int(fg.linalg.matrix_rank(fg.tensor(low))) == np.linalg.matrix_rank(low) == 2
    for ord_ in [2, -2, "nuc"]:
        want = np.stack([np.linalg.norm(m, ord_) for m in a])
        np.testing.assert_allclose(fg.linalg.matrix_norm(t, ord_).numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_cross_matches_numpy(dtype):
    a = RNG.standard_normal((4, 2, 3))
    b = RNG.standard_normal((1, 2, 3))
    if dtype == "int64":
        a, b = np.round(a * 5), np.round(b * 5)
    want = np.cross(a, b)
    as_fg = {"dtype": getattr(fg, dtype)}
    # a non-contiguous input: the transpose of a contiguous copy
    ta = fg.tensor(np.ascontiguousarray(np.swapaxes(a, 0, 2)), **as_fg).transpose(0, 2)
    tb = fg.tensor(b, **as_fg)
    assert not ta.is_contiguous()
    tol = {"int64": 0, "float64": 1e-12, "float32": 1e-5}[dtype]
    for got in [fg.linalg.cross(ta, tb), fg.cross(ta, tb, dim=2), ta.cross(tb, -1)]:
        assert got.dtype == getattr(fg, dtype) and tuple(got.shape) == want.shape
        np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)
    on_dim0 = fg.linalg.cross(fg.tensor(np.moveaxis(a, 2, 0), **as_fg), fg.tensor(np.moveaxis(b, 2, 0), **as_fg), dim=0)
    np.testing.assert_allclose(on_dim0.numpy(), np.moveaxis(want, 2, 0), rtol=tol, atol=tol)


def test_torch_cross_default_dim_warns_once_and_picks_first_length_3():
    import warnings

    a, b = RNG.standard_normal((3, 3)), RNG.standard_normal((3, 3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = fg.cross(fg.tensor(a), fg.tensor(b))
        fg.cross(fg.tensor(a), fg.tensor(b))
    np.testing.assert_allclose(got.numpy(), np.cross(a, b, axis=0), rtol=1e-12)
    # torch warns once a process (TORCH_WARN_ONCE): an earlier test may have used it up, never twice here
    warned = [w for w in caught if "torch.cross without specifying the dim" in str(w.message)]
    assert len(warned) <= 1
    assert all(w.filename == __file__ for w in warned)  # the caller's line, as torch's (not ferrograd's form)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4), (3, 1), (0, 2), (2, 0)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_matches_numpy(dtype, shape, mode):
    a = RNG.standard_normal(shape)
    for t in layouts(a, dtype):
        Q, R = fg.linalg.qr(t, mode=mode)
        want = np.linalg.qr(a, mode=mode)
        nR = want if mode == "r" else want[1]
        assert R.dtype == t.dtype and R.shape == nR.shape
        # LAPACK's Householder signs: the same R as numpy's (which calls LAPACK too)
        close(R, nR, dtype)
        if mode == "r":
            assert tuple(Q.shape) == (0,)
            continue
        assert Q.shape == want[0].shape
        close(Q, want[0], dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_matrix_power_multi_dot_vander_match_numpy(dtype):
    a = well_conditioned(2, n=3) / 3
    for t in layouts(a, dtype):
        for n in (-3, -1, 0, 1, 2, 3, 4, 7):
            close(fg.linalg.matrix_power(t, n), np.linalg.matrix_power(a, n), dtype)
        close(t.matrix_power(5), np.linalg.matrix_power(a, 5), dtype)
    mats = [RNG.standard_normal(s) for s in [(4,), (4, 2), (2, 6), (6, 3), (3,)]]
    got = fg.linalg.multi_dot([fg.tensor(m, dtype=getattr(fg, dtype)) for m in mats])
    close(got, np.linalg.multi_dot(mats), dtype)
    x = RNG.standard_normal((2, 4))
    close(
        fg.linalg.vander(fg.tensor(x, dtype=getattr(fg, dtype)), N=5),
        np.stack([np.vander(r, 5, True) for r in x]),
        dtype,
    )


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_lstsq_matches_numpy(dtype, shape):
    a = RNG.standard_normal(shape)
    b = RNG.standard_normal((*shape[:-1], 2))
    for t in layouts(a, dtype):
        tb = fg.tensor(b, dtype=t.dtype)
        sol = fg.linalg.lstsq(t, tb, driver="gelsd")
        want = [
            np.linalg.lstsq(m, r, rcond=None) for m, r in zip(a.reshape(-1, *shape[-2:]), b.reshape(-1, *b.shape[-2:]))
        ]
        close(sol.solution, np.stack([w[0] for w in want]).reshape(sol.solution.shape), dtype)
        close(sol.singular_values, np.stack([w[3] for w in want]).reshape(sol.singular_values.shape), dtype)
        assert sol.rank.dtype == fg.int64 and (sol.rank.numpy() == min(shape[-2:])).all()
        if shape[-2] > shape[-1]:
            close(sol.residuals, want[0][1], dtype)
        close(fg.linalg.lstsq(t, tb).solution, sol.solution.double().numpy(), dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
def test_solve_triangular_matches_numpy(dtype, upper, left):
    a = well_conditioned(2, n=4)
    b = RNG.standard_normal((3, 1, 4, 4))
    tri = np.triu(a) if upper else np.tril(a)
    want = (
        np.linalg.solve(tri, b)
        if left
        else np.swapaxes(np.linalg.solve(np.swapaxes(tri, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)
    )
    for t in layouts(a, dtype):
        got = fg.linalg.solve_triangular(t, fg.tensor(b, dtype=t.dtype), upper=upper, left=left)
        assert got.shape == want.shape
        close(got, want, dtype)
    unit = np.triu(a, 1) + np.eye(4) if upper else np.tril(a, -1) + np.eye(4)
    got = fg.linalg.solve_triangular(fg.tensor(a), fg.tensor(b), upper=upper, unitriangular=True)
    close(got, np.linalg.solve(unit, b), "float64")


def test_matrix_exp_of_infinite_entries_is_torchs():
    # a 1×1 matrix is exponentiated elementwise; a larger one with an infinite norm is NaN throughout (it hung,
    # asking for endless squarings)
    inf, nan = float("inf"), float("nan")
    np.testing.assert_array_equal(fg.linalg.matrix_exp(fg.tensor([[inf]])).numpy(), [[inf]])
    np.testing.assert_array_equal(fg.linalg.matrix_exp(fg.tensor([[-inf]])).numpy(), [[0.0]])
    np.testing.assert_allclose(fg.linalg.matrix_exp(fg.tensor([[2.0]])).numpy(), np.exp([[2.0]]), rtol=1e-6)
    for a in ([[inf, 1.0], [0.0, 1.0]], [[-inf, 0.0], [0.0, 1.0]], [[nan, 1.0], [0.0, 1.0]]):
        assert fg.linalg.matrix_exp(fg.tensor(a)).isnan().all()


@pytest.mark.parametrize("scale", [1e-4, 1.0, 30.0])
def test_matrix_exp_matches_series_and_eigh(scale):
    # a symmetric matrix: e^A = V diag(e^w) Vᵀ from numpy's eigh
    m = RNG.standard_normal((2, 4, 4))
    sym = (m + np.swapaxes(m, -1, -2)) * scale / 4
    w, v = np.linalg.eigh(sym)
    want = (v * np.exp(w)[..., None, :]) @ np.swapaxes(v, -1, -2)
    for t in layouts(sym, "float64"):
        np.testing.assert_allclose(fg.linalg.matrix_exp(t).numpy(), want, rtol=1e-11, atol=1e-13)
    # a nilpotent matrix: the series stops, e^N = I + N + N²/2
    n = np.triu(RNG.standard_normal((3, 3)) * scale, 1)
    np.testing.assert_allclose(fg.matrix_exp(fg.tensor(n)).numpy(), np.eye(3) + n + n @ n / 2, rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_and_inverse_match_numpy(dtype, upper):
    a = spd(2)
    low = np.linalg.cholesky(a)
    factor = np.swapaxes(low, -1, -2) if upper else low
    b = RNG.standard_normal((3, 1, 4, 2))
    for t in layouts(factor, dtype):
        close(fg.cholesky_solve(fg.tensor(b, dtype=t.dtype), t, upper), np.linalg.solve(a, b), dtype)
        close(t.cholesky_inverse(upper), np.linalg.inv(a), dtype)


def test_tensor_svd_is_torch_svd():
    a = RNG.standard_normal((4, 3))
    U, S, V = fg.tensor(a).svd()
    np.testing.assert_allclose((U.numpy() * S.numpy()) @ V.numpy().T, a, atol=1e-12)
    assert type(fg.tensor(a).svd(some=False)).__name__ == "svd" and fg.tensor(a).svd(some=False).U.shape == (4, 4)


def leaf(a):
    return fg.tensor(a, dtype=fg.float64, requires_grad=True)


def _sym(m):
    return m + m.mT


def _spd(m):
    return m @ m.mT + 3 * fg.eye(m.shape[-1], dtype=m.dtype)


def _usv(r):
    return (r.U * r.S.unsqueeze(-2)) @ r.Vh


def _gauge_free(r):
    """Functions of the SVD that do not depend on the signs of the singular vectors: U Uᵀ-like projections of the
    first k vectors, scaled by S (what torch's gauge-invariance rule asks of a loss)."""
    k = r.S.shape[-1]
    u, vh = r.U[..., :k], r.Vh[..., :k, :]
    return fg.cat([((u * r.S.unsqueeze(-2)) @ u.mT).flatten(), (vh.mT @ (vh * r.S.unsqueeze(-1))).flatten()])


def _gauge_free_v(r):
    return (r.U * r.S.unsqueeze(-2)) @ r.V.mT


GRADCHECKS = {
    "inv": (fg.linalg.inv, lambda: [well_conditioned(2, n=3)]),
    "inverse": (fg.inverse, lambda: [well_conditioned(n=3)]),
    "det": (fg.linalg.det, lambda: [well_conditioned(2, n=3)]),
    "Tensor.det": (lambda a: a.det(), lambda: [well_conditioned(n=3)]),
    "slogdet": (lambda a: fg.linalg.slogdet(a).logabsdet, lambda: [well_conditioned(2, n=3)]),
    "logdet": (lambda a: fg.logdet(_spd(a)), lambda: [RNG.standard_normal((3, 3))]),
    "solve": (fg.linalg.solve, lambda: [well_conditioned(2, n=3), RNG.standard_normal((2, 3, 2))]),
    "solve_vector": (fg.linalg.solve, lambda: [well_conditioned(2, n=3), RNG.standard_normal((2, 3))]),
    "solve_broadcast": (fg.linalg.solve, lambda: [well_conditioned(n=3), RNG.standard_normal((2, 3, 2))]),
    "solve_left_false": (
        lambda a, b: fg.linalg.solve(a, b, left=False),
        lambda: [well_conditioned(n=3), RNG.standard_normal((2, 3))],
    ),
    "cholesky": (lambda a: fg.linalg.cholesky(_spd(a)), lambda: [RNG.standard_normal((2, 3, 3))]),
    "cholesky_upper": (lambda a: fg.linalg.cholesky(_spd(a), upper=True), lambda: [RNG.standard_normal((3, 3))]),
    "eigvalsh": (lambda a: fg.linalg.eigvalsh(_sym(a)), lambda: [RNG.standard_normal((2, 3, 3))]),
    "eigh_vectors": (lambda a: fg.linalg.eigh(_sym(a)).eigenvectors, lambda: [RNG.standard_normal((3, 3))]),
    "eigh_both": (lambda a: fg.linalg.eigh(_sym(a)), lambda: [RNG.standard_normal((4, 4))]),
    "matrix_norm_fro": (fg.linalg.matrix_norm, lambda: [RNG.standard_normal((2, 3, 4))]),
    "matrix_norm_1": (lambda a: fg.linalg.matrix_norm(a, 1), lambda: [RNG.standard_normal((2, 3, 4))]),
    "matrix_norm_-inf": (lambda a: fg.linalg.matrix_norm(a, float("-inf")), lambda: [RNG.standard_normal((3, 4))]),
    "svdvals": (fg.linalg.svdvals, lambda: [RNG.standard_normal((2, 4, 3))]),
    "svd_tall_product": (lambda a: _usv(fg.linalg.svd(a, full_matrices=False)), lambda: [RNG.standard_normal((4, 3))]),
    "svd_wide_product": (lambda a: _usv(fg.linalg.svd(a, full_matrices=False)), lambda: [RNG.standard_normal((3, 4))]),
    "svd_full_gauge_invariant": (lambda a: _gauge_free(fg.linalg.svd(a)), lambda: [RNG.standard_normal((4, 3))]),
    "svd_wide_full_gauge_invariant": (lambda a: _gauge_free(fg.linalg.svd(a)), lambda: [RNG.standard_normal((3, 4))]),
    "torch_svd": (lambda a: _gauge_free_v(fg.svd(a)), lambda: [RNG.standard_normal((4, 3))]),
    "pinv": (fg.linalg.pinv, lambda: [RNG.standard_normal((2, 4, 3))]),
    "pinverse": (fg.pinverse, lambda: [RNG.standard_normal((3, 4))]),
    "matrix_norm_2": (lambda a: fg.linalg.matrix_norm(a, 2), lambda: [RNG.standard_normal((3, 4))]),
    "matrix_norm_nuc": (lambda a: fg.linalg.matrix_norm(a, "nuc"), lambda: [RNG.standard_normal((3, 4))]),
    "vector_norm_3": (lambda a: fg.linalg.vector_norm(a, 3, dim=1), lambda: [RNG.standard_normal((3, 4))]),
    "cross": (fg.linalg.cross, lambda: [RNG.standard_normal((2, 3)), RNG.standard_normal((1, 3))]),
    "cross_dim0": (lambda a, b: fg.cross(a, b, dim=0), lambda: [RNG.standard_normal((3, 2))] * 2),
    "qr_tall": (fg.linalg.qr, lambda: [RNG.standard_normal((2, 4, 3))]),
    "qr_square_complete": (lambda a: fg.linalg.qr(a, "complete"), lambda: [RNG.standard_normal((3, 3))]),
    "qr_tall_r_only": (lambda a: fg.linalg.qr(a).R, lambda: [RNG.standard_normal((4, 2))]),
    "qr_tall_q_only": (lambda a: fg.linalg.qr(a).Q, lambda: [RNG.standard_normal((4, 2))]),
    "qr_wide": (fg.linalg.qr, lambda: [RNG.standard_normal((2, 4))]),
    "matrix_power_5": (lambda a: fg.linalg.matrix_power(a, 5), lambda: [well_conditioned(2, n=3) / 3]),
    "matrix_power_-2": (lambda a: fg.linalg.matrix_power(a, -2), lambda: [well_conditioned(n=3)]),
    "matrix_power_0": (lambda a: fg.linalg.matrix_power(a, 0), lambda: [well_conditioned(n=3)]),
    "multi_dot": (
        lambda a, b, c: fg.linalg.multi_dot([a, b, c]),
        lambda: [RNG.standard_normal(4), RNG.standard_normal((4, 2)), RNG.standard_normal((2, 3))],
    ),
    "vander": (lambda x: fg.linalg.vander(x, N=4), lambda: [RNG.standard_normal((2, 3))]),
    "lstsq_tall": (
        lambda a, b: fg.linalg.lstsq(a, b).solution,
        lambda: [RNG.standard_normal((4, 3)), RNG.standard_normal((4, 2))],
    ),
    "lstsq_wide_batched": (
        lambda a, b: fg.linalg.lstsq(a, b).solution,
        lambda: [RNG.standard_normal((2, 2, 3)), RNG.standard_normal((2, 2, 1))],
    ),
    "lstsq_vector_broadcast": (
        lambda a, b: fg.linalg.lstsq(a, b).solution,
        lambda: [RNG.standard_normal((4, 3)), RNG.standard_normal(4)],
    ),
    "solve_triangular_upper": (
        lambda a, b: fg.linalg.solve_triangular(a, b, upper=True),
        lambda: [well_conditioned(2, n=3), RNG.standard_normal((3, 2))],
    ),
    "solve_triangular_lower_right_unit": (
        lambda a, b: fg.linalg.solve_triangular(a, b, upper=False, left=False, unitriangular=True),
        lambda: [well_conditioned(n=3), RNG.standard_normal((2, 2, 3))],
    ),
    "matrix_exp": (fg.linalg.matrix_exp, lambda: [RNG.standard_normal((2, 3, 3))]),
    "matrix_exp_large": (fg.matrix_exp, lambda: [RNG.standard_normal((3, 3)) * 4]),
    "cholesky_solve": (
        lambda b, m: fg.cholesky_solve(b, fg.linalg.cholesky(_spd(m))),
        lambda: [RNG.standard_normal((2, 3, 2)), RNG.standard_normal((3, 3))],
    ),
    "cholesky_solve_upper": (
        lambda b, m: fg.cholesky_solve(b, fg.linalg.cholesky(_spd(m), upper=True), upper=True),
        lambda: [RNG.standard_normal((3, 2)), RNG.standard_normal((2, 3, 3))],
    ),
    "cholesky_inverse": (
        lambda m: fg.cholesky_inverse(fg.linalg.cholesky(_spd(m))),
        lambda: [RNG.standard_normal((3, 3))],
    ),
    "qr_wide_complete_r": (lambda a: fg.linalg.qr(a, "complete").R, lambda: [RNG.standard_normal((2, 2, 3))]),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKS))
def test_gradcheck(name):
    fn, make = GRADCHECKS[name]
    inputs = [leaf(a) for a in make()]
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


def test_grad_flows_to_both_eigh_outputs_only_where_used():
    a = leaf(spd(n=3))
    w, v = fg.linalg.eigh(a)
    (g,) = fg.autograd.grad(w.sum(), a)
    # d(sum of eigenvalues)/dA = d trace(A)/dA = I (the lower triangle is read, the rule is torch's)
    np.testing.assert_allclose(g.numpy(), np.eye(3), atol=1e-12)


def test_linalg_error_is_a_runtime_error():
    assert issubclass(fg.linalg.LinAlgError, RuntimeError)
    with pytest.raises(RuntimeError, match="singular"):
        fg.linalg.inv(fg.zeros(2, 2))
