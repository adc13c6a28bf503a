"""The meta device: tensors with a shape, dtype and strides but no data (`device='meta'`), as torch has them.

Factories, `Tensor.to`, modules (`Module.to('meta')`, `with torch.device('meta')`, `to_empty`, `skip_init`) and
the view ops work on them without allocating anything: a meta tensor of 10**12 elements costs nothing, which the
tests below use as their check that no data buffer is made. Reading values raises torch's errors. The expected
reprs, strides and messages are torch 2.15's (the file runs against torch too)."""

import copy
import warnings

import ferrograd as torch
import ferrograd.nn as nn
import pytest
from helpers import AGAINST_TORCH

TRILLION = 10**12  # elements: 4 TB of float32 if anything allocated them


def meta(*size, **kwargs):
    return torch.empty(*size, device="meta", **kwargs)


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.empty(2, 3, device="meta"),
        lambda: torch.zeros(2, 3, device="meta"),
        lambda: torch.ones((2, 3), device=torch.device("meta")),
        lambda: torch.full((2, 3), 7.0, device="meta"),
        lambda: torch.rand(2, 3, device="meta"),
        lambda: torch.randn(2, 3, device="meta"),
        lambda: torch.empty_like(torch.ones(2, 3), device="meta"),
        lambda: torch.zeros_like(meta(2, 3)),
        lambda: torch.ones_like(meta(2, 3)),
        lambda: torch.full_like(meta(2, 3), 2.0),
        lambda: torch.randn_like(meta(2, 3)),
        lambda: torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device="meta"),
        lambda: torch.ones(2, 3).to("meta"),
        lambda: meta(5).new_zeros(2, 3),
        lambda: meta(5).new_empty((2, 3)),
        lambda: torch.ones(5).new_ones(2, 3, device="meta"),
        lambda: torch.ones(2, 3).to(device="meta"),
        lambda: torch.ones(2, 3).to(torch.device("meta"), torch.float32),
    ],
)
def test_factories_and_to_make_meta_tensors(make):
    t = make()
    assert t.is_meta and not t.is_cpu
    assert t.device == torch.device("meta") and str(t.device) == "meta"
    assert t.shape == (2, 3) and t.dtype == torch.float32 and t.stride() == (3, 1)


def test_to_another_tensor_takes_its_device_and_dtype():
    t = torch.ones(2, 3).to(meta(1, dtype=torch.float64))
    assert t.is_meta and t.dtype == torch.float64 and t.shape == (2, 3)


def test_arange_and_dtypes_on_meta():
    a = torch.arange(5, device="meta")
    assert (a.shape, a.dtype, a.is_meta) == ((5,), torch.int64, True)
    b = torch.arange(0.0, 1.0, 0.25, device="meta")
    assert (b.shape, b.dtype) == ((4,), torch.float32)
    assert meta(3, dtype=torch.float64).dtype == torch.float64
    assert torch.zeros_like(meta(2), dtype=torch.int32).dtype == torch.int32


def test_a_trillion_elements_cost_nothing():
    # any of these would need terabytes if it allocated data proportional to its size
    t = torch.empty(TRILLION, device="meta")
    assert t.numel() == TRILLION
    big = torch.empty(10**6, 10**6, device="meta", dtype=torch.float64)
    assert big.t().contiguous().stride() == (10**6, 1)
    assert big.t().clone().stride() == (1, 10**6)  # a clone keeps the memory order, as on the CPU
    assert big.to(torch.float32).dtype == torch.float32
    assert torch.zeros_like(big).is_meta and torch.ones(TRILLION, device="meta").is_meta
    assert torch.arange(TRILLION, device="meta").shape == (TRILLION,)
    assert torch.randn(10**6, 10**6, device="meta").is_meta


def test_a_size_that_overflows_raises_torchs_error():
    message = r"Storage size calculation overflowed with sizes=\[4611686018427387904, 8\]"
    with pytest.raises(RuntimeError, match=message):
        torch.empty(2**62, 8, device="meta")


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda: meta(2, 3), "tensor(..., device='meta', size=(2, 3))"),
        (lambda: meta(2, 3, dtype=torch.float64), f"tensor(..., device='meta', size=(2, 3), dtype={torch.float64})"),
        (lambda: meta(2, 3, dtype=torch.int64), f"tensor(..., device='meta', size=(2, 3), dtype={torch.int64})"),
        (lambda: meta(2, 3, requires_grad=True), "tensor(..., device='meta', size=(2, 3), requires_grad=True)"),
        (lambda: meta(0), "tensor(..., device='meta', size=(0,))"),
        (lambda: meta(()), "tensor(..., device='meta', size=())"),
        (
            lambda: meta(2, 3, requires_grad=True).to(torch.float64),
            f"tensor(..., device='meta', size=(2, 3), dtype={torch.float64},\n       grad_fn=<ToCopyBackward0>)",
        ),
        (
            lambda: torch.ones(2, requires_grad=True).to("meta"),
            "tensor(..., device='meta', size=(2,), grad_fn=<ToCopyBackward0>)",
        ),
        (
            lambda: nn.Parameter(meta(2)),
            "Parameter containing:\ntensor(..., device='meta', size=(2,), requires_grad=True)",
        ),
    ],
)
def test_repr_is_torchs(make, expected):
    t = make()
    assert repr(t) == expected and str(t) == expected


