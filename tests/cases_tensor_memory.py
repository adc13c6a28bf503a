"""Cases for Tensor methods about memory and the remaining method forms (`data_ptr`, `dim_order`, `is_set_to`,
`new_empty_strided`, `module_load`, the pinned/shared/sparse queries, `apply_`/`map_`/`map2_`, `narrow_copy`,
the `unsafe_` splits, `prelu`, `pinverse`, `histogram`, `orgqr`, `nonzero_static`), post-accumulate-grad hooks
and `nn.grad`, recorded from torch (tests/golden/record_tensor_memory.py) and checked by
tests/test_tensor_memory.py."""

import builtins

import ferrograd as fg
import ferrograd.nn.functional as F
from recorded import error


def _x():
    return fg.arange(24, dtype=fg.float64).reshape(2, 3, 4)


def _dim_order():
    x = _x()
    channels_last = fg.ones(2, 3, 4, 5).contiguous(memory_format=fg.channels_last)
    out = {
        "contiguous": x.dim_order(),
        "permuted": x.permute(2, 0, 1).dim_order(),
        "transposed": x.transpose(0, 2).dim_order(),
        "channels_last": channels_last.dim_order(),
        "expanded": fg.ones(3, 1).expand(3, 4).dim_order(),
        "size one": fg.ones(2, 1, 3).permute(2, 1, 0).dim_order(),
        "zero-d": fg.tensor(1.0).dim_order(),
        "one-d": fg.ones(5).dim_order(),
        "sliced": x[:, ::2].dim_order(),
        "check unique": x.permute(1, 2, 0).dim_order(ambiguity_check=True),
        "check size one": error(lambda: fg.ones(2, 1).dim_order(ambiguity_check=True)),
        "check expanded": error(lambda: fg.ones(3, 1).expand(3, 4).dim_order(ambiguity_check=True)),
        "formats one": error(lambda: fg.ones(2, 1, 4, 4).dim_order(ambiguity_check=[fg.contiguous_format])),
        "formats unique": fg.ones(2, 3, 4, 4).dim_order(ambiguity_check=[fg.contiguous_format]),
        "formats two": error(
            lambda: fg.ones(2, 1, 4, 4).dim_order(ambiguity_check=[fg.contiguous_format, fg.channels_last])
        ),
        "bad check": error(lambda: x.dim_order(ambiguity_check=1)),
    }
    return out


def _pointers():
    x = _x()
    step = x.element_size() * x.stride(1)
    return {
        "view same start": x[:].data_ptr() == x.data_ptr(),
        "offset in bytes": x[0, 1].data_ptr() - x.data_ptr() == step,
        "const": x.const_data_ptr() == x.data_ptr(),
        "clone differs": x.clone().data_ptr() != x.data_ptr(),
        "empty": fg.empty(0).data_ptr(),
        "meta": fg.empty(3, device="meta").data_ptr(),
        "nonzero": x.data_ptr() != 0,
    }


def _dlpack():
    from ferrograd.utils.dlpack import DLDeviceType, from_dlpack, to_dlpack

    x = fg.arange(6, dtype=fg.float32).reshape(2, 3).requires_grad_()
    back = from_dlpack(fg.to_dlpack(x))
    return {
        "values": back,
        "shares memory": back.data_ptr() == x.data_ptr(),
        "requires_grad": back.requires_grad,
        "same function": to_dlpack is fg.to_dlpack,
        "cpu code": builtins.int(DLDeviceType.kDLCPU),
        "not a tensor": error(lambda: fg.to_dlpack(3)),
    }


def _is_set_to():
    x = _x()
    return {
        "self": x.is_set_to(x),
        "full slice": x.is_set_to(x[:]),
        "view": x.is_set_to(x.view(2, 3, 4)),
        "reshaped": x.is_set_to(x.view(6, 4)),
        "offset": x[1].is_set_to(x[0]),
        "clone": x.is_set_to(x.clone()),
        "not a tensor": error(lambda: x.is_set_to(3)),
    }


def _queries():
    x = fg.ones(2, 3)
    made = x.new_empty_strided((2, 3), (1, 2), dtype=fg.int64)
    return {
        "is_pinned": x.is_pinned(),
        "is_shared": x.is_shared(),
        "is_distributed": x.is_distributed(),
        # torch's message names its build's accelerator (CUDA's driver here, none in a CPU build): the type only
        "pin_memory": error(lambda: x.pin_memory()).type,
        "sparse_dim": x.sparse_dim(),
        "dense_dim": x.dense_dim(),
        "indices": error(lambda: x.indices()),
        "values": error(lambda: x.values()),
        "coalesce": error(lambda: x.coalesce()),
        "new_empty_strided": [list(made.shape), made.stride(), made.dtype],
        "new_empty_strided default": x.new_empty_strided((4,), (2,)).dtype,
    }


