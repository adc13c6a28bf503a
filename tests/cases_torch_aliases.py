"""Cases for PyTorch's small names composed of ferrograd's ops: the constants, `finfo`/`iinfo`, `is_signed`,
`is_nonzero`, `is_same_size`, `is_floating_point`, `ravel`, `reshape_as`, `select`, `msort`, `rot90`, the
splits, and the `torch.*` forms of `nn.functional` (tests/golden/record_torch_aliases.py records them from
torch, tests/test_torch_aliases.py checks them): values, dtypes, grad_fn names, gradients and errors."""

import ferrograd as fg
from recorded import error

FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]


def _cube():
    return fg.arange(24, dtype=fg.float64).reshape(2, 3, 4)


def _grad(fn, x):
    """`fn(x)`'s grad_fn name(s) and the gradient of its sum weighted by 1, 2, 3, ... (summed over outputs)."""
    x = x.detach().clone().requires_grad_(True)
    out = fn(x)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    total = sum((o * fg.arange(1, o.numel() + 1, dtype=o.dtype).reshape(o.shape)).sum() for o in outs)
    (g,) = fg.autograd.grad(total, [x])
    return [[o.grad_fn.name() for o in outs], g]


def _constants():
    return {
        "pi": fg.pi,
        "e": fg.e,
        "inf": fg.inf,
        "nan_is_nan": fg.nan != fg.nan,
        "newaxis": fg.newaxis,
        "newaxis_indexes": fg.ones(2, 3)[:, fg.newaxis].shape == (2, 1, 3),
    }


def _info(kind, name):
    info = getattr(fg, kind)(getattr(fg, name))
    attrs = ["bits", "max", "min", "dtype"]
    if kind == "finfo":
        attrs += ["eps", "tiny", "smallest_normal", "resolution"]
    out = {a: getattr(info, a) for a in attrs}
    out["repr"] = repr(info)
    out["str"] = str(info)
    out["types"] = [type(getattr(info, a)).__name__ for a in attrs]
    out["equal"] = info == getattr(fg, kind)(getattr(fg, name))
    return out


def _finfo_default():
    before = fg.get_default_dtype()
    try:
        fg.set_default_dtype(fg.float64)
        as_double = repr(fg.finfo())
    finally:
        fg.set_default_dtype(before)
    return {
        "default": repr(fg.finfo()),
        "as_double": as_double,
        "keyword": repr(fg.finfo(type=fg.float16)),
        "differ": fg.finfo(fg.float32) == fg.finfo(fg.float64),
    }


def _info_errors():
    return {
        "finfo_int": error(fg.finfo, fg.int32),
        "finfo_uint8": error(fg.finfo, fg.uint8),
        "finfo_bool": error(fg.finfo, fg.bool),
        "finfo_number": error(fg.finfo, 3),
        "iinfo_float": error(fg.iinfo, fg.float32),
        "iinfo_half": error(fg.iinfo, fg.float16),
        "iinfo_bool": error(fg.iinfo, fg.bool),
        "iinfo_str": error(fg.iinfo, "int32"),
        "iinfo_none": error(fg.iinfo),
    }


