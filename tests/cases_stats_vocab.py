"""Cases for the order statistics and counting ops of issue 28 (kthvalue, mode, nanmedian, quantile,
nanquantile, bincount, histc, isin, diff) recorded from torch (tests/golden/record_stats_vocab.py) and checked
by tests/test_stats_vocab.py: values and the index torch picks at ties and NaN, gradients, grad_fn names and
saved fields, integer, bool and half inputs, empty and 0-d shapes, and torch's errors."""

import math

import ferrograd as fg
import numpy as np
from cases_vocab_ops import _grads, _value_or_error
from recorded import error

NAN = math.nan
INF = math.inf


def _tied_rows(seed, rows, n, values):
    """Rows of small integers (many ties), as float64: long enough for torch's quickselect and introsort."""
    return fg.tensor(np.random.default_rng(seed).integers(0, values, (rows, n)).astype(np.float64))


def _saved(out):
    f = out.values.grad_fn
    return [f._saved_dim, f._saved_keepdim, f._saved_indices, list(f._saved_self_sym_sizes)]


def _kthvalue():
    x = fg.tensor([[3.0, 1.0, 2.0, 1.0], [5.0, 5.0, 2.0, 2.0], [NAN, 0.0, NAN, -INF]], dtype=fg.float64)
    tied = _tied_rows(0, 6, 40, 4)
    return {
        "ties": [fg.kthvalue(x, k) for k in range(1, 5)],
        "dim0_keepdim": fg.kthvalue(x, 2, 0, True),
        "tied_long_rows": [fg.kthvalue(tied, k) for k in (1, 7, 20, 33, 40)],
        "tied_dim0": fg.kthvalue(tied.t(), 13, dim=0),
        "int": fg.kthvalue(fg.tensor([[4, 1, 4, 1, 4]], dtype=fg.int32), 3),
        "half": fg.kthvalue(fg.tensor([1.5, -2.0, 0.25]).half(), 2),
        "zero_d": fg.kthvalue(fg.tensor(3.0), 1),
        "zero_d_k2": error(fg.kthvalue, fg.tensor(3.0), 2),
        "k0": error(fg.kthvalue, x, 0),
        "k_big": error(fg.kthvalue, x, 5),
        "bool": error(fg.kthvalue, fg.tensor([True]), 1),
        "empty": error(fg.kthvalue, fg.zeros(0), 1),
        "empty_rows": fg.kthvalue(fg.zeros(2, 0), 1, 0),
        "bad_dim": error(fg.kthvalue, x, 1, 2),
        "method": x.kthvalue(3, dim=1),
        "grads": _grads(lambda t: fg.kthvalue(t, 2, 1).values, x[:2]),
        "grads_keepdim": _grads(lambda t: t.kthvalue(1, 0, keepdim=True).values, x[:2]),
        "saved": _saved(fg.kthvalue(x.clone().requires_grad_(), 2, 0, True)),
        "repr": repr(fg.kthvalue(fg.tensor([2.0, 1.0]), 1)),
    }


def _mode():
    x = fg.tensor([[1.0, 1.0, 2.0], [3.0, 2.0, 2.0], [NAN, NAN, 1.0]], dtype=fg.float64)
    return {
        "ties": [fg.mode(fg.tensor(v)) for v in ([1, 2, 2, 3, 3], [3, 3, 2, 2, 1], [5, 1, 5, 1, 3, 1, 5])],
        "nan": fg.mode(fg.tensor([2.0, 1.0, 2.0, 1.0, NAN, NAN, NAN])),
        "rows": fg.mode(x),
        "dim0_keepdim": fg.mode(x, 0, True),
        "tied_long_rows": fg.mode(_tied_rows(1, 8, 60, 5)),
        "tied_longer_rows": fg.mode(_tied_rows(2, 4, 300, 7), 1),
        "bool": fg.mode(fg.tensor([True, False, True])),
        "int8": fg.mode(fg.tensor([[-1, 4, -1, 4]], dtype=fg.int8)),
        "half": fg.mode(fg.tensor([1.5, 0.5, 1.5]).half()),
        "zero_d": fg.mode(fg.tensor(3.0)),
        "empty": error(fg.mode, fg.zeros(0)),
        "empty_dim": error(fg.mode, fg.zeros(2, 0), 1),
        "empty_rows": fg.mode(fg.zeros(0, 3), 1),
        "bad_dim": error(fg.mode, x, 2),
        "method": x.mode(dim=0),
        "grads": _grads(lambda t: fg.mode(t, 1).values, x[:2]),
        "saved": _saved(fg.mode(x.clone().requires_grad_(), 1)),
    }