def _module_load():
    target = fg.zeros(2, 3)
    source = fg.arange(6, dtype=fg.float32).reshape(2, 3)
    copied = target.module_load(source)
    assigned = target.module_load(source * 2, assign=True)
    return {
        "copied": copied,
        "target written": target,
        "copied is new": copied is not target,
        "assigned": assigned,
        "assigned keeps source": assigned is not source,
    }


def _fills():
    ints = fg.tensor([1, 2, 5])
    floats = fg.tensor([[1.0, 2.0], [3.0, 4.0]])
    t = floats.t().contiguous().t()
    return {
        "apply_": floats.clone().apply_(lambda v: v * 10 + 1),
        "apply_ is self": (lambda y: y.apply_(lambda v: v) is y)(floats.clone()),
        "apply_ int truncates": ints.clone().apply_(lambda v: v * 1.5),
        "apply_ int64 exact": fg.tensor([2**60 + 1, -(2**62) - 3]).apply_(lambda v: v + 2).tolist(),
        "apply_ bool": fg.tensor([True, False]).apply_(lambda v: not v),
        "apply_ non-contiguous": t.apply_(lambda v: -v),
        "apply_ empty": fg.ones(0).apply_(lambda v: v),
        "map_": floats.clone().map_(fg.tensor([1.0, 10.0]), lambda a, b: a * b),
        "map2_": fg.tensor([1.0, 2.0]).map2_(fg.tensor([1.0, 10.0]), fg.tensor([2.0]), lambda a, b, c: a * b + c),
        "apply_ requires grad": error(lambda: fg.ones(2, requires_grad=True).apply_(lambda v: v)),
        "apply_ not callable": error(lambda: floats.clone().apply_(5)),
        "apply_ returns str": error(lambda: floats.clone().apply_(lambda v: "x")),
        "apply_ returns None": error(lambda: floats.clone().apply_(lambda v: None)),
        "map_ dtype": error(lambda: fg.tensor([1.0, 2.0]).map_(fg.tensor([1, 10]), lambda a, b: a)),
        "map_ broadcast": error(lambda: fg.tensor([1.0, 2.0]).map_(fg.tensor([[1.0, 10.0]]), lambda a, b: a)),
        "map2_ not a tensor": error(lambda: fg.tensor([1.0]).map2_(fg.tensor([1.0]), 3, lambda a, b, c: a)),
    }


def _method_forms():
    x = _x()
    leaf = fg.tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, 6.0]], dtype=fg.float64, requires_grad=True)
    narrowed = leaf.narrow_copy(1, 1, 2)
    narrowed.sum().backward()
    chunks = leaf.detach().requires_grad_().unsafe_chunk(2, 1)
    a = fg.tensor([[2.0, 1.0], [1.0, 3.0], [0.5, 0.25]], dtype=fg.float64)
    qr, tau = fg.geqrf(a)
    return {
        "narrow_copy": narrowed,
        "narrow_copy grad_fn": narrowed.grad_fn.name(),
        "narrow_copy grad": leaf.grad,
        "narrow_copy contiguous": narrowed.is_contiguous(),
        "narrow_copy bounds": error(lambda: x.narrow_copy(2, 3, 2)),
        "unsafe_chunk": list(chunks),
        "unsafe_chunk grad_fn": chunks[0].grad_fn.name(),
        "unsafe_split": list(x.unsafe_split(2, 2)),
        "unsafe_split_with_sizes": list(x.unsafe_split_with_sizes([1, 3], 2)),
        "prelu": fg.tensor([[-2.0, 3.0], [4.0, -1.0]]).prelu(fg.tensor([0.25, 0.5])),
        "pinverse": a.pinverse(),
        "pinverse rcond": a.pinverse(rcond=0.9),
        "histogram": list(fg.tensor([1.0, 2.0, 2.0, 7.0]).histogram(3)),
        "histogram range": list(fg.tensor([1.0, 2.0, 2.0, 7.0]).histogram(2, range=(0.0, 4.0), density=True)),
        "orgqr": qr.orgqr(tau),
        "nonzero_static": fg.tensor([0, 1, 0, 2]).nonzero_static(size=3),
        "nonzero_static fill": fg.tensor([[0, 1], [1, 1]]).nonzero_static(size=4, fill_value=-5),
    }