def _predicates():
    t = fg.tensor
    dtypes = {n: getattr(fg, n) for n in FLOATS + INTS + ["bool"]}
    out = {f"is_signed_{n}": fg.is_signed(fg.zeros(2, dtype=d)) for n, d in dtypes.items()}
    out["is_signed_method"] = [fg.zeros(1, dtype=d).is_signed() for d in dtypes.values()]
    out["is_signed_number"] = error(fg.is_signed, 3)
    out["is_floating_point"] = [fg.is_floating_point(fg.zeros(1, dtype=d)) for d in dtypes.values()]
    out["is_floating_point_number"] = error(fg.is_floating_point, 3)
    for name, x in {
        "empty": t([]),
        "two": t([1.0, 2.0]),
        "zero": t([0.0]),
        "minus_zero": t([-0.0]),
        "int_0d": t(3),
        "bool_2d": t([[True]]),
        "false": t(False),
        "nan": t(float("nan")),
        "empty_2d": fg.zeros(0, 3),
    }.items():
        out[f"is_nonzero_{name}"] = error(fg.is_nonzero, x) if error(fg.is_nonzero, x).type else fg.is_nonzero(x)
        out[f"is_nonzero_method_{name}"] = error(x.is_nonzero) if error(x.is_nonzero).type else x.is_nonzero()
    out["is_nonzero_number"] = error(fg.is_nonzero, 1)
    x = _cube()
    out["same_size"] = [fg.is_same_size(x, fg.zeros(2, 3, 4)), fg.is_same_size(x, fg.zeros(3)), x.is_same_size(x[0])]
    out["same_size_int"] = fg.is_same_size(x, fg.zeros(2, 3, 4, dtype=fg.int64))
    out["same_size_number"] = error(fg.is_same_size, x, 3)
    out["same_size_method_list"] = error(x.is_same_size, [2, 3, 4])
    return out


def _ravel():
    x = _cube()
    return {
        "contiguous": fg.ravel(x),
        "method": x.ravel(),
        "transposed": x.transpose(0, 2).ravel(),
        "0d": fg.tensor(3.0).ravel(),
        "empty": fg.zeros(0, 3).ravel(),
        "int": fg.arange(6).reshape(2, 3).t().ravel(),
        "grad": _grad(lambda x: x.ravel(), x),
        "grad_transposed": _grad(lambda x: x.transpose(0, 1).ravel(), x),
        "number": error(fg.ravel, 3),
    }


def _reshape_as():
    x = _cube()
    return {
        "value": x.reshape_as(fg.zeros(4, 6, dtype=fg.int64)),
        "transposed": x.transpose(0, 1).reshape_as(fg.zeros(24)),
        "grad": _grad(lambda x: x.reshape_as(fg.zeros(6, 4)), x),
        "grad_copy": _grad(lambda x: x.t().reshape_as(fg.zeros(12)), fg.ones(3, 4, dtype=fg.float64)),
        "bad_size": error(x.reshape_as, fg.zeros(5)),
        "list": error(x.reshape_as, [4, 6]),
    }


def _select():
    x = _cube()
    return {
        "dim1": fg.select(x, 1, 2),
        "negative_index": fg.select(x, 1, -3),
        "negative_dim": x.select(-1, 0),
        "keywords": x.select(dim=0, index=1),
        "function_keywords": fg.select(x, dim=2, index=-1),
        "tensor_index": fg.select(x, 1, fg.tensor(1)),
        "1d": fg.select(fg.tensor([5, 6, 7]), 0, 1),
        "grad": _grad(lambda x: x.select(1, 1), x),
        "grad_negative": _grad(lambda x: fg.select(x, -1, -2), x),
        "index_low": error(fg.select, x, 1, -4),
        "index_high": error(fg.select, x, 1, 3),
        "index_high_negative_dim": error(x.select, -2, 5),
        "dim_high": error(fg.select, x, 3, 0),
        "dim_low": error(fg.select, x, -4, 0),
        "0d": error(fg.select, fg.tensor(1.0), 0, 0),
        "float_index": error(fg.select, x, 0, 1.5),
        "float_index_method": error(x.select, 0, 1.5),
        "number": error(fg.select, 3, 0, 0),
    }


def _msort():
    x = fg.tensor([[3.0, -1.0, 2.0], [1.0, 5.0, -2.0], [2.0, 0.0, 9.0]], dtype=fg.float64)
    return {
        "value": fg.msort(x),
        "method": x.msort(),
        "int": fg.msort(fg.tensor([3, 1, 2])),
        "0d": fg.msort(fg.tensor(3.0)),
        "empty": fg.msort(fg.zeros(0, 2)),
        "nan": fg.msort(fg.tensor([float("nan"), 1.0, -1.0])),
        "grad": _grad(fg.msort, x),
        "number": error(fg.msort, 3),
    }