@pytest.mark.parametrize(
    "op, shape, stride",
    [
        (lambda m: m.view(3, 4), (3, 4), (4, 1)),
        (lambda m: m.reshape(12), (12,), (1,)),
        (lambda m: m.transpose(0, 2), (4, 3, 1), (1, 4, 12)),
        (lambda m: m.permute(2, 0, 1), (4, 1, 3), (1, 12, 4)),
        (lambda m: m.expand(5, 3, 4), (5, 3, 4), (0, 4, 1)),
        (lambda m: m.unsqueeze(1), (1, 1, 3, 4), (12, 12, 4, 1)),
        (lambda m: m.squeeze(0), (3, 4), (4, 1)),
        (lambda m: m.select(1, 2), (1, 4), (12, 1)),
        (lambda m: m[0, 1:, ::2], (2, 2), (4, 2)),
        (lambda m: m[0].t(), (4, 3), (1, 4)),
        (lambda m: m[0].t().contiguous(), (4, 3), (3, 1)),
        (lambda m: m.transpose(1, 2).clone(), (1, 4, 3), (12, 1, 4)),
        (lambda m: m.detach(), (1, 3, 4), (12, 4, 1)),
        (lambda m: m.requires_grad_(), (1, 3, 4), (12, 4, 1)),
        (lambda m: m.flatten(1), (1, 12), (12, 1)),
        (lambda m: m.float().double(), (1, 3, 4), (12, 4, 1)),
    ],
)
def test_view_ops_keep_shapes_and_strides(op, shape, stride):
    out = op(meta(1, 3, 4))
    assert out.is_meta and tuple(out.shape) == shape and out.stride() == stride


def test_requires_grad_and_detach_on_meta():
    x = meta(2, 3).requires_grad_()
    assert x.requires_grad and x.is_leaf and x.is_meta
    assert not x.detach().requires_grad and x.detach().is_meta


@pytest.mark.parametrize(
    "read, error, message",
    [
        (lambda: meta(()).item(), RuntimeError, "Tensor.item() cannot be called on meta tensors"),
        (lambda: meta(1).item(), RuntimeError, "Tensor.item() cannot be called on meta tensors"),
        (lambda: float(meta(())), RuntimeError, "Tensor.item() cannot be called on meta tensors"),
        (lambda: bool(meta(())), RuntimeError, "Tensor.item() cannot be called on meta tensors"),
        (lambda: meta(2, 3).item(), RuntimeError, "a Tensor with 6 elements cannot be converted to Scalar"),
        (lambda: meta(2, 3).tolist(), NotImplementedError, "Cannot copy out of meta tensor; no data!"),
        (lambda: meta(2, 3).to("cpu"), NotImplementedError, "Cannot copy out of meta tensor; no data!"),
        (lambda: meta(2, 3).to(device="cpu"), NotImplementedError, "Cannot copy out of meta tensor; no data!"),
        (lambda: meta(2, 3).cpu(), NotImplementedError, "Cannot copy out of meta tensor; no data!"),
        (lambda: meta(2, 3).to(torch.ones(1)), NotImplementedError, "Cannot copy out of meta tensor; no data!"),
        (lambda: torch.zeros(2, 3).copy_(meta(2, 3)), NotImplementedError, "Cannot copy out of meta tensor; no data!"),
        (
            lambda: meta(2, 3).numpy(),
            TypeError,
            "can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.",
        ),
    ],
)
def test_reading_values_raises_torchs_error(read, error, message):
    with pytest.raises(error) as info:
        read()
    assert str(info.value) == message


def test_writes_into_a_meta_tensor_do_nothing():
    m = meta(2, 3)
    assert m.copy_(torch.ones(2, 3)) is m
    assert m.uniform_() is m and m.normal_() is m and m.zero_() is m and m.fill_(2.0) is m
    assert m.is_meta and m.shape == (2, 3)
    init = nn.init
    for fill in (init.trunc_normal_, init.eye_, init.orthogonal_, init.xavier_uniform_, init.kaiming_normal_):
        assert fill(m) is m


