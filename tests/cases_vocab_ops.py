"""Cases for the ops of issue 28 that combine several tensors or reduce (addcmul/addcdiv, ...) recorded from
torch (tests/golden/record_vocab_ops.py) and checked by tests/test_vocab_ops.py: values at zeros, infinities
and NaN, gradients and saved fields, grad_fn names, integer, bool and half inputs (torch's promotion and its
errors), broadcasting, empty and 0-d shapes, the in-place forms and `out=`."""

import math

import ferrograd as fg
from recorded import error

NAN = math.nan
INF = math.inf


def _value_or_error(fn, *args, **kwargs):
    """`fn(...)`'s result, or what it raised."""
    raised = error(fn, *args, **kwargs)
    return raised if raised.type is not None else fn(*args, **kwargs)


def _grads(fn, *tensors):
    """`fn(*tensors)`'s grad_fn name and the gradients of its sum weighted by 1, 2, 3, ..."""
    leaves = [t.detach().clone().requires_grad_(True) for t in tensors]
    y = fn(*leaves)
    w = fg.arange(1, y.numel() + 1, dtype=y.dtype).reshape(y.shape)
    return [y.grad_fn.name(), *fg.autograd.grad((y * w).sum(), leaves, allow_unused=True)]


def _addc(name):
    fn = getattr(fg, name)
    x = fg.tensor([1.0, -2.0, 0.0, INF, NAN, 3.0], dtype=fg.float64)
    a = fg.tensor([2.0, 0.5, -0.0, 1.0, 1.0, INF], dtype=fg.float64)
    b = fg.tensor([4.0, -0.0, 0.0, 2.0, -3.0, 2.0], dtype=fg.float64)
    i = fg.tensor([3, -4, 0])
    out = {
        "edges": fn(x, a, b),
        "value": fn(x, a, b, value=-2.5),
        "value_int": fn(x, a, b, value=3),
        "value_tensor": fn(x, a, b, value=fg.tensor(0.5)),
        "value_str": error(lambda: fn(x, a, b, value="2")),
        "grads": _grads(lambda x, a, b: fn(x, a, b, value=1.5), x[:3], a[:3] + 1, b[:3] + 1),
        "broadcast": _grads(fn, fg.tensor(0.5), fg.tensor([1.0, 2.0, 3.0]), fg.tensor([[2.0], [-1.0]])),
        "mismatch": error(lambda: fn(fg.ones(2), fg.ones(3), fg.ones(2))),
        "not_tensor": error(lambda: getattr(x, name)(a, 3.0)),
        "empty": fn(fg.zeros(0), fg.ones(0), fg.ones(2, 0)),
        "float32": fn(fg.tensor([1.0, 1e-8]), fg.tensor([3.0, 1e30]), fg.tensor([1.0 / 3, 1e10]), value=0.1),
        "half": fn(
            fg.tensor([1000.0, 2.0]).half(), fg.tensor([1000.0, 2.0]).half(), fg.tensor([3.0, 3.0]).half(), value=0.1
        ),
        "bfloat16": fn(
            fg.tensor([1.0, 2.0]).bfloat16(), fg.tensor([3.0, 5.0]).bfloat16(), fg.tensor([7.0, 3.0]).bfloat16()
        ),
        "int_self_float": fn(i, fg.tensor([1.5, 2.0, 0.5]), fg.tensor([2.0, 2.0, 2.0])),
        "float_0d_double": fn(fg.tensor([1.0, 2.0]), fg.tensor(2.0, dtype=fg.float64), fg.tensor([3.0, 4.0])),
        "int": _value_or_error(fn, i, i, fg.tensor([2, 1, 5])),
        "int_value": _value_or_error(lambda: fn(i, i, fg.tensor([2, 1, 5]), value=-2.5)),
        "bool": error(fn, i > 0, i > 0, i > 0),
        "bool_factors": error(fn, fg.ones(3), i > 0, i > 0),
        "uint8_wraps": _value_or_error(
            fn, fg.ones(2, dtype=fg.uint8), fg.full((2,), 100, dtype=fg.uint8), fg.full((2,), 3, dtype=fg.uint8)
        ),
        "int8_wraps": _value_or_error(
            fn, fg.ones(2, dtype=fg.int8), fg.full((2,), 100, dtype=fg.int8), fg.full((2,), 3, dtype=fg.int8)
        ),
    }
    y = fn(x.clone().requires_grad_(), a, b, value=2)
    out["saved"] = [y.grad_fn._saved_tensor1, y.grad_fn._saved_tensor2, y.grad_fn._saved_value]
    y = fn(x, a.clone().requires_grad_(), b, value=2.5)
    out["saved_t1"] = [y.grad_fn._saved_tensor1, y.grad_fn._saved_tensor2, y.grad_fn._saved_value]
    y = fn(x, a, b.clone().requires_grad_())
    out["saved_t2"] = [y.grad_fn._saved_tensor1, y.grad_fn._saved_tensor2, y.grad_fn._saved_value]
    inplace = x.clone()
    out["inplace"] = [getattr(inplace, name + "_")(a, b, value=0.5), inplace]
    out["inplace_broadcast"] = error(lambda: getattr(fg.ones(2), name + "_")(fg.ones(2, 2), fg.ones(2)))
    out["inplace_int"] = error(lambda: getattr(fg.ones(2, dtype=fg.int64), name + "_")(fg.ones(2), fg.ones(2)))
    leaf = fg.ones(2, requires_grad=True)
    out["inplace_leaf"] = error(lambda: getattr(leaf, name + "_")(fg.ones(2), fg.ones(2)))
    nonleaf = fg.ones(3, requires_grad=True) * 1
    getattr(nonleaf, name + "_")(fg.tensor([1.0, 2.0, 3.0], requires_grad=True), fg.tensor([2.0, 2.0, 4.0]))
    out["inplace_grad_fn"] = nonleaf.grad_fn.name()
    out["out"] = fn(x, a, b, out=fg.empty(6, dtype=fg.float64))
    out["out_cast"] = error(lambda: fn(x, a, b, out=fg.empty(6, dtype=fg.int64)))
    out["method"] = getattr(x, name)(a, b, value=2)
    return out