def _rot90():
    x = _cube()
    out = {}
    for k in [0, 1, 2, 3, 4, -1, -2, 5]:
        out[f"k{k}"] = fg.rot90(x, k)
        out[f"k{k}_dims12"] = fg.rot90(x, k, [1, 2])
        out[f"k{k}_dims20"] = x.rot90(k, (2, 0))
        out[f"k{k}_grad"] = _grad(lambda x, k=k: fg.rot90(x, k, [2, 1]), x)
    out.update(
        {
            "default": fg.rot90(x),
            "method_default": x.rot90(),
            "keywords": x.rot90(k=3, dims=[-1, -2]),
            "function_keywords": fg.rot90(x, k=1, dims=(0, 2)),
            "int": fg.rot90(fg.arange(6).reshape(2, 3)),
            "empty": fg.rot90(fg.zeros(0, 3)),
            "grad_2d": _grad(lambda x: fg.rot90(x), fg.arange(6, dtype=fg.float64).reshape(2, 3)),
            "one_dim": error(fg.rot90, x, 1, [0]),
            "three_dims": error(fg.rot90, x, 1, (0, 1, 2)),
            "same_dims": error(fg.rot90, x, 1, [0, 0]),
            "same_dims_wrapped": error(fg.rot90, x, 1, [0, -3]),
            "dim_high": error(fg.rot90, x, 1, [0, 3]),
            "dim_low": error(fg.rot90, x, 1, [-4, 0]),
            "1d": error(fg.rot90, fg.tensor([1.0, 2.0])),
            "number": error(fg.rot90, 3),
        }
    )
    return out


def _splits():
    x = _cube()
    return {
        "tensor_split_method": list(x.tensor_split(2)),
        "tensor_split_method_indices": list(x.tensor_split([1, 3], 2)),
        "tensor_split_method_dim": list(x.tensor_split(3, dim=1)),
        "hsplit_method": list(x.hsplit(3)),
        "hsplit_method_indices": list(x.hsplit([1])),
        "vsplit_method": list(x.vsplit(2)),
        "dsplit_method": list(x.dsplit([1, 1, 3])),
        "hsplit_function_1d": list(fg.hsplit(fg.arange(6), 3)),
        "grad_tensor_split": _grad(lambda x: x.tensor_split(3, 2), x),
        "grad_dsplit": _grad(lambda x: x.dsplit(2), x),
        "dsplit_not_divisible": error(x.dsplit, 3),
        "vsplit_1d": error(fg.arange(4).vsplit, 2),
        "hsplit_zero": error(x.hsplit, 0),
        "hsplit_zero_1d": error(fg.hsplit, fg.arange(6), 0),
        "vsplit_negative": error(x.vsplit, -1),
        # more sections than a tensor of an empty dim can be split into: refused before any is built
        "sections_overflow": error(fg.tensor_split, fg.zeros(0, 3), 2**63),
        "vsplit_sections_overflow": error(fg.vsplit, fg.zeros(0, 3), 2**63),
        "sections_past_vector": error(fg.vsplit, fg.zeros(0, 3), 2**63 - 1),
        "sections_past_memory": error(fg.tensor_split, fg.zeros(0, 3), 2**40),
        "split_with_sizes": list(fg.split_with_sizes(x, [1, 2], 1)),
        "split_with_sizes_method": list(x.split_with_sizes([1, 1])),
        "split_with_sizes_dim": list(x.split_with_sizes([1, 0, 3], dim=2)),
        "split_with_sizes_negative_dim": list(x.split_with_sizes([3, 1], -1)),
        "split_with_sizes_keywords": list(fg.split_with_sizes(x, split_sizes=[2, 2], dim=2)),
        "grad_split_with_sizes": _grad(lambda x: x.split_with_sizes([2, 1], 1), x),
        "split_with_sizes_sum": error(x.split_with_sizes, [1, 3], dim=1),
        "split_with_sizes_sum_negative_dim": error(x.split_with_sizes, [1, 1], -2),
        "split_with_sizes_negative": error(x.split_with_sizes, [1, 1, -1], 2),
        "split_with_sizes_dim_high": error(x.split_with_sizes, [2], 5),
        "split_with_sizes_int": error(x.split_with_sizes, 2),
        "split_with_sizes_function_int": error(fg.split_with_sizes, x, 2),
    }