def _nanmedian():
    x = fg.tensor([[1.0, NAN, 3.0, 2.0], [NAN, NAN, NAN, NAN], [4.0, 4.0, NAN, 1.0]], dtype=fg.float64)
    all_nan_rows = [fg.nanmedian(fg.full((n,), NAN), 0) for n in range(1, 20)]
    return {
        "all": fg.nanmedian(x),
        "dim": fg.nanmedian(x, 1),
        "dim0_keepdim": fg.nanmedian(x, 0, keepdim=True),
        "all_nan_rows": all_nan_rows,
        "all_nan": fg.nanmedian(fg.full((3, 5), NAN)),
        "ties": fg.nanmedian(_tied_rows(3, 5, 31, 3), 1),
        "no_nan": fg.nanmedian(fg.tensor([[5.0, 1.0, 3.0, 2.0]]), 1),
        "int": [fg.nanmedian(fg.tensor([1, 2, 3, 4])), fg.nanmedian(fg.tensor([[3, 1, 2]]), 1)],
        "half": fg.nanmedian(fg.tensor([1.0, NAN, 3.0]).half()),
        "empty": fg.nanmedian(fg.zeros(0)),
        "empty_int": [_value_or_error(fg.nanmedian, fg.zeros(0, dtype=d)) for d in (fg.int64, fg.int32)],
        "empty_dim": error(fg.nanmedian, fg.zeros(0, 2), 0),
        "empty_rows": fg.nanmedian(fg.zeros(2, 0), 0),
        "bool": error(fg.nanmedian, fg.tensor([True])),
        "bool_dim": error(fg.nanmedian, fg.tensor([True]), 0),
        "zero_d": [fg.nanmedian(fg.tensor(2.0)), fg.nanmedian(fg.tensor(2.0), 0)],
        "method": x.nanmedian(dim=1),
        "grads_all": _grads(lambda t: fg.nanmedian(t), x),
        "grads_all_ties": _grads(lambda t: t.nanmedian(), fg.tensor([2.0, NAN, 2.0, 5.0, 1.0], dtype=fg.float64)),
        "grads_all_nan": _grads(lambda t: t.nanmedian(), fg.tensor([NAN, NAN], dtype=fg.float64)),
        "grads_dim": _grads(lambda t: fg.nanmedian(t, 1).values, x),
        "saved": _saved(fg.nanmedian(x.clone().requires_grad_(), 0)),
    }


