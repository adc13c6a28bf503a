"""`torch.lobpcg`: the k largest (or smallest) eigenpairs of a symmetric (generalized) eigenproblem by
Locally Optimal Block Preconditioned Conjugate Gradient iterations (Knyazev 2001, "basic"; with the
orthogonalized basis of Stathopoulos and Wu 2002 and Duersch et al. 2018, "ortho", the default), composed of
tensor ops as torch composes it. The initial block, when not given, is one `randn(m, n)` per matrix from the
default generator, as torch draws it, so seeded runs follow torch's iterates.

Gradients (A only, B = I, as torch) come from a custom backward: the symmetric eigen-decomposition's
gradient, completed by the solution of a Sylvester equation when only k < m eigenpairs are known."""

import ferrograd as _fg
from ferrograd.autograd import Function as _Function

__all__ = ["lobpcg"]


def _matmul(A, B):
    """A @ B, with A = None meaning the identity (B is a dense block; A may be sparse)."""
    if A is None:
        return B
    if isinstance(A, _fg.sparse.SparseTensor):
        return _fg.sparse.mm(A, B)
    return _fg.matmul(A, B)


def _qform(A, S):
    """Sᵀ A S."""
    return _fg.matmul(S.mT, _matmul(A, S))


def _symeig(A, largest=False):
    E, Z = _fg.linalg.eigh(A, UPLO="U")
    if largest:
        return _fg.flip(E, (-1,)), _fg.flip(Z, (-1,))
    return E, Z


# ---- backward -------------------------------------------------------------------------------------------------


def _symeig_backward_complete_eigenspace(D_grad, U_grad, A, D, U):
    # F_ij = 1 / (d_j - d_i) off the diagonal, 0 on it
    F = D.unsqueeze(-2) - D.unsqueeze(-1)
    F.diagonal(dim1=-2, dim2=-1).fill_(float("inf"))
    F = F.pow(-1)
    Ut = U.mT.contiguous()
    return _fg.matmul(U, _fg.matmul(_fg.diag_embed(D_grad) + _fg.matmul(Ut, U_grad) * F, Ut))


def _characteristic_coefficients(roots):
    """(a_0, ..., a_{n-1}, 1) of prod_i (x - r_i), along the last dim, built with out-of-place steps so that it
    differentiates."""
    order = roots.shape[-1]
    coeffs = roots.new_zeros((*roots.shape[:-1], order + 2))
    coeffs[..., 0] = 1
    coeffs[..., -1] = 1
    for i in range(1, order + 1):
        updated = coeffs.clone() if roots.requires_grad else coeffs
        window = updated.narrow(-1, order - i, i + 1)
        window -= roots.narrow(-1, i - 1, 1) * coeffs.narrow(-1, order - i + 1, i + 1)
        coeffs = updated
    return coeffs.narrow(-1, 1, order + 1)


def _horner(poly, x, one, step):
    value = one.clone()
    for k in range(poly.size(-1) - 2, -1, -1):
        value = step(value, x, poly[..., k])
    return value


def _matrix_polynomial(poly, x):
    def step(value, x, coeff):
        out = x.matmul(value)
        out.diagonal(dim1=-2, dim2=-1).add_(coeff.unsqueeze(-1))
        return out

    eye = _fg.eye(x.size(-1), x.size(-1), dtype=x.dtype).view(*([1] * (x.dim() - 2)), x.size(-1), x.size(-1))
    return _horner(poly, x, eye, step)


def _vector_polynomial(poly, x):
    return _horner(poly, x, x.new_ones(1).expand(x.shape), lambda v, x, c: _fg.addcmul(c.unsqueeze(-1), x, v))


