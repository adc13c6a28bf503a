"""`torch.linalg`: norms, inv, det, slogdet, solve, solve_triangular, cholesky, eigh/eigvalsh, svd/svdvals, qr,
lstsq, cross, pinv, matrix_rank, matrix_exp, matrix_power, multi_dot, vander and the matmul/diagonal aliases.
The factorizations and their gradients are Rust ops (`rust/core/src/ops/linalg/`); the norms, pinv and
matrix_rank compose core ops (`vector_norm`, `sum`, `amax`/`amin`, the SVD), as PyTorch's own `matrix_norm`
does (so the norms' `grad_fn` names match)."""

import builtins
import math
import warnings
from collections import namedtuple

from . import _core, _write_out
from ._arg_errors import require_tensor as _require_tensor
from ._arg_errors import type_name as _type_name
from ._linalg_products import matrix_power, multi_dot, vander

LinAlgError = _core.LinAlgError
LinAlgError.__module__ = "ferrograd.linalg"
LinAlgError.__qualname__ = LinAlgError.__name__ = "LinAlgError"


def _named(name, fields):
    base = namedtuple(name, fields)

    def __repr__(self):
        parts = ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields)
        return f"ferrograd.return_types.{name}(\n{parts})"

    return type(name, (base,), {"__slots__": (), "__repr__": __repr__, "__module__": "ferrograd.return_types"})