def _quantile(name):
    fn = getattr(fg, name)
    x = fg.tensor([[3.0, 1.0, 2.0, 1.0], [5.0, NAN, 2.0, 2.0], [0.5, -1.0, 4.0, 8.0]], dtype=fg.float64)
    q = fg.tensor([0.0, 0.3, 0.5, 1.0], dtype=fg.float64)
    out = {
        "all": fn(x, 0.4),
        "all_q": fn(x, q),
        "dim": fn(x, 0.3, 1),
        "dim_q": fn(x, q, dim=0),
        "keepdim": fn(x, q, 1, keepdim=True),
        "keepdim_all": fn(x, 0.5, keepdim=True),
        "interpolations": [fn(x, q, 1, interpolation=i) for i in ["linear", "lower", "higher", "midpoint", "nearest"]],
        "nearest_half": fn(
            fg.tensor([0.0, 1.0, 2.0, 3.0, 4.0]), fg.tensor([0.125, 0.375, 0.625]), interpolation="nearest"
        ),
        "float32": fn(fg.tensor([[0.1, 0.7, 0.2], [1e-3, 5.0, 2.5]]), 0.3, 1),
        "all_nan_row": fn(fg.tensor([[NAN, NAN], [1.0, 2.0]]), 0.5, 1),
        "zero_d": [fn(fg.tensor(2.0), 0.5), fn(fg.tensor(2.0), 0.5, 0), fn(fg.tensor(2.0), q.float(), 0, True)],
        "int_q": fn(x, 1),
        "q_range": error(fn, x, 1.5),
        "q_negative": error(fn, x, -0.1),
        "q_tensor_range": error(fn, x, fg.tensor([0.5, 2.0], dtype=fg.float64)),
        "q_2d": error(fn, x, fg.tensor([[0.5]], dtype=fg.float64)),
        "q_dtype": error(fn, x.float(), fg.tensor([0.5], dtype=fg.float64)),
        "int_input": error(fn, fg.tensor([1, 2]), 0.5),
        "half_input": error(fn, fg.tensor([1.0, 2.0]).half(), 0.5),
        "empty": error(fn, fg.zeros(0), 0.5),
        "empty_dim": error(fn, fg.zeros(2, 0), 0.5, 1),
        "bad_interpolation": error(lambda: fn(x, 0.5, interpolation="cubic")),
        "bad_dim": error(fn, x, 0.5, 2),
        "method": getattr(x, name)(0.25, dim=1),
        "grads": _grads(lambda t: fn(t, 0.3, 1), x[::2]),
        "grads_q": _grads(lambda t: fn(t, q, 0), x[::2]),
        "grads_lower": _grads(lambda t: fn(t, q, interpolation="lower"), x[::2]),
        "grads_midpoint": _grads(lambda t: fn(t, 0.5, 1, interpolation="midpoint"), x[::2]),
    }
    leaf = x[::2].clone().requires_grad_()
    chains = []
    for q_arg, interp in [(0.3, "linear"), (q, "linear"), (0.3, "higher"), (q, "nearest")]:
        f = fn(leaf, q_arg, 1, interpolation=interp).grad_fn
        names = []
        while f is not None and len(names) < 4:
            names.append(f.name())
            f = f.next_functions[0][0] if f.next_functions else None
        chains.append(names)
    out["grad_fn_chains"] = chains
    return out


def _bincount():
    x = fg.tensor([0, 1, 1, 3])
    return {
        "counts": fg.bincount(x),
        "minlength": fg.bincount(x, minlength=6),
        "float_weights": fg.bincount(x, fg.tensor([0.5, 1.0, 2.0, 3.0])),
        "double_weights": x.bincount(fg.tensor([0.5, 1.0, 2.0, 3.0], dtype=fg.float64)),
        "int_weights": fg.bincount(x, fg.tensor([1, 2, 3, 4])),
        "bool_weights": fg.bincount(x, fg.tensor([True, False, True, True])),
        "uint8": fg.bincount(fg.tensor([1, 2], dtype=fg.uint8)),
        "empty": fg.bincount(fg.tensor([], dtype=fg.int64)),
        "empty_minlength": fg.bincount(fg.tensor([], dtype=fg.int64), minlength=2),
        "negative": error(fg.bincount, fg.tensor([-1, 2])),
        "two_d": error(fg.bincount, fg.tensor([[1]])),
        "float": error(fg.bincount, fg.tensor([1.0])),
        "bool": error(fg.bincount, fg.tensor([True])),
        "bad_minlength": error(lambda: fg.bincount(x, minlength=-1)),
        "bad_weights": error(fg.bincount, x, fg.ones(3)),
        # sizes refused before anything is allocated
        "huge_value": error(fg.bincount, fg.tensor([2**62])),
        "huge_minlength": error(lambda: fg.bincount(x, minlength=2**62)),
    }


