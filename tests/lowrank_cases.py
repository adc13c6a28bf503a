"""`svd_lowrank`, `pca_lowrank` and `lobpcg` cases recorded once with torch (tests/golden/record_lowrank.py writes
tests/golden/lowrank.json) and compared by tests/test_lowrank.py. Each case seeds the default generator, whose
draws (one `randn` per call for the low-rank SVD, one per matrix for lobpcg's initial block) are torch's, so the
results agree to rounding; singular and eigenvectors are compared with each column's sign fixed (the largest
entry positive), since that choice is the factorization's, not the algorithm's."""

import ferrograd as fg
import numpy as np
from recorded import error


def _low_rank(m, n, rank, seed, batch=(), noise=1e-3):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((*batch, m, rank)) @ rng.standard_normal((*batch, rank, n))
    return a + noise * rng.standard_normal((*batch, m, n))


def _sign_fixed(t):
    """Columns multiplied by the sign of their largest-magnitude entry."""
    idx = t.abs().argmax(dim=-2, keepdim=True)
    signs = t.gather(-2, idx).sign()
    return t * signs


def _svd_result(U, S, V):
    return {"U": _sign_fixed(U), "S": S, "V": _sign_fixed(V), "shapes": [list(U.shape), list(S.shape), list(V.shape)]}


def _spd(m, seed, batch=()):
    """Symmetric positive definite with well separated eigenvalues 1..m (times a scale)."""
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.standard_normal((*batch, m, m)))
    evals = np.linspace(1.0, 3.0 * m, m)
    return (q * evals) @ np.swapaxes(q, -1, -2)


def _svd_lowrank():
    out = {}
    for name, shape, dtype, kwargs in (
        ("tall_f64", (20, 10), fg.float64, {}),
        ("tall_f32", (20, 10), fg.float32, {}),
        ("wide_f64", (8, 15), fg.float64, {"q": 4}),
        ("niter0", (12, 9), fg.float64, {"q": 5, "niter": 0}),
        ("none_args", (12, 9), fg.float64, {"q": None, "niter": None}),
        ("q_past_n", (10, 4), fg.float64, {"q": 6}),
    ):
        fg.manual_seed(0)
        A = fg.tensor(_low_rank(*shape, rank=3, seed=1), dtype=dtype)
        U, S, V = fg.svd_lowrank(A, **kwargs)
        if dtype == fg.float32:
            # past the rank, the singular vectors of the 1e-3 noise are float32's rounding
            U, V = U[:, :3], V[:, :3]
        out[name] = {**_svd_result(U, S, V), "next_draw": fg.rand(2, dtype=fg.float64)}
    fg.manual_seed(1)
    A = fg.tensor(_low_rank(9, 7, rank=2, seed=2, batch=(2, 3)))
    out["batched"] = _svd_result(*fg.svd_lowrank(A, q=3))
    fg.manual_seed(2)
    A = fg.tensor(_low_rank(10, 6, rank=2, seed=3))
    M = fg.tensor(np.random.default_rng(4).standard_normal(6))
    out["with_M"] = _svd_result(*fg.svd_lowrank(A, q=4, M=M))
    fg.manual_seed(2)
    A = fg.tensor(_low_rank(6, 10, rank=2, seed=3))
    out["wide_with_M"] = _svd_result(*fg.svd_lowrank(A, q=4, M=fg.ones(6, 1, dtype=fg.float64)))
    fg.manual_seed(3)
    out["exact_rank"] = {"S": fg.svd_lowrank(fg.tensor(_low_rank(7, 5, rank=5, seed=5, noise=0.0)), q=5)[1]}
    return out


