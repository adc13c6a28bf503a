"""Cases for `linalg` recorded from torch (tests/golden/record_linalg.py) and checked by tests/test_linalg.py:
the errors (types and messages: non-square, too few dims, integer and half inputs, singular and indefinite
matrices, batched), values at the bounds (0x0, 1x1, singular, empty batches) and the grad_fn names."""

import ferrograd as fg
from recorded import error


def linalg_error(fn):
    """What `fn` raised, with whether it is a `linalg.LinAlgError` (torch names its class `_LinAlgError`)."""
    try:
        fn()
    except fg.linalg.LinAlgError as e:
        return {"linalg_error": True, "runtime_error": isinstance(e, RuntimeError), "message": str(e)}
    except Exception as e:  # the point is to record any exception
        return {"linalg_error": False, "type": type(e).__name__, "message": str(e)}
    return None


def _m(values, dtype="float64"):
    return fg.tensor(values, dtype=getattr(fg, dtype))


def _shape_errors():
    r = {}
    for name, fn in {
        "inv": fg.linalg.inv,
        "det": fg.linalg.det,
        "slogdet": fg.linalg.slogdet,
        "cholesky": fg.linalg.cholesky,
        "eigh": fg.linalg.eigh,
        "eigvalsh": fg.linalg.eigvalsh,
    }.items():
        r[f"{name}_nonsquare"] = error(fn, fg.ones(2, 3))
        r[f"{name}_1d"] = error(fn, fg.ones(3))
        r[f"{name}_long"] = error(fn, fg.ones(3, 3, dtype=fg.int64))
    r["svd_1d"] = error(fg.linalg.svd, fg.ones(3))
    r["svd_long"] = error(fg.linalg.svd, fg.ones(3, 3, dtype=fg.int64))
    r["svdvals_1d"] = error(fg.linalg.svdvals, fg.ones(3))
    r["pinv_long_1d"] = error(fg.linalg.pinv, fg.ones(3, dtype=fg.int64))
    r["matrix_rank_1d"] = error(fg.linalg.matrix_rank, fg.ones(3))
    r["inv_half"] = error(fg.linalg.inv, fg.eye(3, dtype=fg.float16))
    r["matrix_norm_1d"] = error(fg.linalg.matrix_norm, fg.ones(3))
    r["matrix_norm_order"] = error(fg.linalg.matrix_norm, fg.ones(3, 3), 3)
    r["matrix_norm_order_str"] = error(fg.linalg.matrix_norm, fg.ones(3, 3), "abc")
    r["matrix_norm_same_dims"] = error(fg.linalg.matrix_norm, fg.ones(3, 3), dim=(0, 0))
    r["matrix_norm_long"] = error(fg.linalg.matrix_norm, fg.ones(3, 3, dtype=fg.int64))
    r["norm_3d_ord"] = error(fg.linalg.norm, fg.ones(2, 2, 2), 2)
    r["vector_norm_long"] = error(fg.linalg.vector_norm, fg.ones(3, dtype=fg.int64))
    r["vector_norm_str"] = error(fg.linalg.vector_norm, fg.ones(3), "fro")
    r["eigh_uplo"] = error(fg.linalg.eigh, fg.eye(2), "X")
    return r


def _solve_errors():
    return {
        "shapes": error(fg.linalg.solve, fg.eye(3), fg.ones(2)),
        "shapes_matrix": error(fg.linalg.solve, fg.ones(2, 3, 3), fg.ones(4, 3)),
        "dtypes": error(fg.linalg.solve, fg.eye(3, dtype=fg.float64), fg.ones(3)),
        "long_b": error(fg.linalg.solve, fg.eye(3), fg.ones(3, dtype=fg.int64)),
        "scalar_b": error(fg.linalg.solve, fg.eye(3), fg.tensor(1.0)),
        "nonsquare": error(fg.linalg.solve, fg.ones(2, 3), fg.ones(2)),
    }