CASES = {
    "constants": _constants,
    **{f"finfo_{n}": (lambda n=n: _info("finfo", n)) for n in FLOATS},
    **{f"iinfo_{n}": (lambda n=n: _info("iinfo", n)) for n in INTS},
    "finfo_default": _finfo_default,
    "info_errors": _info_errors,
    "predicates": _predicates,
    "ravel": _ravel,
    "reshape_as": _reshape_as,
    "select": _select,
    "msort": _msort,
    "rot90": _rot90,
    "splits": _splits,
}


# ---- the torch.* forms of nn.functional ----


def _vals(*shape, scale=1.0, shift=0.0):
    """Deterministic values in [-scale, scale] (torch and ferrograd draw different random numbers)."""
    n = 1
    for s in shape:
        n *= s
    return ((fg.arange(n, dtype=fg.float64) * 0.7 + shift).sin() * scale).reshape(shape)


def _form(fn, *inputs, **kwargs):
    """`fn(*inputs)`: its value(s), grad_fn name(s) and the gradients of every float input."""
    leaves = [
        x.detach().clone().requires_grad_(True) if isinstance(x, fg.Tensor) and x.is_floating_point() else x
        for x in inputs
    ]
    out = fn(*leaves, **kwargs)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    floats = [o for o in outs if o.is_floating_point()]
    total = sum((o * fg.arange(1, o.numel() + 1, dtype=o.dtype).reshape(o.shape)).sum() for o in floats)
    wrt = [x for x in leaves if isinstance(x, fg.Tensor) and x.requires_grad]
    grads = fg.autograd.grad(total, wrt, allow_unused=True)
    return {
        "value": outs,
        "type": type(out).__name__,
        "grad_fn": [o.grad_fn.name() if o.grad_fn is not None else None for o in outs],
        "grads": list(grads),
    }


def _conv():
    x1, w1 = _vals(2, 3, 7), _vals(4, 3, 3, shift=1.0)
    x2, w2 = _vals(1, 2, 5, 5), _vals(3, 2, 2, 3, shift=2.0)
    b = _vals(4, shift=3.0)
    return {
        "conv1d": _form(fg.conv1d, x1, w1, b),
        "conv1d_args": _form(lambda x, w: fg.conv1d(x, w, None, 2, 1, 2, 1), x1, w1),
        "conv1d_groups": _form(lambda x, w: fg.conv1d(x, w, groups=2), _vals(1, 4, 6), _vals(2, 2, 3)),
        "conv2d": _form(fg.conv2d, x2, w2),
        "conv2d_keywords": _form(lambda x, w: fg.conv2d(x, w, stride=(2, 1), padding=1, dilation=(1, 2)), x2, w2),
        "conv2d_same": _form(lambda x, w: fg.conv2d(x, w, padding="same"), x2, _vals(3, 2, 3, 3)),
        "conv1d_shape": error(fg.conv1d, x1, _vals(4, 2, 3)),
    }