def _histc():
    f = fg.tensor([1.0, 2.0, 1.0, 2.5, 4.0, -1.0, 3.0])
    return {
        "data_range": fg.histc(f, bins=4),
        "given_range": fg.histc(f, bins=4, min=0, max=3),
        "edges": fg.histc(fg.tensor([0.0, 0.25, 0.5, 1.0]), bins=4, min=0, max=1),
        "double": fg.histc(f.double(), bins=3, min=1, max=1),
        "one_value": fg.histc(fg.tensor([2.0, 2.0]), bins=4),
        "method": f.histc(3),
        "default_bins": fg.histc(f).shape,
        "empty": fg.histc(fg.zeros(0), bins=4),
        "float32_rounding": fg.histc(fg.tensor([0.1, 0.2, 0.3, 0.7]), bins=10, min=0.0, max=1.0),
        "nan": error(fg.histc, fg.tensor([1.0, NAN]), bins=4),
        "nan_given_range": fg.histc(fg.tensor([1.0, NAN, 0.5]), bins=2, min=0, max=2),
        "inf": error(fg.histc, fg.tensor([1.0, INF]), bins=4),
        "int": error(fg.histc, fg.tensor([1, 2]), bins=4),
        "bins_0": error(fg.histc, f, bins=0),
        "min_above_max": error(fg.histc, f, bins=4, min=3, max=1),
        "huge_bins": error(fg.histc, f, bins=2**62),
        "huge_bins_double": error(fg.histc, f.double(), bins=2**61),
    }


def _isin():
    return {
        "ints": fg.isin(fg.tensor([1, 2, 3, 4]), fg.tensor([2, 4])),
        "invert_nan": fg.isin(fg.tensor([1.0, 2.0, 3.0, NAN]), fg.tensor([2.0, NAN]), invert=True),
        "scalar_test": fg.isin(fg.tensor([[1, 2], [3, 4]]), 3),
        "scalar_element": fg.isin(3, fg.tensor([1, 3])),
        "promoted": fg.isin(fg.tensor([1, 2]), fg.tensor([1.5, 2.0])),
        "assume_unique": fg.isin(fg.tensor([1.0, 2.0]), fg.tensor([[2.0]]), assume_unique=True),
        "empty_test": fg.isin(fg.tensor([1, 2]), fg.tensor([], dtype=fg.int64)),
        "bool": error(fg.isin, fg.tensor([True, False]), fg.tensor([1])),
        "numbers": error(fg.isin, 3, 3),
    }


def _diff():
    d = fg.tensor([[1.0, 3.0, 6.0, 10.0], [0.0, 2.0, -1.0, 5.0]], dtype=fg.float64)
    return {
        "default": fg.diff(d),
        "n2_dim0": fg.diff(d, n=2, dim=0),
        "n0": fg.diff(d, n=0),
        "n_big": fg.diff(d, n=5),
        "prepend_append": fg.diff(d, prepend=fg.zeros(2, 1, dtype=fg.float64), append=fg.full((2, 1), 100.0)),
        "bool": fg.diff(fg.tensor([True, False, False])),
        "int": fg.diff(fg.tensor([1, 5, 2])),
        "int_float_prepend": fg.diff(fg.tensor([1, 5, 2]), prepend=fg.tensor([0.5])),
        "method": d.diff(dim=0),
        "zero_d_prepend": error(fg.diff, d, prepend=fg.tensor(7.0)),
        "zero_d": error(fg.diff, fg.tensor(1.0)),
        "negative_n": error(fg.diff, d, n=-1),
        "prepend_ndim": error(fg.diff, d, prepend=fg.ones(2)),
        "prepend_shape": error(fg.diff, d, prepend=fg.ones(3, 1)),
        "grads": _grads(lambda t: fg.diff(t, n=2), d),
        # the copy's gradient (its grad_fn is torch's CopyBackwards, which ferrograd names without its namespace)
        "grads_n0": _grads(lambda t: fg.diff(t, n=0), d)[1:],
        "grads_prepend": _grads(lambda t, p: fg.diff(t, dim=0, prepend=p), d, fg.ones(1, 4, dtype=fg.float64)),
    }