def _singular():
    z = fg.zeros(3, 3)
    rank1 = _m([[1.0, 2.0], [2.0, 4.0]])
    return {
        "inv": linalg_error(lambda: fg.linalg.inv(z)),
        "inv_second_pivot": linalg_error(lambda: fg.linalg.inv(rank1)),
        "inv_batched": linalg_error(lambda: fg.linalg.inv(fg.stack([fg.eye(3), z]))),
        "inverse": linalg_error(lambda: fg.inverse(z)),
        "solve": linalg_error(lambda: fg.linalg.solve(z, fg.ones(3))),
        "solve_batched": linalg_error(lambda: fg.linalg.solve(fg.zeros(2, 3, 3), fg.zeros(2, 3, 1))),
        "cholesky": linalg_error(lambda: fg.linalg.cholesky(-fg.eye(3))),
        "cholesky_order2": linalg_error(lambda: fg.linalg.cholesky(_m([[1.0, 2.0], [2.0, 1.0]]))),
        "cholesky_batched": linalg_error(lambda: fg.linalg.cholesky(fg.zeros(2, 3, 3))),
        "det": fg.linalg.det(rank1),
        "det_zero": fg.linalg.det(z),
        "slogdet": list(fg.linalg.slogdet(rank1)),
        "logdet": fg.logdet(rank1),
        "logdet_negative": fg.logdet(_m([[0.0, 1.0], [1.0, 0.0]])),
    }


def _bounds():
    empty = fg.zeros(0, 0, dtype=fg.float64)
    empty_batch = fg.zeros(0, 3, 3, dtype=fg.float64)
    one = _m([[4.0]])
    return {
        "det_0x0": fg.linalg.det(empty),
        "slogdet_0x0": list(fg.linalg.slogdet(empty)),
        "inv_0x0": fg.linalg.inv(empty),
        "cholesky_0x0": fg.linalg.cholesky(empty),
        "eigh_0x0": list(fg.linalg.eigh(empty)),
        "det_empty_batch": fg.linalg.det(empty_batch),
        "inv_empty_batch": fg.linalg.inv(empty_batch),
        "solve_empty_batch": fg.linalg.solve(empty_batch, fg.zeros(0, 3, 2, dtype=fg.float64)),
        "det_1x1": fg.linalg.det(one),
        "inv_1x1": fg.linalg.inv(one),
        "cholesky_1x1": fg.linalg.cholesky(one),
        "eigh_1x1": list(fg.linalg.eigh(one)),
        "slogdet_1x1_negative": list(fg.linalg.slogdet(-one)),
        "matrix_norm_fro_0x0": fg.linalg.matrix_norm(empty),
        "matrix_norm_1_0x0": fg.linalg.matrix_norm(empty, 1),
        "det_int_exact": fg.linalg.det(_m([[2.0, 0.0, 1.0], [1.0, 3.0, 2.0], [1.0, 1.0, 1.0]])),
        "det_nan": fg.linalg.det(_m([[float("nan"), 1.0], [1.0, 1.0]])),
        "det_inf": fg.linalg.det(_m([[float("inf"), 0.0], [0.0, 1.0]])),
        "solve_vector_batch": fg.linalg.solve(
            fg.eye(3, dtype=fg.float64).expand(2, 3, 3), fg.ones(2, 3, dtype=fg.float64)
        ),
        "cholesky_upper": fg.linalg.cholesky(_m([[4.0, 2.0], [2.0, 5.0]]), upper=True),
        "cholesky_reads_lower": fg.linalg.cholesky(_m([[4.0, 100.0], [2.0, 5.0]])),
        "eigvalsh_reads_upper": fg.linalg.eigvalsh(_m([[2.0, 1.0], [100.0, 2.0]]), "U"),
    }


def _norms():
    a = _m([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])
    b = fg.arange(24, dtype=fg.float64).reshape(2, 3, 4) - 11.5
    return {
        "fro": fg.linalg.matrix_norm(a),
        "one": fg.linalg.matrix_norm(a, 1),
        "minus_one": fg.linalg.matrix_norm(a, -1),
        "inf": fg.linalg.matrix_norm(a, float("inf")),
        "minus_inf": fg.linalg.matrix_norm(a, float("-inf")),
        "one_dims": fg.linalg.matrix_norm(b, 1, dim=(0, 2)),
        "inf_dims_keepdim": fg.linalg.matrix_norm(b, float("inf"), dim=(2, 0), keepdim=True),
        "norm_default": fg.linalg.norm(b),
        "norm_dim": fg.linalg.norm(b, dim=1),
        "norm_ord_2d": fg.linalg.norm(a, 1),
        "norm_ord_dim": fg.linalg.norm(a, 1, dim=1),
        "norm_fro_dims": fg.linalg.norm(b, "fro", dim=(1, 2)),
        "vector_norm": fg.linalg.vector_norm(b, 3, dim=(0, 2)),
        "vector_norm_inf": fg.linalg.vector_norm(a, float("inf")),
        "vector_norm_dtype": fg.linalg.vector_norm(a.float(), dtype=fg.float64),
        "float32": fg.linalg.matrix_norm(a.float(), 1),
    }