def _spread_mean(name):
    fn = getattr(fg, name)
    x = fg.tensor([[1.0, 2.0, 4.0, -1.0], [0.0, -1.0, 3.0, 3.0], [2.0, 2.0, 2.0, 2.0]], dtype=fg.float64)
    out = {
        "all": fn(x),
        "dim": fn(x, 1),
        "dims_keepdim": fn(x, (0, 1), keepdim=True),
        "unbiased_false": fn(x, 0, False),
        "lone_bool": fn(x, False),
        "correction": fn(x, dim=1, correction=0),
        "correction_2": fn(x, dim=[1], correction=2, keepdim=True),
        "float32": fn(fg.tensor([1e-30, 0.0, 3e-30])),
        "half": fn(fg.tensor([1.0, 2.0, 4.0]).half()),
        "inf_nan": fn(fg.tensor([[1.0, INF], [NAN, 2.0], [-INF, INF]]), 1),
        "empty": fn(fg.zeros(0)),
        "empty_dim": fn(fg.zeros(2, 0), 1),
        "zero_d": fn(fg.tensor(3.0), correction=0),
        "int": error(fn, fg.tensor([1, 2])),
        "bad_dim": error(fn, x, 2),
    }
    for label, args in [("g_dim", (1,)), ("g_all", ()), ("g_keepdim", ((0,), True, True))]:
        leaf = x.clone().requires_grad_()
        spread, mean = fn(leaf, *args)
        w = fg.arange(1, spread.numel() + 1, dtype=fg.float64).reshape(spread.shape)
        both = fg.autograd.grad((spread * w).sum() + (mean * w * 3).sum(), leaf)[0]
        only_mean = fg.autograd.grad(fn(leaf, *args)[1].sum(), leaf)[0]
        only_spread = fg.autograd.grad(fn(leaf, *args)[0].sum(), leaf)[0]
        out[label] = [spread.grad_fn.name(), spread.grad_fn is mean.grad_fn, both, only_mean, only_spread]
    leaf = fg.tensor([1.0, 2.0, 4.0], requires_grad=True)
    y = fn(leaf, 0, keepdim=True)[0].grad_fn
    out["saved"] = [y._saved_dim, y._saved_keepdim, getattr(y, "_saved_result0", None)]
    one = fg.tensor([5.0], requires_grad=True)
    spread, mean = fn(one)
    out["one_element"] = [spread, fg.autograd.grad(spread + mean, one)[0]]
    return out


