"""Cases for issue 28's indexing and fused-product vocabulary (index_fill, index_copy, scatter_reduce, index_put,
masked_scatter, addbmm, addmv, addr, the in-place addmm_/baddbmm_) recorded from torch
(tests/golden/record_index_vocab.py) and checked by tests/test_index_vocab.py: values at ties, zeros, NaN, empty
and 0-d shapes, integer and bool dtypes, gradients, saved fields and grad_fn names, torch's errors, the in-place
forms and `out=`."""

import math

import ferrograd as fg
from cases_vocab_ops import _grads
from recorded import error

NAN = math.nan
INF = math.inf


def _x():
    return fg.arange(12, dtype=fg.float64).reshape(3, 4) - 5


def _saved(y, *names):
    return [getattr(y.grad_fn, "_saved_" + name) for name in names]


def _inplace(name, x, *args, **kwargs):
    """`x.<name>_(...)` on a clone: the result, the written tensor, and that a leaf requiring grad refuses it."""
    target = x.clone()
    result = getattr(target, name + "_")(*args, **kwargs)
    leaf = x.clone().requires_grad_()
    return [result, target, error(lambda: getattr(leaf, name + "_")(*args, **kwargs))]


def _index_fill():
    x, i = _x(), fg.tensor([0, 2])
    out = {
        "number": x.index_fill(0, i, 1.5),
        "dim1_negative_index": x.index_fill(1, fg.tensor([-1, 1]), -7),
        "index_0d": x.index_fill(-1, fg.tensor(2), 0),
        "repeated": x.index_fill(0, fg.tensor([1, 1, -2]), INF),
        "empty_index": x.index_fill(0, fg.tensor([], dtype=fg.int64), 3),
        "tensor_value_double": x.float().index_fill(0, i, fg.tensor(2.25, dtype=fg.float64)),
        "long_float_value": x.long().index_fill(0, i, 1.7),
        "long_tensor_value": x.long().index_fill(0, i, fg.tensor(-1.7)),
        "bool_number": (x > 0).index_fill(1, i, 2),
        "zero_d": fg.tensor(5.0).index_fill(0, fg.tensor([0]), NAN),
        "non_contiguous": x.t().index_fill(0, fg.tensor([3]), 9),
        "int32_index": error(lambda: x.index_fill(0, i.int(), 1)),
        "float_index": error(lambda: x.index_fill(0, i.float(), 1)),
        "index_2d": error(lambda: x.index_fill(0, fg.tensor([[0]]), 1)),
        "out_of_bounds": error(lambda: x.index_fill(0, fg.tensor([3]), 1)),
        "bad_dim": error(lambda: x.index_fill(2, i, 1)),
        "value_1d": error(lambda: x.index_fill(0, i, fg.tensor([1.0]))),
        "uint8_overflow": error(lambda: fg.zeros(3, dtype=fg.uint8).index_fill(0, i, 300)),
        "grads_number": _grads(lambda x: x.index_fill(1, fg.tensor([3, 0, 3]), 2.5), x),
        "grads_tensor": _grads(lambda x, v: x.index_fill(0, fg.tensor([2, 0, 2]), v), x, fg.tensor(3.0)),
        "grads_zero_d": _grads(lambda x, v: x.index_fill(0, fg.tensor(0), v), fg.tensor(1.0), fg.tensor(3.0)),
        "saved": _saved(x.requires_grad_().index_fill(1, i, 0.5), "dim", "index"),
        "inplace": _inplace("index_fill", _x(), 1, i, -1.0),
        "function": fg.index_fill(_x(), 0, i, fg.tensor(4.0)),
    }
    nonleaf = _x().requires_grad_() * 1
    nonleaf.index_fill_(0, i, fg.tensor(1.0, requires_grad=True))
    out["inplace_grad_fn"] = nonleaf.grad_fn.name()
    return out