def _symeig_backward_partial_eigenspace(D_grad, U_grad, A, D, U, largest):
    Ut = U.mT.contiguous()
    projector = -U.matmul(Ut)
    projector.diagonal(dim1=-2, dim2=-1).add_(1)
    # a basis of span(U)'s complement: a random block projected on it, from a fresh generator (torch's choice:
    # deterministic, and the default generator's stream untouched)
    gen = _fg.Generator()
    U_ortho = projector.matmul(_fg.randn((*A.shape[:-1], A.size(-1) - D.size(-1)), dtype=A.dtype, generator=gen))
    U_ortho_t = U_ortho.mT.contiguous()
    chr_poly = _characteristic_coefficients(D)
    # solves U_oᵀ A U_o dX - dX D = -U_oᵀ A U by the polynomial solution of the Sylvester equation (Hu and Cheng
    # 2006), the powers of A applied to U_grad one product at a time
    projected = U_grad
    series = projected.new_zeros(projected.shape)
    for k in range(1, chr_poly.size(-1)):
        series = series + projected * _vector_polynomial(chr_poly[..., k:], D).unsqueeze(-2)
        projected = A.matmul(projected)
    at_A = _fg.matmul(U_ortho_t, _fg.matmul(_matrix_polynomial(chr_poly, A), U_ortho))
    # chr_poly(A) restricted to span(U)'s complement is definite: negative when the k largest are taken, k odd
    sign = -1 if (largest and k % 2 == 1) else 1
    L = _fg.linalg.cholesky(sign * at_A)
    res = _symeig_backward_complete_eigenspace(D_grad, U_grad, A, D, U)
    return res - U_ortho.matmul(sign * _fg.cholesky_solve(U_ortho_t.matmul(series), L)).matmul(Ut)


def _symeig_backward(D_grad, U_grad, A, D, U, largest):
    if U.size(-1) == U.size(-2):
        return _symeig_backward_complete_eigenspace(D_grad, U_grad, A, D, U)
    return _symeig_backward_partial_eigenspace(D_grad, U_grad, A, D, U, largest)


class LOBPCGAutogradFunction(_Function):
    @staticmethod
    def forward(ctx, A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None, method=None,
                tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):  # fmt: skip
        A = A if isinstance(A, _fg.sparse.SparseTensor) else A.contiguous()
        if B is not None and not isinstance(B, _fg.sparse.SparseTensor):
            B = B.contiguous()
        D, U = _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker,
                       ortho_iparams, ortho_fparams, ortho_bparams)  # fmt: skip
        ctx.save_for_backward(A, B, D, U)
        ctx.largest = largest
        return D, U

    @staticmethod
    def backward(ctx, D_grad, U_grad):
        A, B, D, U = ctx.saved_tensors
        if isinstance(A, _fg.sparse.SparseTensor) or (
            isinstance(B, _fg.sparse.SparseTensor) and ctx.needs_input_grad[2]
        ):
            raise ValueError("lobpcg.backward does not support sparse input yet. Note that lobpcg.forward does though.")
        if A.dtype in (_fg.complex64, _fg.complex128) or (B is not None and B.dtype in (_fg.complex64, _fg.complex128)):
            raise ValueError(
                "lobpcg.backward does not support complex input yet. Note that lobpcg.forward does though."
            )
        if B is not None:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        largest = True if ctx.largest is None else ctx.largest
        grads = [None] * 14
        grads[0] = _symeig_backward(D_grad, U_grad, A, D, U, largest)
        return tuple(grads)


# ---- forward --------------------------------------------------------------------------------------------------


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None, method=None,
           tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):  # fmt: skip
    """The k largest (``largest=True``, the default) or smallest eigenpairs (E, X) of ``A X = B X diag(E)``
    for symmetric A and positive definite B (identity when None), by LOBPCG: ``method="ortho"`` (default,
    robust) or ``"basic"``. ``X`` (m, n) is the initial block (random by default, n = k), ``iK`` a
    preconditioner, ``niter`` the iteration cap (-1: until converged), ``tol`` the residual tolerance,
    ``tracker(worker)`` called each step. When A requires grad it is symmetrized first, so that its gradient
    is symmetric."""
    if A.requires_grad or (B is not None and B.requires_grad):
        A_sym = (A + A.mT) / 2
        B_sym = (B + B.mT) / 2 if B is not None else None
        return LOBPCGAutogradFunction.apply(A_sym, k, B_sym, X, n, iK, niter, tol, largest, method, tracker,
                                            ortho_iparams, ortho_fparams, ortho_bparams)  # fmt: skip
    return _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker,
                   ortho_iparams, ortho_fparams, ortho_bparams)  # fmt: skip


# torch's defaults, keyed by dtype as torch keys them (so float16 fails with torch's KeyError)
_FEPS = {_fg.float32: 1.2e-07, _fg.float64: 2.23e-16}