def _nan_reductions():
    x = fg.tensor([[1.0, NAN, 3.0], [NAN, NAN, -1.0], [INF, 2.0, -INF]], dtype=fg.float64)
    out = {}
    for name in ["nansum", "nanmean"]:
        fn = getattr(fg, name)
        out[name] = {
            "all": fn(x),
            "dim": fn(x, 1),
            "dims_keepdim": fn(x, (0, 1), keepdim=True),
            "dtype": fn(fg.tensor([1.5, NAN]), dtype=fg.float64),
            "half": fn(fg.tensor([1.0, NAN, 2.5]).half()),
            "empty": fn(fg.zeros(0)),
            "empty_dim": fn(fg.zeros(2, 0), 1),
            "int": _value_or_error(fn, fg.tensor([1, 2, 3])),
            "int8": _value_or_error(fn, fg.tensor([100, 100], dtype=fg.int8)),
            "bool": _value_or_error(fn, fg.tensor([True, True])),
            "bad_dim": error(fn, x, 2),
            "grads": _grads(lambda t, f=fn: f(t, 0), x),
            "grads_all": _grads(lambda t, f=fn: f(t), x),
            "method": getattr(x, name)(dim=0),
        }
    leaf = x.clone().requires_grad_()
    y = fg.nansum(leaf, 1, keepdim=True).grad_fn
    out["nansum_saved"] = [y._saved_dim, y._saved_keepdim]
    i = fg.tensor([[0, 1, 2], [0, 0, 3]])
    out["count_nonzero"] = [
        fg.count_nonzero(i),
        fg.count_nonzero(i, dim=1),
        fg.count_nonzero(i, dim=(0, 1)),
        i.count_nonzero(0),
        fg.count_nonzero(fg.tensor([[0.0, -0.0, NAN, INF]])),
        fg.count_nonzero(fg.tensor([True, False, True])),
        fg.count_nonzero(fg.zeros(2, 0), 1),
        fg.count_nonzero(fg.tensor(0.0)),
        fg.count_nonzero(fg.ones(2, requires_grad=True)).requires_grad,
        error(fg.count_nonzero, i, 2),
    ]
    return out