def _trapezoid():
    y = fg.tensor([[1.0, 3.0, 6.0, 10.0], [0.0, 2.0, -1.0, 5.0]], dtype=fg.float64)
    x = fg.tensor([0.0, 1.0, 3.0, 4.0], dtype=fg.float64)
    return {
        "unit": fg.trapezoid(y),
        "dx_dim0": fg.trapezoid(y, dx=0.5, dim=0),
        "x": fg.trapezoid(y, x),
        "x_2d": fg.trapezoid(y, x[None]),
        "x_count": error(fg.trapezoid, y, x[:3]),
        "x_and_dx": error(lambda: fg.trapezoid(y, x, dx=2)),
        "y_not_tensor": error(fg.trapezoid, False),
        "x_not_tensor": error(fg.trapezoid, y, False),
        "trapz_y_not_tensor": error(fg.trapz, 0),
        "cumulative_x_not_tensor": error(fg.cumulative_trapezoid, y, 2),
        "bool": error(fg.trapezoid, fg.tensor([True, False])),
        "int": fg.trapezoid(fg.tensor([1, 2, 4])),
        "empty": fg.trapezoid(fg.zeros(2, 0)),
        "trapz": [fg.trapz(y, dx=2), fg.trapz(y, x)],
        "cumulative": fg.cumulative_trapezoid(y),
        "cumulative_x": fg.cumulative_trapezoid(y, x, dim=1),
        "cumulative_dx": fg.cumulative_trapezoid(y, dx=2.0, dim=0),
        "cumulative_bool": error(fg.cumulative_trapezoid, fg.tensor([True, False])),
        "cumulative_empty": fg.cumulative_trapezoid(fg.zeros(2, 0)),
        "grads": _grads(lambda t: fg.trapezoid(t, dx=0.5), y),
        "grads_x": _grads(lambda t, s: fg.trapezoid(t, s), y, x),
        "grads_cumulative": _grads(lambda t: fg.cumulative_trapezoid(t, dim=0), y),
        "grads_cumulative_x": _grads(lambda t, s: fg.cumulative_trapezoid(t, s), y, x),
    }


def _tensordot():
    a = fg.tensor([[1.0, 3.0, 6.0, 10.0], [0.0, 2.0, -1.0, 5.0]], dtype=fg.float64)
    b = fg.arange(24, dtype=fg.float64).reshape(4, 3, 2)
    return {
        "dims1": fg.tensordot(a, a.t(), dims=1),
        "dims0": fg.tensordot(a, a, dims=0).shape,
        "lists": fg.tensordot(a, b, dims=([1], [0])),
        "two_dims": fg.tensordot(b, b, dims=([0, 2], [0, 2])),
        "dims_tensor": fg.tensordot(a, a, dims=fg.tensor([[0], [0]])),
        "broadcast_dim": fg.tensordot(a, fg.ones(4, 1, 3, dtype=fg.float64), dims=([1], [0])),
        "negative": error(fg.tensordot, a, a, dims=-1),
        "mismatch": error(fg.tensordot, a, a, dims=([0], [1])),
        "dtypes": error(fg.tensordot, a, a.float(), dims=1),
        "lengths": error(fg.tensordot, a, a, dims=([0, 1], [0])),
        "grads": _grads(lambda s, t: fg.tensordot(s, t, dims=([1], [0])), a, b)[1:],
    }


