"""Cases for torch-namespace names of issue 28 recorded from torch (tests/golden/record_torch_namespace.py) and
checked by tests/test_torch_namespace.py: the `*_copy` family and the `unsafe_` splits (values, strides,
grad_fn names, saved fields, gradients, `out=`), the legacy typed tensor classes, the functional recurrent
layers and cells, the norm functions, and the process and build settings."""

import warnings

import ferrograd as fg
import numpy as np
from recorded import error


def _weighted_grads(outputs, leaf):
    """The gradient at `leaf` of the outputs' sum weighted by 1, 2, 3, ..."""
    total = 0
    offset = 1
    for y in outputs:
        w = fg.arange(offset, offset + y.numel(), dtype=y.dtype).reshape(y.shape)
        offset += y.numel()
        total = total + (y * w).sum()
    (g,) = fg.autograd.grad(total, [leaf])
    return g


def _message(warning):
    """A warning's text without the C++ source location torch appends."""
    return str(warning.message).split(" (Triggered internally")[0]


def _source():
    return fg.tensor(np.arange(24.0).reshape(2, 3, 4) - 7.5, dtype=fg.float64)


# name -> (arguments after the input, keyword arguments)
SINGLE_COPIES = {
    "alias_copy": ((), {}),
    "as_strided_copy": (((3, 2), (1, 3)), {"storage_offset": 2}),
    "diagonal_copy": ((), {"offset": 1, "dim1": 1, "dim2": 2}),
    "expand_copy": (((2, 2, 3, 4),), {}),
    "narrow_copy": ((2, 1, 2), {}),
    "permute_copy": (((2, 0, 1),), {}),
    "select_copy": ((1, -1), {}),
    "slice_copy": ((2, 1, None, 2), {}),
    "squeeze_copy": ((), {}),
    "t_copy": ((), {}),
    "transpose_copy": ((0, 2), {}),
    "unfold_copy": ((2, 2, 1), {}),
    "unsqueeze_copy": ((-1,), {}),
    "view_copy": (((4, 6),), {}),
}
SEVERAL_COPIES = {
    "split_copy": ((2, 2), {}),
    "split_with_sizes_copy": (([1, 3],), {"dim": 2}),
    "unbind_copy": ((), {"dim": 1}),
    "unsafe_chunk": ((2,), {"dim": 1}),
    "unsafe_split": ((1,), {}),
    "unsafe_split_with_sizes": (([2, 1],), {"dim": 1}),
}
# the inputs that suit each op: t_copy takes at most 2-D input, squeeze_copy wants sizes of 1
_INPUT = {"t_copy": lambda x: x[0], "squeeze_copy": lambda x: x[:1, :, 1:2]}


def _single_copy(name):
    fn = getattr(fg, name)
    args, kwargs = SINGLE_COPIES[name]
    pick = _INPUT.get(name, lambda x: x)
    x = pick(_source())
    y = fn(x, *args, **kwargs)
    leaf = _source().requires_grad_()
    z = fn(pick(leaf), *args, **kwargs)
    out = {
        "value": y,
        "stride": list(y.stride()),
        "is_view": y._base is not None,
        "grad_fn": z.grad_fn.name(),
        "grad": _weighted_grads([z], leaf),
        "non_contiguous": fn(pick(_source().transpose(0, 1).contiguous().transpose(0, 1)), *args, **kwargs),
        "int": fn(pick(_source().long()), *args, **kwargs),
        "no_grad_mode": _no_grad_requires_grad(fn, pick(leaf), args, kwargs),
    }
    target = fg.zeros(0, dtype=fg.float64)
    out["out"] = [fn(x, *args, **kwargs, out=target), target]
    out["out_dtype"] = error(fn, x, *args, **kwargs, out=fg.zeros(0))
    out["out_grad"] = error(fn, leaf, *args, **kwargs, out=fg.zeros(0, dtype=fg.float64))
    return out