def _aminmax():
    x = fg.tensor([[1.0, 3.0, 3.0, -INF], [NAN, 0.0, -1.0, 2.0], [-0.0, 0.0, 5.0, 5.0]], dtype=fg.float64)
    out = {
        "all": list(fg.aminmax(x[2])),
        "all_nan": list(fg.aminmax(x)),
        "dim": list(fg.aminmax(x, dim=1)),
        "dim_keepdim": list(x.aminmax(dim=0, keepdim=True)),
        "negative_dim": list(fg.aminmax(x, dim=-1)),
        "int": list(fg.aminmax(fg.tensor([[4, -2, 7], [0, 0, 1]]), dim=0)),
        "uint8": list(fg.aminmax(fg.tensor([200, 3, 255], dtype=fg.uint8))),
        "bool": list(fg.aminmax(fg.tensor([True, False]))),
        "half": list(fg.aminmax(fg.tensor([1.5, -2.25, 7.0]).half())),
        "zero_d": list(fg.aminmax(fg.tensor(3.0), dim=0)),
        "zero_d_keepdim": list(fg.aminmax(fg.tensor(3.0), dim=0, keepdim=True)),
        "empty_other_dim": list(fg.aminmax(fg.zeros(2, 0), dim=0)),
        "empty_all": error(fg.aminmax, fg.zeros(0)),
        "empty_dim": error(fg.aminmax, fg.zeros(2, 0), dim=1),
        "bad_dim": error(fg.aminmax, x, dim=2),
        "positional_dim": error(fg.aminmax, x, 1),
        "repr": repr(fg.aminmax(fg.tensor([2.0, -1.0]))),
    }
    for label, kwargs in [("g_all", {}), ("g_dim", {"dim": 1}), ("g_keepdim", {"dim": 0, "keepdim": True})]:
        leaf = x[:, 1:].clone().requires_grad_()
        lo, hi = fg.aminmax(leaf, **kwargs)
        w = fg.arange(1, lo.numel() + 1, dtype=fg.float64).reshape(lo.shape)
        both = fg.autograd.grad((lo * w).sum() + (hi * w * 3).sum(), leaf)[0]
        only_min = fg.autograd.grad(fg.aminmax(leaf, **kwargs)[0].sum(), leaf)[0]
        only_max = fg.autograd.grad(fg.aminmax(leaf, **kwargs)[1].sum(), leaf)[0]
        out[label] = [lo.grad_fn.name(), lo.grad_fn is hi.grad_fn, both, only_min, only_max]
    leaf = fg.tensor([[1.0, 2.0], [4.0, 4.0]], requires_grad=True)
    node = fg.aminmax(leaf, dim=1, keepdim=True)[0].grad_fn
    out["saved"] = [node._saved_dim, node._saved_keepdim, node._saved_min, node._saved_max, node._saved_self]
    node = fg.aminmax(leaf)[0].grad_fn
    out["saved_all"] = [node._saved_dim, node._saved_keepdim]
    return out


def _logcumsumexp():
    x = fg.tensor([[0.0, 1.0, -INF, 2.0], [1000.0, -1000.0, 1000.0, 0.0], [NAN, 1.0, 2.0, 3.0]], dtype=fg.float64)
    out = {
        "dim1": fg.logcumsumexp(x, 1),
        "dim0": x.logcumsumexp(0),
        "negative_dim": fg.logcumsumexp(x, -1),
        "all_neg_inf": fg.logcumsumexp(fg.tensor([-INF, -INF, 0.0]), 0),
        "pos_inf": fg.logcumsumexp(fg.tensor([1.0, INF, 2.0, INF]), 0),
        "float32": fg.logcumsumexp(fg.tensor([88.0, 88.0, -3.0, 1e-8]), 0),
        "half": fg.logcumsumexp(fg.tensor([1.0, 2.0, 3.0]).half(), 0),
        "zero_d": fg.logcumsumexp(fg.tensor(2.5), 0),
        "empty": fg.logcumsumexp(fg.zeros(2, 0), 1),
        "non_contiguous": fg.logcumsumexp(x[:2].t(), 0),
        "int": error(fg.logcumsumexp, fg.tensor([1, 2]), 0),
        "bool": error(fg.logcumsumexp, fg.tensor([True]), 0),
        "bad_dim": error(fg.logcumsumexp, x, 2),
        "grads": _grads(lambda t: fg.logcumsumexp(t, 1), x[:2, :2]),
        "grads_dim0": _grads(lambda t: fg.logcumsumexp(t, 0), fg.tensor([[0.5, -1.0], [2.0, 0.0]], dtype=fg.float64)),
        "grads_zero_d": _grads(lambda t: fg.logcumsumexp(t, 0), fg.tensor(1.5, dtype=fg.float64)),
    }
    leaf = fg.tensor([1.0, 2.0], requires_grad=True)
    node = fg.logcumsumexp(leaf, 0).grad_fn
    out["saved"] = [node._saved_dim, node._saved_self, node._saved_result]
    return out