def _dropouts():
    x = _vals(2, 3, 4)
    out = {}
    for name in ["dropout", "alpha_dropout", "feature_alpha_dropout"]:
        fn = getattr(fg, name)
        out[f"{name}_eval"] = fn(x, 0.5, False)
        out[f"{name}_eval_is_input"] = fn(x, 0.5, False) is x
        out[f"{name}_p0_train"] = _form(lambda t, fn=fn: fn(t, 0.0, True), x)["value"]
        out[f"{name}_keywords"] = fn(input=x, p=0.3, train=False)
        out[f"{name}_no_train"] = error(fn, x, 0.5).type
        inplace = x.clone()
        out[f"{name}__eval"] = [getattr(fg, name + "_")(inplace, 0.5, False) is inplace, inplace]
    train = fg.dropout(fg.ones(1000, dtype=fg.float64), 0.5, True)
    out["dropout_train_values"] = sorted(set(train.tolist()))
    out["dropout_p1"] = fg.dropout(x, 1.0, True)
    for name in ["dropout", "alpha_dropout", "feature_alpha_dropout", "dropout_"]:
        out[f"{name}_bad_p"] = error(getattr(fg, name), x, 1.5, True)
        out[f"{name}_negative_p_eval"] = error(getattr(fg, name), x, -0.5, False)
    return out


def _embedding_norms():
    w, idx = _vals(5, 3), fg.tensor([[0, 2, 4], [2, 2, 1]])
    x = _vals(2, 3, 4, shift=0.5)
    gamma, beta = _vals(4, scale=0.5, shift=1.0) + 1, _vals(4, scale=0.3, shift=2.0)
    return {
        "embedding": _form(fg.embedding, w, idx),
        "embedding_padding": _form(lambda w, i: fg.embedding(w, i, 2), w, idx),
        "embedding_keywords": _form(lambda w, i: fg.embedding(w, i, padding_idx=-1, sparse=False), w, idx),
        "embedding_index_error": error(fg.embedding, w, fg.tensor([7])).type,
        "layer_norm": _form(fg.layer_norm, x, [4]),
        "layer_norm_affine": _form(lambda x, g, b: fg.layer_norm(x, (4,), g, b, 1e-3), x, gamma, beta),
        "layer_norm_two_dims": _form(lambda x: fg.layer_norm(x, [3, 4], eps=1e-2, cudnn_enable=False), x),
    }


def _activations():
    x = _vals(3, 4, scale=2.0)
    out = {
        "celu": _form(fg.celu, x),
        "celu_alpha": _form(lambda t: fg.celu(t, 0.5), x),
        "celu_keyword": _form(lambda t: fg.celu(t, alpha=2.0), x),
        "threshold": _form(lambda t: fg.threshold(t, 0.5, -3.0), x),
        "threshold_keywords": _form(lambda t: fg.threshold(t, threshold=0.0, value=2.0), x),
        "threshold_missing": error(fg.threshold, x, 0.5).type,
    }
    for name, args in [("celu_", (0.5,)), ("threshold_", (0.5, -3.0))]:
        t = x.clone()
        out[name] = [getattr(fg, name)(t, *args) is t, t]
    return out


