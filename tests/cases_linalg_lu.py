"""Cases for the LU family and `linalg.vecdot` recorded from torch (tests/golden/record_linalg_lu.py) and checked
by tests/test_linalg_lu.py: the factors and LAPACK's pivots and infos (square, tall, wide, batched, singular,
NaN and empty inputs), (P, L, U), lu_unpack, the four lu_solve equations, the deprecated torch.lu and
torch.lu_solve, the errors (types and messages), grad_fn names and saved fields."""

import ferrograd as fg
from recorded import error


def _m(values, dtype="float64"):
    return fg.tensor(values, dtype=getattr(fg, dtype))


SQUARE = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]]
TALL = [[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]]
WIDE = [[1.0, 2.0, 5.0], [3.0, 4.0, 1.0]]
NAN = float("nan")


def _lu_factor():
    a = _m(SQUARE)
    batch = fg.stack([a, a.mT, -a])
    return {
        "square": list(fg.linalg.lu_factor(a)),
        "tall": list(fg.linalg.lu_factor(_m(TALL))),
        "wide": list(fg.linalg.lu_factor(_m(WIDE))),
        "batched_noncontiguous": list(fg.linalg.lu_factor(batch.mT)),
        "float32": list(fg.linalg.lu_factor(a.float())),
        "one_by_one": list(fg.linalg.lu_factor(_m([[-3.0]]))),
        "empty": list(fg.linalg.lu_factor(fg.zeros(0, 0))),
        "empty_batch": list(fg.linalg.lu_factor(fg.zeros(0, 2, 2))),
        "ex": list(fg.linalg.lu_factor_ex(a)),
        "ex_rank1": list(fg.linalg.lu_factor_ex(_m([[1.0, 2.0], [2.0, 4.0]]))),
        "ex_zero_column": list(fg.linalg.lu_factor_ex(_m([[0.0, 1.0], [0.0, 4.0]]))),
        "ex_zeros_batched": list(fg.linalg.lu_factor_ex(fg.zeros(2, 3, 3))),
        "ex_second_pivot": list(fg.linalg.lu_factor_ex(_m([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))),
        "ex_tall_rank1": list(fg.linalg.lu_factor_ex(_m([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]))),
        "nan_first": list(fg.linalg.lu_factor(_m([[NAN, 1.0], [2.0, 3.0]]))),
        "nan_second": list(fg.linalg.lu_factor(_m([[2.0, 1.0], [NAN, 3.0]]))),
        "inf": list(fg.linalg.lu_factor(_m([[2.0, 1.0], [float("inf"), 3.0]]))),
        "tiny_pivot": list(fg.linalg.lu_factor(_m([[1e-300, 1.0], [1e-300, 3.0]]))),
        "singular": error(fg.linalg.lu_factor, fg.zeros(3, 3)),
        "singular_batched": error(fg.linalg.lu_factor, fg.stack([fg.eye(2), fg.zeros(2, 2)])),
        "ex_check_errors": error(fg.linalg.lu_factor_ex, _m([[1.0, 2.0], [2.0, 4.0]]), check_errors=True),
        "one_dim": error(fg.linalg.lu_factor, fg.ones(3)),
        "ex_one_dim": error(fg.linalg.lu_factor_ex, fg.ones(3)),
        "long": error(fg.linalg.lu_factor, fg.ones(3, 3, dtype=fg.int64)),
        "half": error(fg.linalg.lu_factor, fg.ones(3, 3, dtype=fg.float16)),
        "bool": error(fg.linalg.lu_factor_ex, fg.ones(3, 3, dtype=fg.bool)),
        "no_pivot": error(fg.linalg.lu_factor, fg.eye(3), pivot=False),
        "ex_no_pivot": error(fg.linalg.lu_factor_ex, fg.eye(3), pivot=False),
        "type_names": [type(fg.linalg.lu_factor(a)).__name__, type(fg.linalg.lu_factor_ex(a)).__name__],
        "repr": repr(fg.linalg.lu_factor_ex(_m([[2.0, 1.0], [4.0, 3.0]]))),
    }


def _lu():
    a = _m(SQUARE)
    return {
        "square": list(fg.linalg.lu(a)),
        "tall": list(fg.linalg.lu(_m(TALL))),
        "wide": list(fg.linalg.lu(_m(WIDE))),
        "ones_wide": list(fg.linalg.lu(fg.ones(2, 3))),
        "ones_tall": list(fg.linalg.lu(fg.ones(3, 2))),
        "batched": list(fg.linalg.lu(fg.stack([a, -a.mT]))),
        "float32": list(fg.linalg.lu(a.float())),
        "singular": list(fg.linalg.lu(fg.zeros(2, 2))),
        "empty_shapes": [list(t.shape) for t in fg.linalg.lu(fg.zeros(2, 0, 3))],
        "one_dim": error(fg.linalg.lu, fg.ones(3)),
        "long": error(fg.linalg.lu, fg.ones(3, 3, dtype=fg.int64)),
        "no_pivot": error(fg.linalg.lu, _m([[1.0, 2.0], [3.0, 4.0]]), pivot=False),
        "type_name": type(fg.linalg.lu(a)).__name__,
        "p_requires_grad": fg.linalg.lu(a.clone().requires_grad_()).P.requires_grad,
    }


def _lu_unpack():
    a = _m(SQUARE)
    LU, pivots = fg.linalg.lu_factor(a)
    p3 = fg.tensor([3, 3, 3], dtype=fg.int32)
    return {
        "square": list(fg.lu_unpack(LU, pivots)),
        "tall": list(fg.lu_unpack(*fg.linalg.lu_factor(_m(TALL)))),
        "wide": list(fg.lu_unpack(*fg.linalg.lu_factor(_m(WIDE)))),
        "batched": list(fg.lu_unpack(*fg.linalg.lu_factor(fg.stack([a, a.mT])))),
        "no_data": list(fg.lu_unpack(fg.eye(3), p3, unpack_data=False)),
        "no_pivots": list(fg.lu_unpack(fg.eye(3), p3, unpack_pivots=False)),
        "wide_ones": list(fg.lu_unpack(fg.ones(2, 3), fg.tensor([2, 2], dtype=fg.int32))),
        "tall_ones": list(fg.lu_unpack(fg.ones(3, 2), fg.tensor([2, 2], dtype=fg.int32))),
        "long_data": list(fg.lu_unpack(fg.ones(3, 3, dtype=fg.int64), fg.tensor([1, 2, 3], dtype=fg.int32))),
        "type_name": type(fg.lu_unpack(LU, pivots)).__name__,
        "pivots_long": error(fg.lu_unpack, fg.eye(3), fg.tensor([3, 3, 3])),
        "pivot_too_large": error(fg.lu_unpack, fg.eye(3), fg.tensor([4, 3, 3], dtype=fg.int32)),
        "pivot_zero": error(fg.lu_unpack, fg.eye(3), fg.tensor([0, 3, 3], dtype=fg.int32)),
        "pivots_shape": error(fg.lu_unpack, fg.eye(3), fg.tensor([3, 3], dtype=fg.int32)),
        "pivots_batch_shape": error(fg.lu_unpack, fg.ones(2, 3, 3), fg.tensor([1, 2, 3], dtype=fg.int32)),
        "one_dim": error(fg.lu_unpack, fg.ones(3), fg.tensor([1, 2, 3], dtype=fg.int32)),
    }


def _lu_solve():
    a = _m(SQUARE)
    LU, pivots = fg.linalg.lu_factor(a)
    b = _m([[1.0, 2.0], [3.0, -1.0], [0.5, 4.0]])
    st = fg.linalg.lu_solve
    ones = fg.ones
    p3 = fg.tensor([1, 2, 3], dtype=fg.int32)
    return {
        "left": st(LU, pivots, b),
        "adjoint": st(LU, pivots, b, adjoint=True),
        "right": st(LU, pivots, b.mT, left=False),
        "right_adjoint": st(LU, pivots, b.mT, left=False, adjoint=True),
        "float32": st(LU.float(), pivots, b.float()),
        "broadcast_shape": list(st(LU, pivots, ones(4, 1, 3, 2, dtype=fg.float64)).shape),
        "batched": st(LU.expand(2, 3, 3), pivots.expand(2, 3), b.expand(2, 3, 2) * 2),
        "zeros_lu": st(fg.zeros(3, 3), p3, ones(3, 1)),
        "torch_lu_solve": fg.lu_solve(b, LU, pivots),
        "b_shapes": error(st, LU, pivots, ones(2, 2, dtype=fg.float64)),
        "b_1d": error(st, LU, pivots, ones(3, dtype=fg.float64)),
        "dtypes": error(st, LU.float(), pivots, b),
        "pivots_long": error(st, LU, pivots.long(), b),
        "pivots_count": error(st, LU, pivots[:2], b),
        "pivots_batch": error(st, LU.expand(2, 3, 3), pivots.expand(3, 3), b),
        "batch_mismatch": error(st, LU.expand(2, 3, 3), pivots.expand(2, 3), ones(4, 3, 2, dtype=fg.float64)),
        "nonsquare": error(st, LU[:2], pivots, b),
        "right_shapes": error(st, fg.eye(3), p3, ones(3, 1), left=False),
        "long": error(st, fg.eye(3, dtype=fg.int64), p3, ones(3, 1, dtype=fg.int64)),
        "a_1d": error(st, ones(3), p3, ones(3, 1)),
        "pivot_too_large": error(st, fg.eye(3), fg.tensor([5, 1, 1], dtype=fg.int32), ones(3, 1)),
        "pivot_zero": error(st, fg.eye(3), fg.tensor([0, 1, 1], dtype=fg.int32), ones(3, 1)),
        "pivot_negative_and_large": error(st, fg.eye(3), fg.tensor([-1, 9, 3], dtype=fg.int32), ones(3, 1)),
        "torch_lu_solve_1d": error(fg.lu_solve, ones(3), fg.eye(3), p3),
    }


def _torch_lu():
    a = _m(SQUARE)
    return {
        "plain": list(fg.lu(a)),
        "get_infos": list(fg.lu(fg.zeros(3, 3), get_infos=True)),
        "singular_no_error": list(fg.lu(fg.zeros(3, 3))),
        "type_names": [type(fg.lu(a)).__name__, type(fg.lu(a, get_infos=True)).__name__],
        "one_dim": error(fg.lu, fg.ones(3)),
    }


def _removed():
    """Functions PyTorch removed and only raises for, and the method forms of the deprecated LU functions."""
    a = _m(SQUARE)
    LU, pivots = fg.linalg.lu_factor(a)
    return {
        "cholesky": error(fg.cholesky, a),
        "cholesky_upper": error(fg.cholesky, a, upper=True),
        "method_cholesky": error(lambda: a.cholesky()),
        "matrix_rank": error(fg.matrix_rank, a),
        "solve": error(fg.solve, a, a),
        "method_solve": error(lambda: a.solve(a)),
        "lstsq": error(fg.lstsq, a, a),
        "method_lstsq": error(lambda: a.lstsq(a)),
        "symeig": error(fg.symeig, a),
        "symeig_eigenvectors": error(fg.symeig, a, eigenvectors=True),
        "method_symeig": error(lambda: a.symeig()),
        "method_lu": list(a.lu()),
        "method_lu_get_infos": list(a.lu(get_infos=True)),
        "method_lu_solve": fg.ones(3, 1, dtype=fg.float64).lu_solve(LU, pivots),
    }


def _cond_and_tensor_ops():
    a = _m([[1.0, 2.0, 0.5], [3.0, 4.0, -1.0], [0.0, 1.0, 2.0]])
    rank1 = _m([[1.0, 2.0], [2.0, 4.0]])
    leaf = a.clone().requires_grad_()
    inf = float("inf")
    ords = [None, 2, -2, "fro", "nuc", inf, -inf, 1, -1]
    t4 = (fg.arange(16.0, dtype=fg.float64).reshape(4, 4) + 10 * fg.eye(4, dtype=fg.float64)).reshape(4, 2, 2)
    t6 = (fg.arange(36.0, dtype=fg.float64).reshape(6, 6) + 20 * fg.eye(6, dtype=fg.float64)).reshape(2, 3, 6)
    r = {f"cond_{p}": fg.linalg.cond(a, p) for p in ords}
    r.update({f"cond_singular_{p}": fg.linalg.cond(rank1, p) for p in ["fro", inf, -inf, 1, -1]})
    r.update(
        {
            "cond_batched": fg.linalg.cond(fg.stack([a, a.mT * 2])),
            "cond_float32": fg.linalg.cond(a.float(), 1),
            "cond_wide": fg.linalg.cond(_m(WIDE)),
            "cond_wide_minus_2": fg.linalg.cond(_m(WIDE), -2),
            "cond_empty": fg.linalg.cond(fg.zeros(0, 0)),
            "cond_empty_1": fg.linalg.cond(fg.zeros(0, 0), 1),
            "cond_empty_batch_fro": fg.linalg.cond(fg.zeros(2, 0, 0), "fro"),
            "cond_grad_fns": [fg.linalg.cond(leaf, p).grad_fn.name() for p in ords],
            # torch fills the inverse in place after inv_ex saved it: these orders cannot be differentiated
            "cond_backward_fro": error(lambda: fg.linalg.cond(leaf, "fro").backward()),
            "cond_backward_1": error(lambda: fg.linalg.cond(leaf, 1).backward()),
            "cond_wide_fro": error(fg.linalg.cond, fg.ones(2, 3), "fro"),
            "cond_wide_int_1": error(fg.linalg.cond, fg.ones(2, 3), 1),
            "cond_wide_float_1": error(fg.linalg.cond, fg.ones(2, 3), 1.0),
            "cond_wide_inf": error(fg.linalg.cond, fg.ones(2, 3), inf),
            "cond_wide_nuc": error(fg.linalg.cond, fg.ones(2, 3), "nuc"),
            "cond_1d": error(fg.linalg.cond, fg.ones(3)),
            "cond_1d_fro": error(fg.linalg.cond, fg.ones(3), "fro"),
            "cond_bad_ord": error(fg.linalg.cond, fg.eye(2), 3),
            "cond_bad_float_ord": error(fg.linalg.cond, fg.eye(2), 2.5),
            "cond_bad_str": error(fg.linalg.cond, fg.eye(2), "abc"),
            "cond_long": error(fg.linalg.cond, fg.ones(2, 2, dtype=fg.int64)),
            "tensorinv": fg.linalg.tensorinv(t4, ind=1),
            "tensorinv_ind2": fg.linalg.tensorinv(t4.reshape(2, 2, 2, 2)),
            "tensorinv_shape": list(fg.linalg.tensorinv(t6.reshape(2, 3, 6), ind=2).shape),
            "tensorinv_ind0": error(fg.linalg.tensorinv, t4, ind=0),
            "tensorinv_sizes": error(fg.linalg.tensorinv, t4),
            "tensorinv_singular": linalg_error(lambda: fg.linalg.tensorinv(fg.zeros(2, 2), ind=1)),
            "tensorsolve": fg.linalg.tensorsolve(t6, _m([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])),
            "tensorsolve_dims": fg.linalg.tensorsolve(
                t6.reshape(2, 3, 2, 3), fg.ones(2, 3, dtype=fg.float64), dims=(0, 1)
            ),
            "tensorsolve_sizes": error(fg.linalg.tensorsolve, t6, fg.ones(6, dtype=fg.float64)),
            "tensorsolve_sizes_2": error(fg.linalg.tensorsolve, t6, fg.ones(2, 2, dtype=fg.float64)),
            "tensorsolve_singular": linalg_error(lambda: fg.linalg.tensorsolve(fg.zeros(2, 2), fg.ones(2))),
            "tensorsolve_dtypes": error(fg.linalg.tensorsolve, t6, fg.ones(2, 3)),
        }
    )
    return r


def _triangular_solve():
    a = _m([[2.0, 1.0], [0.5, 3.0]])
    b = _m([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    ts = fg.triangular_solve
    leaf = a.clone().requires_grad_()
    r = {
        f"upper_{upper}_transpose_{transpose}_unit_{unit}": list(ts(b, a, upper, transpose, unit))
        for upper in (True, False)
        for transpose in (False, True)
        for unit in (False, True)
    }
    x = ts(b, leaf, transpose=True)
    node = x.solution.grad_fn
    saved = [node._saved_upper, node._saved_transpose, node._saved_unitriangular]
    saved_tensors = [node._saved_A, node._saved_self, node._saved_solution]
    (x.solution.sum() + 2 * x.cloned_coefficient.sum()).backward()
    r.update(
        {
            "method": list(b.triangular_solve(a, upper=False)),
            "float32": list(ts(b.float(), a.float())),
            "broadcast_shapes": [list(t.shape) for t in ts(b.expand(3, 2, 3), a)]
            + [list(ts(b, a.expand(3, 2, 2))[0].shape)],
            "singular": list(ts(b, fg.zeros(2, 2, dtype=fg.float64))),
            "type_name": type(ts(b, a)).__name__,
            "grad_fns": [t.grad_fn.name() for t in ts(b, leaf)],
            "saved": saved,
            "saved_tensors": saved_tensors,
            "grad_both_outputs": leaf.grad,
            "b_1d": error(ts, b[0], a),
            "a_1d": error(ts, b, a[0]),
            "nonsquare": error(ts, b, fg.ones(2, 3, dtype=fg.float64)),
            "sizes": error(ts, fg.ones(3, 3, dtype=fg.float64), a),
            "dtypes": error(ts, b.float(), a),
            "long": error(ts, b.long(), a.long()),
            "batch_mismatch": error(ts, fg.ones(4, 2, 3, dtype=fg.float64), a.expand(3, 2, 2)),
        }
    )
    return r


def _torch_vander():
    x = _m([1.0, 2.0, -3.0])
    leaf = x.clone().requires_grad_()
    return {
        "default": fg.vander(x),
        "increasing": fg.vander(x, increasing=True),
        "n": fg.vander(x, N=5),
        "n0": fg.vander(x, N=0),
        "n1": fg.vander(x, 1),
        "float32": fg.vander(x.float(), 2, True),
        "int8": fg.vander(fg.tensor([1, 2], dtype=fg.int8)),
        "bool": fg.vander(fg.tensor([True, False])),
        "empty": fg.vander(fg.zeros(0)),
        "grad_fns": [fg.vander(leaf).grad_fn.name(), fg.vander(leaf, increasing=True).grad_fn.name()],
        # the in-place cumulative product breaks the backward, in PyTorch too (its message names other views)
        "backward_raises": error(lambda: fg.vander(leaf).sum().backward()).type,
        "2d": error(fg.vander, fg.ones(2, 2)),
        "0d": error(fg.vander, fg.tensor(2.0)),
        "negative_n": error(fg.vander, x, -1),
    }


def _geqrf():
    leaf = _m(TALL).requires_grad_()
    return {
        "tall": list(fg.geqrf(_m(TALL))),
        "wide": list(fg.geqrf(_m(WIDE))),
        "square_batched": list(fg.geqrf(fg.stack([_m(SQUARE), _m(SQUARE).mT]))),
        "float32": list(fg.geqrf(_m(TALL).float())),
        "zero_columns": list(fg.geqrf(_m([[0.0, 1.0], [0.0, 2.0]]))),
        "empty": list(fg.geqrf(fg.zeros(2, 0))),
        "method": list(_m(WIDE).geqrf()),
        "type_name": type(fg.geqrf(_m(TALL))).__name__,
        "grad_fns": [t.grad_fn.name() for t in fg.geqrf(leaf)],
        "backward": error(lambda: fg.geqrf(leaf).a.sum().backward()),
        "one_dim": error(fg.geqrf, fg.ones(3)),
        "long": error(fg.geqrf, fg.ones(2, 2, dtype=fg.int64)),
        "half": error(fg.geqrf, fg.ones(2, 2, dtype=fg.float16)),
    }


def _grad_fns():
    a = _m(SQUARE).requires_grad_()
    LU, pivots = fg.linalg.lu_factor(a)
    P, L, U = fg.lu_unpack(LU, pivots)
    wide = fg.lu_unpack(*fg.linalg.lu_factor(_m(WIDE).requires_grad_())).L
    x = fg.linalg.lu_solve(LU, pivots, fg.ones(3, 2, dtype=fg.float64), left=True, adjoint=True)
    y = fg.linalg.lu_solve(LU, pivots, fg.ones(2, 3, dtype=fg.float64), left=False)
    lu = fg.linalg.lu(a)
    return {
        "lu_factor": LU.grad_fn.name(),
        "lu_factor_saved": [LU.grad_fn._saved_pivot, LU.grad_fn._saved_pivots],
        "lu_factor_ex": fg.linalg.lu_factor_ex(a).LU.grad_fn.name(),
        "lu_factor_ex_outputs": [t.requires_grad for t in fg.linalg.lu_factor_ex(a)],
        "torch_lu": fg.lu(a)[0].grad_fn.name(),
        "lu": [lu.L.grad_fn.name(), lu.U.grad_fn.name(), lu.P.grad_fn is None],
        "lu_saved_pivot": lu.L.grad_fn._saved_pivot,
        "lu_unpack": [L.grad_fn.name(), U.grad_fn.name(), P.grad_fn is None],
        "lu_unpack_saved": [L.grad_fn._saved_LU_data_sym_argsize_minus_1, L.grad_fn._saved_LU_data_sym_argsize_minus_2],
        "lu_unpack_wide_saved": [
            wide.grad_fn._saved_LU_data_sym_argsize_minus_1,
            wide.grad_fn._saved_LU_data_sym_argsize_minus_2,
        ],
        "lu_solve": x.grad_fn.name(),
        "lu_solve_saved": [x.grad_fn._saved_left, x.grad_fn._saved_adjoint, y.grad_fn._saved_left],
        "lu_solve_saved_result": x.grad_fn._saved_result,
        "vecdot": fg.linalg.vecdot(a, a).grad_fn.name(),
    }


def _vecdot():
    x = _m([[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]])
    y = _m([2.0, -1.0, 0.5])
    ones = fg.ones
    return {
        "broadcast": fg.linalg.vecdot(x, y),
        "dim0": fg.linalg.vecdot(x, x, dim=0),
        "zero_dim": fg.linalg.vecdot(fg.tensor(2.0), fg.tensor(3.0)),
        "empty": fg.linalg.vecdot(ones(0, 3), ones(3)),
        "float16": fg.linalg.vecdot(ones(3, dtype=fg.float16), ones(3, dtype=fg.float16)),
        "float32": fg.linalg.vecdot(x.float(), y.float()),
        "long": error(fg.linalg.vecdot, ones(3, dtype=fg.int64), ones(3, dtype=fg.int64)),
        "long_float": error(fg.linalg.vecdot, ones(3, dtype=fg.int64), ones(3)),
        "float_long": error(fg.linalg.vecdot, ones(3), ones(3, dtype=fg.int64)),
        "dtypes": error(fg.linalg.vecdot, ones(3), ones(3, dtype=fg.float64)),
        "bool": error(fg.linalg.vecdot, ones(3, dtype=fg.bool), ones(3, dtype=fg.bool)),
        "sizes": error(fg.linalg.vecdot, ones(3), ones(2)),
        "dim_out_of_range": error(fg.linalg.vecdot, ones(2, 3), ones(2, 3), dim=5),
        "vectors_any_dim": fg.linalg.vecdot(fg.arange(3.0), fg.arange(3.0), dim=4),
        "grad_fns": [
            fg.linalg.vecdot(ones(3, requires_grad=True), ones(3)).grad_fn.name(),
            fg.linalg.vecdot(ones(2, 3, requires_grad=True), ones(3)).grad_fn.name(),
        ],
    }


def linalg_error(fn):
    """What `fn` raised, with whether it is a `linalg.LinAlgError` (torch names its class `_LinAlgError`)."""
    try:
        fn()
    except fg.linalg.LinAlgError as e:
        return {"linalg_error": True, "message": str(e)}
    except Exception as e:  # the point is to record any exception
        return {"linalg_error": False, "type": type(e).__name__, "message": str(e)}
    return None


def _ex():
    """The `_ex` variants: LAPACK's info and its partial results for singular and indefinite inputs."""
    rank1 = _m([[1.0, 2.0], [2.0, 4.0]])
    second_pivot = _m([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    indefinite = _m([[4.0, 2.0, 2.0, 2.0], [2.0, 1.0, 2.0, 3.0], [2.0, 2.0, 6.0, 1.0], [2.0, 3.0, 1.0, 9.0]])
    third_minor = _m(
        [
            [4.0, 2.0, 2.0, 2.0, 2.0],
            [2.0, 5.0, 2.0, 3.0, 1.0],
            [2.0, 2.0, 1.0, 1.0, 1.0],
            [2.0, 3.0, 1.0, 9.0, 1.0],
            [2.0, 1.0, 1.0, 1.0, 7.0],
        ]
    )
    spd = _m([[4.0, 2.0], [2.0, 5.0]])
    leaf = spd.clone().requires_grad_()
    return {
        "inv_ex": list(fg.linalg.inv_ex(_m([[2.0, 1.0], [1.0, 1.0]]))),
        "inv_ex_rank1": list(fg.linalg.inv_ex(rank1)),
        "inv_ex_zeros": list(fg.linalg.inv_ex(fg.zeros(3, 3))),
        "inv_ex_second_pivot": list(fg.linalg.inv_ex(second_pivot)),
        "inv_ex_batched": list(fg.linalg.inv_ex(fg.stack([spd, rank1]))),
        "inv_ex_float32": list(fg.linalg.inv_ex(spd.float())),
        "inv_ex_check_errors": linalg_error(lambda: fg.linalg.inv_ex(fg.zeros(2, 3, 3), check_errors=True)),
        "inv_ex_check_errors_single": linalg_error(lambda: fg.linalg.inv_ex(rank1, check_errors=True)),
        "inv_ex_1d": error(fg.linalg.inv_ex, fg.ones(3)),
        "inv_ex_long": error(fg.linalg.inv_ex, fg.ones(3, 3, dtype=fg.int64)),
        "inv_ex_nonsquare": error(fg.linalg.inv_ex, fg.ones(2, 3)),
        "solve_ex": list(fg.linalg.solve_ex(spd, _m([1.0, 2.0]))),
        "solve_ex_rank1": list(fg.linalg.solve_ex(rank1, _m([1.0, 1.0]))),
        "solve_ex_zeros": list(fg.linalg.solve_ex(fg.zeros(3, 3), fg.ones(3))),
        "solve_ex_left_false": list(fg.linalg.solve_ex(rank1, _m([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), left=False)),
        "solve_ex_broadcast": list(fg.linalg.solve_ex(fg.stack([spd, rank1]), _m([[1.0], [2.0]]))),
        "solve_ex_check_errors": linalg_error(
            lambda: fg.linalg.solve_ex(fg.zeros(3, 3), fg.ones(3), check_errors=True)
        ),
        "solve_ex_check_errors_batched": linalg_error(
            lambda: fg.linalg.solve_ex(fg.zeros(2, 2, 2), fg.ones(2, 2, 1), check_errors=True)
        ),
        "solve_ex_nonsquare": error(fg.linalg.solve_ex, fg.ones(2, 3), fg.ones(2)),
        "cholesky_ex": list(fg.linalg.cholesky_ex(spd)),
        "cholesky_ex_upper": list(fg.linalg.cholesky_ex(spd, upper=True)),
        "cholesky_ex_second_minor": list(fg.linalg.cholesky_ex(_m([[4.0, 2.0], [2.0, -1.0]]))),
        "cholesky_ex_partial": list(fg.linalg.cholesky_ex(indefinite)),
        "cholesky_ex_partial_upper": list(fg.linalg.cholesky_ex(indefinite, upper=True)),
        "cholesky_ex_third_minor": list(fg.linalg.cholesky_ex(third_minor)),
        "cholesky_ex_negative_eye": list(fg.linalg.cholesky_ex(-fg.eye(3))),
        "cholesky_ex_nan": list(fg.linalg.cholesky_ex(_m([[NAN, 0.0], [0.0, 1.0]]))),
        "cholesky_ex_batched": list(fg.linalg.cholesky_ex(fg.stack([spd, -spd]))),
        "cholesky_ex_float32": list(fg.linalg.cholesky_ex(spd.float())),
        "cholesky_upper_reads_upper": linalg_error(
            lambda: fg.linalg.cholesky(_m([[4.0, 100.0], [2.0, 5.0]]), upper=True)
        ),
        "cholesky_ex_upper_reads_upper": list(fg.linalg.cholesky_ex(_m([[4.0, 2.0], [100.0, 5.0]]), upper=True)),
        "cholesky_ex_check_errors": linalg_error(lambda: fg.linalg.cholesky_ex(fg.zeros(2, 3, 3), check_errors=True)),
        "cholesky_ex_1d": error(fg.linalg.cholesky_ex, fg.ones(3)),
        "cholesky_ex_long": error(fg.linalg.cholesky_ex, fg.ones(3, 3, dtype=fg.int64)),
        "type_names": [
            type(fg.linalg.inv_ex(spd)).__name__,
            type(fg.linalg.solve_ex(spd, spd)).__name__,
            type(fg.linalg.cholesky_ex(spd)).__name__,
        ],
        "repr": repr(fg.linalg.cholesky_ex(spd)),
        "grad_fns": [
            fg.linalg.inv_ex(leaf).inverse.grad_fn.name(),
            fg.linalg.solve_ex(leaf, spd).result.grad_fn.name(),
            fg.linalg.cholesky_ex(leaf).L.grad_fn.name(),
        ],
        "info_requires_grad": [
            fg.linalg.inv_ex(leaf).info.requires_grad,
            fg.linalg.cholesky_ex(leaf).info.requires_grad,
        ],
        "saved": [
            fg.linalg.cholesky_ex(leaf, upper=True).L.grad_fn._saved_upper,
            fg.linalg.cholesky_ex(leaf).L.grad_fn._saved_L,
            fg.linalg.inv_ex(leaf).inverse.grad_fn._saved_inverse,
        ],
    }


CASES = {
    "lu_factor": _lu_factor,
    "lu": _lu,
    "lu_unpack": _lu_unpack,
    "lu_solve": _lu_solve,
    "torch_lu": _torch_lu,
    "grad_fns": _grad_fns,
    "vecdot": _vecdot,
    "ex": _ex,
    "removed": _removed,
    "cond_and_tensor_ops": _cond_and_tensor_ops,
    "triangular_solve": _triangular_solve,
    "torch_vander": _torch_vander,
    "geqrf": _geqrf,
}