def _grad_fn_names():
    a = (fg.eye(3, dtype=fg.float64) * 2 + 0.1).requires_grad_()
    return {
        "inv": fg.linalg.inv(a).grad_fn.name(),
        "inverse": fg.inverse(a).grad_fn.name(),
        "det": fg.linalg.det(a).grad_fn.name(),
        "Tensor.det": a.det().grad_fn.name(),
        "slogdet": fg.linalg.slogdet(a).logabsdet.grad_fn.name(),
        "solve": fg.linalg.solve(a, a).grad_fn.name(),
        "cholesky": fg.linalg.cholesky(a).grad_fn.name(),
        "eigh": fg.linalg.eigh(a).eigenvectors.grad_fn.name(),
        "eigvalsh": fg.linalg.eigvalsh(a).grad_fn.name(),
        "vector_norm": fg.linalg.vector_norm(a).grad_fn.name(),
        "matrix_norm": fg.linalg.matrix_norm(a).grad_fn.name(),
        "matrix_norm_1": fg.linalg.matrix_norm(a, 1).grad_fn.name(),
        "norm": fg.linalg.norm(a).grad_fn.name(),
        "logdet": fg.logdet(a).grad_fn.name(),
        "svd": fg.linalg.svd(a).U.grad_fn.name(),
        "svdvals": fg.linalg.svdvals(a).grad_fn.name(),
        "matrix_norm_2": fg.linalg.matrix_norm(a, 2).grad_fn.name(),
        "matrix_norm_nuc": fg.linalg.matrix_norm(a, "nuc").grad_fn.name(),
    }