def _diag_embed():
    v = fg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=fg.float64)
    i = fg.tensor([[1, 2], [3, 4]])
    out = {
        "default": fg.diag_embed(v),
        "offset": fg.diag_embed(v, 1),
        "negative_offset": v.diag_embed(-2),
        "dims": fg.diag_embed(v, 1, 0, 2),
        "dims_reversed": fg.diag_embed(v, -1, dim1=2, dim2=0),
        "negative_dims": fg.diag_embed(v, 0, -1, -3),
        "one_d": fg.diag_embed(fg.tensor([7, 8])),
        "zero_d": error(fg.diag_embed, fg.tensor(3.0)),
        "empty": fg.diag_embed(fg.zeros(2, 0)),
        "int": fg.diag_embed(i, 1),
        "bool": fg.diag_embed(fg.tensor([True, False])),
        "same_dims": error(fg.diag_embed, v, 0, 1, 1),
        "bad_dim": error(fg.diag_embed, v, 0, 0, 3),
        "grads": _grads(lambda t: fg.diag_embed(t, 1, 0, 2), v),
        "diagflat": fg.diagflat(i, -1),
        "diagflat_method": v.diagflat(1),
        "diagflat_zero_d": fg.diagflat(fg.tensor(2.0)),
        "diagflat_grads": _grads(lambda t: fg.diagflat(t.t(), 0), v),
        "diag_grads": _grads(lambda t: fg.diag(t, -1), v[0]),
    }
    leaf = v.clone().requires_grad_()
    node = fg.diag_embed(leaf, 2, 1, 0).grad_fn
    out["saved"] = [node._saved_offset, node._saved_dim1, node._saved_dim2]
    return out


def _pixel_shuffle():
    import ferrograd.nn as nn
    import ferrograd.nn.functional as F

    x = fg.arange(2 * 8 * 2 * 3, dtype=fg.float64).reshape(2, 8, 2, 3)
    out = {
        "shuffle": F.pixel_shuffle(x, 2),
        "unshuffle": F.pixel_unshuffle(x, 2 - 1),
        "round_trip": fg.pixel_unshuffle(fg.pixel_shuffle(x, 2), 2),
        "unshuffle_2": F.pixel_unshuffle(fg.arange(36).reshape(1, 1, 6, 6), 3),
        "three_d": fg.pixel_shuffle(fg.arange(9.0).reshape(9, 1, 1), 3),
        "five_d": F.pixel_shuffle(fg.arange(32).reshape(2, 1, 4, 2, 2), 2),
        "non_contiguous": F.pixel_shuffle(x.transpose(2, 3), 2),
        "empty": F.pixel_shuffle(fg.ones(4, 0, 2), 2),
        "bool": F.pixel_shuffle(fg.tensor([True, False, False, True]).reshape(4, 1, 1), 2),
        "factor_one": F.pixel_shuffle(x, 1),
        "too_few_dims": error(F.pixel_shuffle, fg.ones(4, 2), 2),
        "channels": error(F.pixel_shuffle, fg.ones(3, 2, 2), 2),
        "zero_factor": error(F.pixel_shuffle, fg.ones(4, 2, 2), 0),
        "negative_factor": error(F.pixel_shuffle, fg.ones(4, 2, 2), -1),
        "float_factor": error(F.pixel_shuffle, fg.ones(4, 2, 2), 2.0),
        "unshuffle_dims": error(F.pixel_unshuffle, fg.ones(4, 2), 2),
        "unshuffle_height": error(F.pixel_unshuffle, fg.ones(1, 3, 2), 2),
        "unshuffle_width": error(F.pixel_unshuffle, fg.ones(1, 2, 3), 2),
        "unshuffle_zero": error(F.pixel_unshuffle, fg.ones(4, 2, 2), 0),
        "not_tensor": error(F.pixel_shuffle, [1.0], 2),
        "grads": _grads(lambda t: F.pixel_shuffle(t, 2), x[:1, :4]),
        "unshuffle_grads": _grads(lambda t: F.pixel_unshuffle(t, 2), x[:1, :1, :2, :2]),
        "module": [repr(nn.PixelShuffle(3)), repr(nn.PixelUnshuffle(2)), nn.PixelShuffle(2)(x[:1, :4])],
    }
    leaf = x.clone().requires_grad_()
    out["saved"] = [F.pixel_shuffle(leaf, 2).grad_fn._saved_upscale_factor]
    out["unshuffle_saved"] = [F.pixel_unshuffle(leaf, 1).grad_fn._saved_downscale_factor]
    return out