def _products():
    a = fg.tensor([[1.0, 3.0], [0.0, -2.0]], dtype=fg.float64)
    b = fg.tensor([[2.0, 0.5, 1.0]], dtype=fg.float64)
    v = fg.tensor([1.0, -2.0, 3.0], dtype=fg.float64)
    return {
        "kron": fg.kron(a, b),
        "kron_ranks": [
            fg.kron(v, a),
            a.kron(fg.tensor(2.0, dtype=fg.float64)),
            fg.kron(fg.tensor([1, 2]), fg.tensor([3, 4])),
        ],
        "kron_transposed": [fg.kron(a.t(), b.t()), fg.kron(a.t(), fg.tensor(2.0, dtype=fg.float64))],
        "inner": [fg.inner(a, a), a.inner(v[:2]), fg.inner(v, v), fg.inner(a, fg.tensor(2.0, dtype=fg.float64))],
        "inner_mismatch": error(fg.inner, a, v),
        "vdot": [
            fg.vdot(v, v),
            v.vdot(fg.tensor([0.5, 0.0, 1.0], dtype=fg.float64)),
            fg.vdot(fg.tensor([1, 2]), fg.tensor([3, 4])),
        ],
        "vdot_2d": error(fg.vdot, a, a),
        "vdot_sizes": error(fg.vdot, v, v[:2]),
        "vdot_dtypes": error(fg.vdot, v, v.float()),
        "grads_kron": _grads(fg.kron, a, b),
        "grads_inner": _grads(fg.inner, a, a * 2),
        "grads_vdot": _grads(fg.vdot, v, v * 3),
        "block_diag": fg.block_diag(a, fg.tensor(5.0, dtype=fg.float64), v),
        "block_diag_mixed": [fg.block_diag(fg.zeros(0, 2), fg.ones(1, 1, dtype=fg.int32)), fg.block_diag()],
        "block_diag_promoted": fg.block_diag(fg.tensor([True]), fg.tensor([1.5])),
        "block_diag_3d": error(fg.block_diag, fg.ones(2, 2, 2)),
        "grads_block_diag": _grads(fg.block_diag, a, fg.tensor(5.0, dtype=fg.float64), v),
    }


def _cov():
    x = fg.tensor([[1.0, 3.0, 6.0, 10.0], [0.0, 2.0, -1.0, 5.0], [2.0, 2.0, 2.0, 2.0]], dtype=fg.float64)
    f = fg.tensor([1, 2, 0, 3])
    w = fg.tensor([0.5, 1.0, 2.0, 0.25], dtype=fg.float64)
    return {
        "plain": fg.cov(x),
        "correction": [fg.cov(x, correction=0), x.cov(correction=2)],
        "fweights": fg.cov(x, fweights=f),
        "aweights": fg.cov(x, aweights=w),
        "both": fg.cov(x, correction=3, fweights=f, aweights=w),
        "one_d": fg.cov(x[0]),
        "int": fg.cov(fg.tensor([[1, 2, 4], [0, 1, 1]])),
        "float32": fg.cov(x.float()),
        "three_d": error(fg.cov, fg.zeros(1, 1, 1)),
        "bool": error(fg.cov, fg.tensor([True, False])),
        "fweights_float": error(lambda: fg.cov(x, fweights=w)),
        "aweights_int": error(lambda: fg.cov(x, aweights=f)),
        "fweights_numel": error(lambda: fg.cov(x, fweights=f[:3])),
        "fweights_negative": error(lambda: fg.cov(x, fweights=-f)),
        "aweights_2d": error(lambda: fg.cov(x, aweights=w[None])),
        "zero_weights": error(lambda: fg.cov(x, fweights=f * 0)),
        "corrcoef": [
            fg.corrcoef(x[:2]),
            x.corrcoef(),
            fg.corrcoef(x[0]),
            fg.corrcoef(fg.tensor([[1, 2, 4], [0, 1, 1]])),
        ],
        "corrcoef_3d": error(fg.corrcoef, fg.zeros(1, 1, 1)),
        "grads": _grads(lambda t: fg.cov(t, aweights=w), x[:2]),
        "grads_corrcoef": _grads(fg.corrcoef, x[:2]),
    }