def _index_copy():
    x, i, s = _x(), fg.tensor([2, 0]), fg.tensor([[1.0, 2, 3, 4], [5, 6, 7, 8]], dtype=fg.float64)
    out = {
        "rows": x.index_copy(0, i, s),
        "columns": x.index_copy(1, fg.tensor([3]), fg.tensor([[1.0], [2.0], [3.0]], dtype=fg.float64)),
        "column_1d_source": error(lambda: x.index_copy(1, fg.tensor([0]), fg.ones(3, dtype=fg.float64))),
        "zero_d": fg.tensor(5.0).index_copy(0, fg.tensor([0]), fg.tensor(2.0)),
        "zero_d_index": fg.tensor(5.0).index_copy(0, fg.tensor(0), fg.tensor([2.0])),
        "empty": x.index_copy(0, fg.tensor([], dtype=fg.int64), fg.zeros(0, 4, dtype=fg.float64)),
        "int": x.long().index_copy(0, i, s.long()),
        "bool": (x > 0).index_copy(1, fg.tensor([0, 1]), fg.ones(3, 2, dtype=fg.bool)),
        "non_contiguous_source": x.index_copy(1, fg.tensor([1, 3, 0]), _x().t()[:3].t()),
        "dtype": error(lambda: x.float().index_copy(0, i, s)),
        "int32_index": error(lambda: x.index_copy(0, i.int(), s)),
        "count": error(lambda: x.index_copy(0, i, fg.ones(3, 4, dtype=fg.float64))),
        "slice_shape": error(lambda: x.index_copy(0, i, fg.ones(2, 3, dtype=fg.float64))),
        "slice_shape_3d": error(lambda: fg.zeros(2, 3, 4).index_copy(1, fg.tensor([0]), fg.ones(2, 1, 5))),
        "out_of_bounds": error(lambda: x.index_copy(0, fg.tensor([5, 0]), s)),
        "negative": error(lambda: x.index_copy(0, fg.tensor([-1, 0]), s)),
        "index_2d": error(lambda: x.index_copy(0, fg.tensor([[0, 1]]), s)),
        "ndim": error(lambda: x.index_copy(1, fg.tensor([0]), fg.ones(3, dtype=fg.float64))),
        "grads": _grads(lambda x, s: x.index_copy(1, fg.tensor([3, 1]), s), x, s.t()[:3].contiguous()),
        "saved": _saved(x.requires_grad_().index_copy(0, i, s), "dim", "index", "source", "source_dim"),
        "inplace": _inplace("index_copy", _x(), 0, i, s),
        "function": fg.index_copy(_x(), 0, i, s),
        "out": fg.index_copy(_x(), 0, i, s, out=fg.empty(0, dtype=fg.float64)),
        "out_dtype": error(lambda: fg.index_copy(_x(), 0, i, s, out=fg.empty(3, 4))),
    }
    return out