_SlogdetResult = _named("linalg_slogdet", ["sign", "logabsdet"])
_EighResult = _named("linalg_eigh", ["eigenvalues", "eigenvectors"])
_EigResult = _named("linalg_eig", ["eigenvalues", "eigenvectors"])
_SvdResult = _named("linalg_svd", ["U", "S", "Vh"])
_QrResult = _named("linalg_qr", ["Q", "R"])
_LstsqResult = _named("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
_InvExResult = _named("linalg_inv_ex", ["inverse", "info"])
_SolveExResult = _named("linalg_solve_ex", ["result", "info"])
_CholeskyExResult = _named("linalg_cholesky_ex", ["L", "info"])
_LuFactorResult = _named("linalg_lu_factor", ["LU", "pivots"])
_LuFactorExResult = _named("linalg_lu_factor_ex", ["LU", "pivots", "info"])
_LuResult = _named("linalg_lu", ["P", "L", "U"])
_LuUnpackResult = _named("lu_unpack", ["P", "L", "U"])
_LuWithInfoResult = _named("_lu_with_info", ["LU", "pivots", "info"])

_INF = float("inf")


def _tensor(x, func, arg):
    """PyTorch's TypeError for a non-tensor argument of the functions composed here."""
    _require_tensor(x, func, arg, 1)
    return x


def _check_out(out, func):
    if out is not None:
        raise NotImplementedError(f"{func}(): out= is not supported")


def inv(A, *, out=None):
    """The inverse of each square matrix of `A` (`LinAlgError` if one is singular)."""
    _check_out(out, "linalg.inv")
    return _core._linalg_inv(A)


def det(A, *, out=None):
    """The determinant of each square matrix of `A`."""
    _check_out(out, "linalg.det")
    return _core._linalg_det(A)


def slogdet(A, *, out=None):
    """(sign, logabsdet) of the determinant of each square matrix of `A`; (0, -inf) where it is zero."""
    _check_out(out, "linalg.slogdet")
    return _SlogdetResult(*_core._linalg_slogdet(A))


def solve(A, B, *, left=True, out=None):
    """X with `A @ X = B` (`left=False`: `X @ A = B`), batch dimensions broadcast."""
    _check_out(out, "linalg.solve")
    if left:
        return _core._linalg_solve(A, B)
    _tensor(A, "linalg_solve", "A")
    _tensor(B, "linalg_solve", "B")
    # X A = B  <=>  Aᵀ Xᵀ = Bᵀ (B is a matrix here, as in PyTorch)
    return _core._linalg_solve(A.mT, B.mT).mT


def cholesky(A, *, upper=False, out=None):
    """The lower Cholesky factor L of each symmetric positive-definite matrix (`upper`: U = Lᵀ)."""
    _check_out(out, "linalg.cholesky")
    return _core._linalg_cholesky(A, builtins.bool(upper))


def inv_ex(A, *, check_errors=False, out=None):
    """(inverse, info): `inv` with LAPACK's `info` (the 1-based index of the first zero pivot of U, 0 if none)
    and the solve's inf/NaN partial result for a singular matrix, unless `check_errors`."""
    _check_out(out, "linalg.inv_ex")
    return _InvExResult(*_core._linalg_inv_ex(A, builtins.bool(check_errors), "linalg.inv_ex"))


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """(result, info): `solve` with LAPACK's `info` (the 1-based index of the first zero pivot of U, 0 if none)
    and the solve's inf/NaN partial result for a singular matrix, unless `check_errors`."""
    _check_out(out, "linalg.solve_ex")
    if left:
        return _SolveExResult(*_core._linalg_solve_ex(A, B, builtins.bool(check_errors)))
    _tensor(A, "linalg_solve_ex", "A")
    _tensor(B, "linalg_solve_ex", "B")
    X, info = _core._linalg_solve_ex(A.mT, B.mT, builtins.bool(check_errors))
    return _SolveExResult(X.mT, info)


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """(L, info): `cholesky` with LAPACK's `info` (the order of the first leading minor that is not
    positive-definite, 0 if none) and its partial factor, unless `check_errors`."""
    _check_out(out, "linalg.cholesky_ex")
    return _CholeskyExResult(*_core._linalg_cholesky_ex(A, builtins.bool(upper), builtins.bool(check_errors)))


def cross(input, other, *, dim=-1, out=None):
    """The cross product of the 3-vectors along `dim` of `input` and `other` (batch dimensions broadcast)."""
    _check_out(out, "linalg.cross")
    return _core._linalg_cross(input, other, dim)


def qr(A, mode="reduced", *, out=None):
    """(Q, R) with A = Q R by Householder reflections, R's diagonal signed as LAPACK signs it; `mode`:
    'reduced' (Q m×k, R k×n), 'complete' (Q m×m) or 'r' (R only, Q empty)."""
    _check_out(out, "linalg.qr")
    return _QrResult(*_core._linalg_qr(A, mode))


def vecdot(x, y, *, dim=-1, out=None):
    """The dot products of the vectors of `x` and `y` along `dim` (batch dimensions broadcast): ``(x * y).sum(dim)``
    for real inputs, and ``vdot`` of two vectors (whatever `dim`), as PyTorch composes it."""
    _check_out(out, "linalg.vecdot")
    _tensor(x, "linalg_vecdot", "x")
    _tensor(y, "linalg_vecdot", "y")
    if not x.dtype.is_floating_point:
        raise NotImplementedError(
            f"linalg.vecdot: Expected a floating point or complex tensor as input. Got {_write_out._name(x.dtype)}"
        )
    if x.dtype != y.dtype:
        raise RuntimeError(
            "linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{_write_out._name(x.dtype)} and y of type {_write_out._name(y.dtype)} instead"
        )
    if x.ndim == 1 and y.ndim == 1:
        return x.vdot(y)
    return (x * y).sum(dim)


def lu_factor(A, *, pivot=True, out=None):
    """(LU, pivots): the compact LU factorization with partial pivoting of each m×n matrix as LAPACK's getrf
    gives it (L's multipliers below the diagonal, U on and above it; 1-based int32 row interchanges). A singular
    matrix raises (`lu_factor_ex` does not)."""
    _check_out(out, "linalg.lu_factor")
    LU, pivots, _ = _core._linalg_lu_factor_ex(A, builtins.bool(pivot), True, "torch.linalg.lu_factor")
    return _LuFactorResult(LU, pivots)


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """(LU, pivots, info): `lu_factor` with LAPACK's `info` (the 1-based index of the first zero pivot, 0 if
    none) instead of an error, unless `check_errors`."""
    _check_out(out, "linalg.lu_factor_ex")
    return _LuFactorExResult(
        *_core._linalg_lu_factor_ex(A, builtins.bool(pivot), builtins.bool(check_errors), "torch.linalg.lu_factor_ex")
    )


def lu(A, *, pivot=True, out=None):
    """(P, L, U) with A = P L U: P a permutation matrix, L m×k unit lower and U k×n upper, k = min(m, n)."""
    _check_out(out, "linalg.lu")
    return _LuResult(*_core._linalg_lu(A, builtins.bool(pivot)))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """X with `A @ X = B` from A's `lu_factor` (`adjoint`: Aᵀ X = B; `left=False`: X A = B), batch dimensions
    broadcast."""
    _check_out(out, "linalg.lu_solve")
    return _core._linalg_lu_solve(LU, pivots, B, builtins.bool(left), builtins.bool(adjoint))


def _lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """`torch.lu_unpack`: (P, L, U) from `lu_factor`'s output; each left empty when not asked for."""
    return _LuUnpackResult(
        *_core._lu_unpack(LU_data, LU_pivots, builtins.bool(unpack_data), builtins.bool(unpack_pivots))
    )


_DEPRECATED_LU = (
    "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be removed in "
    "a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\nLU, pivots = "
    "torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)"
    "\nshould be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)"
)
_DEPRECATED_LU_SOLVE = (
    "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future PyTorch release."
    "\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be "
    "replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)"
)
# torch warns of these once a process (TORCH_WARN_ONCE)
_warned: set[str] = set()


def _warn_once(message):
    if message not in _warned:
        _warned.add(message)
        warnings.warn(message, UserWarning, stacklevel=3)


def _torch_lu(A, pivot=True, get_infos=False):
    """`torch.lu`: (LU, pivots), with `get_infos` (LU, pivots, info); deprecated, and never raises on a singular
    matrix."""
    _warn_once(_DEPRECATED_LU)
    LU, pivots, info = _core._linalg_lu_factor_ex(A, builtins.bool(pivot), False, "torch.lu")
    return _LuWithInfoResult(LU, pivots, info) if get_infos else (LU, pivots)


def _torch_lu_solve(b, LU_data, LU_pivots):
    """`torch.lu_solve(b, LU_data, LU_pivots)`: deprecated `linalg.lu_solve(LU_data, LU_pivots, b)`."""
    _warn_once(_DEPRECATED_LU_SOLVE)
    return _core._linalg_lu_solve(LU_data, LU_pivots, b, True, False)


_DEPRECATED_TRIANGULAR_SOLVE = (
    "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in a future "
    "PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not return a copy of one "
    "of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\nX = "
    "torch.linalg.solve_triangular(A, B)."
)
_TriangularSolveResult = _named("triangular_solve", ["solution", "cloned_coefficient"])


def _torch_triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """`torch.triangular_solve`: (X with ``A X = b`` (``Aᵀ X = b`` with `transpose`), a copy of A); deprecated."""
    _warn_once(_DEPRECATED_TRIANGULAR_SOLVE)
    return _TriangularSolveResult(
        *_core._triangular_solve(b, A, builtins.bool(upper), builtins.bool(transpose), builtins.bool(unitriangular))
    )


_GeqrfResult = _named("geqrf", ["a", "tau"])


def _geqrf(input):
    """`torch.geqrf`: (a, tau), LAPACK's compact Householder QR: R on and above a's diagonal, the reflectors'
    vectors below it (their leading 1 implied), their scales in tau."""
    return _GeqrfResult(*_core._geqrf(input))


def householder_product(A, tau, *, out=None):
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H with v_i A's column i below the diagonal
    and 1 on it (LAPACK's orgqr): one rank-1 update per reflector, of differentiable ops."""
    _tensor(A, "linalg.householder_product", "input")
    _tensor(tau, "linalg.householder_product", "tau")
    _check_out(out, "linalg.householder_product")
    name = "torch.linalg.householder_product"
    if A.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    m, n, k = A.shape[-2], A.shape[-1], tau.shape[-1] if tau.dim() else 1
    if m < n:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if n < k:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if A.dim() - tau.dim() != 1:
        raise RuntimeError(
            f"{name}: Expected tau to have one dimension less than input, but got tau.ndim equal to {tau.dim()} "
            f"and input.ndim is equal to {A.dim()}"
        )
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(
            f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got {list(tau.shape[:-1])}"
        )
    if not (A.is_floating_point() or A.is_complex()):
        raise NotImplementedError(f"\"orgqr_cpu\" not implemented for '{_scalar_name(A)}'")
    if tau.dtype != A.dtype:
        raise RuntimeError(
            f"{name}: tau dtype {_write_out._name(tau.dtype)} does not match input dtype {_write_out._name(A.dtype)}"
        )
    rows = _core.arange(m).unsqueeze(1)
    # A's strict lower part and a unit diagonal, as masks (tril takes no complex input)
    V = A[..., :k] * (rows > _core.arange(k)).to(A.dtype) + (rows == _core.arange(k)).to(A.dtype)
    Q = (rows == _core.arange(n)).to(A.dtype).expand(*A.shape[:-2], m, n)
    for i in reversed(range(k)):
        v = V[..., i : i + 1]
        Q = Q - (tau[..., i : i + 1].unsqueeze(-1) * v) @ (v.mH @ Q)
    return Q


def orgqr(input, input2, *, out=None):
    """`torch.orgqr(input, tau)`: `linalg.householder_product`."""
    return householder_product(input, input2, out=out)


def matmul(input, other, *, out=None):
    """Alias for ``ferrograd.matmul``."""
    _check_out(out, "linalg.matmul")
    return _tensor(input, "linalg_matmul", "input").matmul(other)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """Alias for ``ferrograd.diagonal`` with torch's defaults ``dim1=-2, dim2=-1``: each matrix's diagonal."""
    return _tensor(A, "linalg_diagonal", "A").diagonal(offset, dim1, dim2)


def lstsq(A, B, rcond=None, *, driver=None):
    """(solution, residuals, rank, singular_values) of the least-squares problem min ‖A X - B‖ (the
    minimum-norm X), filled as PyTorch's CPU `driver` fills them: 'gelsy' (default) gives the rank, 'gelsd'
    and 'gelss' the singular values too, residuals only for tall full-rank A and a driver other than gelsy."""
    return _LstsqResult(*_core._linalg_lstsq(A, B, rcond, driver))


def solve_triangular(A, B, *, upper=None, left=True, unitriangular=False, out=None):
    """X with `A @ X = B` (`left=False`: `X @ A = B`) for triangular `A`, read from its upper (`upper=True`) or
    lower triangle, its diagonal taken as ones with `unitriangular`; batch dimensions broadcast."""
    _check_out(out, "linalg.solve_triangular")
    if upper is None:
        # `upper` is required, and torch names it so
        raise TypeError('linalg_solve_triangular() missing 1 required positional arguments: "upper"')
    return _core._linalg_solve_triangular(A, B, builtins.bool(upper), builtins.bool(left), builtins.bool(unitriangular))


def matrix_exp(A):
    """The exponential of each square matrix (scaling and squaring with a Padé approximant)."""
    return _tensor(A, "linalg_matrix_exp", "input").matrix_exp()


def _uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO == "U"


def eigh(A, UPLO="L", *, out=None):
    """(eigenvalues ascending, eigenvectors as columns) of each symmetric matrix, read from its lower
    (`UPLO='L'`) or upper triangle. Each eigenvector is signed so its largest-magnitude entry is positive
    (PyTorch leaves the sign to LAPACK: compare eigenvectors up to sign)."""
    _check_out(out, "linalg.eigh")
    return _EighResult(*_core._linalg_eigh(A, _uplo(UPLO)))


def eigvalsh(A, UPLO="L", *, out=None):
    """The eigenvalues (ascending) of each symmetric matrix."""
    _check_out(out, "linalg.eigvalsh")
    return _core._linalg_eigh(A, _uplo(UPLO))[0]


def eig(A, *, out=None):
    """(eigenvalues, eigenvectors as columns) of each square matrix, both complex. Each eigenvector has norm 1
    and is turned so its largest component is real and positive (PyTorch leaves the phase to LAPACK: compare
    eigenvectors up to a phase, eigenvalues up to order)."""
    _check_out(out, "linalg.eig")
    return _EigResult(*_core._linalg_eig(A))


def eigvals(A, *, out=None):
    """The eigenvalues (complex) of each square matrix, in `eig`'s order."""
    _check_out(out, "linalg.eigvals")
    return _core._linalg_eigvals(A)


def svd(A, full_matrices=True, *, driver=None, out=None):
    """(U, S, Vh) with A = U diag(S) Vh, S descending (one-sided Jacobi in float64). Singular vectors are
    unique only up to sign (and rotation within repeated singular values): compare U diag(S) Vh."""
    _check_out(out, "linalg.svd")
    if driver is not None:
        raise RuntimeError(
            "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend."
        )
    return _SvdResult(*_core._linalg_svd(A, builtins.bool(full_matrices)))


def svdvals(A, *, driver=None, out=None):
    """The singular values of each matrix, descending."""
    _check_out(out, "linalg.svdvals")
    return svd(A, False, driver=driver).S


def _tolerance(S, atol, rtol, shape):
    """PyTorch's cut-off for pinv and matrix_rank: max(atol, rtol * largest singular value), rtol defaulting to
    eps * max(m, n) when neither is given."""
    eps = 1.1920928955078125e-07 if S.dtype == _core.float32 else 2.220446049250313e-16
    if rtol is None:
        rtol = eps * max(shape[-2:]) if atol is None or atol == 0 else 0.0
    largest = S.amax(-1, keepdim=True) if S.shape[-1] else S.sum(-1, keepdim=True)
    tol = largest * rtol
    return tol.clamp(min=atol) if atol is not None else tol


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The Moore-Penrose pseudo-inverse: V diag(1/S) Uᵀ over the singular values above the tolerance."""
    _check_out(out, "linalg.pinv")
    _tensor(A, "linalg_pinv", "input")
    if A.ndim < 2 or not A.dtype.is_floating_point:
        raise RuntimeError(
            f"linalg.pinv({_TYPE_NAMES.get(_scalar_name(A), _scalar_name(A))}{{{list(A.shape)}}}): expected a tensor "
            "with 2 or more dimensions of float, double, cfloat or cdouble types"
        )
    U, S, Vh = svd(A, False)
    keep = S > _tolerance(S, atol, rtol, A.shape)
    S_inv = (1 / S).where(keep, 0.0)
    return (Vh.mT * S_inv.unsqueeze(-2)) @ U.mT


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The number of singular values above the tolerance, as int64."""
    _check_out(out, "linalg.matrix_rank")
    _tensor(A, "linalg_matrix_rank", "input")
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    S = svdvals(A)
    return (S > _tolerance(S, atol, rtol, A.shape)).sum(-1)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """The `ord`-norm of `x`'s elements (all of them, or over `dim`)."""
    _check_out(out, "linalg.vector_norm")
    _tensor(x, "linalg_vector_norm", "input")
    if isinstance(ord, (str, builtins.bool)) or not isinstance(ord, (int, float)):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not {_type_name(ord)}")
    return x.norm(ord, dim, keepdim, dtype=dtype)


def _matrix_dims(A, dim, func):
    if A.ndim < 2:
        raise RuntimeError(f"{func}: The input tensor A must have at least 2 dimensions.")
    d0, d1 = (d % A.ndim if -A.ndim <= d < A.ndim else d for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """The Frobenius norm (`'fro'`), the induced 1 / inf norms (max column / row sum of magnitudes; -1 and -inf
    the min), the spectral norms (2, -2: largest / smallest singular value) or the nuclear norm ('nuc': their
    sum) of each matrix over `dim`."""
    _check_out(out, "linalg.matrix_norm")
    _tensor(A, "linalg_matrix_norm", "input")
    d0, d1 = _matrix_dims(A, tuple(dim), "linalg.matrix_norm")
    if not A.dtype.is_floating_point:
        raise NotImplementedError(
            f"linalg.matrix_norm: Expected a floating point or complex tensor as input. Got {_scalar_name(A)}"
        )
    if dtype is not None:
        A = A.to(dtype)
    if ord == "fro":
        return A.norm(2, (d0, d1), keepdim)
    if ord in (2, -2, "nuc"):
        S = svdvals(A.movedim((d0, d1), (-2, -1)))
        r = S.sum(-1) if ord == "nuc" else S.amax(-1) if ord == 2 else S.amin(-1)
        return r.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1)) if keepdim else r
    if isinstance(ord, str) or ord not in (1, -1, _INF, -_INF):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if abs(ord) == _INF:
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:
        d1 -= 1
    sums = A.abs().sum(d0, keepdim)
    if sums.shape[d1] == 0:
        return sums.sum(d1, keepdim)  # PyTorch's 0 for a matrix without columns (or rows)
    return sums.amax(d1, keepdim) if ord > 0 else sums.amin(d1, keepdim)


# the names in pinv's message (PyTorch's `toString` of the tensor type)
_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16"}


def _torch_svd(input, some=True, compute_uv=True):
    """`torch.svd`: (U, S, V) with V = Vhᵀ; `some=False` gives the full U and V; without `compute_uv`, U and V
    are zeros of the full shapes."""
    U, S, Vh = svd(input, full_matrices=not some or not compute_uv)
    if not compute_uv:
        return _TorchSvdResult(U.new_zeros(U.shape), S, Vh.new_zeros(Vh.shape))
    return _TorchSvdResult(U, S, Vh.mT)


_TorchSvdResult = _named("svd", ["U", "S", "V"])


def _removed_qr(some=True):
    """`torch.qr` and `Tensor.qr`: PyTorch removed them and raises this (torch/_linalg_utils.py)."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. `torch.qr` is deprecated in favor of "
        "`torch.linalg.qr` and the boolean parameter `some` has been replaced with a string parameter `mode`.\n\n"
        "Q, R = torch.qr(A) should be replaced with:\nQ, R = torch.linalg.qr(A, mode='reduced')\n\nand\n\n"
        "Q, R = torch.qr(A, some=False) should be replaced with:\nQ, R = torch.linalg.qr(A, mode='complete')\n\n"
        f"Since `some` was set to {some}, use mode='{'reduced' if some else 'complete'}'."
    )


_REMOVED = "This function was deprecated since version 1.9 and is now removed. "


def _removed_cholesky(input=None, upper=False):
    """`torch.cholesky` and `Tensor.cholesky`: removed from PyTorch; raise its RuntimeError (torch/_linalg_utils.py)."""
    raise RuntimeError(
        f"{_REMOVED}`torch.cholesky` is deprecated in favor of `torch.linalg.cholesky`.\nL = torch.cholesky(A) should "
        "be replaced with:\nL = torch.linalg.cholesky(A)\nU = torch.cholesky(A, upper=True) should be replaced "
        "with:\nU = torch.linalg.cholesky(A).mH"
    )


def _removed_matrix_rank(input=None, tol=None, symmetric=False):
    """`torch.matrix_rank`: removed from PyTorch; raises its RuntimeError."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed.\nPlease use the "
        "`torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed in "
        "`torch.linalg.matrix_rank()` to 'hermitian'."
    )