def test_module_to_meta_and_back_with_to_empty():
    lin = nn.Linear(3, 4).to("meta")
    assert lin.weight.is_meta and lin.bias.is_meta and isinstance(lin.weight, nn.Parameter)
    assert repr(lin.weight) == "Parameter containing:\ntensor(..., device='meta', size=(4, 3), requires_grad=True)"
    assert repr(lin) == "Linear(in_features=3, out_features=4, bias=True)"
    sd = lin.state_dict()
    assert [k for k in sd] == ["weight", "bias"] and all(v.is_meta for v in sd.values())
    assert lin.to_empty(device="cpu") is lin
    assert lin.weight.device.type == "cpu" and lin.weight.shape == (4, 3) and isinstance(lin.weight, nn.Parameter)
    assert lin(torch.ones(2, 3)).shape == (2, 4)


def test_to_empty_recurse_false_leaves_children():
    seq = nn.Sequential(nn.Linear(2, 2)).to("meta")
    seq.to_empty(device="cpu", recurse=False)
    assert seq[0].weight.is_meta
    seq.to_empty(device="cpu")
    assert not seq[0].weight.is_meta


def test_device_context_makes_meta_parameters():
    with torch.device("meta"):
        lin = nn.Linear(3, 4)
        t = torch.empty(1)
        assert torch.get_default_device() == torch.device("meta")
        assert repr(t) == "tensor(..., device='meta', size=(1,))"
    assert lin.weight.is_meta and lin.bias.is_meta and t.is_meta
    assert torch.empty(1).device == torch.device("cpu") and torch.get_default_device() == torch.device("cpu")
    with torch.device("cpu"):
        assert not torch.zeros(1).is_meta


def test_set_default_device_meta():
    torch.set_default_device("meta")
    try:
        t = torch.zeros(2)
    finally:
        torch.set_default_device(None)
    assert t.is_meta and repr(t) == "tensor(..., device='meta', size=(2,))"
    assert not torch.zeros(2).is_meta


def test_layers_take_device_meta():
    lin = nn.Linear(3, 4, device="meta")
    emb = nn.Embedding(10, 3, device="meta")
    norm = nn.LayerNorm(4, device="meta")
    assert all(p.is_meta for m in (lin, emb, norm) for p in m.parameters())
    assert not torch.zeros(1).is_meta  # the default device is the CPU again afterwards


def test_skip_init_builds_on_meta_then_allocates():
    lin = nn.utils.skip_init(nn.Linear, 3, 4)
    assert lin.weight.shape == (4, 3) and lin.weight.device.type == "cpu" and not lin.weight.is_meta


def test_load_state_dict_into_a_meta_module():
    src = nn.Linear(3, 4)
    dst = nn.Linear(3, 4, device="meta")
    result = dst.load_state_dict(src.state_dict(), assign=True)
    assert not result.missing_keys and not result.unexpected_keys
    assert dst.weight.device.type == "cpu" and isinstance(dst.weight, nn.Parameter)
    assert torch.equal(dst.weight, src.weight) and dst.weight.requires_grad
    still_meta = nn.Linear(3, 4, device="meta")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        still_meta.load_state_dict(src.state_dict())
    assert still_meta.weight.is_meta
    phrase = "copying from a non-meta parameter in the checkpoint to a meta parameter"
    assert any(phrase in str(w.message) for w in caught)


def test_functional_call_of_a_meta_model_under_vmap():
    # the shape of pytorch/tutorials' ensembling: a meta copy of one model run with the stacked real parameters
    torch.manual_seed(0)
    models = [nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 2)) for _ in range(3)]
    params, buffers = torch.func.stack_module_state(models)
    base = copy.deepcopy(models[0]).to("meta")
    assert all(p.is_meta for p in base.parameters())
    x = torch.randn(3, 6, 4)

    def fmodel(params, buffers, x):
        return torch.func.functional_call(base, (params, buffers), (x,))

    out = torch.vmap(fmodel)(params, buffers, x)
    expected = torch.stack([m(xi) for m, xi in zip(models, x)])
    assert not out.is_meta and torch.allclose(out, expected, atol=1e-6)


def test_meta_device_objects():
    assert repr(torch.device("meta")) == "device(type='meta')"
    assert repr(torch.device("meta:0")) == "device(type='meta', index=0)"


@pytest.mark.skipif(AGAINST_TORCH, reason="torch has meta kernels for nearly every op")
def test_ops_without_a_meta_kernel_raise_not_implemented_naming_no_data_read():
    m = meta(2, 3)
    for op in (lambda: m + 1, lambda: m.sum(), lambda: torch.relu(m), lambda: m @ meta(3, 2), lambda: m * m):
        with pytest.raises(NotImplementedError, match="attempted to run this operator with Meta tensors"):
            op()
    assert m.is_meta and m.shape == (2, 3)