def _no_grad_requires_grad(fn, x, args, kwargs):
    with fg.no_grad():
        return fn(x, *args, **kwargs).requires_grad


def _several_copies(name):
    fn = getattr(fg, name)
    args, kwargs = SEVERAL_COPIES[name]
    ys = fn(_source(), *args, **kwargs)
    leaf = _source().requires_grad_()
    zs = fn(leaf, *args, **kwargs)
    return {
        "values": list(ys),
        "bases": [y._base is not None for y in ys],
        "grad_fns": [z.grad_fn.name() for z in zs],
        "grad": _weighted_grads(zs, leaf),
        "grad_first_only": _weighted_grads(zs[:1], leaf),
        "int": list(fn(_source().int(), *args, **kwargs)),
        # the copies are contiguous; the unsafe_ splits keep the input's layout
        "strides": [
            list(y.stride()) for y in fn(_source().transpose(0, 1).contiguous().transpose(0, 1), *args, **kwargs)
        ],
    }


def _copy_edges():
    x = _source()
    leaf = _source().requires_grad_()
    squeezed = fg.ones(1, 2, 1, requires_grad=True)
    return {
        "detach_copy": [fg.detach_copy(leaf), fg.detach_copy(x.transpose(0, 2)).stride()],
        "detach_copy_out": fg.detach_copy(x, out=fg.zeros(1, dtype=fg.float64)),
        "squeeze_dim": [fg.squeeze_copy(squeezed, 0).grad_fn.name(), fg.squeeze_copy(squeezed, 0).shape],
        "squeeze_dims": [fg.squeeze_copy(squeezed, (0, 2)).grad_fn.name(), fg.squeeze_copy(squeezed, (0, 2)).shape],
        "saved_dims": fg.permute_copy(leaf, (1, 2, 0)).grad_fn._saved_dims,
        "saved_sizes": list(fg.expand_copy(leaf[:1], (3, 3, 4)).grad_fn._saved_self_sym_sizes),
        "expand_implicit": fg.expand_copy(fg.ones(3), (2, 3), implicit=True),
        "empty": [fg.permute_copy(fg.zeros(0, 2), (1, 0)), fg.split_copy(fg.zeros(0, 2), 1, 1)],
        "zero_dim": [fg.alias_copy(fg.tensor(2.5)), fg.unsqueeze_copy(fg.tensor(2.5), 0)],
        "bool": fg.t_copy(fg.tensor([[True, False]])),
        "slice_dim": error(fg.slice_copy, x, 5),
        "unbind_dim": error(fg.unbind_copy, x, 3),
        "not_tensor": error(fg.t_copy, [1, 2]),
        "slice_defaults": fg.slice_copy(x),
        "chunk_uneven": fg.unsafe_chunk(fg.arange(5), 2),
    }


def _legacy_tensors():
    names = ["BoolTensor", "ByteTensor", "CharTensor", "ShortTensor", "IntTensor", "LongTensor", "HalfTensor"]
    names += ["BFloat16Tensor", "FloatTensor", "DoubleTensor"]
    out = {}
    for name in names:
        cls = getattr(fg, name)
        data = cls([1.75, -2.0, 0.0]) if name not in ("ByteTensor", "BoolTensor") else cls([3, 0, 255])
        out[name] = [
            data,
            cls(2, 3).shape,
            cls(fg.Size([4])).shape,
            cls().shape,
            data.type(),
            isinstance(data, cls),
            isinstance(fg.zeros(1, dtype=fg.float64 if name != "DoubleTensor" else fg.float32), cls),
            isinstance(3, cls),
            cls.__name__,
            cls.dtype,
            cls.is_sparse,
            fg.ones(2).type(cls).dtype,
        ]
    out["same_dtype_tensor"] = fg.IntTensor(fg.tensor([1, 2], dtype=fg.int32))
    out["other_dtype_tensor"] = error(fg.IntTensor, fg.tensor([1.0, 2.0]))
    return out


