"""Cases for `linalg.eig` and `linalg.eigvals` recorded from torch (tests/golden/record_linalg_eig.py) and checked
by tests/test_linalg_eig.py. Eigenvalue order and eigenvector phases are LAPACK's choice in torch, so what is
recorded is invariant: the eigenvalues sorted, the moduli of the eigenvectors' components in that order (a
phase does not change them), gradients of losses that do not depend on the phases; and the dtypes, shapes,
grad_fn names, errors and messages."""

import ferrograd as fg
import numpy as np
from recorded import error

NAN, INF = float("nan"), float("inf")

GENERAL = [[2.0, -1.0, 0.5, 3.0], [1.0, 0.0, -2.0, 1.0], [0.5, 4.0, 1.0, -1.0], [-3.0, 1.0, 2.0, 0.5]]
ROTATION = [[0.0, -1.0], [1.0, 0.0]]
COMPLEX = [[1 + 2j, 0.5 - 1j, 3.0], [-1j, 2 - 1j, 1 + 1j], [0.25 + 0.5j, -2.0, 1j]]


def order(values):
    """The permutation sorting complex `values` by real then imaginary part (rounded: ties made by rounding in
    the last bits, as a conjugate pair's real parts, sort by the imaginary part)."""
    v = np.asarray(values)
    return np.lexsort((np.round(v.imag, 6), np.round(v.real, 6)), axis=-1)


def sorted_values(L):
    """The eigenvalues in `order`, as a tensor of their dtype."""
    v = L.detach().numpy()
    return fg.tensor(np.take_along_axis(v, order(v), axis=-1), dtype=L.dtype)


def moduli(L, V):
    """|V|'s columns in the eigenvalues' `order`: independent of each column's phase."""
    v, columns = np.abs(V.detach().numpy()), order(L.detach().numpy())
    return fg.tensor(np.take_along_axis(v, columns[..., None, :], axis=-1))


def _m(values, dtype="float64"):
    return fg.tensor(values, dtype=getattr(fg, dtype))


def _decomposed(A):
    L, V = fg.linalg.eig(A)
    return {"values": sorted_values(L), "moduli": moduli(L, V), "dtypes": [L.dtype, V.dtype]}


def _values():
    a = _m(GENERAL)
    batch = fg.stack([a, a.mT, -2 * a])
    out = {}
    for name, A in {
        "general": a,
        "float32": a.float(),
        "rotation": _m(ROTATION),
        "complex128": _m(COMPLEX, "complex128"),
        "complex64": _m(COMPLEX, "complex64"),
        "batched_noncontiguous": batch.mT,
        "upper_triangular": _m([[1.0, 2.0, 3.0], [0.0, 4.0, 5.0], [0.0, 0.0, 6.0]]),
        "one_by_one": _m([[-3.0]]),
    }.items():
        for k, v in _decomposed(A).items():
            out[f"{name}_{k}"] = v
    out["eigvals"] = sorted_values(fg.linalg.eigvals(a))
    out["eigvals_complex"] = sorted_values(fg.linalg.eigvals(_m(COMPLEX, "complex128")))
    out["identity"] = fg.linalg.eigvals(fg.eye(3))
    out["empty"] = list(fg.linalg.eig(fg.zeros(0, 0)))
    out["empty_batch"] = list(fg.linalg.eig(fg.zeros(2, 0, 0, dtype=fg.float64)))
    out["eigvals_empty"] = fg.linalg.eigvals(fg.zeros(3, 0, 0))
    # torch's answers for NaN input are LAPACK's accidents (MKL's balancing refuses it); for this infinite one NaN
    out["eigvals_inf"] = fg.linalg.eigvals(_m([[1.0, INF], [1.0, 1.0]]))
    out["type_name"] = type(fg.linalg.eig(a)).__name__
    out["fields"] = [fg.linalg.eig(a).eigenvalues.shape[-1], fg.linalg.eig(a).eigenvectors.shape[-1]]
    return out


def _errors():
    return {
        "non_square": error(fg.linalg.eig, fg.ones(2, 3)),
        "eigvals_non_square": error(fg.linalg.eigvals, fg.ones(2, 3)),
        "one_dim": error(fg.linalg.eig, fg.ones(3)),
        "eigvals_one_dim": error(fg.linalg.eigvals, fg.ones(3)),
        "nan": error(fg.linalg.eig, _m([[1.0, NAN], [0.0, 1.0]])),
        "inf": error(fg.linalg.eig, _m([[1.0, INF], [0.0, 1.0]])),
        "complex_nan": error(fg.linalg.eig, _m([[1.0, complex(0, NAN)], [0.0, 1.0]], "complex128")),
        "long": error(fg.linalg.eig, fg.ones(2, 2, dtype=fg.int64)),
        "half": error(fg.linalg.eig, fg.ones(2, 2, dtype=fg.float16)),
        "eigvals_bfloat16": error(fg.linalg.eigvals, fg.ones(2, 2, dtype=fg.bfloat16)),
        "not_a_tensor": error(fg.linalg.eig, [[1.0]]),
    }


def _gradient(A, loss):
    A = A.detach().requires_grad_()
    loss(*fg.linalg.eig(A)).backward()
    return A.grad


def _invariant_loss(L, V):
    return (L.real**3).sum() + (L.imag**2).sum() + (V.abs() ** 3).sum()


def _gradients():
    a, c = _m(GENERAL), _m(COMPLEX, "complex128")
    A = a.detach().requires_grad_()
    L, V = fg.linalg.eig(A)
    # an ill-defined loss: it depends on the eigenvectors' phases
    ill = error(lambda: V.sum().abs().backward())
    return {
        "values_real": _gradient(a, lambda L, V: (L.real**2).sum()),
        "values_imag": _gradient(_m(ROTATION), lambda L, V: (L.imag * L.imag.sign()).sum()),
        "vectors_abs": _gradient(a, lambda L, V: V.abs().sum()),
        "both": _gradient(a, _invariant_loss),
        "complex_both": _gradient(c, _invariant_loss),
        "eigvals": _gradient(a, lambda L, V: L.real.sum()),
        "grad_fn": [type(L.grad_fn).__name__, type(V.grad_fn).__name__],
        "eigvals_grad_fn": type(fg.linalg.eigvals(A).grad_fn).__name__,
        "ill_defined": ill,
    }


CASES = {"values": _values, "errors": _errors, "gradients": _gradients}
