"""Cases for the general vocabulary of issue 28 (window functions, `range`, `unravel_index`, `combinations`,
`gradient`, `histogram`, `put`, `index_reduce`, `fill_diagonal_`, the in-place view ops, `memory_format`, the
torch-level forms of nn functions, print options, the random fills' argument checks, ...) recorded from torch
(tests/golden/record_misc_vocab.py) and checked by tests/test_misc_vocab.py: values, dtypes, shapes, strides,
errors and their messages, warnings, and gradients where they are differentiable."""

import math
import warnings

import ferrograd as fg
from recorded import error

NAN = math.nan
INF = math.inf


def _warned(fn, always=True):
    """[fn()'s result, the messages of the warnings it gave (without where in torch's C++ they came from)]; with
    `always`, torch's warn-once notices too (`set_warn_always`)."""
    before = fg.is_warn_always_enabled()
    fg.set_warn_always(always)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = fn()
    finally:
        fg.set_warn_always(before)
    return [result, [str(w.message).partition(" (Triggered internally")[0] for w in caught]]


def _warned_once(fn):
    """The warnings of a second call of `fn` without `set_warn_always`: none from a warn-once notice."""
    _warned(fn, always=False)
    return _warned(fn, always=False)[1]


def _quiet(fn, *args, **kwargs):
    """fn(...) with its deprecation notices (range, chain_matmul, index_reduce) silenced: `_warned` checks them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return fn(*args, **kwargs)


def _grads(fn, *tensors):
    """The gradients of `fn(*tensors)` summed with weights 1, 2, 3, ..."""
    leaves = [t.detach().clone().requires_grad_(True) for t in tensors]
    y = fn(*leaves)
    w = fg.arange(1, y.numel() + 1, dtype=y.dtype).reshape(y.shape)
    return list(fg.autograd.grad((y * w).sum(), leaves, allow_unused=True))


def _windows():
    out = {}
    for name in ("hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"):
        fn = getattr(fg, name)
        out[name] = [fn(0), fn(1), fn(5), fn(6, periodic=False), fn(4, False), fn(3, dtype=fg.float64)]
        out[name + "_negative"] = error(fn, -1)
        out[name + "_int"] = error(fn, 3, dtype=fg.int64)
        out[name + "_grad"] = fn(3, requires_grad=True).requires_grad
    out["hamming_alpha_beta"] = fg.hamming_window(5, False, alpha=0.5, beta=0.4)
    out["hamming_positional"] = fg.hamming_window(7, True, 0.6, 0.3, dtype=fg.float64)
    out["kaiser_beta"] = [
        fg.kaiser_window(5, False, 3.0),
        fg.kaiser_window(8, True, 0.0),
        fg.kaiser_window(6, True, 5.5),
    ]
    return out


def _creation():
    return {
        "scalar_tensor": [fg.scalar_tensor(3), fg.scalar_tensor(True), fg.scalar_tensor(2.5, dtype=fg.float64)],
        "scalar_tensor_int": fg.scalar_tensor(2, dtype=fg.int64),
        "scalar_tensor_grad": fg.scalar_tensor(1.5, requires_grad=True).requires_grad,
        "scalar_tensor_str": error(fg.scalar_tensor, "a"),
        "range": _warned(lambda: fg.range(0, 3)),
        "range_step": [_quiet(fg.range, *args) for args in [(1, 2, 0.5), (0, 1, 0.3), (0.5, 2), (4, 0, -1.5)]],
        "range_int": _quiet(fg.range, 0, 4, 2, dtype=fg.int64),
        "range_int32": _quiet(fg.range, 0, 3, dtype=fg.int32),
        "range_sign": _quiet(error, fg.range, 5, 0),
        "range_zero_step": _quiet(error, fg.range, 0, 1, 0),
        "row_stack": fg.row_stack([fg.tensor([1, 2]), fg.tensor([[3, 4], [5, 6]])]),
        "row_stack_empty": error(fg.row_stack, []),
    }


def _indexing():
    i = fg.tensor([4, 1, 5, 0])
    return {
        "unravel": list(fg.unravel_index(i, (2, 3))),
        "unravel_int": list(fg.unravel_index(fg.tensor(5), 6)),
        "unravel_2d": list(fg.unravel_index(fg.tensor([[7, 1], [23, 0]]), [2, 3, 4])),
        "unravel_negative": list(fg.unravel_index(fg.tensor([-1]), (2, 3))),
        "unravel_int32": list(fg.unravel_index(fg.tensor([3], dtype=fg.int32), (2, 2))),
        "unravel_float": error(fg.unravel_index, fg.tensor([1.0]), (2, 3)),
        "unravel_bool": error(fg.unravel_index, fg.tensor([True]), (2, 3)),
        "unravel_negative_shape": error(fg.unravel_index, i, (2, -3)),
        "unravel_zero_shape": error(fg.unravel_index, i, (2, 0)),
        "unravel_empty_zero_shape": list(fg.unravel_index(fg.zeros(0, dtype=fg.int64), (2, 0))),
        "combinations": [
            fg.combinations(fg.tensor([1, 2, 3])),
            fg.combinations(fg.tensor([1, 2, 3]), 3, with_replacement=True),
            fg.combinations(fg.tensor([1.0, 2.0, 3.0, 4.0]), r=3),
            fg.combinations(fg.tensor([1.0, 2.0, 3.0]), 1),
            fg.combinations(fg.tensor([1.0, 2.0, 3.0]), r=0),
            fg.combinations(fg.tensor([1, 2, 3]), 4),
            fg.combinations(fg.tensor([]), 2),
        ],
        "combinations_grad": _grads(lambda x: fg.combinations(x, 2, True), fg.tensor([1.0, 2.0, 3.0])),
        "combinations_grad_fn": fg.combinations(fg.tensor([1.0, 2.0], requires_grad=True)).grad_fn.name(),
        "combinations_2d": error(fg.combinations, fg.ones(2, 2)),
        "combinations_negative": error(fg.combinations, fg.tensor([1, 2]), -1),
    }


def _dtype_and_misc():
    dtypes = [fg.bool, fg.uint8, fg.int8, fg.int32, fg.int64, fg.float16, fg.bfloat16, fg.float32, fg.float64]
    x = fg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    out = {
        "can_cast": [[fg.can_cast(a, b) for b in dtypes] for a in dtypes],
        "can_cast_not_dtype": error(fg.can_cast, 1, fg.uint8),
        "isreal": [fg.isreal(fg.tensor([1.0, NAN, INF])), fg.isreal(fg.tensor([1, 2])), x.isreal()],
        "is_storage": fg.is_storage(x),
        "is_inference": [fg.is_inference(x), x.is_inference()],
        "interop_threads": error(fg.set_num_interop_threads, 0),
        "interop_threads_type": type(fg.get_num_interop_threads()).__name__,
        "chain_matmul": _warned(lambda: fg.chain_matmul(x, x.t(), x)),
        "chain_matmul_one": _warned(lambda: fg.chain_matmul(x)),
        "chain_matmul_once": _warned_once(lambda: fg.chain_matmul(x)),
        "chain_matmul_none": _quiet(error, fg.chain_matmul),
        "chain_matmul_1d": _quiet(error, fg.chain_matmul, fg.ones(3)),
        "chain_matmul_grad": _quiet(_grads, lambda a, b: fg.chain_matmul(a, b), x, x.t()),
        "sum_to_size": [x.sum_to_size(1, 3), x.sum_to_size((3,)), x.sum_to_size(2, 1), x.sum_to_size([1, 1])],
        "sum_to_size_int32": fg.ones(2, 3, dtype=fg.int32).sum_to_size(1, 3),
        "sum_to_size_bad": error(lambda: x.sum_to_size(3, 1)),
        "sum_to_size_longer": error(lambda: x.sum_to_size(1, 2, 3)),
        "sum_to_size_grad": _grads(lambda a: a.sum_to_size(1, 3), x),
        "sizes": [x.itemsize, x.nbytes, x.double().itemsize, x.bool().nbytes, fg.zeros(0).nbytes],
        "H": [x.H, x.mH, fg.ones(2, 3, 4).mH.shape],
        "H_3d": error(lambda: fg.ones(2, 3, 4).H),
        "H_1d": error(lambda: fg.ones(3).H),
        "mH_1d": error(lambda: fg.ones(3).mH),
        "H_0d": _warned(lambda: fg.tensor(2.0).H),
        "H_grad_fn": x.clone().requires_grad_().H.grad_fn.name(),
        "adjoint": [x.adjoint(), fg.adjoint(x), fg.ones(2, 3, 4).adjoint().shape, fg.adjoint(fg.zeros(0, 2)).shape],
        "adjoint_1d": error(lambda: fg.ones(3).adjoint()),
        "cfloat_cdouble": [x.cfloat(), x.cdouble(), fg.tensor([1 + 2j]).cfloat(), x.int().cdouble()],
        "adjoint_0d": [_warned(lambda: fg.adjoint(fg.tensor(1.0))), _warned(lambda: fg.tensor(1.0).mH)],
        "adjoint_0d_complex": _quiet(lambda z: [z.adjoint(), z.mH, z.H], fg.tensor(1 + 2j)),
        "adjoint_not_a_tensor": error(fg.adjoint, 3),
        "adjoint_grad_fn": x.clone().requires_grad_().adjoint().grad_fn.name(),
        "new": [
            x.new(2, 3).shape,
            x.new([1, 2]),
            x.new(),
            fg.tensor([1, 2]).new([1.5, 2.5]),
            x.new(fg.Size([2])).shape,
        ],
        "new_float": error(lambda: x.new(2.5)),
        "output_nr": _output_numbers(),
        "new_tensor_dtype": error(lambda: x.new(fg.tensor([1, 2]))),
    }
    return out


def _output_numbers():
    leaf = fg.ones(4, requires_grad=True)
    first, second = (leaf * 1).split(2)
    return [leaf.output_nr, (leaf * 2).output_nr, first.output_nr, second.output_nr, fg.ones(2).output_nr]


def _calculus():
    f = fg.tensor([1.0, 4.0, 9.0, 16.0, 25.0])
    coords = fg.tensor([0.0, 1.0, 3.0, 4.0, 7.0])
    grid = fg.tensor([[1.0, 2.0, 4.0, 8.0], [3.0, 5.0, 9.0, 1.0], [0.0, -1.0, 2.0, 2.0]], dtype=fg.float64)
    return {
        "gradient": list(fg.gradient(f)),
        "gradient_spacing": list(fg.gradient(f, spacing=2.0)),
        "gradient_spacing_list": list(fg.gradient(f, spacing=[2.0], dim=0)),
        "gradient_coords": list(fg.gradient(f.double(), spacing=(coords.double(),), edge_order=2)),
        "gradient_coords_1": list(fg.gradient(f.double(), spacing=(coords.double(),))),
        "gradient_2d": list(fg.gradient(grid)),
        "gradient_2d_order2": list(fg.gradient(grid, edge_order=2, spacing=[0.5, 2.0])),
        "gradient_dim": list(fg.gradient(grid, dim=1)),
        "gradient_dims": list(fg.gradient(grid, dim=[-1, 0], spacing=3)),
        "gradient_int": list(fg.gradient(fg.tensor([1, 2, 4]), spacing=2)),
        "gradient_edge_order": error(fg.gradient, f, edge_order=3),
        "gradient_small": error(fg.gradient, fg.ones(2), edge_order=2),
        "gradient_spacing_length": error(fg.gradient, f, spacing=[1.0, 2.0]),
        "gradient_spacing_dim_length": error(fg.gradient, grid, spacing=[1.0, 2.0], dim=1),
        "gradient_repeated_dim": error(fg.gradient, grid, dim=(0, 0)),
        "gradient_bad_dim": error(fg.gradient, f, dim=1),
        "gradient_grad": _grads(lambda a: fg.gradient(a, edge_order=2)[0], f.double()),
    }


def _histogram():
    x = fg.tensor([1.0, 2.0, 1.0, 0.5, 2.75])
    out = {
        "bins": list(fg.histogram(x, 4)),
        "range_weight": list(fg.histogram(x, bins=4, range=(0.0, 3.0), weight=fg.tensor([1.0, 2.0, 4.0, 0.5, 1.0]))),
        "edges_density": list(fg.histogram(x, fg.tensor([0.0, 1.0, 2.0, 3.0]), density=True)),
        "float64": list(fg.histogram(x.double(), 3, range=(0, 2))),
        "outside": list(fg.histogram(fg.tensor([0.0, 1.0, 2.0, 3.0]), 3, range=(1.0, 2.0))),
        "equal_values": list(fg.histogram(fg.tensor([2.0, 2.0]), 4)),
        "empty": list(fg.histogram(fg.tensor([]), 3)),
        "2d_input": list(fg.histogram(fg.tensor([[0.0, 1.0], [2.0, 0.5]]), 2)),
        "int": error(fg.histogram, fg.tensor([1, 2]), 3),
        "zero_bins": error(fg.histogram, x, 0),
        "reversed_range": error(fg.histogram, x, 3, range=(2.0, 1.0)),
        "nan": error(fg.histogram, fg.tensor([2.0, NAN]), 3),
        "weight_dtype": error(fg.histogram, x, 2, weight=fg.ones(5, dtype=fg.float64)),
        "weight_shape": error(fg.histogram, fg.tensor([0.0, 1.0]), 2, weight=fg.tensor([1.0])),
        "edges_dtype": error(fg.histogram, x, fg.tensor([0.0, 1.0], dtype=fg.float64)),
        "edges_2d": error(fg.histogram, x, fg.tensor([[0.0, 1.0]])),
    }
    named = fg.histogram(x, 2)
    out["names"] = [named.hist, named.bin_edges]
    return out


def _flat_writes():
    x = fg.arange(6.0).reshape(2, 3)
    src = fg.tensor([[10.0, 20.0, 30.0], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    idx = fg.tensor([0, 1, 0])
    out = {
        "put": [
            fg.put(x, fg.tensor([0, 5]), fg.tensor([9.0, 8.0])),
            x.put(fg.tensor([-1, 1]), fg.tensor([9.0, 8.0])),
            x.put(fg.tensor([0, 0]), fg.tensor([9.0, 8.0]), accumulate=True),
            x.t().put(fg.tensor([1]), fg.tensor([7.0])),
            x.put(fg.tensor([[1, 2]]), fg.tensor([[7.0], [6.0]])),
        ],
        "put_inplace": [x.clone().put_(fg.tensor([1, 2]), fg.tensor([-1.0, -2.0]))],
        "put_out_of_range": error(lambda: x.put(fg.tensor([6]), fg.tensor([9.0]))),
        "put_negative_out_of_range": error(lambda: x.put(fg.tensor([-7]), fg.tensor([9.0]))),
        "put_numel": error(lambda: x.put(fg.tensor([1]), fg.tensor([9.0, 1.0]))),
        "put_index_dtype": error(lambda: x.put(fg.tensor([1.0]), fg.tensor([9.0]))),
        "put_source_dtype": error(lambda: x.put(fg.tensor([1]), fg.tensor([9]))),
        "put_grad": _grads(lambda a, s: a.put(fg.tensor([0, 4, 0]), s, accumulate=True), x, fg.tensor([1.0, 2.0, 3.0])),
        "put_grad_overwrite": _grads(lambda a, s: fg.put(a, fg.tensor([2, 3]), s), x, fg.tensor([1.0, 2.0])),
        "index_reduce_int_mean": _warned(
            lambda: fg.ones(3, dtype=fg.int64).index_reduce(0, fg.tensor([0, 0]), fg.tensor([3, 4]), "mean")
        )[0],
        "index_reduce_warning": _warned(lambda: x.index_reduce(0, idx, src, "prod"))[1],
        "index_reduce_once": _warned_once(lambda: x.index_reduce(0, idx, src, "prod")),
        "index_reduce_sum": _quiet(error, lambda: x.index_reduce(0, idx, src, "sum")),
        "index_reduce_dim1": _quiet(x.index_reduce, 1, fg.tensor([0, 2]), fg.ones(2, 2), "amax"),
        "index_reduce_index_dtype": _quiet(error, lambda: x.index_reduce(0, fg.tensor([0.0]), src, "prod")),
        "index_reduce_out_of_range": _quiet(error, lambda: x.index_reduce(0, fg.tensor([5, 0, 0]), src, "prod")),
        "index_reduce_source_dtype": _quiet(error, lambda: x.index_reduce(0, idx, src.double(), "prod")),
        "index_reduce_count": _quiet(error, lambda: x.index_reduce(0, idx, fg.ones(2, 3), "prod")),
        "index_reduce_index_2d": _quiet(error, lambda: x.index_reduce(0, fg.tensor([[0]]), src, "prod")),
        "index_reduce_bad_dim": _quiet(error, lambda: x.index_reduce(2, idx, src, "prod")),
    }
    for reduce in ("prod", "mean", "amax", "amin"):
        out["index_reduce_" + reduce] = [
            _quiet(x.index_reduce, 0, idx, src, reduce),
            _quiet(fg.index_reduce, x, 0, idx, src, reduce, include_self=False),
            _quiet(x.clone().index_reduce_, 0, idx, src, reduce, include_self=True),
        ]
    out["index_reduce_grad_mean"] = _quiet(
        _grads, lambda a, s: a.index_reduce(0, fg.tensor([0, 1, 0]), s, "mean"), x.double(), src.double()
    )
    return out


def _fill_diagonal():
    def filled(shape, value, wrap=False):
        t = fg.zeros(shape)
        return [t.fill_diagonal_(value, wrap=wrap), t]

    return {
        "square": filled((3, 3), 5.0),
        "wide": filled((2, 4), 1.5),
        "tall": filled((5, 2), 2.0),
        "tall_wrap": filled((7, 3), 5.0, wrap=True),
        "tall_wrap_exact": filled((8, 3), 4.0, wrap=True),
        "cube": filled((3, 3, 3), 1.0),
        "int": fg.zeros(2, 2, dtype=fg.int64).fill_diagonal_(7),
        "transposed": fg.zeros(3, 2).t().fill_diagonal_(3.0),
        "unequal": error(lambda: fg.zeros(3, 4, 5).fill_diagonal_(1)),
        "one_dim": error(lambda: fg.zeros(3).fill_diagonal_(1)),
        "leaf": error(lambda: fg.zeros(2, 2, requires_grad=True).fill_diagonal_(1)),
        "grad": _grads(lambda a: (a * 1).fill_diagonal_(0.0), fg.ones(3, 3)),
    }


def _inplace_forms():
    x = fg.tensor([[1.0, NAN, INF], [-INF, 2.0, 3.0]])
    y = fg.tensor([0.0, 1.0, 2.0])
    out = {
        "cumsum_": [x.clone().cumsum_(1), fg.ones(2, 3, dtype=fg.int64).cumsum_(0)],
        "cumprod_": [fg.tensor([[1.0, 2.0, 3.0], [4.0, 0.5, 2.0]]).cumprod_(dim=1)],
        "cumsum_dtype": error(lambda: fg.ones(3).cumsum_(0, dtype=fg.float64)),
        "nan_to_num_": [x.clone().nan_to_num_(), x.clone().nan_to_num_(1.0, 2.0, -2.0), fg.nan_to_num_(x.clone())],
        "xlogy_": [y.clone().xlogy_(fg.tensor([2.0, 3.0, 0.0])), fg.xlogy_(y.clone(), 3), y.clone().xlogy_(2.0)],
        "xlogy_int": error(lambda: fg.tensor([1, 2]).xlogy_(2.0)),
        "cumsum_leaf": error(lambda: fg.ones(2, requires_grad=True).cumsum_(0)),
        "cumsum_grad": _grads(lambda a: (a * 1).cumsum_(0), fg.tensor([1.0, 2.0, 3.0])),
        "cumprod_grad": _grads(lambda a: (a * 1).cumprod_(0), fg.tensor([1.0, 2.0, 3.0])),
        "xlogy_grad": _grads(lambda a, b: (a * 1).xlogy_(b), fg.tensor([1.0, 2.0]), fg.tensor([3.0, 0.5])),
    }
    t = fg.ones(2)
    t.cumsum_(0)
    out["version"] = t._version
    return out


def _view_inplace():
    def after(fn, t):
        before = t._version
        result = fn(t)
        return [result is t, list(t.shape), list(t.stride()), t.is_contiguous(), t._version - before, t]

    x = fg.arange(6.0).reshape(2, 3)
    out = {
        "t_": after(lambda t: t.t_(), x.clone()),
        "t_1d": after(lambda t: t.t_(), fg.ones(3)),
        "t_3d": error(lambda: fg.ones(3, 2, 1).t_()),
        "transpose_": after(lambda t: t.transpose_(0, 2), fg.arange(24.0).reshape(2, 3, 4)),
        "transpose_bad": error(lambda: x.clone().transpose_(0, 2)),
        "swapaxes_": after(lambda t: t.swapaxes_(0, 1), x.clone()),
        "swapdims_": after(lambda t: t.swapdims_(-1, 0), x.clone()),
        "squeeze_": after(lambda t: t.squeeze_(), fg.ones(1, 3, 1)),
        "squeeze_dim": after(lambda t: t.squeeze_(2), fg.ones(1, 3, 1)),
        "squeeze_dims": after(lambda t: t.squeeze_((0, 2)), fg.ones(1, 3, 1)),
        "squeeze_bad": error(lambda: fg.ones(2, 3).squeeze_(5)),
        "unsqueeze_": after(lambda t: t.unsqueeze_(1), x.clone()),
        "unsqueeze_neg": after(lambda t: t.unsqueeze_(-1), x.clone()),
        "unsqueeze_bad": error(lambda: x.clone().unsqueeze_(4)),
        "leaf": error(lambda: fg.ones(2, 3, requires_grad=True).t_()),
        "leaf_no_grad": after(lambda t: t.t_(), fg.ones(2, 3, requires_grad=True).detach()),
    }
    base = fg.arange(6.0).reshape(2, 3)
    row = base[0]
    row.unsqueeze_(0)
    row.fill_(-1.0)
    out["view_of_base"] = [row, base]

    def chained(a):
        b = a * 2
        b.t_()
        b.unsqueeze_(0)
        b.squeeze_(0)
        b.transpose_(0, 1)
        b.swapdims_(0, 1)
        return b

    out["grad"] = _grads(chained, x)
    return out


def _memory_formats():
    x = fg.arange(24.0).reshape(1, 2, 3, 4)
    five = fg.ones(2, 3, 1, 2, 2)
    out = {
        "repr": [repr(fg.contiguous_format), repr(fg.channels_last), repr(fg.preserve_format)],
        "repr_3d": repr(fg.channels_last_3d),
        "legacy": repr(fg.legacy_contiguous_format),
        "type": type(fg.channels_last).__name__,
        "contiguous_channels_last": _layout(x.contiguous(memory_format=fg.channels_last)),
        "contiguous_format": _layout(x.contiguous(memory_format=fg.contiguous_format)),
        "contiguous_preserve": _layout(x.contiguous(memory_format=fg.preserve_format)),
        "clone_channels_last": _layout(x.clone(memory_format=fg.channels_last)),
        "clone_preserve": _layout(x.permute(0, 2, 3, 1).clone(memory_format=fg.preserve_format)),
        "clone_contiguous": _layout(x.permute(0, 2, 3, 1).clone(memory_format=fg.contiguous_format)),
        "float_channels_last": _layout(x.int().float(memory_format=fg.channels_last)),
        "double_contiguous": _layout(x.double(memory_format=fg.contiguous_format)),
        "to_channels_last": _layout(x.to(memory_format=fg.channels_last)),
        "to_dtype_channels_last": _layout(x.to(fg.float64, memory_format=fg.channels_last)),
        "channels_last_3d": _layout(five.contiguous(memory_format=fg.channels_last_3d)),
        "channels_last_rank": error(lambda: fg.ones(2, 3).contiguous(memory_format=fg.channels_last)),
        "channels_last_3d_rank": error(lambda: x.contiguous(memory_format=fg.channels_last_3d)),
        "clone_rank": error(lambda: fg.ones(2, 3).clone(memory_format=fg.channels_last)),
        "not_a_format": error(lambda: x.contiguous(memory_format=1)),
        "grad_fn": x.clone().requires_grad_().contiguous(memory_format=fg.channels_last).grad_fn.name(),
        "grad": _grads(lambda a: a.contiguous(memory_format=fg.channels_last) * 2, x),
        "equal": [fg.contiguous_format == fg.contiguous_format, fg.channels_last == fg.contiguous_format],
        "is_contiguous": [
            x.is_contiguous(memory_format=fg.channels_last),
            x.contiguous(memory_format=fg.channels_last).is_contiguous(memory_format=fg.channels_last),
            x.contiguous(memory_format=fg.channels_last).is_contiguous(),
            x.is_contiguous(memory_format=fg.contiguous_format),
            x.is_contiguous(memory_format=fg.preserve_format),
            fg.ones(2, 1, 1, 1).is_contiguous(memory_format=fg.channels_last),
        ],
        "is_contiguous_rank": [
            fg.ones(2, 3).is_contiguous(memory_format=fg.channels_last),
            fg.ones(2, 3, 1, 1, 1).is_contiguous(memory_format=fg.channels_last),
            x.transpose(0, 1).is_contiguous(memory_format=fg.preserve_format),
        ],
        "is_contiguous_not_a_format": error(lambda: x.is_contiguous(memory_format=1)),
    }
    return out


def _strided():
    x = fg.arange(6.0)

    def in_place(t, *args):
        before = t._version
        result = t.as_strided_(*args)
        return [result is t, list(t.shape), list(t.stride()), t._version - before, t]

    out = {
        "as_strided": [_layout(x.as_strided((2, 2), (1, 2))), _layout(x.as_strided((2, 2), (1, 2), 1))],
        "function": fg.as_strided(x, [3], [2]),
        "storage_outside_view": x[2:].as_strided((4,), (1,), 0),
        "non_contiguous": x.reshape(2, 3).t().as_strided((3,), (1,)),
        "zero_stride": _layout(x.as_strided((2, 3), (0, 1), 2)),
        "empty_far": x.as_strided((0,), (1,), 100),
        "shares_storage": _shares(x),
        "out_of_bounds": error(lambda: x.as_strided((4,), (2,))),
        "out_of_bounds_double": error(lambda: x.double().as_strided((2, 2), (3, 3), 1)),
        "negative_stride": error(lambda: x.as_strided((2,), (-1,))),
        "lengths": error(lambda: x.as_strided((2, 2), (1,))),
        "grad_fn": x.clone().requires_grad_().as_strided((2, 2), (1, 2), 1).grad_fn.name(),
        "grad": _grads(lambda a: a.as_strided((2, 2), (1, 2), 1), x),
        "grad_overlap": _grads(lambda a: fg.as_strided(a, (3, 2), (1, 1)), x),
        "inplace": in_place(fg.arange(6.0), (2, 2), (2, 1)),
        "inplace_function": fg.as_strided_(fg.arange(6.0), (3,), (2,), 1),
        "inplace_leaf": error(lambda: fg.ones(3, requires_grad=True).as_strided_((2,), (1,))),
        "empty_strided": [list(fg.empty_strided((2, 3), (1, 2)).stride()), fg.empty_strided((2, 3), (1, 2)).shape],
        "empty_strided_dtype": [fg.empty_strided((2, 3), (3, 1), dtype=fg.float64).dtype],
        "empty_strided_zero": [fg.empty_strided((0, 3), (3, 1)).shape, fg.empty_strided((), ()).shape],
        "empty_strided_lengths": error(lambda: fg.empty_strided((2, 3), (1,))),
        "empty_strided_negative": error(lambda: fg.empty_strided((2, -3), (1, 2))),
    }
    return out


def _shares(x):
    t = x.clone()
    view = t.as_strided((2,), (2,), 1)
    view.mul_(10)
    return [t, view]


def _layout(t):
    return [t, list(t.stride()), t.dtype]


def _random_argument_checks():
    return {
        "random_from_to": error(lambda: fg.zeros(3).random_(5, 2)),
        "random_uint8_from": error(lambda: fg.zeros(3, dtype=fg.uint8).random_(-1, 5)),
        "random_to_zero": error(lambda: fg.zeros(3).random_(0)),
        "random_dtype": [fg.zeros(3).random_(0, 5).dtype, fg.zeros(3, dtype=fg.int8).random_().dtype],
        "random_leaf": error(lambda: fg.ones(3, requires_grad=True).random_()),
        "log_normal_std": [error(lambda: fg.zeros(3).log_normal_(1, 0)), error(lambda: fg.zeros(3).log_normal_(1, -1))],
        "log_normal_int": error(lambda: fg.zeros(3, dtype=fg.int64).log_normal_()),
        "geometric_p": [error(lambda: fg.zeros(3).geometric_(0)), error(lambda: fg.zeros(3).geometric_(1.5))],
        "geometric_int": fg.zeros(3, dtype=fg.int64).geometric_(0.5).dtype,
        "cauchy_sigma": [error(lambda: fg.zeros(3).cauchy_(0, 0)), error(lambda: fg.zeros(3).cauchy_(0, -1))],
        "cauchy_int": error(lambda: fg.zeros(3, dtype=fg.int64).cauchy_()),
        "randint_like": [fg.randint_like(fg.zeros(2), 5).dtype, fg.randint_like(fg.zeros(2, 2), 3, 5).shape],
        "randint_like_dtype": fg.randint_like(fg.zeros(2), 3, 5, dtype=fg.int64).dtype,
        "randint_like_order": error(fg.randint_like, fg.zeros(2), 5, 3),
        "randint_like_one_value": fg.randint_like(fg.zeros(4), 4, 5),
        "poisson_zero_rates": fg.poisson(fg.zeros(2, 3, dtype=fg.float64)),
        "poisson_dtype_shape": [fg.poisson(fg.ones(3)).dtype, fg.poisson(fg.zeros(0, 3)).shape],
        "poisson_negative": error(fg.poisson, fg.tensor([1.0, -1.0])),
        "poisson_nan": error(fg.poisson, fg.tensor([NAN])),
        "poisson_int": error(fg.poisson, fg.tensor([1, 2])),
        "binomial_certain": fg.binomial(fg.tensor([5.0, 0.0, 3.0, 7.0]), fg.tensor([0.0, 0.5, 1.0, 1.0])),
        "binomial_dtype_shape": [
            fg.binomial(fg.ones(2, 2, dtype=fg.float64), fg.full((2,), 0.5, dtype=fg.float64)).dtype,
            fg.binomial(fg.ones(2, 2), fg.full((2,), 0.5)).shape,
        ],
        "binomial_mixed_dtypes": error(fg.binomial, fg.tensor([5.0]), fg.tensor([0.5], dtype=fg.float64)),
        "binomial_int_prob": error(fg.binomial, fg.tensor([5.0]), fg.tensor([1])),
        "binomial_int_count": error(fg.binomial, fg.tensor([5]), fg.tensor([0.5])),
    }


def _nn_forms():
    x = fg.tensor([[-2.0, -0.25, 0.0, 0.4], [1.0, -1.0, 3.0, -0.6]])
    images = fg.arange(16.0).reshape(1, 4, 2, 2) / 7 - 1
    batch = fg.tensor([[[1.0, 2.0, 4.0], [0.5, -1.0, 2.0]], [[3.0, 0.0, 1.0], [-2.0, 1.0, 0.0]]])
    w, b = fg.tensor([1.5, -0.5]), fg.tensor([0.25, 1.0])
    out = {
        "selu": [fg.selu(x), fg.selu_(x.clone()), fg.nn.functional.selu_(x.clone())],
        "rrelu_eval": [fg.rrelu(x), fg.rrelu_(x.clone(), 0.1, 0.3), fg.nn.functional.rrelu_(x.clone(), 0.2, 0.4)],
        "prelu": [fg.prelu(x, fg.tensor([0.25])), fg.prelu(images, fg.tensor([0.1, 0.2, 0.3, 0.4]))],
        "hardshrink": [fg.hardshrink(x), fg.hardshrink(x, 0.3), x.hardshrink(lambd=1.0)],
        "channel_shuffle": [fg.channel_shuffle(images, 2), fg.nn.functional.channel_shuffle(images, 4)],
        "channel_shuffle_module": [repr(fg.nn.ChannelShuffle(2)), fg.nn.ChannelShuffle(2)(images)],
        "channel_shuffle_groups": error(fg.channel_shuffle, images, 3),
        "channel_shuffle_2d": error(fg.channel_shuffle, fg.ones(2, 4), 2),
        "channel_shuffle_zero": error(fg.channel_shuffle, images, 0),
        "channel_shuffle_grad": _grads(lambda a: fg.channel_shuffle(a, 2), images),
        "feature_dropout_eval": fg.feature_dropout(images, 0.5, False),
        "feature_dropout_p": error(fg.feature_dropout, images, 1.5, True),
        "group_norm": fg.group_norm(batch, 1, w, b, 1e-5, True),
        "batch_norm": fg.batch_norm(batch, w, b, None, None, True, 0.1, 1e-5, True),
        "batch_norm_running": fg.batch_norm(
            batch, w, b, fg.tensor([0.5, 1.0]), fg.tensor([2.0, 0.5]), False, 0.1, 1e-5, True
        ),
        "instance_norm": fg.instance_norm(batch, w, b, None, None, True, 0.1, 1e-5, True),
        "rms_norm": [fg.rms_norm(batch, [3]), fg.rms_norm(batch, (2, 3), None, 1e-3)],
        "bilinear": fg.bilinear(x, x[:, :3], fg.ones(2, 4, 3) / 4, fg.tensor([1.0, -1.0])),
        "pairwise_distance": [fg.pairwise_distance(x, x.flip(0)), fg.pairwise_distance(x, x * 2, 1.0, 1e-6, True)],
    }
    return out


def _print_options():
    x = fg.tensor([1.123456, 200.5, 3e-3])
    reprs = [repr(x)]
    try:
        fg.set_printoptions(precision=2)
        reprs.append(repr(x))
        fg.set_printoptions(sci_mode=False)
        reprs.append(repr(fg.tensor([1e-5, 1.0])))
        fg.set_printoptions(profile="default", threshold=5, edgeitems=2)
        reprs.append(repr(fg.arange(10.0)))
        fg.set_printoptions(profile="default", linewidth=20)
        reprs.append(repr(fg.arange(10.0)))
        fg.set_printoptions(profile="default", sci_mode=True)
        reprs.append(repr(fg.arange(3.0)))
        fg.set_printoptions(profile="short")
        reprs.append(repr(fg.arange(2000.0) / 3))
        fg.set_printoptions(profile="full")
        reprs.append(repr(fg.arange(1001)).count(","))
    finally:
        fg.set_printoptions(profile="default")
    reprs.append(repr(x))
    return {"reprs": reprs}


def _warn_always():
    before = fg.is_warn_always_enabled()
    fg.set_warn_always(True)
    on = fg.is_warn_always_enabled()
    fg.set_warn_always(False)
    return {"flags": [before, on, fg.is_warn_always_enabled()]}


def _spellings():
    """Spellings scripts use: the builtin `abs`, `flip(dims=...)`, one-argument `where`."""
    x = fg.tensor([[-1.5, 2.0, 0.0], [-0.0, 3.0, -4.0]], dtype=fg.float64, requires_grad=True)
    y = abs(x)
    y.backward(fg.ones_like(y))
    return {
        "abs": y,
        "abs_grad_fn": y.grad_fn.name(),
        "abs_grad": x.grad,
        "abs_int": abs(fg.tensor([-3, 4])),
        "flip_keyword": x.detach().flip(dims=(0, 1)),
        "flip_function_keyword": fg.flip(x.detach(), dims=[1]),
        "flip_both": error(lambda: x.flip(0, dims=1)),
        "where_one": fg.where(x > 0),
        "where_one_0d": fg.where(fg.tensor(True)),
        "where_one_0d_false": fg.where(fg.tensor(False)),
        "nonzero_tuple_0d": fg.tensor(2.5).nonzero(as_tuple=True),
        "where_one_empty": fg.where(fg.zeros(0, 3) > 0),
        "where_two": error(lambda: fg.where(x > 0, x)),
    }


CASES = {
    "spellings": _spellings,
    "windows": _windows,
    "creation": _creation,
    "indexing": _indexing,
    "dtype_and_misc": _dtype_and_misc,
    "calculus": _calculus,
    "histogram": _histogram,
    "flat_writes": _flat_writes,
    "fill_diagonal": _fill_diagonal,
    "inplace_forms": _inplace_forms,
    "view_inplace": _view_inplace,
    "memory_formats": _memory_formats,
    "strided": _strided,
    "random_argument_checks": _random_argument_checks,
    "nn_forms": _nn_forms,
    "print_options": _print_options,
    "warn_always": _warn_always,
}