def _default_tensor_type():
    before = fg.get_default_dtype()
    out = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fg.set_default_tensor_type(fg.DoubleTensor)
        out["class"] = [fg.get_default_dtype(), fg.ones(1).dtype]
        fg.set_default_tensor_type("torch.FloatTensor")
        out["name"] = fg.get_default_dtype()
        out["int"] = error(fg.set_default_tensor_type, fg.IntTensor)
        out["dtype"] = error(fg.set_default_tensor_type, fg.float64)
        out["unknown"] = error(fg.set_default_tensor_type, "torch.NoSuchTensor").type
        # a dotted name is imported and looked up, as torch's _import_dotted_name does
        out["no such module"] = error(fg.set_default_tensor_type, "ckpt_1.pt")
        out["no such attribute"] = error(fg.set_default_tensor_type, "torch.cuda.Bogus")
    fg.set_default_dtype(before)
    out["warning"] = [_message(caught[0]), caught[0].category.__name__]
    return out


def _rnn_params(mode, input_size, hidden, layers, bidirectional, bias=True, proj=0, seed=0):
    rng = np.random.default_rng(seed)
    gates = {"lstm": 4, "gru": 3}.get(mode, 1)
    params = []
    for layer in range(layers):
        for _ in range(2 if bidirectional else 1):
            real = proj or hidden
            inp = input_size if layer == 0 else real * (2 if bidirectional else 1)
            shapes = [(gates * hidden, inp), (gates * hidden, real)]
            shapes += [(gates * hidden,), (gates * hidden,)] if bias else []
            shapes += [(proj, hidden)] if proj else []
            params += [fg.tensor(rng.uniform(-0.5, 0.5, s), dtype=fg.float64) for s in shapes]
    return params


def _rnn_layers():
    rng = np.random.default_rng(1)
    x = fg.tensor(rng.standard_normal((4, 2, 3)), dtype=fg.float64)
    h = fg.tensor(rng.standard_normal((4, 2, 5)), dtype=fg.float64)
    c = fg.tensor(rng.standard_normal((4, 2, 5)), dtype=fg.float64)
    out = {}
    for mode in ("lstm", "gru", "rnn_tanh", "rnn_relu"):
        fn = getattr(fg, mode)
        for bidirectional in (False, True):
            layers = 2
            params = _rnn_params(mode, 3, 5, layers, bidirectional)
            k = layers * (2 if bidirectional else 1)
            hx = [h[:k], c[:k]] if mode == "lstm" else h[:k]
            key = f"{mode}_{'bi' if bidirectional else 'uni'}"
            out[key] = list(fn(x, hx, params, True, layers, 0.0, False, bidirectional, False))
            leaves = [p.clone().requires_grad_() for p in params[:2]]
            result = fn(x, hx, leaves + params[2:], True, layers, 0.0, True, bidirectional, False)
            out[key + "_grads"] = list(fg.autograd.grad(result[0].sum() + result[1].pow(2).sum(), leaves))
        params = _rnn_params(mode, 3, 5, 1, False, bias=False)
        hx = [h[:1], c[:1]] if mode == "lstm" else h[:1]
        out[mode + "_no_bias_batch_first"] = list(fn(x.transpose(0, 1), hx, params, False, 1, 0.0, False, False, True))
        out[mode + "_param_count"] = error(fn, x, hx, params[:1], False, 1, 0.0, False, False, False)
    params = _rnn_params("lstm", 3, 5, 1, False, proj=2)
    out["lstm_proj"] = list(fg.lstm(x, [h[:1, :, :2], c[:1]], params, True, 1, 0.0, False, False, False))
    out["lstm_one_state"] = error(
        fg.lstm, x, [h[:1]], _rnn_params("lstm", 3, 5, 1, False), True, 1, 0.0, False, False, False
    )
    return out