def _pca_lowrank():
    out = {}
    A = fg.tensor(_low_rank(30, 8, rank=3, seed=6) + 5.0)
    for name, kwargs in (
        ("default", {}),
        ("q3", {"q": 3}),
        ("uncentered", {"center": False, "q": 4}),
        ("niter4", {"q": 4, "niter": 4}),
        ("q0", {"q": 0}),
    ):
        fg.manual_seed(5)
        out[name] = _svd_result(*fg.pca_lowrank(A, **kwargs))
    fg.manual_seed(5)
    out["float32"] = _svd_result(*fg.pca_lowrank(A.float(), q=3))
    fg.manual_seed(6)
    B = fg.tensor(_low_rank(9, 5, rank=2, seed=7, batch=(3,)))
    out["batched"] = _svd_result(*fg.pca_lowrank(B, q=2))
    fg.manual_seed(7)
    dense = _low_rank(12, 6, rank=2, seed=8)
    dense[np.abs(dense) < 1.0] = 0.0
    rows, cols = np.nonzero(dense)
    sparse = fg.sparse_coo_tensor(fg.tensor(np.stack([rows, cols])), fg.tensor(dense[rows, cols]), (12, 6))
    out["sparse"] = _svd_result(*fg.pca_lowrank(sparse, q=3))
    fg.manual_seed(7)
    out["sparse_uncentered"] = _svd_result(*fg.pca_lowrank(sparse, q=3, center=False))
    out["errors"] = {
        "q_negative": error(fg.pca_lowrank, A, q=-1),
        "q_too_big": error(fg.pca_lowrank, A, q=9),
        "niter_negative": error(fg.pca_lowrank, A, niter=-1),
        "sparse_3d": error(fg.pca_lowrank, _sparse_3d(), q=1),
    }
    return out


def _sparse_3d():
    return fg.sparse_coo_tensor(fg.tensor([[0, 1], [0, 1], [1, 0]]), fg.tensor([1.0, 2.0]), (2, 3, 3))


def _lobpcg():
    out = {}
    A = fg.tensor(_spd(15, seed=9))
    for name, kwargs in (
        ("largest_k1", {}),
        ("largest_k2", {"k": 2}),
        ("smallest_k2", {"k": 2, "largest": False}),
        ("basic_k2", {"k": 2, "method": "basic"}),
        ("n3_k2", {"k": 2, "n": 3}),
        ("niter2", {"k": 2, "niter": 2}),
        ("tol", {"k": 2, "tol": 1e-12}),
        ("drop", {"k": 2, "ortho_bparams": {"ortho_use_drop": True}}),
    ):
        fg.manual_seed(10)
        E, X = fg.lobpcg(A, **kwargs)
        out[name] = {"E": E, "X": _sign_fixed(X), "next_draw": fg.rand(2, dtype=fg.float64)}
    X0 = fg.tensor(np.random.default_rng(11).standard_normal((15, 3)))
    E, X = fg.lobpcg(A, X=X0.clone(), k=2)
    out["given_X"] = {"E": E, "X": _sign_fixed(X)}
    B = fg.tensor(_spd(15, seed=12)) / 10
    fg.manual_seed(13)
    E, X = fg.lobpcg(A, k=2, B=B)
    out["generalized"] = {"E": E, "X": _sign_fixed(X)}
    fg.manual_seed(14)
    E, X = fg.lobpcg(A.float(), k=2)
    out["float32"] = {"E": E}
    fg.manual_seed(15)
    E, X = fg.lobpcg(fg.tensor(_spd(12, seed=16, batch=(2,))), k=1)
    out["batched"] = {"E": E, "X": _sign_fixed(X)}
    dense = _spd(12, seed=18)
    dense[np.abs(dense) < 0.5] = 0.0
    rows, cols = np.nonzero(dense)
    sparse = fg.sparse_coo_tensor(fg.tensor(np.stack([rows, cols])), fg.tensor(dense[rows, cols]), (12, 12))
    fg.manual_seed(19)
    E, X = fg.lobpcg(sparse, k=2)
    out["sparse"] = {"E": E, "X": _sign_fixed(X)}
    steps = []
    fg.manual_seed(17)
    fg.lobpcg(A, k=2, tracker=lambda worker: steps.append(worker.ivars["istep"]))
    out["tracker_steps_start"] = steps[:3]
    out["errors"] = {
        "not_square": error(fg.lobpcg, fg.zeros(6, 5, dtype=fg.float64)),
        "too_many": error(fg.lobpcg, A, k=6),
        "B_shape": error(fg.lobpcg, A, B=fg.eye(14, dtype=fg.float64)),
        "X_shape": error(fg.lobpcg, A, X=fg.zeros(15, 2, dtype=fg.float64).unsqueeze(0)),
        "half": error(fg.lobpcg, A.half()),
    }
    return out


CASES = {"svd_lowrank": _svd_lowrank, "pca_lowrank": _pca_lowrank, "lobpcg": _lobpcg}