def _removed_solve(input=None, A=None):
    """`torch.solve` and `Tensor.solve`: removed from PyTorch; raise its RuntimeError."""
    raise RuntimeError(
        f"{_REMOVED}`torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its "
        "arguments reversed and does not return the LU factorization.\n\nTo get the LU factorization see "
        "`torch.lu`, which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution "
        "should be replaced with:\nX = torch.linalg.solve(A, B)"
    )


def _removed_lstsq(input=None, A=None):
    """`torch.lstsq` and `Tensor.lstsq`: removed from PyTorch; raise its RuntimeError."""
    raise RuntimeError(
        f"{_REMOVED}`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has reversed "
        "arguments and does not return the QR decomposition in the returned tuple (although it returns other "
        "information about the problem).\n\nTo get the QR decomposition consider using `torch.linalg.qr`.\n\nThe "
        "returned solution in `torch.lstsq` stored the residuals of the solution in the last m - n columns of the "
        "returned value whenever m > n. In torch.linalg.lstsq, the residuals are in the field 'residuals' of the "
        "returned named tuple.\n\nThe unpacking of the solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]"
        "\nshould be replaced with:\nX = torch.linalg.lstsq(A, B).solution"
    )


def _removed_symeig(input=None, eigenvectors=False, upper=True):
    """`torch.symeig` and `Tensor.symeig`: removed from PyTorch; raise its RuntimeError."""
    raise RuntimeError(
        f"{_REMOVED}The default behavior has changed from using the upper triangular portion of the matrix by default "
        "to using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be replaced with:\n"
        "L = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, "
        "eigenvectors=True) should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')"
    )