def _scatter_reduce():
    x = fg.tensor([[1.0, 2, 0, -1], [3, 0, 5, 2], [2, 2, 2, NAN]], dtype=fg.float64)
    index = fg.tensor([[0, 0, 1, 1], [2, 0, 1, 0]])
    src = fg.tensor([[2.0, -1, 0, 2], [2, 3, 0, 4]], dtype=fg.float64)
    out = {}
    for reduce in ["sum", "prod", "mean", "amax", "amin"]:
        for include_self in [True, False]:
            key = f"{reduce}_{'self' if include_self else 'no_self'}"
            out[key] = x.scatter_reduce(0, index, src, reduce, include_self=include_self)
            clean = x.nan_to_num(0.0)
            out["grads_" + key] = _grads(
                lambda a, b, r=reduce, k=include_self: a.scatter_reduce(0, index, b, r, include_self=k), clean, src
            )
    ints = fg.tensor([[0, 1, 2, 3], [-4, 5, -6, 7]])
    out.update(
        {
            "nan_src_amax": x.scatter_reduce(1, fg.tensor([[1, 1]]), fg.tensor([[NAN, 9.0]], dtype=fg.float64), "amax"),
            "mean_int": ints.scatter_reduce(
                1, fg.tensor([[0, 0, 1], [2, 2, 2]]), fg.tensor([[1, 2, 3], [1, 1, 1]]), "mean"
            ),
            "mean_int_no_self": ints.scatter_reduce(
                1, fg.tensor([[0, 0], [2, 2]]), fg.tensor([[1, 2], [-1, -2]]), "mean", include_self=False
            ),
            "mean_half": x.nan_to_num(0.0).half().scatter_reduce(0, index, src.half(), "mean"),
            "bool_sum": (ints > 0).scatter_reduce(1, fg.tensor([[0, 0]]), fg.tensor([[True, False]]), "sum"),
            "bool_prod": (ints > 0).scatter_reduce(1, fg.tensor([[1, 1]]), fg.tensor([[True, False]]), "prod"),
            "bool_mean": error(lambda: (ints > 0).scatter_reduce(1, fg.tensor([[0]]), fg.tensor([[True]]), "mean")),
            "max_alias": x.scatter_reduce(0, index, src, "max"),
            "min_alias": x.scatter_reduce(0, index, src, "min"),
            "int32_index": x.scatter_reduce(0, index.int(), src, "sum"),
            "empty_index": x.scatter_reduce(0, fg.zeros(0, dtype=fg.int64), src, "sum"),
            "src_larger": x.scatter_reduce(1, fg.tensor([[3]]), src, "sum"),
            "zero_d": fg.tensor(3.0).scatter_reduce(0, fg.tensor(0), fg.tensor(2.0), "prod"),
            "bad_reduce": error(lambda: x.scatter_reduce(0, index, src, "mul")),
            "dtype": error(lambda: x.scatter_reduce(0, index, src.float(), "sum")),
            "index_ndim": error(lambda: x.scatter_reduce(0, fg.tensor([0, 1]), src, "sum")),
            "index_larger": error(lambda: x.scatter_reduce(0, fg.tensor([[0, 0, 1, 1, 1]]), src, "sum")),
            "out_of_bounds": error(lambda: x.scatter_reduce(0, fg.tensor([[3]]), src, "sum")),
            "negative": error(lambda: x.scatter_reduce(0, fg.tensor([[-1]]), src, "sum")),
            "bad_dim": error(lambda: x.scatter_reduce(2, index, src, "sum")),
            # prod's gradient with zeros: one zero at a position gets the product of the rest, two get zero
            "grads_prod_zeros": _grads(
                lambda a, b: a.scatter_reduce(1, fg.tensor([[0, 0, 0], [1, 1, 2]]), b, "prod"),
                fg.tensor([[2.0, 3.0, 0.0], [0.0, 4.0, 5.0]], dtype=fg.float64),
                fg.tensor([[0.0, 3.0, 2.0], [0.0, 0.0, 7.0]], dtype=fg.float64),
            ),
            "grads_ties": _grads(
                lambda a, b: a.scatter_reduce(1, fg.tensor([[0, 0, 0]]), b, "amax"),
                fg.tensor([[2.0, 1.0]], dtype=fg.float64),
                fg.tensor([[2.0, 2.0, 1.0]], dtype=fg.float64),
            ),
        }
    )
    y = x.nan_to_num(0.0).requires_grad_().scatter_reduce(0, index, src, "amax", include_self=False)
    out["saved"] = _saved(y, "dim", "include_self", "index", "reduce", "result", "self", "src")
    out["inplace"] = _inplace("scatter_reduce", x, 0, index, src, "amin")
    out["function"] = fg.scatter_reduce(x, 1, index, src, reduce="sum", include_self=False)
    out["out"] = fg.scatter_reduce(x, 0, index, src, "prod", out=fg.empty(3, 4, dtype=fg.float64))
    out["out_dtype"] = error(lambda: fg.scatter_reduce(x, 0, index, src, "sum", out=fg.empty(3, 4)))
    return out