def _lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None, method=None,
            tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):  # fmt: skip
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    dtype = A.dtype if A.dtype in (_fg.float16, _fg.float32, _fg.float64) else _fg.float32
    if tol is None:
        tol = _FEPS[dtype] ** 0.5
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(
            f"LOBPCG algorithm is not applicable when the number of A rows (={m})"
            f" is smaller than 3 x the number of requested eigenpairs (={n})"
        )
    method = "ortho" if method is None else method
    iparams = {"m": m, "n": n, "k": k, "niter": 1000 if niter is None else niter}
    fparams = {"tol": tol}
    bparams = {"largest": True if largest is None else largest}
    if method == "ortho":
        iparams.update(ortho_iparams or {})
        fparams.update(ortho_fparams or {})
        bparams.update(ortho_bparams or {})
        iparams.setdefault("ortho_i_max", 3)
        iparams.setdefault("ortho_j_max", 3)
        for key in ("ortho_tol", "ortho_tol_drop", "ortho_tol_replace"):
            fparams.setdefault(key, tol)
        bparams.setdefault("ortho_use_drop", False)

    def solve(A_, B_, X_):
        X_ = _fg.randn((m, n), dtype=dtype) if X_ is None else X_
        if not (X_.dim() == 2 and tuple(X_.shape) == (m, n)):
            raise AssertionError(f"X shape mismatch: got {X_.shape}, expected {(m, n)}")
        worker = LOBPCG(A_, B_, X_, iK, iparams, fparams, bparams, method, tracker)
        worker.run()
        return worker.E[:k], worker.X[:, :k]

    if A.dim() == 2:
        return solve(A, B, X)
    # a batch: one matrix after another, each with its own random block drawn when it comes
    batch = A.shape[:-2]
    N = 1
    for size in batch:
        N *= size
    bA = A.reshape((N, m, m))
    bB = B.reshape((N, m, m)) if B is not None else None
    bX = X.reshape((N, *X.shape[-2:])) if X is not None else None
    bE = _fg.empty((N, k), dtype=dtype)
    bV = _fg.empty((N, m, k), dtype=dtype)
    for i in range(N):
        iparams["batch_index"] = i
        bE[i], bV[i] = solve(bA[i], None if bB is None else bB[i], None if bX is None else bX[i])
    return bE.reshape((*batch, k)), bV.reshape((*batch, m, k))