def _cond_ord_text(p):
    """How torch's message prints a numeric `p` (C++'s std::to_string for a float, as typed for an int)."""
    return f"{p:f}" if isinstance(p, float) else str(p)


def cond(A, p=None, *, out=None):
    """The condition number of each matrix for the norm `p`: the ratio of extreme singular values for None, 2
    and -2 (any shape), else ``matrix_norm(A, p) * matrix_norm(inv(A), p)`` for 'fro', 'nuc', ±1 and ±inf (square
    matrices; inf for a singular one); 0 for an empty matrix. PyTorch's composition (`linalg_cond`)."""
    _check_out(out, "linalg.cond")
    _tensor(A, "linalg_cond", "A")
    if isinstance(p, str):
        if A.ndim < 2:
            raise RuntimeError(f"linalg.cond(ord={p}): The input tensor A must have at least 2 dimensions.")
        if A.shape[-2] != A.shape[-1]:
            raise RuntimeError(
                f"linalg.cond(ord={p}): A must be batches of square matrices, but they are {A.shape[-2]} by "
                f"{A.shape[-1]} matrices"
            )
        if p not in ("fro", "nuc"):
            raise ValueError(f"linalg.cond got an invalid norm type: {p}")
    else:
        if A.ndim < 2:
            raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
        p = 2 if p is None else p
        if abs(p) not in (1, 2, _INF):
            raise ValueError(f"linalg.cond got an invalid norm type: {builtins.float(p):g}")
    if A.numel() == 0:
        return A.new_zeros(A.shape[:-2])
    if p in (2, -2):
        S = svdvals(A)
        s_max, s_min = S.narrow(-1, 0, 1), S.narrow(-1, S.shape[-1] - 1, 1)
        return (s_min / s_max if p == -2 else s_max / s_min).squeeze(-1)
    if not isinstance(p, str) and A.shape[-2] != A.shape[-1]:
        raise RuntimeError(
            f"linalg.cond(ord={_cond_ord_text(p)}): A must be batches of square matrices, but they are "
            f"{A.shape[-2]} by {A.shape[-1]} matrices"
        )
    if p == "nuc":
        S = svdvals(A)
        return S.sum(-1) * S.reciprocal().sum(-1)
    inverse, info = inv_ex(A)
    # in place, as torch does: so the backward of these orders fails as torch's does (the inverse is saved)
    inverse.masked_fill_(info.unsqueeze(-1).unsqueeze(-1) > 0, _INF)
    return (matrix_norm(A, p) * matrix_norm(inverse, p)).nan_to_num(_INF, _INF, -_INF)