def _post_accumulate_hooks():
    a = fg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    seen = []
    handle = a.register_post_accumulate_grad_hook(lambda t: seen.append(["first", t is a, t.grad.clone()]))
    a.register_post_accumulate_grad_hook(lambda t: seen.append(["second", t is a, t.grad.clone()]))
    (a * 2).sum().backward()
    (a * a).sum().backward()
    fg.autograd.grad((a * 3).sum(), a)  # no accumulation: no hook
    handle.remove()
    (a * 5).sum().backward(inputs=[a])
    out = {"seen": seen, "grad": a.grad}
    out["non-leaf"] = error(lambda: (a * 2).register_post_accumulate_grad_hook(lambda t: None))
    out["no grad"] = error(lambda: fg.ones(2).register_post_accumulate_grad_hook(lambda t: None))
    b = fg.ones(2, requires_grad=True)
    b.register_post_accumulate_grad_hook(lambda t: fg.zeros(2))
    out["returns tensor"] = error(lambda: (b * 2).sum().backward())
    c = fg.ones(2, requires_grad=True)
    c.register_post_accumulate_grad_hook(lambda t: 5)
    out["returns int"] = error(lambda: (c * 2).sum().backward())
    return out


def _optimizer_in_backward():
    """The tutorial's pattern: one optimizer per parameter, stepped by its hook as backward reaches it."""
    fg.manual_seed(0)
    model = fg.nn.Sequential(fg.nn.Linear(4, 3), fg.nn.Tanh(), fg.nn.Linear(3, 1))
    optimizers = {p: fg.optim.SGD([p], lr=0.1) for p in model.parameters()}

    def step(p):
        optimizers[p].step()
        optimizers[p].zero_grad()

    for p in model.parameters():
        p.register_post_accumulate_grad_hook(step)
    x = fg.linspace(-1.0, 1.0, 8).reshape(2, 4)
    for _ in range(3):
        model(x).pow(2).sum().backward()
    return {"parameters": [p.detach() for p in model.parameters()], "grads": [p.grad for p in model.parameters()]}


def _nn_grad():
    fg.manual_seed(0)
    out = {}
    for dims, conv in ((1, F.conv1d), (2, F.conv2d), (3, F.conv3d)):
        spatial = (5, 4, 3)[:dims]
        x = fg.randn(2, 4, *spatial, dtype=fg.float64)
        w = fg.randn(6, 2, *([2] * dims), dtype=fg.float64)
        y = conv(x, w, None, 1, 1, 1, 2)
        go = fg.randn(y.shape, dtype=fg.float64)
        grad_input = getattr(fg.nn.grad, f"conv{dims}d_input")
        grad_weight = getattr(fg.nn.grad, f"conv{dims}d_weight")
        out[f"{dims}d input"] = grad_input(x.shape, w, go, 1, 1, 1, 2)
        out[f"{dims}d weight"] = grad_weight(x, w.shape, go, 1, 1, 1, 2)
    x = fg.randn(1, 2, 7, dtype=fg.float64)
    w = fg.randn(3, 2, 3, dtype=fg.float64, requires_grad=True)
    go = fg.randn(1, 3, 3, dtype=fg.float64)
    grad_input = fg.nn.grad.conv1d_input(x.shape, w, go, stride=2)
    out["strided input"] = grad_input
    out["differentiable"] = grad_input.requires_grad
    out["second order"] = fg.autograd.grad(grad_input.pow(2).sum(), w)[0]
    out["strided weight"] = fg.nn.grad.conv1d_weight(x, (3, 2, 3), go, stride=2)
    out["F.grad is nn.grad"] = F.grad is fg.nn.grad
    out["F.native_channel_shuffle"] = F.native_channel_shuffle(fg.arange(8.0).reshape(1, 4, 2), 2)
    # torch's native kernel has no derivative: a NotImplemented node that fails in backward
    leaf = fg.arange(8.0).reshape(1, 4, 2).requires_grad_()
    shuffled = F.native_channel_shuffle(leaf, 2)
    out["native_channel_shuffle grad_fn"] = [shuffled.grad_fn.name(), shuffled.requires_grad]
    out["native_channel_shuffle backward"] = error(lambda: shuffled.sum().backward())
    out["native_channel_shuffle function"] = fg.native_channel_shuffle(leaf, 4).grad_fn.name()
    with fg.no_grad():
        out["native_channel_shuffle no_grad"] = F.native_channel_shuffle(leaf, 2).requires_grad
    out["native_channel_shuffle layout"] = [shuffled.is_contiguous(), shuffled.stride()]
    return out


CASES = {
    "dim_order": _dim_order,
    "pointers": _pointers,
    "is_set_to": _is_set_to,
    "dlpack": _dlpack,
    "queries": _queries,
    "module_load": _module_load,
    "fills": _fills,
    "method forms": _method_forms,
    "post accumulate hooks": _post_accumulate_hooks,
    "optimizer in backward": _optimizer_in_backward,
    "nn.grad": _nn_grad,
}