class LOBPCG:
    """The iteration's state (torch's worker class): ``iparams``/``fparams``/``bparams`` the parameters,
    ``ivars``/``fvars``/``bvars``/``tvars`` the iteration variables, ``E``, ``X``, ``S``, ``R`` the current
    eigenvalues, eigenvectors, search basis and residual; a tracker may set ``bvars["force_stop"]``."""

    def __init__(self, A, B, X, iK, iparams, fparams, bparams, method, tracker):
        self.A, self.B, self.iK = A, B, iK
        self.iparams, self.fparams, self.bparams = iparams, fparams, bparams
        self.method = method
        self.tracker = tracker
        m, n = iparams["m"], iparams["n"]
        self.X = X
        self.E = _fg.zeros((n,), dtype=X.dtype)
        self.R = _fg.zeros((m, n), dtype=X.dtype)
        self.S = _fg.zeros((m, 3 * n), dtype=X.dtype)
        self.tvars = {}
        self.ivars = {"istep": 0}
        self.fvars = {"_": 0.0}
        self.bvars = {"_": False}

    def __str__(self):
        fields = ("iparams", "fparams", "bparams", "ivars", "fvars", "bvars", "tvars", "A", "B", "iK", "X", "E")
        return "LOBPCG:\n" + "".join(f"  {name}={getattr(self, name)}\n" for name in fields)

    def update(self):
        """Sets up (first step) and advances the iteration by one step."""
        if self.ivars["istep"] == 0:
            X_norm = float(_fg.linalg.vector_norm(self.X))
            self.fvars["X_norm"] = X_norm
            self.fvars["A_norm"] = float(_fg.linalg.vector_norm(_matmul(self.A, self.X))) / X_norm
            self.fvars["B_norm"] = float(_fg.linalg.vector_norm(_matmul(self.B, self.X))) / X_norm
            self.ivars["iterations_left"] = self.iparams["niter"]
            self.ivars["converged_count"] = 0
            self.ivars["converged_end"] = 0
        if self.method == "ortho":
            self._update_ortho()
        else:
            self._update_basic()
        self.ivars["iterations_left"] -= 1
        self.ivars["istep"] += 1

    def update_residual(self):
        self.R = _matmul(self.A, self.X) - _matmul(self.B, self.X) * self.E

    def update_converged_count(self):
        """How many leading eigenpairs meet the backward-stable criterion (Duersch et al. 2018, 4.3)."""
        prev = self.ivars["converged_count"]
        E, X, R = self.E, self.X, self.R
        rerr = _fg.linalg.vector_norm(R, ord=2, dim=(0,)) / (
            _fg.linalg.vector_norm(X, ord=2, dim=(0,))
            * (self.fvars["A_norm"] + _fg.abs(E[: X.shape[-1]]) * self.fvars["B_norm"])
        )
        # only a leading run counts, so that the converged pairs stay the extreme ones in order
        count = int((rerr < self.fparams["tol"]).to(_fg.int64).cumprod(0).sum())
        if count < prev:
            raise AssertionError(f"the number of converged eigenpairs (was {prev}, got {count}) cannot decrease")
        self.ivars["converged_count"] = count
        self.tvars["rerr"] = rerr
        return count

    def stop_iteration(self):
        return (
            self.bvars.get("force_stop", False)
            or self.ivars["iterations_left"] == 0
            or self.ivars["converged_count"] >= self.iparams["k"]
        )

    def run(self):
        self.update()
        self.call_tracker()
        while not self.stop_iteration():
            self.update()
            self.call_tracker()

    def call_tracker(self):
        if self.tracker is not None:
            self.tracker(self)

    def _update_basic(self):
        n = self.iparams["n"]
        largest = self.bparams["largest"]
        nc, ns = self.ivars["converged_count"], self.ivars["converged_end"]
        if self.ivars["istep"] == 0:
            Ri = self._get_rayleigh_ritz_transform(self.X)
            E, Z = _symeig(_qform(_qform(self.A, self.X), Ri), largest)
            self.X[:] = _fg.matmul(self.X, _fg.matmul(Ri, Z))
            self.E[:] = E
            np = 0
        else:
            S_ = self.S[:, nc:ns]
            Ri = self._get_rayleigh_ritz_transform(S_)
            E_, Z = _symeig(_qform(_qform(self.A, S_), Ri), largest)
            self.X[:, nc:] = _fg.matmul(S_, _fg.matmul(Ri, Z[:, : n - nc]))
            self.E[nc:] = E_[: n - nc]
            P = _fg.matmul(S_, _fg.matmul(Ri, Z[:, n : 2 * n - nc]))
            np = P.shape[-1]
        self.update_residual()
        nc = self.update_converged_count()
        self.S[..., :n] = self.X
        if np:
            self.S[:, n : n + np] = P
        W = _matmul(self.iK, self.R if self.ivars["istep"] == 0 else self.R[:, nc:])
        ns = self.ivars["converged_end"] = n + np + W.shape[-1]
        self.S[:, n + np : ns] = W

    def _update_ortho(self):
        n = self.iparams["n"]
        largest = self.bparams["largest"]
        nc, ns = self.ivars["converged_count"], self.ivars["converged_end"]
        if self.ivars["istep"] == 0:
            Ri = self._get_rayleigh_ritz_transform(self.X)
            _E, Z = _symeig(_qform(_qform(self.A, self.X), Ri), largest)
            self.X = _fg.matmul(self.X, _fg.matmul(Ri, Z))
            self.update_residual()
            np = 0
            self.update_converged_count()
            self.S[:, :n] = self.X
            W = self._get_ortho(self.R, self.X)
        else:
            S_ = self.S[:, nc:ns]
            # Rayleigh-Ritz on the orthonormal basis
            E_, Z = _symeig(_qform(self.A, S_), largest)
            self.X[:, nc:] = _fg.matmul(S_, Z[:, : n - nc])
            self.E[nc:] = E_[: n - nc]
            P = _fg.matmul(S_, _fg.matmul(Z[:, n - nc :], _fg.linalg.qr(Z[: n - nc, n - nc :].mT).Q))
            np = P.shape[-1]
            self.update_residual()
            nc = self.update_converged_count()
            self.S[:, :n] = self.X
            self.S[:, n : n + np] = P
            W = self._get_ortho(self.R[:, nc:], self.S[:, : n + np])
        ns = self.ivars["converged_end"] = n + np + W.shape[-1]
        self.S[:, n + np : ns] = W

    def _get_rayleigh_ritz_transform(self, S):
        """Upper-triangular Ri with Riᵀ (Sᵀ B S) Ri = I, from the Cholesky factor of Sᵀ B S scaled to a unit
        diagonal (the scaling as elementwise products rather than diagonal matrices)."""
        SBS = _qform(self.B, S)
        d_row = SBS.diagonal(0, -2, -1) ** -0.5
        d_col = d_row.reshape(d_row.shape[0], 1)
        R = _fg.linalg.cholesky((SBS * d_row) * d_col, upper=True)
        return _fg.linalg.solve_triangular(R, d_row.diag_embed(), upper=True, left=False)

    def _get_svqb(self, U, drop, tau):
        """U made B-orthonormal (Duersch's Algorithm 4; with `drop`, the columns whose eigenvalue is under
        tau times the largest dropped rather than lifted to it)."""
        if U.numel() == 0:
            return U
        UBU = _qform(self.B, U)
        d = UBU.diagonal(0, -2, -1)
        # exactly zero columns would make d ** -0.5 infinite: dropped first
        nonzero = _fg.nonzero(d.abs() != 0.0, as_tuple=True)[0]
        if len(nonzero) < len(d):
            U = U[:, nonzero]
            if U.numel() == 0:
                return U
            UBU = _qform(self.B, U)
            d = UBU.diagonal(0, -2, -1)
        d_col = (d**-0.5).reshape(d.shape[0], 1)
        E, Z = _symeig((UBU * d_col) * d_col.mT)
        t = tau * E.abs().max()
        if drop:
            keep = _fg.nonzero(E > t, as_tuple=True)[0]
            E, Z, d_col = E[keep], Z[:, keep], d_col[keep]
        else:
            E[_fg.nonzero(E < t, as_tuple=True)[0]] = t
        return _fg.matmul(U * d_col.mT, Z * E**-0.5)

    def _get_ortho(self, U, V):
        """U made B-orthonormal and B-orthogonal to V (Duersch's Algorithm 3, or 6 with
        ``ortho_use_drop``); empty when all of U's columns lie in span(V)."""
        m = self.iparams["m"]
        tau_ortho = self.fparams["ortho_tol"]
        tau_drop = self.fparams["ortho_tol_drop"]
        tau_replace = self.fparams["ortho_tol_replace"]
        i_max, j_max = self.iparams["ortho_i_max"], self.iparams["ortho_j_max"]
        use_drop = self.bparams["ortho_use_drop"]
        for key in [key for key in self.fvars if key.startswith("ortho_") and key.endswith("_rerr")]:
            del self.fvars[key]
        self.ivars.pop("ortho_i", 0)
        self.ivars.pop("ortho_j", 0)
        BV_norm = _fg.linalg.vector_norm(_matmul(self.B, V))
        BU = _matmul(self.B, U)
        VBU = _fg.matmul(V.mT, BU)
        i = j = 0
        for i in range(i_max):
            U = U - _fg.matmul(V, VBU)
            drop = False
            tau_svqb = tau_drop
            for j in range(j_max):
                if use_drop:
                    U = self._get_svqb(U, drop, tau_svqb)
                    drop, tau_svqb = True, tau_replace
                else:
                    U = self._get_svqb(U, False, tau_replace)
                if U.numel() == 0:
                    self.ivars["ortho_i"], self.ivars["ortho_j"] = i, j
                    return U
                BU = _matmul(self.B, U)
                UBU = _fg.matmul(U.mT, BU)
                R = UBU - _fg.eye(UBU.shape[-1], dtype=UBU.dtype)
                rerr = (
                    float(_fg.linalg.vector_norm(R))
                    * float(_fg.linalg.vector_norm(BU) * _fg.linalg.vector_norm(U)) ** -1
                )
                self.fvars[f"ortho_UBUmI_rerr[{i}, {j}]"] = rerr
                if rerr < tau_ortho:
                    break
            VBU = _fg.matmul(V.mT, BU)
            rerr = float(_fg.linalg.vector_norm(VBU)) * float(BV_norm * _fg.linalg.vector_norm(U)) ** -1
            self.fvars[f"ortho_VBU_rerr[{i}]"] = rerr
            if rerr < tau_ortho:
                break
            if m < U.shape[-1] + V.shape[-1]:
                if self.B is None:
                    # torch's check of B fires first, so B = I gives its AssertionError, not this message
                    raise AssertionError("B must not be None")
                raise ValueError(
                    "Overdetermined shape of U:"
                    f" #B-cols(={self.B.shape[-1]}) >= #U-cols(={U.shape[-1]}) + #V-cols(={V.shape[-1]}) must hold"
                )
        self.ivars["ortho_i"], self.ivars["ortho_j"] = i, j
        return U