def _embedding_bag():
    import ferrograd.nn as nn
    import ferrograd.nn.functional as F

    w = fg.tensor([[1.0, -2.0, 0.5], [3.0, 0.0, -1.0], [-0.5, 4.0, 2.0], [2.0, 2.0, 2.0], [0.0, -3.0, 1.0]])
    w = w.to(fg.float64)
    idx = fg.tensor([0, 2, 1, 4, 4, 3])
    off = fg.tensor([0, 2, 2, 5])
    psw = fg.tensor([0.5, -1.0, 2.0, 1.5, 0.25, 3.0], dtype=fg.float64)
    out = {}
    for mode in ["sum", "mean", "max"]:
        out[mode] = F.embedding_bag(idx, w, off, mode=mode)
        out[mode + "_padding"] = F.embedding_bag(idx, w, off, mode=mode, padding_idx=4)
        out[mode + "_2d"] = F.embedding_bag(idx.reshape(2, 3), w, mode=mode)
        out[mode + "_last_offset"] = F.embedding_bag(idx, w, fg.tensor([0, 2, 6]), mode=mode, include_last_offset=True)
        out[mode + "_grads"] = _grads(lambda t, m=mode: F.embedding_bag(idx, t, off, mode=m, padding_idx=1), w)
    out["psw"] = F.embedding_bag(idx, w, off, mode="sum", per_sample_weights=psw)
    out["psw_2d"] = F.embedding_bag(idx.reshape(3, 2), w, mode="sum", per_sample_weights=psw.reshape(3, 2))
    out["psw_grads"] = _grads(
        lambda t, p: F.embedding_bag(idx, t, off, mode="sum", per_sample_weights=p, padding_idx=0), w, psw
    )
    out["freq_grads"] = _grads(lambda t: F.embedding_bag(idx, t, off, mode="mean", scale_grad_by_freq=True), w)
    out["int32"] = F.embedding_bag(idx.int(), w, off.int(), mode="sum")
    out["float32"] = F.embedding_bag(idx, w.float(), off)
    out["max_ties"] = F.embedding_bag(fg.tensor([0, 0, 3]), w, fg.tensor([0, 1]), mode="max")
    out["max_ties_grads"] = _grads(lambda t: F.embedding_bag(fg.tensor([3, 3]), t, fg.tensor([0]), mode="max"), w)
    out["empty_input"] = F.embedding_bag(fg.zeros(0, dtype=fg.int64), w, fg.tensor([0, 0]))
    out["negative_padding"] = F.embedding_bag(idx, w, off, mode="sum", padding_idx=-1)
    errors = {
        "no_offsets": lambda: F.embedding_bag(idx, w),
        "offsets_with_2d": lambda: F.embedding_bag(idx.reshape(2, 3), w, off),
        "first_offset": lambda: F.embedding_bag(idx, w, fg.tensor([1, 2])),
        "last_offset": lambda: F.embedding_bag(idx, w, fg.tensor([0, 7])),
        "index_range": lambda: F.embedding_bag(fg.tensor([0, 5]), w, fg.tensor([0])),
        "index_range_float32": lambda: F.embedding_bag(fg.tensor([0, 5]), w.float(), fg.tensor([0]), mode="sum"),
        "index_range_float32_max": lambda: F.embedding_bag(fg.tensor([0, 5]), w.float(), fg.tensor([0]), mode="max"),
        "negative_index": lambda: F.embedding_bag(fg.tensor([0, -1]), w, fg.tensor([0])),
        "psw_mean": lambda: F.embedding_bag(idx, w, off, mode="mean", per_sample_weights=psw),
        "bad_mode": lambda: F.embedding_bag(idx, w, off, mode="min"),
        "float_indices": lambda: F.embedding_bag(idx.double(), w, off),
        "psw_shape": lambda: F.embedding_bag(idx, w, off, mode="sum", per_sample_weights=psw[:4]),
        "psw_dtype": lambda: F.embedding_bag(idx, w, off, mode="sum", per_sample_weights=psw.float()),
        "empty_2d": lambda: F.embedding_bag(fg.zeros(2, 0, dtype=fg.int64), w),
        "int_weight": lambda: F.embedding_bag(idx, w.long(), off),
        "offsets_2d": lambda: F.embedding_bag(idx, w, off.reshape(4, 1)),
        "input_3d": lambda: F.embedding_bag(idx.reshape(6, 1, 1), w),
        "padding_range": lambda: F.embedding_bag(idx, w, off, padding_idx=7),
        "max_freq": lambda: F.embedding_bag(idx, w, off, mode="max", scale_grad_by_freq=True),
    }
    out.update({name: error(fn) for name, fn in errors.items()})
    leaf = w.clone().requires_grad_()
    node = F.embedding_bag(idx, leaf, off, mode="max", padding_idx=2).grad_fn
    out["saved"] = [node.name(), node._saved_mode, node._saved_padding_idx, node._saved_scale_grad_by_freq]
    fg.manual_seed(0)
    bag = nn.EmbeddingBag(5, 3, mode="sum", padding_idx=1)
    out["module"] = [repr(bag), repr(nn.EmbeddingBag(10, 3, max_norm=1.0)), bag.weight, bag(idx, off)]
    frozen = nn.EmbeddingBag.from_pretrained(w, mode="max")
    out["from_pretrained"] = [repr(frozen), frozen.weight.requires_grad, frozen(idx.reshape(3, 2))]
    return out