def _rnn_cells():
    rng = np.random.default_rng(2)
    x = fg.tensor(rng.standard_normal((2, 3)), dtype=fg.float64)
    h = fg.tensor(rng.standard_normal((2, 4)), dtype=fg.float64)
    c = fg.tensor(rng.standard_normal((2, 4)), dtype=fg.float64)
    out = {}
    for name, gates in (("lstm_cell", 4), ("gru_cell", 3), ("rnn_tanh_cell", 1), ("rnn_relu_cell", 1)):
        fn = getattr(fg, name)
        w_ih = fg.tensor(rng.uniform(-0.5, 0.5, (gates * 4, 3)), dtype=fg.float64, requires_grad=True)
        w_hh = fg.tensor(rng.uniform(-0.5, 0.5, (gates * 4, 4)), dtype=fg.float64)
        b_ih = fg.tensor(rng.uniform(-0.5, 0.5, (gates * 4,)), dtype=fg.float64)
        hx = (h, c) if name == "lstm_cell" else h
        result = fn(x, hx, w_ih, w_hh, b_ih, b_ih.flip(0))
        first = result[0] if name == "lstm_cell" else result
        out[name] = [*(result if name == "lstm_cell" else [result]), first.grad_fn.name()]
        out[name + "_grad"] = _weighted_grads([first], w_ih)
        out[name + "_no_bias"] = fn(x, hx, w_ih.detach(), w_hh)
        out[name + "_1d"] = error(fn, x[0], (h[0], c[0]) if name == "lstm_cell" else h[0], w_ih, w_hh)
    return out


