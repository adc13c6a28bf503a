"""`torch.svd_lowrank` and `torch.pca_lowrank`: randomized SVD (Halko, Martinsson and Tropp 2009, Algorithms 4.4
and 5.1) composed of differentiable ops (matmul, `linalg.qr`, `linalg.svd`), so gradients flow as in torch. The
random test matrix is one `randn(n, q)` from the default generator, torch's only draw, so seeded results are
torch's to rounding."""

import ferrograd as _fg

__all__ = ["svd_lowrank", "pca_lowrank"]


def _is_sparse(A):
    if isinstance(A, _fg.Tensor):
        return False
    if isinstance(A, _fg.sparse.SparseTensor):
        return True
    raise TypeError(f"expected Tensor but got {type(A)}")


def _floating_dtype(A):
    """The dtype the random matrices take: A's when it is a real floating type torch keeps, else float32."""
    return A.dtype if A.dtype in (_fg.float16, _fg.float32, _fg.float64) else _fg.float32


def _adjoint(A):
    return A.t() if _is_sparse(A) else A.mH


def _mm(A, B):
    return _fg.sparse.mm(A, B) if _is_sparse(A) else _fg.matmul(A, B)


def get_approximate_basis(A, q, niter=2, M=None):
    """Q with q orthonormal columns such that Q Qᴴ (A - M) approximates A - M (Halko et al., Algorithm 4.4)."""
    niter = 2 if niter is None else niter
    dtype = A.dtype if A.dtype.is_complex else _floating_dtype(A)
    R = _fg.randn(A.shape[-1], q, dtype=dtype)

    def apply(op, op_m, basis):
        X = _mm(op, basis)
        return X if op_m is None else X - _fg.matmul(op_m, basis)

    A_h = _adjoint(A)
    M_h = None if M is None else M.mH
    Q = _fg.linalg.qr(apply(A, M, R)).Q
    for _ in range(niter):
        Q = _fg.linalg.qr(apply(A_h, M_h, Q)).Q
        Q = _fg.linalg.qr(apply(A, M, Q)).Q
    return Q


def svd_lowrank(A, q=6, niter=2, M=None):
    r"""(U, S, V) with ``A ≈ U diag(S) Vᴴ`` (of ``A - M`` when `M` is given, broadcast to A's size), by
    randomized subspace iteration: `q` a slightly overestimated rank, `niter` the subspace iterations."""
    return _svd_lowrank(A, q=q, niter=niter, M=M)


def _svd_lowrank(A, q=6, niter=2, M=None):
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    # the algorithm wants a tall matrix: a wide one is handled through its adjoint
    wide = m < n
    if wide:
        A = _adjoint(A)
        M = None if M is None else M.mH
    Q = get_approximate_basis(A, q, niter=niter, M=M)
    Q_h = Q.mH
    # Qᴴ A for a sparse A is (Aᴴ Q)ᴴ: the sparse operand on the left, as torch.sparse.mm takes it
    B = _mm(_adjoint(A), Q).mH if _is_sparse(A) else _fg.matmul(Q_h, A)
    if M is not None:
        B = B - _fg.matmul(Q_h, M)
    U, S, Vh = _fg.linalg.svd(B, full_matrices=False)
    V = Vh.mH
    U = Q.matmul(U)
    if wide:
        U, V = V, U
    return U, S, V


def pca_lowrank(A, q=None, center=True, niter=2):
    r"""Principal component analysis of a (batch of) low-rank matrix: (U, S, V), the near-optimal SVD of A
    centered over its rows (``center=True``); ``q`` defaults to ``min(6, m, n)``."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    dtype = _floating_dtype(A)
    if not center:
        return _svd_lowrank(A, q, niter=niter, M=None)
    if _is_sparse(A):
        if len(A.shape) != 2:
            raise ValueError("pca_lowrank input is expected to be 2-dimensional tensor")
        # torch's mean matrix is dense (m, n) too: the column means repeated over the rows
        c = A.to_dense().sum(dim=-2, keepdim=True).to(dtype) / m
        return _svd_lowrank(A, q, niter=niter, M=c.expand(m, n))
    C = A.mean(dim=(-2,), keepdim=True)
    return _svd_lowrank(A - C, q, niter=niter, M=None)