def _losses():
    a, b = _vals(3, 4), _vals(3, 4, shift=1.0)
    probs = fg.softmax(_vals(3, 4, shift=2.0), 1)
    target = fg.tensor([1.0, -1.0, 1.0], dtype=fg.float64)
    labels = (_vals(3, 4, shift=3.0) > 0).double()
    weight, pos_weight = _vals(4, shift=5.0).abs(), _vals(4, shift=6.0).abs() + 0.5
    out = {}
    for r in [0, 1, 2]:
        out[f"kl_div_{r}"] = _form(lambda x, y, r=r: fg.kl_div(x, y, r), fg.log_softmax(a, 1), probs)
        out[f"bce_logits_{r}"] = _form(
            lambda x, y, r=r: fg.binary_cross_entropy_with_logits(x, y, reduction=r), a, labels
        )
        out[f"margin_ranking_{r}"] = _form(
            lambda x, y, r=r: fg.margin_ranking_loss(x, y, target, 0.1, r), a[:, 0], b[:, 0]
        )
        out[f"hinge_embedding_{r}"] = _form(lambda x, r=r: fg.hinge_embedding_loss(x, labels * 2 - 1, 0.5, r), a)
        out[f"triplet_margin_{r}"] = _form(
            lambda x, y, z, r=r: fg.triplet_margin_loss(x, y, z, reduction=r), a, b, _vals(3, 4, shift=4.0)
        )
        out[f"cosine_embedding_{r}"] = _form(lambda x, y, r=r: fg.cosine_embedding_loss(x, y, target, 0.2, r), a, b)
        out[f"poisson_nll_{r}"] = _form(lambda x, y, r=r: fg.poisson_nll_loss(x, y, True, False, 1e-8, r), a, probs)
    out.update(
        {
            "kl_div_default": _form(fg.kl_div, fg.log_softmax(a, 1), probs),
            "kl_div_log_target": _form(lambda x, y: fg.kl_div(x, y, 2, log_target=True), a, b),
            "bce_logits_weights": _form(
                lambda x, y: fg.binary_cross_entropy_with_logits(x, y, weight, pos_weight, 2), a, labels
            ),
            "margin_ranking_default": _form(lambda x, y: fg.margin_ranking_loss(x, y, target), a[:, 0], b[:, 0]),
            "triplet_margin_args": _form(
                lambda x, y, z: fg.triplet_margin_loss(x, y, z, 0.5, 1, 1e-6, True, 2), a, b, _vals(3, 4, shift=4.0)
            ),
            "poisson_nll_full": _form(lambda x, y: fg.poisson_nll_loss(x.exp(), y * 3, False, True, 1e-8, 1), a, probs),
            "poisson_nll_missing": error(fg.poisson_nll_loss, a, probs).type,
            "hinge_embedding_default": _form(fg.hinge_embedding_loss, a, labels * 2 - 1),
            "cosine_embedding_default": _form(lambda x, y: fg.cosine_embedding_loss(x, y, target), a, b),
            "triplet_margin_default": _form(fg.triplet_margin_loss, a, b, _vals(3, 4, shift=4.0)),
            "bce_logits_default": _form(fg.binary_cross_entropy_with_logits, a, labels),
            "reduction_5": _form(lambda x, y: fg.kl_div(x, y, 5), fg.log_softmax(a, 1), probs),
            "reduction_str": error(fg.kl_div, a, b, "mean"),
            "reduction_bool": error(fg.hinge_embedding_loss, a, b, 1.0, True),
            "reduction_float": error(fg.triplet_margin_loss, a, b, a, 1.0, 2, 1e-6, False, 1.0),
            "cosine_similarity": _form(fg.cosine_similarity, a, b),
            "cosine_similarity_dim": _form(lambda x, y: fg.cosine_similarity(x, y, 0, 1e-6), a, b),
        }
    )
    return out


def _pools():
    x = _vals(2, 3, 7)
    x2 = _vals(1, 2, 5, 6)
    return {
        "max_pool1d": _form(fg.max_pool1d, x, 2),
        "max_pool1d_args": _form(lambda t: fg.max_pool1d(t, 3, 2, 1, 1, True), x),
        "max_pool1d_empty_stride": _form(lambda t: fg.max_pool1d(t, 2, ()), x),
        "max_pool2d": _form(fg.max_pool2d, x2, 2),
        "max_pool2d_keywords": _form(lambda t: fg.max_pool2d(t, (2, 3), stride=1, padding=(1, 0), ceil_mode=True), x2),
        "avg_pool1d": _form(fg.avg_pool1d, x, 3),
        "avg_pool1d_args": _form(lambda t: fg.avg_pool1d(t, 3, 2, 1, True, False), x),
        "adaptive_avg_pool1d": _form(fg.adaptive_avg_pool1d, x, 3),
        "adaptive_max_pool1d": _form(fg.adaptive_max_pool1d, x, 3),
        "constant_pad_nd": _form(fg.constant_pad_nd, x, [1, 2]),
        "constant_pad_nd_value": _form(lambda t: fg.constant_pad_nd(t, (1, 0, 0, 2), 3.5), x),
        "constant_pad_nd_negative": _form(lambda t: fg.constant_pad_nd(t, [-1, 1]), x),
        "constant_pad_nd_int": fg.constant_pad_nd(fg.arange(4), [2, 1], 7),
    }