def _distances():
    x = fg.tensor([[1.0, 2.0, 0.0], [3.0, -4.0, 1.0], [0.5, 0.5, 0.5]], dtype=fg.float64)
    y = fg.tensor([[0.0, 1.0, 2.0], [1.0, 1.0, -1.0]], dtype=fg.float64)
    out = {
        "dist": [fg.dist(x, x.flip(0), p) for p in (0.0, 1.0, 2.0, 3.0, INF)],
        "dist_broadcast": x.dist(y[0], 1.5),
        "dist_promoted": fg.dist(x.float(), x.flip(0)),
        "dist_int": error(fg.dist, fg.tensor([1, 2]), fg.tensor([3, 4])),
        "dist_shapes": error(fg.dist, x, fg.ones(2, dtype=fg.float64)),
        "cdist": [fg.cdist(x, y, p) for p in (0.0, 1.0, 2.0, 3.0, INF)],
        "cdist_batch": fg.cdist(fg.stack([x, x * 2]), y[None]),
        "cdist_modes": [
            fg.cdist(x, y, compute_mode=m) for m in ("use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")
        ],
        "cdist_mode": error(lambda: fg.cdist(x, y, compute_mode="fast")),
        "cdist_int": [error(fg.cdist, x.long(), y), error(fg.cdist, x, y.long())],
        "cdist_1d": error(fg.cdist, x[0], y),
        "cdist_columns": error(fg.cdist, x, fg.ones(2, 2, dtype=fg.float64)),
        "cdist_p": error(fg.cdist, x, y, -1.0),
        "pdist": [fg.pdist(x, p) for p in (0.0, 1.0, 2.0, 3.0, INF)],
        "pdist_one_row": fg.pdist(fg.ones(1, 3)),
        "pdist_1d": error(fg.pdist, x[0]),
        "pdist_int": error(fg.pdist, x.long()),
        "pdist_p": error(fg.pdist, x, -1.0),
    }
    for p in (1.0, 2.0, 3.0, INF):
        out[f"grads_{p}"] = [
            _grads(lambda s, t, p=p: fg.dist(s, t, p), x, x.flip(0)),
            _grads(lambda s, t, p=p: fg.cdist(s, t, p), x, y),
            _grads(lambda s, p=p: fg.pdist(s, p), x),
        ]
    return out


def _rescale():
    x = fg.tensor([[1.0, 2.0, -2.0], [3.0, 4.0, 0.5], [0.1, 0.0, 0.2]], dtype=fg.float64)
    values = fg.tensor([1.5, INF, NAN, -0.0, 1e-310, -5.0, 8.0, 0.0], dtype=fg.float64)
    out = {
        "frexp": fg.frexp(values),
        "frexp_float": values.float().frexp(),
        "frexp_half": fg.frexp(fg.tensor([1.5, 3.0, -0.25]).half()),
        "frexp_int": error(fg.frexp, fg.tensor([1, 2])),
        "frexp_repr": repr(fg.frexp(fg.tensor([4.0]))),
        "frexp_grads": _grads(lambda t: fg.frexp(t).mantissa, x),
        "renorm": [fg.renorm(x, 2, 0, 3.0), x.renorm(1, 1, 2.5), fg.renorm(x, INF, -1, 1)],
        "renorm_float": fg.renorm(x.float(), 3, 0, 1.5),
        "renorm_p": [error(fg.renorm, x, 0, 0, 1.0), error(fg.renorm, x, -1, 0, 1.0)],
        "renorm_maxnorm": error(fg.renorm, x, 2, 0, -3),
        "renorm_1d": error(fg.renorm, x[0], 2, 0, 1.0),
        "renorm_int": error(fg.renorm, x.long(), 2, 0, 1.0),
        "renorm_dim": error(fg.renorm, x, 2, 2, 1.0),
        "renorm_grads": _grads(lambda t: fg.renorm(t, 2, 0, 3.0), x),
        "renorm_grads_p1": _grads(lambda t: t.renorm(1.5, 1, 2.0), x),
    }
    inplace = x.clone()
    out["renorm_"] = [inplace.renorm_(2, 0, 3.0), inplace]
    return out


CASES = {
    "kthvalue": _kthvalue,
    "mode": _mode,
    "nanmedian": _nanmedian,
    "quantile": lambda: _quantile("quantile"),
    "nanquantile": lambda: _quantile("nanquantile"),
    "bincount": _bincount,
    "histc": _histc,
    "isin": _isin,
    "diff": _diff,
    "trapezoid": _trapezoid,
    "tensordot": _tensordot,
    "products": _products,
    "cov": _cov,
    "distances": _distances,
    "rescale": _rescale,
}