def _norm_functions():
    x = _source()
    leaf = _source().requires_grad_()
    out = {}
    for dim in (0, 1, 2):
        y = fg.norm_except_dim(leaf, 2, dim)
        out[f"norm_except_dim_{dim}"] = [y, y.grad_fn.name(), _weighted_grads([y], leaf)]
    # over all of v it is `v.norm(pow)`, whose node ferrograd names LinalgVectorNormBackward0 (torch NormBackward0)
    y = fg.norm_except_dim(leaf, 2, -1)
    out["norm_except_dim_-1"] = [y, _weighted_grads([y], leaf)]
    out["norm_except_dim_p3"] = fg.norm_except_dim(x, 3, 1)
    out["norm_except_dim_default"] = fg.norm_except_dim(x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = fg.frobenius_norm(leaf, (1, 2))
        out["frobenius"] = [y, fg.frobenius_norm(x, 1, True), _weighted_grads([y], leaf)]
        out["frobenius_3_dims"] = error(fg.frobenius_norm, x, (0, 1, 2))
        out["frobenius_int"] = error(fg.frobenius_norm, x.long(), (0, 1)).type
        # a matrix of full rank: at a zero singular value the gradient is not unique
        m = fg.tensor(np.random.default_rng(4).standard_normal((3, 4)), dtype=fg.float64, requires_grad=True)
        y = fg.nuclear_norm(m)
        out["nuclear"] = [y, fg.nuclear_norm(x[0], True), fg.nuclear_norm(x, (1, 2)), fg.nuclear_norm(x, (0, 2), True)]
        out["nuclear_grad"] = _weighted_grads([y], m)
    out["warnings"] = sorted({_message(w) for w in caught})
    y, mean, rstd = fg.native_layer_norm(leaf, (3, 4), None, None, 1e-5)
    out["native_layer_norm"] = [y, mean, rstd, y.grad_fn.name(), mean.requires_grad]
    running = [fg.zeros(3, dtype=fg.float64), fg.ones(3, dtype=fg.float64)]
    out["batch_norm_update_stats"] = [*fg.batch_norm_update_stats(x, *running, 0.1), *running]
    out["batch_norm_update_stats_none"] = list(fg.batch_norm_update_stats(x.float(), None, None, 0.3))
    w = fg.linspace(0.5, 2.0, 4, dtype=fg.float64)
    out["native_layer_norm_affine"] = list(fg.native_layer_norm(x, [4], w, w - 1, 1e-3))
    out["native_layer_norm_float"] = list(fg.native_layer_norm(x.float(), [2, 3, 4], None, None, 1e-5))
    running = [fg.zeros(3, dtype=fg.float64), fg.ones(3, dtype=fg.float64)]
    y, mean, invstd = fg.native_batch_norm(leaf, None, None, *running, True, 0.1, 1e-5)
    out["native_batch_norm"] = [y, mean, invstd, *running, y.grad_fn.name(), mean.requires_grad]
    out["native_batch_norm_eval"] = list(fg.native_batch_norm(x, w[:3], None, *running, False, 0.1, 1e-3))
    out["native_batch_norm_float"] = list(fg.native_batch_norm(x.float(), None, None, None, None, True, 0.1, 1e-5))
    return out


def _with_out(fn, out):
    """`fn(out)`'s result, and whether it is `out` itself."""
    result = fn(out)
    return [result, result is out]


def _fill_grads():
    x = _source().requires_grad_()
    value = fg.tensor(2.0, dtype=fg.float64, requires_grad=True)
    y = fg.fill(x, value)
    return [y.grad_fn.name(), *fg.autograd.grad((y * y).sum(), [x, value])]


def _settings():
    x = _source()
    leaf = _source().requires_grad_()
    out = {
        "fill": [fg.fill(x, 2.5), fg.fill(x.long(), 2.7), fg.fill(x, fg.tensor(-1.0)), fg.fill(leaf, 3).grad_fn.name()],
        "fill_tensor_1d": error(fg.fill, x, fg.ones(2)),
        "fill_grads": _fill_grads(),
        "get_device": [fg.get_device(x), error(fg.get_device, 3), fg.is_distributed(x)],
        "device_module": [
            fg.get_device_module("cpu").__name__.rpartition(".")[2],
            fg.get_device_module(fg.device("cuda")).__name__.rpartition(".")[2],
            error(fg.get_device_module, "foo"),
        ],
        "init_num_threads": fg.init_num_threads(),
        "has": [fg.has_lapack],
        "cxx11_abi": fg.compiled_with_cxx11_abi(),
        "version_compare": [fg.__version__ > (0, 0, 1), fg.__version__ < "1000.0", isinstance(fg.__version__, str)],
        "torch_version": [
            fg.torch_version.TorchVersion("1.10.0a0") > (1, 2),
            fg.torch_version.TorchVersion("2.1") == (2, 1, 0),
        ],
        "version_module": [fg.version.hip, fg.version.debug],
        "functional": [fg.functional.einsum("ij->j", x[0]), fg.functional.broadcast_shapes((2, 1), (3,))],
    }
    fg.set_anomaly_enabled(True)
    out["anomaly_on"] = [fg.is_anomaly_enabled(), fg.is_anomaly_check_nan_enabled()]
    fg.set_anomaly_enabled(True, False)
    out["anomaly_no_nan"] = fg.is_anomaly_check_nan_enabled()
    fg.set_anomaly_enabled(False)
    out["anomaly_off"] = fg.is_anomaly_enabled()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fg.set_autocast_cpu_enabled(True)
        enabled = fg.is_autocast_enabled("cpu")
        fg.set_autocast_cpu_enabled(False)
        fg.set_autocast_cpu_dtype(fg.float16)
        cpu_dtype = fg.get_autocast_dtype("cpu")
        fg.set_autocast_cpu_dtype(fg.bfloat16)
        gpu_dtype = fg.get_autocast_gpu_dtype()
        fg.set_autocast_gpu_dtype(fg.bfloat16)
        set_gpu = fg.get_autocast_dtype("cuda")
        fg.set_autocast_gpu_dtype(fg.float16)
    out["autocast"] = [enabled, fg.is_autocast_enabled("cpu"), cpu_dtype, gpu_dtype, set_gpu]
    out["autocast_warnings"] = [[_message(w), w.category.__name__] for w in caught]
    out["nesting"] = [
        fg.autocast_increment_nesting(),
        fg.autocast_increment_nesting(),
        fg.autocast_decrement_nesting(),
        fg.autocast_decrement_nesting(),
    ]
    state = fg.get_rng_state()
    with fg.random.fork_rng():
        fg.manual_seed(3)
        inside = fg.rand(2)
    out["fork_rng"] = [inside, fg.equal(fg.get_rng_state(), state)]
    fg.random.manual_seed(5)
    out["random_module"] = [fg.random.initial_seed(), fg.random.thread_safe_generator()]
    return out


def _memory_forms():
    t = fg.ones(3)
    array = np.arange(3.0)
    shared = fg.asarray(array)
    cast = fg.asarray(array, dtype=fg.float32)
    array[0] = 9.0
    buffer = bytearray(b"\x01\x00\x00\x00\x02\x00\x00\x00")
    ints = fg.frombuffer(buffer, dtype=fg.int32)
    buffer[0] = 5
    x = fg.tensor([[0, 1], [2, 0], [3, 4]])
    permuted = fg.empty_permuted((2, 3, 4), (0, 2, 1))
    return {
        "asarray_tensor": [fg.asarray(t) is t, fg.asarray(t, copy=True) is t, fg.asarray(t, dtype=fg.float64)],
        "asarray_numpy": [shared, cast],
        "asarray_alias_error": error(fg.asarray, np.arange(3.0), dtype=fg.float32, copy=False),
        "asarray_dtype_type": [error(fg.asarray, t, dtype=fg.tensor([[0]])), error(fg.asarray, [1], dtype="float32")],
        "asarray_data": [fg.asarray([1, 2]), fg.asarray([1.5]), fg.asarray(3), fg.asarray(3.0), fg.asarray([True])],
        "asarray_grad": [
            fg.asarray(fg.ones(2), requires_grad=True).requires_grad,
            fg.asarray([[1, 2]], dtype=fg.float64),
        ],
        "frombuffer": [ints, fg.frombuffer(buffer, dtype=fg.int32, count=1, offset=4)],
        "frombuffer_uint8": fg.frombuffer(bytearray(b"abc"), dtype=fg.uint8),
        "frombuffer_count": error(fg.frombuffer, buffer, dtype=fg.int32, count=3),
        "frombuffer_empty": error(fg.frombuffer, bytearray(), dtype=fg.uint8),
        "frombuffer_multiple": error(fg.frombuffer, buffer, dtype=fg.int32, offset=3),
        "empty_permuted": [permuted.shape, list(permuted.stride()), permuted.dtype],
        "empty_permuted_int": fg.empty_permuted((2, 3), (1, 0), dtype=fg.int64).stride(),
        "empty_permuted_rank": error(fg.empty_permuted, (2, 3), (0,)),
        "nonzero_static": [
            fg.nonzero_static(x, size=5),
            fg.nonzero_static(x, size=1, fill_value=7),
            fg.nonzero_static(fg.tensor(3), size=2),
            fg.nonzero_static(fg.zeros(0, 2), size=2),
        ],
        "nonzero_static_size": error(fg.nonzero_static, x, size=-1),
        "nonzero_static_out": _with_out(lambda out: fg.nonzero_static(x, size=2, out=out), fg.zeros(0, dtype=fg.int64)),
    }


def _native_dropout():
    out = {}
    for dtype in (fg.float32, fg.float64):
        fg.manual_seed(0)
        x = fg.arange(1.0, 13.0, dtype=dtype).reshape(3, 4).requires_grad_()
        y, mask = fg.native_dropout(x, 0.25, True)
        out[str(dtype).rpartition(".")[2]] = [
            y,
            mask,
            y.grad_fn.name(),
            y.grad_fn._saved_p,
            *fg.autograd.grad(y.sum(), [x]),
        ]
    x = fg.arange(1.0, 5.0, requires_grad=True)
    y, mask = fg.native_dropout(x, 0.5, False)
    out["eval"] = [y, mask, y.grad_fn.name(), y.grad_fn._saved_p]
    out["p_one"] = list(fg.native_dropout(fg.ones(3), 1.0, True))
    out["p_zero"] = list(fg.native_dropout(fg.ones(3), 0.0, True))
    out["saved_mask"] = fg.native_dropout(x, 0.5, True)[0].grad_fn._saved_result1.dtype
    return out


def _histogramdd():
    x = fg.tensor([[0.0, 0.0], [1.0, 1.0], [2.0, 0.5], [1.0, 2.0], [5.0, -1.0]])
    edges = [fg.tensor([0.0, 1.0, 3.0]), fg.tensor([0.0, 2.0])]
    return {
        "bins": list(fg.histogramdd(x, bins=[2, 3])),
        "range_density": list(fg.histogramdd(x, bins=2, range=[0.0, 4.0, 0.0, 1.0], density=True)),
        "edges_weight": list(fg.histogramdd(x, bins=edges, weight=fg.tensor([1.0, 2.0, 3.0, 4.0, 5.0]))),
        "one_dim": list(fg.histogramdd(x[:, :1], bins=2)),
        "three_dims": list(fg.histogramdd(fg.tensor([[0.0, 1.0, 2.0], [1.0, 1.0, 1.0]], dtype=fg.float64), bins=2)),
        "empty": list(fg.histogramdd(fg.zeros(0, 2), bins=2)),
        "bins_size": error(fg.histogramdd, x, bins=[2]),
        "int": error(fg.histogramdd, x.long(), bins=2),
        "repr": repr(fg.histogramdd(x[:2], bins=1)),
    }


def _nn_forms():
    rng = np.random.default_rng(3)
    weight = fg.tensor(rng.standard_normal((5, 3)), dtype=fg.float64)
    returned = fg.embedding_renorm_(weight, fg.tensor([0, 2, 2]), 0.5, 2.0)
    x = fg.tensor(rng.standard_normal((1, 2, 5)), dtype=fg.float64, requires_grad=True)
    k = fg.tensor(rng.standard_normal((3, 2, 2)), dtype=fg.float64)
    image = fg.tensor(rng.standard_normal((2, 2, 4, 5)), dtype=fg.float64)
    kernel = fg.tensor(rng.standard_normal((4, 1, 3, 2)), dtype=fg.float64)
    bias = fg.tensor([0.5, -1.0, 2.0, 0.0], dtype=fg.float64)
    y = fg.convolution(x, k, None, [1], [0], [1], False, [0], 1)
    t = fg.convolution(x, k.transpose(0, 1), None, [2], [1], [1], True, [1], 1)
    return {
        "embedding_renorm_": [returned is weight, weight, weight.norm(dim=1)],
        "conv1d": [y, y.grad_fn.name(), _weighted_grads([y], x)],
        # F.conv_transpose1d is composed in ferrograd: its node is no ConvolutionBackward0
        "conv_transpose1d": [t, _weighted_grads([t], x)],
        "conv2d_groups": fg.convolution(image, kernel, bias, [1, 2], [1, 0], [2, 1], False, [0, 0], 2),
        "conv_transpose2d": fg.convolution(image, kernel[:2], None, [1, 1], [0, 0], [1, 1], True, [0, 0], 1),
        "unbatched": error(fg.convolution, x[0], k, None, [1], [0], [1], False, [0], 1),
        "native_channel_shuffle": fg.native_channel_shuffle(fg.arange(16.0).reshape(1, 4, 2, 2), 2),
    }


CASES = {
    **{name: (lambda name=name: _single_copy(name)) for name in SINGLE_COPIES},
    **{name: (lambda name=name: _several_copies(name)) for name in SEVERAL_COPIES},
    "copy_edges": _copy_edges,
    "legacy_tensors": _legacy_tensors,
    "default_tensor_type": _default_tensor_type,
    "rnn_layers": _rnn_layers,
    "rnn_cells": _rnn_cells,
    "norm_functions": _norm_functions,
    "settings": _settings,
    "memory_forms": _memory_forms,
    "nn_forms": _nn_forms,
    "histogramdd": _histogramdd,
    "native_dropout": _native_dropout,
}