def _index_put():
    x, i = _x(), fg.tensor([0, 2])
    mask = fg.tensor([[True, False, False, True], [False, False, False, False], [False, True, False, False]])
    return {
        "rows": x.index_put((i,), fg.tensor(1.0, dtype=fg.float64)),
        "broadcast_values": x.index_put((i,), fg.tensor([1.0, 2, 3, 4], dtype=fg.float64)),
        "pairs": x.index_put((i, fg.tensor([3, -1])), fg.tensor([7.0, 8.0], dtype=fg.float64)),
        "list": x.index_put([fg.tensor([1])], fg.tensor(0.0, dtype=fg.float64)),
        "accumulate_repeated": x.index_put(
            (fg.tensor([0, 0, 1]), fg.tensor([1, 1, 1])), fg.tensor(2.5, dtype=fg.float64), accumulate=True
        ),
        "mask": x.index_put((mask,), fg.tensor([10.0, 20, 30], dtype=fg.float64)),
        "row_mask": x.index_put((fg.tensor([True, False, True]),), fg.tensor(-1.0, dtype=fg.float64)),
        "int32_index": x.index_put((i.int(),), fg.tensor(1.0, dtype=fg.float64)),
        "negative": x.index_put((fg.tensor([-1]),), fg.tensor(1.0, dtype=fg.float64)),
        "int": x.long().index_put((i,), fg.tensor(3), accumulate=True),
        "dtype": error(lambda: x.index_put((i,), fg.tensor(1.0))),
        "too_many": error(lambda: x.index_put((i, i, i), fg.tensor(1.0, dtype=fg.float64))),
        "float_index": error(lambda: x.index_put((i.float(),), fg.tensor(1.0, dtype=fg.float64))),
        "mask_shape": error(lambda: x.index_put((fg.tensor([True, False]),), fg.tensor(1.0, dtype=fg.float64))),
        "values_shape": error(lambda: x.index_put((i,), fg.ones(3, dtype=fg.float64))),
        "out_of_bounds": error(lambda: x.index_put((fg.tensor([5]),), fg.tensor(1.0, dtype=fg.float64))),
        "not_tuple": error(lambda: x.index_put(i, fg.tensor(1.0, dtype=fg.float64))),
        "none_index": error(lambda: x.index_put((i, None), fg.tensor(1.0, dtype=fg.float64))),
        "number_values": error(lambda: x.index_put((i,), 1.0)),
        "grads": _grads(lambda x, v: x.index_put((fg.tensor([2, 0]),), v), x, fg.tensor([1.0, 2, 3, 4]).double()),
        "grads_accumulate": _grads(
            lambda x, v: x.index_put((fg.tensor([1, 1]), fg.tensor([0, 0])), v, accumulate=True),
            x,
            fg.tensor(2.0).double(),
        ),
        "grads_mask": _grads(lambda x, v: x.index_put((mask,), v), x, fg.tensor([1.0, 2, 3]).double()),
        "saved": _saved(x.requires_grad_().index_put((i,), fg.tensor(1.0, dtype=fg.float64)), "accumulate", "indices"),
        "inplace": _inplace("index_put", _x(), (i,), fg.tensor(4.0, dtype=fg.float64), True),
        "function": fg.index_put(_x(), (i,), fg.tensor(4.0, dtype=fg.float64)),
        "function_inplace": fg.index_put_(_x(), (i,), fg.tensor(4.0, dtype=fg.float64)),
    }


def _masked_scatter():
    x = _x()
    mask = x > 1
    source = fg.arange(20, dtype=fg.float64) * 10
    return {
        "values": x.masked_scatter(mask, source),
        "broadcast_mask": x.masked_scatter(fg.tensor([True, False, True, False]), source),
        "broadcast_self": fg.ones(4, dtype=fg.float64).masked_scatter(
            fg.tensor([[True, False], [False, True]]).repeat(1, 2), source
        ),
        "source_2d": x.masked_scatter(mask, source.reshape(4, 5)),
        "none_true": x.masked_scatter(x > 100, fg.zeros(0, dtype=fg.float64)),
        "int": x.long().masked_scatter(mask, fg.arange(20)),
        "long_mask": error(lambda: x.masked_scatter(mask.long(), source)),
        "dtype": error(lambda: x.masked_scatter(mask, source.float())),
        "too_few": error(lambda: x.masked_scatter(mask, fg.ones(2, dtype=fg.float64))),
        "number_source": error(lambda: x.masked_scatter(mask, 2.0)),
        "grads": _grads(lambda x, s: x.masked_scatter(mask, s), x, source.reshape(4, 5)),
        "saved": _saved(x.requires_grad_().masked_scatter(mask, source), "mask", "source_sym_sizes"),
        "inplace": _inplace("masked_scatter", _x(), mask, source),
        "function": fg.masked_scatter(_x(), mask, source),
    }