def _torch_embedding_bag():
    """`torch.embedding_bag`'s four outputs (bags, offset2bag, bag_size, max_indices) with `mode` as an int; the
    float32 sum without padding is torch's fast path, which leaves offset2bag empty."""
    import ferrograd.nn.functional as F

    w = fg.tensor([[1.0, -2.0, 0.5], [3.0, 0.0, -1.0], [-0.5, 4.0, 2.0], [2.0, 2.0, 2.0], [0.0, -3.0, 1.0]])
    w = w.to(fg.float64)
    idx = fg.tensor([0, 2, 1, 4, 4, 3, 2, 0])
    off = fg.tensor([0, 3, 3, 6])
    psw = fg.arange(8, dtype=fg.float64) / 4 - 1
    out = {}
    for mode in (0, 1, 2):
        out[f"mode{mode}"] = list(fg.embedding_bag(w, idx, off, False, mode))
        out[f"mode{mode}_float32"] = list(fg.embedding_bag(w.float(), idx, off, False, mode))
        out[f"mode{mode}_padding"] = list(fg.embedding_bag(w, idx, off, False, mode, False, None, False, 2))
        out[f"mode{mode}_negative_padding"] = list(
            fg.embedding_bag(w.float(), idx, off, False, mode, False, None, False, -1)
        )
        # the last offset closes the last bag before the end of the indices: torch still sizes it to the end
        out[f"mode{mode}_last_offset"] = list(fg.embedding_bag(w, idx, off, False, mode, False, None, True))
        out[f"mode{mode}_int32"] = list(fg.embedding_bag(w, idx.int(), off.int(), False, mode))
        out[f"mode{mode}_mixed_index_dtypes"] = list(fg.embedding_bag(w, idx.int(), off, False, mode))
        out[f"mode{mode}_empty"] = list(fg.embedding_bag(w, idx[:0], fg.tensor([0, 0]), False, mode))
        out[f"mode{mode}_grads"] = _grads(lambda t, m=mode: fg.embedding_bag(t, idx, off, False, m)[0], w)
    out["F_mean_last_offset"] = F.embedding_bag(idx, w, off, mode="mean", include_last_offset=True)
    out["F_mean_last_offset_grads"] = _grads(
        lambda t: F.embedding_bag(idx, t, off, mode="mean", include_last_offset=True), w
    )
    out["defaults"] = list(fg.embedding_bag(w, idx, off))
    out["returns"] = type(fg.embedding_bag(w, idx, off)).__name__
    out["keywords"] = list(fg.embedding_bag(weight=w, indices=idx, offsets=off, mode=1, include_last_offset=True))
    out["psw"] = list(fg.embedding_bag(w, idx, off, False, 0, False, psw))
    out["psw_float32"] = list(fg.embedding_bag(w.float(), idx, off, False, 0, False, psw.float()))
    out["psw_grads"] = _grads(lambda t, p: fg.embedding_bag(t, idx, off, False, 0, False, p)[0], w, psw)
    out["freq_grads"] = _grads(lambda t: fg.embedding_bag(t, idx, off, True, 1)[0], w)
    out["max_freq"] = list(fg.embedding_bag(w, idx, off, True, 2))
    errors = {
        "string_mode": lambda: fg.embedding_bag(w, idx, off, False, "sum"),
        "mode_3": lambda: fg.embedding_bag(w, idx, off, False, 3),
        "weight_1d_before_mode": lambda: fg.embedding_bag(w[0], idx, off, False, 5),
        "psw_before_mode": lambda: fg.embedding_bag(w, idx, off, False, 5, False, psw),
        "psw_mean": lambda: fg.embedding_bag(w, idx, off, False, 1, False, psw),
        "psw_max": lambda: fg.embedding_bag(w, idx, off, False, 2, False, psw),
        "psw_numel": lambda: fg.embedding_bag(w, idx, off, False, 0, False, psw[:7]),
        "psw_dtype": lambda: fg.embedding_bag(w, idx, off, False, 0, False, psw.float()),
        "padding_range": lambda: fg.embedding_bag(w, idx, off, False, 0, False, None, False, 5),
        "weight_3d": lambda: fg.embedding_bag(w[None], idx, off),
        "float_indices": lambda: fg.embedding_bag(w, idx.float(), off),
        "float_offsets": lambda: fg.embedding_bag(w, idx, off.float()),
        "offsets_2d": lambda: fg.embedding_bag(w, idx, off.reshape(2, 2)),
        "first_offset": lambda: fg.embedding_bag(w, idx, fg.tensor([1, 3])),
        "index_range": lambda: fg.embedding_bag(w, fg.tensor([9, 1]), fg.tensor([0]), False, 1),
        "int_weight": lambda: fg.embedding_bag(w.long(), idx, off),
    }
    out.update({name: error(fn) for name, fn in errors.items()})
    return out


CASES = {
    "addcmul": lambda: _addc("addcmul"),
    "addcdiv": lambda: _addc("addcdiv"),
    "var_mean": lambda: _spread_mean("var_mean"),
    "std_mean": lambda: _spread_mean("std_mean"),
    "nan_reductions": _nan_reductions,
    "aminmax": _aminmax,
    "logcumsumexp": _logcumsumexp,
    "diag_embed": _diag_embed,
    "pixel_shuffle": _pixel_shuffle,
    "embedding_bag": _embedding_bag,
    "torch_embedding_bag": _torch_embedding_bag,
}