def tensorinv(A, ind=2, *, out=None):
    """The inverse of `A` as a tensor operator for `tensordot` with `ind` dimensions: A reshaped to a square
    matrix of ``prod(A.shape[:ind])`` rows, inverted, and reshaped to ``A.shape[ind:] + A.shape[:ind]``."""
    _check_out(out, "linalg.tensorinv")
    _tensor(A, "linalg_tensorinv", "input")
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = math.prod(A.shape[:ind]), math.prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but got "
            f"{cols} != {rows}"
        )
    inverse = _core._linalg_inv_ex(A.reshape(cols, cols), True, "inv")[0]
    return inverse.reshape(*A.shape[ind:], *A.shape[:ind])


def tensorsolve(A, B, dims=None, *, out=None):
    """X with ``tensordot(A, X, X.ndim) = B``: A (its `dims` moved last) reshaped to a square matrix and solved
    against B flattened, X shaped as A's last dimensions."""
    _check_out(out, "linalg.tensorsolve")
    _tensor(A, "linalg_tensorsolve", "input")
    _tensor(B, "linalg_tensorsolve", "other")
    if dims is not None:
        dims = [dims] if isinstance(dims, int) else list(dims)
        A = A.movedim(dims, list(range(A.ndim - len(dims), A.ndim)))
    result_shape = A.shape[B.ndim :]
    size, other_size = math.prod(result_shape), B.numel()
    if size != other_size:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), "
            f"but got {size} != {other_size}"
        )
    return solve(A.reshape(size, size), B.flatten()).reshape(result_shape)