def _fused_products():
    b1 = fg.arange(24, dtype=fg.float64).reshape(2, 3, 4) / 7 - 1
    b2 = fg.arange(40, dtype=fg.float64).reshape(2, 4, 5) / 11 - 2
    m, v = b1[0], fg.tensor([1.0, -2.0, 0.5, 3.0], dtype=fg.float64)
    v3 = fg.tensor([2.0, 0.0, -1.0], dtype=fg.float64)
    nan35, nan3, nan34 = (
        fg.full((3, 5), NAN, dtype=fg.float64),
        fg.full((3,), NAN, dtype=fg.float64),
        fg.full((3, 4), NAN, dtype=fg.float64),
    )
    ones = fg.ones
    return {
        "addbmm": fg.addbmm(fg.ones(3, 5, dtype=fg.float64), b1, b2, beta=0.5, alpha=-2),
        "addbmm_broadcast": fg.addbmm(fg.tensor([1.0, 2, 3, 4, 5], dtype=fg.float64), b1, b2),
        "addbmm_beta0_nan": fg.addbmm(nan35, b1, b2, beta=0),
        "addbmm_int": fg.addbmm(
            ones(3, 5, dtype=fg.int64), ones(2, 3, 4, dtype=fg.int64), ones(2, 4, 5, dtype=fg.int64), beta=3, alpha=2
        ),
        "addbmm_empty_batch": fg.addbmm(ones(3, 5), ones(0, 3, 4), ones(0, 4, 5)),
        "addbmm_input_shape": error(lambda: fg.addbmm(ones(2, 5), ones(2, 3, 4), ones(2, 4, 5))),
        "addbmm_dtype": error(lambda: fg.addbmm(ones(3, 5, dtype=fg.float64), ones(2, 3, 4), ones(2, 4, 5))),
        "addbmm_mat_dtype": error(lambda: fg.addbmm(ones(3, 5), ones(2, 3, 4, dtype=fg.int64), ones(2, 4, 5))),
        "addbmm_inner": error(lambda: fg.addbmm(ones(3, 5), ones(2, 3, 4), ones(2, 3, 5))),
        "addbmm_batches": error(lambda: fg.addbmm(ones(3, 5), ones(2, 3, 4), ones(1, 4, 5))),
        "addbmm_2d": error(lambda: fg.addbmm(ones(3, 5), ones(3, 4), ones(2, 4, 5))),
        "addbmm_bool": error(
            lambda: fg.addbmm(ones(3, 5, dtype=fg.bool), ones(2, 3, 4, dtype=fg.bool), ones(2, 4, 5, dtype=fg.bool))
        ),
        "addbmm_grads": _grads(
            lambda i, a, b: fg.addbmm(i, a, b, beta=0.5, alpha=2), ones(5, dtype=fg.float64), b1, b2
        ),
        "addbmm_saved": _saved(
            fg.addbmm(ones(3, 5, dtype=fg.float64), b1.requires_grad_(), b2, alpha=2),
            "alpha",
            "beta",
            "batch1",
            "batch2",
            "batch1_sym_argsize_0",
            "batch1_sym_argsize_1",
            "batch2_sym_argsize_2",
        ),
        "addbmm_inplace": _inplace("addbmm", ones(3, 5, dtype=fg.float64), b1.detach(), b2, alpha=0.5),
        "addbmm_out": fg.addbmm(ones(3, 5, dtype=fg.float64), b1.detach(), b2, out=fg.empty(0, dtype=fg.float64)),
        "addmv": fg.addmv(v3, m, v, beta=-1, alpha=0.25),
        "addmv_broadcast": fg.addmv(fg.tensor([2.0], dtype=fg.float64), m, v),
        "addmv_zero_d": fg.addmv(fg.tensor(2.0, dtype=fg.float64), m, v),
        "addmv_beta0_nan": fg.addmv(nan3, m, v, beta=0),
        "addmv_int": fg.addmv(
            ones(3, dtype=fg.int64), ones(3, 4, dtype=fg.int64), ones(4, dtype=fg.int64), beta=3, alpha=2
        ),
        "addmv_size": error(lambda: fg.addmv(ones(2), ones(3, 4), ones(4))),
        "addmv_vec_size": error(lambda: fg.addmv(ones(3), ones(3, 4), ones(3))),
        "addmv_ndim": error(lambda: fg.addmv(ones(3), ones(4), ones(4))),
        "addmv_dtype": error(lambda: fg.addmv(ones(3, dtype=fg.float64), ones(3, 4), ones(4))),
        "addmv_bool": error(
            lambda: fg.addmv(ones(3, dtype=fg.bool), ones(3, 4, dtype=fg.bool), ones(4, dtype=fg.bool))
        ),
        "addmv_grads": _grads(lambda i, a, b: fg.addmv(i, a, b, beta=2, alpha=-0.5), v3, m, v),
        "addmv_saved": _saved(fg.addmv(v3, m.requires_grad_(), v, beta=0.5), "alpha", "beta", "mat", "vec"),
        "addmv_inplace": _inplace("addmv", v3, m.detach(), v, beta=2),
        "addmv_function_inplace": fg.addmv_(v3.clone(), m.detach(), v, alpha=3),
        "addmv_out": fg.addmv(v3, m.detach(), v, out=fg.empty(3, dtype=fg.float64)),
        "addmv_out_dtype": error(lambda: fg.addmv(v3, m.detach(), v, out=fg.empty(3))),
        "addr": fg.addr(fg.ones(3, 4, dtype=fg.float64), v3, v, beta=2, alpha=-1),
        "addr_broadcast": fg.addr(fg.tensor([1.0, 2, 3, 4], dtype=fg.float64), v3, v),
        "addr_beta0_nan": fg.addr(nan34, v3, v, beta=0),
        "addr_promote": fg.addr(ones(3, 4), v3, v.float()),
        "addr_int": fg.addr(
            ones(3, 4, dtype=fg.int64), fg.tensor([1, 2, 3]), fg.tensor([1, 0, -1, 2]), beta=3, alpha=2
        ),
        "addr_int_float_alpha": error(
            lambda: fg.addr(ones(3, 4, dtype=fg.int64), fg.tensor([1, 2, 3]), fg.tensor([1, 0, -1, 2]), alpha=2.5)
        ),
        "addr_bool": fg.addr(
            fg.zeros(3, 4, dtype=fg.bool), fg.tensor([True, False, True]), fg.tensor([True, True, False, False])
        ),
        "addr_2d": error(lambda: fg.addr(ones(3, 4), ones(3, 1), ones(4))),
        "addr_vec2_2d": error(lambda: fg.addr(ones(3, 4), ones(3), ones(4, 1))),
        "addr_shape": error(lambda: fg.addr(ones(2, 4), ones(3), ones(4))),
        "addr_grads": _grads(lambda i, a, b: fg.addr(i, a, b, beta=0.5, alpha=2), fg.ones(4, dtype=fg.float64), v3, v),
        "addr_saved": _saved(
            fg.addr(ones(3, 4, dtype=fg.float64), v3.requires_grad_(), v, alpha=3), "alpha", "beta", "vec1", "vec2"
        ),
        "addr_inplace": _inplace("addr", ones(3, 4, dtype=fg.float64), v3.detach(), v),
        "addr_out": fg.addr(ones(3, 4), v3.detach().float(), v.float(), out=fg.empty(3, 4, dtype=fg.float64)),
        "addr_out_cast": error(
            lambda: fg.addr(ones(3, 4), v3.detach().float(), v.float(), out=fg.empty(3, 4, dtype=fg.int64))
        ),
        "addmm_inplace": _inplace("addmm", ones(3, 5, dtype=fg.float64), b1[0].detach(), b2[0]),
        "addmm_scaled": fg.addmm(fg.ones(5, dtype=fg.float64), b1[0].detach(), b2[0], beta=0.5, alpha=-2),
        "addmm_beta0_nan": fg.addmm(nan35, b1[0].detach(), b2[0], beta=0),
        "addmm_int": fg.addmm(
            ones(2, 4, dtype=fg.int64), ones(2, 3, dtype=fg.int64), ones(3, 4, dtype=fg.int64), beta=2, alpha=3
        ),
        "addmm_scaled_dtype": error(lambda: fg.addmm(ones(3, 5), b1[0].detach(), b2[0], alpha=2)),
        "addmm_grads": _grads(
            lambda i, a, b: fg.addmm(i, a, b, beta=0.5, alpha=-2), ones(5, dtype=fg.float64), m, b2[0]
        ),
        "addmm_saved": _saved(
            fg.addmm(ones(3, 5, dtype=fg.float64), m.requires_grad_(), b2[0], alpha=-2), "alpha", "beta"
        ),
        "addmm_saved_default": _saved(
            fg.addmm(ones(3, 5, dtype=fg.float64), m.requires_grad_(), b2[0]), "alpha", "beta"
        ),
        "addmm_inplace_scaled": _inplace(
            "addmm", ones(3, 5, dtype=fg.float64), b1[0].detach(), b2[0], beta=2, alpha=0.5
        ),
        "baddbmm_inplace": _inplace("baddbmm", ones(2, 3, 5, dtype=fg.float64), b1.detach(), b2, beta=0.5, alpha=2),
    }