def _inplace_forms():
    x = fg.tensor([-2.5, -0.4, 0.0, 0.6, 1.5, 3.7], dtype=fg.float64)
    out = {}
    for name, args, kwargs in [
        ("clamp_", (-1.0, 2.0), {}),
        ("clamp_", (), {"min": 0.5}),
        ("clip_", (None, 1.0), {}),
        ("clamp_min_", (0.0,), {}),
        ("clamp_max_", (1.0,), {}),
        ("neg_", (), {}),
        ("negative_", (), {}),
        ("round_", (), {}),
        ("round_", (), {"decimals": 1}),
        ("square_", (), {}),
        ("zero_", (), {}),
        ("fill_", (2.5,), {}),
        ("fill_", (fg.tensor(-1.0),), {}),
    ]:
        t = x.clone()
        out[f"{name}{args}{sorted(kwargs)}"] = [getattr(fg, name)(t, *args, **kwargs) is t, t]
    p = fg.tensor([0.2, 0.5, 0.9], dtype=fg.float64)
    out["logit_"] = [fg.logit_(p.clone()), fg.logit_(fg.tensor([0.0, 1.0]), 0.1)]
    out["clamp_tensor"] = fg.clamp_(x.clone(), fg.zeros(6, dtype=fg.float64), fg.ones(6, dtype=fg.float64))
    out["leaf_error"] = error(fg.neg_, fg.ones(2, requires_grad=True))
    out["fill_1d_value"] = error(fg.fill_, x.clone(), fg.ones(2))
    return out


CASES.update(
    {
        "conv": _conv,
        "dropouts": _dropouts,
        "embedding_norms": _embedding_norms,
        "activations": _activations,
        "losses": _losses,
        "pools": _pools,
        "inplace_forms": _inplace_forms,
    }
)


def _rsub():
    a, b = _vals(2, 3), _vals(3, shift=1.0)
    i = fg.tensor([1, 2, 3])
    return {
        "tensor": _form(fg.rsub, a, b),
        "tensor_alpha": _form(lambda x, y: fg.rsub(x, y, alpha=2.5), a, b),
        "broadcast_other": _form(fg.rsub, b, a),
        "column": _form(lambda x, y: fg.rsub(x, y, alpha=-1), _vals(2, 1), _vals(1, 3)),
        "mixed_dtypes": _form(fg.rsub, a.float(), b),
        "number": _form(lambda x: fg.rsub(x, 3), a),
        "number_alpha": _form(lambda x: fg.rsub(x, 3, 2), a),
        "number_alpha_keyword": _form(lambda x: fg.rsub(x, 2.5, alpha=-0.5), a),
        "only_other_grad": _form(lambda y: fg.rsub(a, y), b),
        "int": fg.rsub(i, fg.tensor([10, 20, 30]), alpha=2),
        "int_number": fg.rsub(i, 5),
        "int_float_number": fg.rsub(i, 2.5),
        "uint8_wraps": fg.rsub(fg.tensor([1, 2], dtype=fg.uint8), 1, 3),
        "int_float_alpha": error(fg.rsub, i, 2, 1.5),
        "int_tensors_float_alpha": error(fg.rsub, i, i, alpha=1.5),
        "bool_number": error(fg.rsub, fg.tensor([True]), 1),
        "bool_tensors": error(fg.rsub, fg.tensor([True]), fg.tensor([False])),
        "shape_mismatch": error(fg.rsub, a, fg.ones(4, dtype=fg.float64)),
        "no_grad": fg.rsub(a.requires_grad_(), 1).requires_grad,
        "number_input": error(fg.rsub, 3, a).type,
    }


CASES["rsub"] = _rsub