def _scalar_name(A):
    name = str(A.dtype).removeprefix("ferrograd.")
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}.get(
        name, name
    )


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """`vector_norm` or `matrix_norm`, chosen as PyTorch does: a 2-tuple `dim` or a string `ord` is a matrix
    norm; with `ord` and no `dim`, `A` must be 1-D or 2-D."""
    _check_out(out, "linalg.norm")
    _tensor(A, "linalg_norm", "input")
    if dim is not None and not isinstance(dim, (tuple, list)):
        dim = (dim,)
    if dim is not None and len(dim) == 2 or dim is None and ord is not None and A.ndim == 2:
        return matrix_norm(A, "fro" if ord is None else ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    if isinstance(ord, str):
        if dim is None and A.ndim != 2:
            raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 2. Got {list(dim)}")
    if dim is None and ord is not None and A.ndim != 1:
        raise RuntimeError(
            f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.ndim}D."
        )
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


__all__ = [
    "LinAlgError",
    "cholesky",
    "cholesky_ex",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "householder_product",
    "inv",
    "inv_ex",
    "lstsq",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "matmul",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "pinv",
    "qr",
    "svd",
    "svdvals",
    "tensorinv",
    "tensorsolve",
    "vander",
    "multi_dot",
    "norm",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
    "vecdot",
    "vector_norm",
]