def _region_scatters():
    x = _x()
    row, block, diag = fg.ones(4, dtype=fg.float64) * 9, fg.ones(3, 2, dtype=fg.float64) * 8, fg.tensor([1.0, 2.0])
    return {
        "select": x.select_scatter(row, 0, 1),
        "select_negative": x.select_scatter(fg.ones(3, dtype=fg.float64), 1, -1),
        "select_cast": x.select_scatter(fg.arange(4), 0, 2),
        "select_shape": error(lambda: x.select_scatter(fg.ones(3), 0, 1)),
        "select_range": error(lambda: x.select_scatter(row, 0, 5)),
        "select_0d": error(lambda: fg.select_scatter(fg.tensor(1.0), fg.tensor(2.0), 0, 0)),
        "slice_0d": error(lambda: fg.slice_scatter(fg.tensor(1.0), fg.tensor([]))),
        "select_grads": _grads(lambda x, s: x.select_scatter(s, 1, 2), x, fg.ones(3, dtype=fg.float64)),
        "select_saved": _saved(x.requires_grad_().select_scatter(row, 0, 1), "dim", "index"),
        "slice": x.slice_scatter(block, 1, 0, 4, 2),
        "slice_default": x.slice_scatter(fg.zeros(3, 4, dtype=fg.float64)),
        "slice_negative_start": x.slice_scatter(fg.ones(1, 4, dtype=fg.float64), start=-1),
        "slice_past_end": x.slice_scatter(fg.ones(3, 1, dtype=fg.float64), 1, 3, 100),
        "slice_out": fg.slice_scatter(x.detach(), block, 1, 0, 4, 2, out=fg.empty(0, dtype=fg.float64)),
        "slice_shape": error(lambda: x.slice_scatter(fg.ones(3, 3), 1, 0, 4, 2)),
        "slice_grads": _grads(lambda x, s: x.slice_scatter(s, 1, 1, None, 2), x, block),
        "slice_saved": _saved(x.requires_grad_().slice_scatter(block, 1, 0, 4, 2), "dim", "start", "end", "step"),
        "slice_saved_default": _saved(x.requires_grad_().slice_scatter(x.detach()), "start", "end"),
        "diagonal": x.diagonal_scatter(fg.ones(3, dtype=fg.float64)),
        "diagonal_offset": x.diagonal_scatter(diag.double(), -1),
        "diagonal_dims": x.diagonal_scatter(fg.ones(3, dtype=fg.float64), 0, 1, 0),
        "diagonal_shape": error(lambda: x.diagonal_scatter(fg.ones(4))),
        "diagonal_same_dims": error(lambda: x.diagonal_scatter(fg.ones(3), 0, 0, 0)),
        "diagonal_grads": _grads(lambda x, s: x.diagonal_scatter(s, 1), x, fg.tensor([1.0, 2.0, 3.0]).double()),
        "diagonal_saved": _saved(x.requires_grad_().diagonal_scatter(diag.double(), 2), "dim1", "dim2", "offset"),
        "functions": [
            fg.select_scatter(_x(), row, 0, 0),
            fg.slice_scatter(_x(), block, dim=1, step=2),
            fg.diagonal_scatter(_x(), diag.double(), 2),
        ],
    }