def _svd_family():
    a = _m([[3.0, 1.0], [1.0, 3.0], [0.0, 2.0]])
    rank1 = _m([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    return {
        "svdvals": fg.linalg.svdvals(a),
        "svdvals_wide": fg.linalg.svdvals(a.mT),
        "svdvals_zeros": fg.linalg.svdvals(fg.zeros(2, 2)),
        "svd_shapes_full": [list(t.shape) for t in fg.linalg.svd(a)],
        "svd_shapes_thin": [list(t.shape) for t in fg.linalg.svd(a, full_matrices=False)],
        "svd_empty": [list(t.shape) for t in fg.linalg.svd(fg.zeros(0, 3))],
        "torch_svd_shapes": [list(t.shape) for t in fg.svd(a)],
        "torch_svd_some_false": [list(t.shape) for t in fg.svd(a, some=False)],
        "torch_svd_no_uv": list(fg.svd(a, compute_uv=False)),
        "pinv": fg.linalg.pinv(a),
        "pinv_rank1": fg.linalg.pinv(rank1),
        "pinverse": fg.pinverse(rank1),
        "pinv_empty": fg.linalg.pinv(fg.zeros(0, 3)),
        "matrix_rank": fg.linalg.matrix_rank(a),
        "matrix_rank_rank1": fg.linalg.matrix_rank(rank1),
        "matrix_rank_atol": fg.linalg.matrix_rank(a, atol=3.0),
        "matrix_rank_rtol": fg.linalg.matrix_rank(a, rtol=0.9),
        "matrix_rank_empty": fg.linalg.matrix_rank(fg.zeros(2, 0, 3)),
        "norm_2": fg.linalg.matrix_norm(a, 2),
        "norm_-2": fg.linalg.matrix_norm(a, -2),
        "norm_nuc": fg.linalg.matrix_norm(a, "nuc"),
        "norm_2_keepdim_dims": fg.linalg.matrix_norm(fg.arange(24.0).reshape(2, 3, 4), 2, dim=(0, 2), keepdim=True),
    }


def _float32():
    a = fg.tensor([[3.0, 1.0, 0.5], [1.0, 4.0, 1.0], [0.5, 1.0, 5.0]])
    return {
        "inv": fg.linalg.inv(a),
        "det": fg.linalg.det(a),
        "solve": fg.linalg.solve(a, fg.ones(3)),
        "cholesky": fg.linalg.cholesky(a),
        "eigvalsh": fg.linalg.eigvalsh(a),
        "slogdet": list(fg.linalg.slogdet(a)),
    }


def _cross():
    a = _m([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
    b = _m([[4.0, -5.0, 6.0]])
    ones = fg.ones
    return {
        "values_broadcast": fg.linalg.cross(a, b),
        "dim0": fg.linalg.cross(a.mT, b.mT.expand(3, 2), dim=0),
        "torch_cross_default_dim": fg.cross(a.mT, b.mT.expand(3, 2)),
        "torch_cross_dim": fg.cross(a, b, dim=-1),
        "method": a.cross(b, dim=1),
        "int64": fg.linalg.cross(fg.tensor([1, 2, 3]), fg.tensor([4, 5, 6])),
        "empty_batch": fg.linalg.cross(ones(0, 3), ones(1, 3)),
        "nan_inf": fg.linalg.cross(_m([float("nan"), 1.0, 0.0]), _m([float("inf"), 0.0, 1.0])),
        "length_4": error(fg.linalg.cross, ones(2, 4), ones(2, 4)),
        "length_3_and_4": error(fg.linalg.cross, ones(2, 3), ones(2, 4)),
        "length_2_dim_default": error(fg.linalg.cross, ones(3, 2), ones(3, 2)),
        "torch_cross_no_dim_of_3": error(fg.cross, ones(2, 4), ones(2, 4)),
        "torch_cross_default_dim_other_1": error(fg.cross, ones(3, 3), ones(1, 3)),
        "dim_out_of_range": error(fg.linalg.cross, ones(3, 3), ones(3, 3), dim=5),
        "torch_cross_dim_out_of_range": error(fg.cross, ones(3, 3), ones(3, 3), dim=5),
        "ndim_mismatch": error(fg.linalg.cross, ones(3), ones(2, 3)),
        "zero_dim": error(fg.linalg.cross, fg.tensor(1.0), fg.tensor(1.0)),
        "dtypes": error(fg.linalg.cross, ones(3), ones(3, dtype=fg.float64)),
        "dtypes_long_float": error(fg.linalg.cross, ones(3, dtype=fg.int64), ones(3)),
        "bool": error(fg.linalg.cross, ones(3, dtype=fg.bool), ones(3, dtype=fg.bool)),
        "broadcast_mismatch": error(fg.linalg.cross, ones(2, 3), ones(4, 3)),
        "grad_fn": fg.linalg.cross(a.requires_grad_(), b).grad_fn.name(),
        "torch_cross_grad_fn": fg.cross(a, b, dim=1).grad_fn.name(),
        "saved_other": fg.linalg.cross(a, b).grad_fn._saved_other,
    }


def _qr():
    a = _m([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
    wide = _m([[2.0, -1.0, 0.5], [1.0, 3.0, -2.0]])
    leaf = a.clone().requires_grad_()
    r = {}
    for mode in ("reduced", "complete", "r"):
        r[f"tall_{mode}"] = list(fg.linalg.qr(a, mode=mode))
        r[f"wide_{mode}"] = list(fg.linalg.qr(wide, mode))
    r.update(
        {
            "float32": list(fg.linalg.qr(a.float())),
            "batched_noncontiguous": list(fg.linalg.qr(fg.stack([a, -a]).mT)),
            "zero_column_keeps_sign": list(fg.linalg.qr(_m([[-2.0, 1.0], [0.0, 1.0]]))),
            "zeros": list(fg.linalg.qr(fg.zeros(2, 2))),
            "empty_rows": [list(t.shape) for t in fg.linalg.qr(fg.zeros(0, 3))],
            "empty_cols": [list(t.shape) for t in fg.linalg.qr(fg.zeros(3, 0), mode="complete")],
            "mode_r_q_shape": list(fg.linalg.qr(a, mode="r").Q.shape),
            "bad_mode": error(fg.linalg.qr, a, mode="x"),
            "one_dim": error(fg.linalg.qr, fg.ones(3)),
            "long": error(fg.linalg.qr, fg.ones(3, 3, dtype=fg.int64)),
            "half": error(fg.linalg.qr, fg.ones(3, 3, dtype=fg.float16)),
            "torch_qr_removed": error(fg.qr, a),
            "torch_qr_some_false": error(fg.qr, a, some=False),
            "method_removed": error(lambda: a.qr()),
            "grad_fn_q": fg.linalg.qr(leaf).Q.grad_fn.name(),
            "grad_fn_r": fg.linalg.qr(leaf, mode="r").R.grad_fn.name(),
            "backward_mode_r": error(lambda: fg.linalg.qr(leaf, mode="r").R.sum().backward()),
            "backward_complete_tall": error(lambda: fg.linalg.qr(leaf, mode="complete").Q.sum().backward()),
            "repr": repr(fg.linalg.qr(_m([[3.0, 0.0], [4.0, 5.0]]))),
            "type_name": type(fg.linalg.qr(a)).__name__,
        }
    )
    return r


def _products():
    a = _m([[1.0, 2.0], [3.0, 4.0]])
    x = _m([1.0, -2.0])
    fib = fg.tensor([[1, 1], [1, 0]])
    leaf = (a + 0.0).requires_grad_()
    r = {f"matrix_power_{n}": fg.linalg.matrix_power(a, n) for n in (-3, -2, -1, 0, 1, 2, 3, 5)}
    r.update(
        {
            "matrix_power_int": fg.linalg.matrix_power(fib, 10),
            "matrix_power_batched_0": fg.linalg.matrix_power(fg.ones(2, 3, 3), 0),
            "matrix_power_empty": fg.linalg.matrix_power(fg.zeros(0, 0), 5),
            "torch_matrix_power": fg.matrix_power(a, 4),
            "method": a.matrix_power(2),
            "matrix_power_1d": error(fg.linalg.matrix_power, fg.ones(2), 2),
            "matrix_power_nonsquare": error(fg.linalg.matrix_power, fg.ones(2, 3), 2),
            "matrix_power_float_n": error(fg.linalg.matrix_power, a, 2.0),
            "matrix_power_negative_int": error(fg.linalg.matrix_power, fib, -1),
            "matrix_power_singular": linalg_error(lambda: fg.linalg.matrix_power(fg.zeros(2, 2), -2)),
            # n = 0 ends in copy_, whose grad_fn ferrograd names CopyBackwards (torch: torch::autograd::CopyBackwards)
            "grad_fns": [fg.linalg.matrix_power(leaf, n).grad_fn.name() for n in (-2, -1, 1, 2, 3, 6)],
            "power_0_keeps_graph": fg.linalg.matrix_power(leaf, 0).requires_grad,
            "multi_dot": fg.linalg.multi_dot([a, a.mT, a]),
            "multi_dot_vectors": fg.linalg.multi_dot([x, a, x]),
            "multi_dot_4": fg.linalg.multi_dot([fg.ones(2, 5), fg.ones(5, 1), fg.ones(1, 4), fg.ones(4, 3)]),
            "multi_dot_int": fg.linalg.multi_dot([fib, fib]),
            "multi_dot_grad_fn": fg.linalg.multi_dot([leaf, leaf]).grad_fn.name(),
            "multi_dot_one": error(fg.linalg.multi_dot, [a]),
            "multi_dot_first_3d": error(fg.linalg.multi_dot, [a.unsqueeze(0), a]),
            "multi_dot_last_3d": error(fg.linalg.multi_dot, [a, a.unsqueeze(0)]),
            "multi_dot_middle_1d": error(fg.linalg.multi_dot, [a, x, a]),
            "multi_dot_shapes": error(fg.linalg.multi_dot, [a, fg.ones(3, 3, dtype=fg.float64)]),
            "multi_dot_dtypes": error(fg.linalg.multi_dot, [a, fg.ones(2, 2)]),
            "vander": fg.linalg.vander(x),
            "vander_n": fg.linalg.vander(_m([[1.0, 2.0], [3.0, -1.0]]), N=4),
            "vander_0d": fg.linalg.vander(fg.tensor(2.0), N=3),
            "vander_int": fg.linalg.vander(fg.tensor([1, 2, 3])),
            "vander_int32": fg.linalg.vander(fg.tensor([1, 2], dtype=fg.int32), N=3),
            "vander_grad_fn": fg.linalg.vander(leaf[0]).grad_fn.name(),
            "vander_n1": error(fg.linalg.vander, x, N=1),
            "vander_bool": error(fg.linalg.vander, fg.tensor([True, False])),
            "matmul": fg.linalg.matmul(a, x),
            "diagonal": fg.linalg.diagonal(fg.arange(12.0).reshape(2, 2, 3), offset=1),
        }
    )
    return r


def _lstsq():
    a = _m([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
    b = _m([[1.0], [2.0], [4.0]])
    ones = fg.ones(3, 2, dtype=fg.float64)
    leaf = (a + 0.0).requires_grad_()
    r = {f"tall_{d}": list(fg.linalg.lstsq(a, b, driver=d)) for d in ("gels", "gelsy", "gelsd", "gelss")}
    r.update(
        {
            "default": list(fg.linalg.lstsq(a, b)),
            "wide": list(fg.linalg.lstsq(a.mT, b[:2])),
            "rank_deficient": list(fg.linalg.lstsq(ones, b)),
            "rank_deficient_gelsd": list(fg.linalg.lstsq(ones, b, driver="gelsd")),
            "float32_rcond": list(fg.linalg.lstsq(a.float(), b.float(), rcond=0.5, driver="gelsd")),
            "vector": list(fg.linalg.lstsq(a, b[:, 0], driver="gelsd")),
            "batched_vector_gels": list(fg.linalg.lstsq(a.expand(2, 3, 2), b[:, 0].expand(2, 3), driver="gels")),
            "batched": list(fg.linalg.lstsq(fg.stack([a, -a]), b.expand(2, 3, 1), driver="gelss")),
            "empty_rows": list(fg.linalg.lstsq(a[:0], b[:0])),
            "grad_fns": [t.grad_fn.name() if t.grad_fn else None for t in fg.linalg.lstsq(leaf, b)],
            "bad_driver": error(fg.linalg.lstsq, a, b, driver="foo"),
            "rows": error(fg.linalg.lstsq, a, b[:2]),
            "rows_vector": error(fg.linalg.lstsq, a, b[:2, 0]),
            "dtypes": error(fg.linalg.lstsq, a, b.float()),
            "one_dim": error(fg.linalg.lstsq, fg.ones(3), fg.ones(3)),
            "zero_dim_b": error(fg.linalg.lstsq, a, fg.tensor(1.0, dtype=fg.float64)),
            "b_too_many_dims": error(fg.linalg.lstsq, a, fg.ones(1, 2, 3, 1, dtype=fg.float64)),
            "long": error(fg.linalg.lstsq, fg.ones(3, 2, dtype=fg.int64), fg.ones(3, 1, dtype=fg.int64)),
            "long_bad_driver": error(
                fg.linalg.lstsq, fg.ones(3, 2, dtype=fg.int64), fg.ones(3, 1, dtype=fg.int64), driver="x"
            ),
            "vector_batch_mismatch": error(fg.linalg.lstsq, fg.ones(2, 3, 2, dtype=fg.float64), b),
            "type_name": type(fg.linalg.lstsq(a, b)).__name__,
        }
    )
    return r


def _solve_triangular():
    a = _m([[2.0, 1.0], [0.5, 3.0]])
    b = _m([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    st = fg.linalg.solve_triangular
    leaf = (a + 0.0).requires_grad_()
    return {
        "upper": st(a, b, upper=True),
        "lower_unit": st(a, b, upper=False, unitriangular=True),
        "right": st(a, b.mT, upper=True, left=False),
        "right_lower": st(a, b.mT, upper=False, left=False),
        "promotes": st(a, b.float(), upper=True),
        "float32": st(a.float(), b.float(), upper=False),
        "broadcast_shape": list(st(a.expand(3, 2, 2), b.expand(2, 1, 2, 3), upper=True).shape),
        "singular": st(fg.zeros(2, 2), fg.ones(2, 2), upper=True),
        "grad_fn": st(leaf, b, upper=True).grad_fn.name(),
        "saved": [
            st(leaf, b.mT, upper=True, left=False).grad_fn._saved_left,
            st(leaf, b, upper=True).grad_fn._saved_upper,
        ],
        "no_upper": error(lambda: st(a, b)),
        "b_1d": error(st, a, b[0], upper=True),
        "a_1d": error(st, fg.ones(2), fg.ones(2, 2), upper=True),
        "nonsquare": error(st, fg.ones(2, 3), fg.ones(2, 3), upper=True),
        "shapes_left": error(st, a, fg.ones(3, 3, dtype=fg.float64), upper=True),
        "shapes_right": error(st, a, b, upper=True, left=False),
        "long": error(st, fg.ones(2, 2, dtype=fg.int64), fg.ones(2, 2, dtype=fg.int64), upper=True),
    }


def _matrix_exp():
    a = _m([[0.0, 1.0], [-2.0, -3.0]])
    leaf = (a + 0.0).requires_grad_()
    return {
        "values": fg.linalg.matrix_exp(a),
        "large_norm": fg.linalg.matrix_exp(_m([[1.0, 20.0, -3.0], [0.5, 4.0, 2.0], [-6.0, 1.0, 0.0]])),
        "small_norm": fg.linalg.matrix_exp(_m([[1e-3, 2e-3], [0.0, -1e-3]])),
        "float32": fg.linalg.matrix_exp(a.float()),
        "batched": fg.linalg.matrix_exp(fg.stack([a, a.mT * 2])),
        "one_by_one": fg.linalg.matrix_exp(fg.ones(1, 1) * 2),
        "empty": fg.linalg.matrix_exp(fg.zeros(0, 0)),
        "nan": fg.linalg.matrix_exp(fg.tensor([[float("nan"), 0.0], [0.0, 1.0]])),
        "torch_matrix_exp": fg.matrix_exp(a),
        "method": a.matrix_exp(),
        "grad_fns": [fg.linalg.matrix_exp(leaf).grad_fn.name(), leaf.matrix_exp().grad_fn.name()],
        "one_dim": error(fg.linalg.matrix_exp, fg.ones(3)),
        "nonsquare": error(fg.linalg.matrix_exp, fg.ones(2, 3)),
        "long": error(fg.linalg.matrix_exp, fg.ones(2, 2, dtype=fg.int64)),
    }


def _cholesky_solve():
    low = _m([[2.0, 0.0], [1.0, 3.0]])
    b = _m([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    leaf = (low + 0.0).requires_grad_()
    return {
        "lower": fg.cholesky_solve(b, low),
        "upper_method": b.cholesky_solve(low.mT, upper=True),
        "broadcast_shape": list(fg.cholesky_solve(b.expand(3, 2, 3), low.expand(2, 1, 2, 2)).shape),
        "float32": fg.cholesky_solve(b.float(), low.float()),
        "grad_fn": fg.cholesky_solve(b, leaf).grad_fn.name(),
        "inverse": fg.cholesky_inverse(low),
        "inverse_upper": low.mT.cholesky_inverse(True),
        "inverse_batched": fg.cholesky_inverse(fg.stack([low, 2 * low])),
        "inverse_empty": fg.cholesky_inverse(fg.zeros(0, 0)),
        "inverse_grad_fn": fg.cholesky_inverse(leaf).grad_fn.name(),
        "b_1d": error(fg.cholesky_solve, b[0], low),
        "u_1d": error(fg.cholesky_solve, b, low[0]),
        "u_nonsquare": error(fg.cholesky_solve, b, fg.ones(2, 3, dtype=fg.float64)),
        "dtypes": error(fg.cholesky_solve, b.float(), low),
        "sizes": error(fg.cholesky_solve, fg.ones(3, 3, dtype=fg.float64), low),
        "long": error(fg.cholesky_solve, b.long(), low.long()),
        "inverse_1d": error(fg.cholesky_inverse, low[0]),
        "inverse_nonsquare": error(fg.cholesky_inverse, fg.ones(2, 3)),
        "inverse_long": error(fg.cholesky_inverse, fg.ones(2, 2, dtype=fg.int64)),
        "inverse_singular": linalg_error(lambda: fg.cholesky_inverse(fg.zeros(2, 2))),
    }


CASES = {
    "shape_errors": _shape_errors,
    "solve_errors": _solve_errors,
    "singular": _singular,
    "bounds": _bounds,
    "norms": _norms,
    "grad_fn_names": _grad_fn_names,
    "float32": _float32,
    "svd_family": _svd_family,
    "cross": _cross,
    "qr": _qr,
    "products": _products,
    "lstsq": _lstsq,
    "solve_triangular": _solve_triangular,
    "matrix_exp": _matrix_exp,
    "cholesky_solve": _cholesky_solve,
}