def _index_building():
    x = _x()
    return {
        "tril": fg.tril_indices(3, 4),
        "triu_offset": fg.triu_indices(3, 4, -1),
        "tril_int32": fg.tril_indices(4, 3, 1, dtype=fg.int32),
        "tril_empty": fg.tril_indices(0, 4),
        "tril_far": fg.tril_indices(3, 4, 10),
        "triu_far": fg.triu_indices(3, 4, 10),
        "tril_float": error(lambda: fg.tril_indices(3, 4, dtype=fg.float32)),
        "tril_negative_row": error(lambda: fg.tril_indices(-1, 4)),
        "triu_negative_col": error(lambda: fg.triu_indices(3, -4)),
        "argwhere": fg.argwhere(x > 1),
        "argwhere_0d": x.sum().argwhere(),
        "argwhere_float": fg.argwhere(fg.tensor([[0.0, NAN], [2.0, 0.0]])),
        "repeat_flat": x.repeat_interleave(2),
        "repeat_dim": x.repeat_interleave(3, 1),
        "repeat_zero": x.repeat_interleave(0, 0),
        "repeat_tensor": x.repeat_interleave(fg.tensor([1, 0, 2]), 0),
        "repeat_tensor_one": x.repeat_interleave(fg.tensor([2]), 1),
        "repeat_tensor_0d": x.repeat_interleave(fg.tensor(2), 0),
        "repeat_output_size": x.repeat_interleave(2, 1, output_size=8),
        "repeat_0d_input": fg.tensor(3.0).repeat_interleave(2),
        "repeats_alone": fg.repeat_interleave(fg.tensor([1, 0, 3])),
        "repeats_alone_int32": fg.repeat_interleave(fg.tensor([2, 1], dtype=fg.int32)),
        "repeat_size": error(lambda: x.repeat_interleave(fg.tensor([1, 0, 2]), 1)),
        "repeat_negative": error(lambda: x.repeat_interleave(fg.tensor([1, -1, 2]), 0)),
        "repeat_negative_int": error(lambda: x.repeat_interleave(-1, 0)),
        "repeat_2d": error(lambda: x.repeat_interleave(fg.tensor([[2]]), 0)),
        "repeat_float": error(lambda: x.repeat_interleave(fg.tensor([2.0]), 0)),
        "repeat_bad_output_size": error(lambda: x.repeat_interleave(2, 1, output_size=7)),
        "repeat_bad_dim": error(lambda: x.repeat_interleave(2, 2)),
        "repeat_grads": _grads(lambda x: x.repeat_interleave(2, 1), x),
        "repeat_grads_tensor": _grads(lambda x: x.repeat_interleave(fg.tensor([2, 0, 1]), 0), x),
        "repeat_grads_flat": _grads(lambda x: x.repeat_interleave(3), x),
    }


def _index_map_nodes():
    """The nodes of the ops that read or write at computed positions: torch's grad_fn name and its saved
    arguments (the numbers and sizes; the index tensors' values too)."""
    x = _x().requires_grad_()
    F = fg.nn.functional
    i = fg.tensor([[0, 1], [2, 3]])
    x4, x5 = x[None, None], x[None, None, None]

    def node(y, *names):
        values = [v.tolist() if isinstance(v, fg.Tensor) else v for v in _saved(y, *names)]
        return [y.grad_fn.name(), values]

    return {
        "flip": node(x.flip(0, 1), "dims"),
        "roll": node(x.roll((1, 2), (0, 1)), "dims", "shifts"),  # (torch shows a negative shift as 2**64 - n)
        "roll_flat": node(x.roll(2), "dims", "shifts"),
        "repeat": node(x.repeat(2, 1, 1), "repeats", "self_sym_sizes"),
        "tril": node(x.tril(1), "diagonal"),
        "triu": node(x.triu(-1), "diagonal"),
        "take": node(x.take(fg.tensor([0, 3])), "index"),
        "index_select": node(x.index_select(1, fg.tensor([0, 2])), "dim", "index", "self_sym_sizes"),
        "gather": node(x.gather(1, i[:, :2]), "dim", "index", "sparse_grad"),
        "masked_select": node(x.masked_select(x > 0), "mask"),
        "index": node(x[fg.tensor([0, 1])], "self_sym_sizes"),
        "sort": node(x.sort(1)[0], "dim", "indices", "self_sym_sizes"),
        "topk": node(x.topk(2, 1)[0], "dim", "indices", "self_sym_sizes"),
        "median": node(x.median(1, keepdim=True)[0], "dim", "indices", "keepdim", "self_sym_sizes"),
        "cummax": node(x.cummax(1)[0], "dim", "indices"),
        "cummin": node(x.cummin(0)[0], "dim", "indices"),
        "reflection_pad1d": node(F.pad(x[None], (1, 2), mode="reflect"), "padding"),
        "reflection_pad2d": node(F.pad(x4, (1, 1, 2, 0), mode="reflect"), "padding"),
        "replication_pad1d": node(F.pad(x[None], (2, 1), mode="replicate"), "padding"),
        "replication_pad3d": node(F.pad(x5, (1, 1, 1, 1, 0, 1), mode="replicate"), "padding"),
        "constant_pad": node(F.pad(x, (1, 2, 0, 1)), "pad"),
        "max_pool2d": node(F.max_pool2d(x4, 2, 1, ceil_mode=True), "kernel_size", "stride", "padding", "dilation"),
        "max_pool3d": node(F.max_pool3d(x5, (1, 2, 2), 1), "kernel_size", "stride", "padding", "ceil_mode"),
        "scatter": node((x * 1).scatter(1, i, 0.5), "dim", "index"),
        "scatter_src": node((x * 1).scatter(1, i, fg.ones(2, 2, dtype=fg.float64)), "dim", "index"),
        "scatter_add": node((x * 1).scatter_add(1, i, fg.ones(2, 2, dtype=fg.float64)), "dim"),
        "index_add": node((x * 1).index_add(1, fg.tensor([0, 1]), fg.ones(3, 2, dtype=fg.float64)), "dim"),
        "masked_fill": node((x * 1).masked_fill(x > 0, 1.0), "mask"),
        "masked_fill_tensor": node((x * 1).masked_fill(x > 0, fg.tensor(1.0, dtype=fg.float64)), "mask"),
    }


CASES = {
    "index_map_nodes": _index_map_nodes,
    "index_fill": _index_fill,
    "index_copy": _index_copy,
    "scatter_reduce": _scatter_reduce,
    "index_put": _index_put,
    "masked_scatter": _masked_scatter,
    "fused_products": _fused_products,
    "region_scatters": _region_scatters,
    "index_building": _index_building,
}
