"""What programs ask about devices and defaults: torch.device, `device=` on factories, `.to/.cpu/.cuda`, the
cuda/accelerator/backends queries, default device and dtype, `Tensor.new_*`, and assigning a non-tensor to
`.grad`. ferrograd answers as torch's CPU build does."""

import pickle

import ferrograd as fg
import numpy as np
import pytest
from helpers import assert_tensor

# torch's CUDA builds without a driver fail differently from its CPU build (which ferrograd follows)
if fg.backends.cuda.is_built():
    NO_CUDA = (RuntimeError, "Found no NVIDIA driver")
else:
    NO_CUDA = (AssertionError, "Torch not compiled with CUDA enabled")


def test_device_objects():
    d = fg.device("cpu")
    assert (repr(d), str(d), d.type, d.index) == ("device(type='cpu')", "cpu", "cpu", None)
    assert (repr(fg.device("cpu:0")), str(fg.device("cpu", 0))) == ("device(type='cpu', index=0)", "cpu:0")
    assert fg.device("cpu") == fg.device(type="cpu", index=None) == fg.device(d)
    assert fg.device("cpu") != fg.device("cpu:0") and fg.device("cpu") != "cpu"
    assert hash(fg.device("cpu")) == hash(fg.device("cpu")) and len({d, fg.device("cpu"), fg.device("cpu:0")}) == 2
    assert repr(fg.device("cuda:1")) == "device(type='cuda', index=1)"  # describing one is fine
    assert pickle.loads(pickle.dumps(fg.device("cpu:0"))) == fg.device("cpu:0")
    assert isinstance(fg.zeros(2).device, fg.device) and fg.zeros(2).device == d


@pytest.mark.parametrize(
    "spec,phrase",
    [
        ("gpu", "Expected one of cpu, cuda, .* device type at start of device string: gpu"),
        ("cpu:x", "Invalid device string: 'cpu:x'"),
        ("cpu:-1", "Invalid device string: 'cpu:-1'"),
        ("", "Device string must not be empty"),
    ],
)
def test_bad_device_strings(spec, phrase):
    with pytest.raises(RuntimeError, match=phrase):
        fg.device(spec)


FACTORIES = [
    lambda dev: fg.tensor([1.0, 2.0], device=dev),
    lambda dev: fg.zeros(2, device=dev),
    lambda dev: fg.ones(2, 3, device=dev),
    lambda dev: fg.empty(2, device=dev),
    lambda dev: fg.full((2,), 1.5, device=dev),
    lambda dev: fg.arange(3, device=dev),
    lambda dev: fg.linspace(0, 1, 3, device=dev),
    lambda dev: fg.rand(2, device=dev),
    lambda dev: fg.randn(2, device=dev),
    lambda dev: fg.randint(0, 3, (2,), device=dev),
    lambda dev: fg.eye(2, device=dev),
    lambda dev: fg.zeros_like(fg.ones(2), device=dev),
    lambda dev: fg.ones_like(fg.ones(2), device=dev),
    lambda dev: fg.full_like(fg.ones(2), 3.0, device=dev),
    lambda dev: fg.rand_like(fg.ones(2), device=dev),
    lambda dev: fg.randn_like(fg.ones(2), device=dev),
    lambda dev: fg.empty_like(fg.ones(2), device=dev),
]


@pytest.mark.parametrize("make", FACTORIES)
def test_factories_take_the_cpu_and_refuse_cuda(make):
    for dev in ("cpu", "cpu:0", fg.device("cpu"), None):
        assert make(dev).device == fg.device("cpu")
    with pytest.raises(NO_CUDA[0], match=NO_CUDA[1]):
        make("cuda")
    with pytest.raises(TypeError, match="device"):
        make(3.0)


LAYERS = [
    lambda dev: fg.nn.Linear(2, 3, device=dev),
    lambda dev: fg.nn.Bilinear(2, 2, 3, device=dev),
    lambda dev: fg.nn.Conv2d(1, 2, 3, device=dev),
    lambda dev: fg.nn.ConvTranspose1d(1, 2, 3, device=dev),
    lambda dev: fg.nn.BatchNorm1d(3, device=dev),
    lambda dev: fg.nn.InstanceNorm1d(3, affine=True, device=dev),
    lambda dev: fg.nn.LayerNorm(3, device=dev),
    lambda dev: fg.nn.GroupNorm(1, 3, device=dev),
    lambda dev: fg.nn.Embedding(4, 3, device=dev),
    lambda dev: fg.nn.PReLU(device=dev),
    lambda dev: fg.nn.LSTM(2, 3, device=dev),
    lambda dev: fg.nn.GRUCell(2, 3, device=dev),
    lambda dev: fg.nn.MultiheadAttention(4, 2, device=dev),
    lambda dev: fg.nn.TransformerEncoderLayer(4, 2, 8, device=dev),
    lambda dev: fg.nn.Transformer.generate_square_subsequent_mask(3, device=dev),
]


@pytest.mark.parametrize("make", LAYERS)
def test_layers_take_the_cpu_and_refuse_cuda(make):
    for dev in ("cpu", fg.device("cpu"), None):
        made = make(dev)
        tensors = [made] if isinstance(made, fg.Tensor) else list(made.parameters())
        assert tensors and all(t.device == fg.device("cpu") for t in tensors)
    with pytest.raises(NO_CUDA[0], match=NO_CUDA[1]):
        make("cuda")


def test_to_cpu_and_cuda():
    t = fg.tensor([1.0, 2.0])
    assert t.to("cpu") is t and t.to(fg.device("cpu")) is t and t.cpu() is t and t.to(device="cpu") is t
    assert t.to("cpu", fg.float64).dtype == fg.float64 and t.to(fg.device("cpu"), dtype=fg.float64).dtype == fg.float64
    assert t.is_cuda is False and t.is_cpu is True
    for call in (t.cuda, lambda: t.to("cuda"), lambda: t.to(device="cuda:0"), lambda: fg.nn.Linear(2, 2).cuda()):
        with pytest.raises(NO_CUDA[0], match=NO_CUDA[1]):
            call()
    assert_tensor(t, np.array([1.0, 2.0]))  # unchanged


def test_no_accelerator_is_reported():
    assert fg.cuda.is_available() is False and fg.cuda.device_count() == 0
    assert fg.accelerator.is_available() is False
    assert fg.backends.mps.is_available() is False
    fg.cuda.manual_seed_all(0)  # programs seed every device; a no-op without CUDA
    fg.backends.cudnn.deterministic = True
    if not fg.backends.cuda.is_built():
        assert fg.accelerator.current_accelerator() is None
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            fg.cuda.current_device()


def test_cuda_memory_queries_answer_as_before_cuda_is_initialised():
    """pytorch/tutorials' custom_function_conv_bn records `torch.cuda.memory_allocated()` after each step."""
    assert fg.cuda.memory_allocated() == 0 and fg.cuda.max_memory_allocated() == 0
    assert fg.cuda.memory_reserved() == 0 and fg.cuda.max_memory_reserved() == 0
    assert dict(fg.cuda.memory_stats()) == {}


def test_xpu_and_mps_are_absent_as_in_torchs_cpu_build():
    """pytorch/examples' mnist_forward_forward asks `torch.xpu.is_available()` while choosing its device."""
    assert fg.xpu.is_available() is False and fg.xpu.device_count() == 0 and fg.xpu.is_initialized() is False
    fg.xpu.manual_seed_all(0)
    fg.xpu.empty_cache()
    assert fg.xpu.memory_allocated() == 0
    for call in (fg.xpu.current_device, fg.xpu.synchronize, fg.xpu.get_device_name):
        with pytest.raises(AssertionError, match="Torch not compiled with XPU enabled"):
            call()
    assert fg.mps.is_available() is False and fg.mps.device_count() == 0
    fg.mps.manual_seed(0)
    with pytest.raises(RuntimeError, match=r"Cannot execute deviceSynchronize\(\) without MPS backend\."):
        fg.mps.synchronize()
    with pytest.raises(RuntimeError, match=r"Cannot execute emptyCache\(\) without MPS backend\."):
        fg.mps.empty_cache()


def test_default_device():
    assert fg.get_default_device() == fg.device("cpu")
    fg.set_default_device("cpu")
    assert fg.get_default_device() == fg.device("cpu")
    fg.set_default_device(None)
    assert fg.get_default_device() == fg.device("cpu")


@pytest.fixture
def default_float64():
    fg.set_default_dtype(fg.float64)
    yield
    fg.set_default_dtype(fg.float32)


def test_default_dtype_is_float32_and_must_be_a_float():
    assert fg.get_default_dtype() == fg.float32
    with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
        fg.set_default_dtype(fg.int64)
    assert fg.get_default_dtype() == fg.float32


def test_default_dtype_is_honoured(default_float64):
    assert fg.get_default_dtype() == fg.float64
    float_made = [
        fg.tensor(1.5),
        fg.tensor([[1.0, 2]]),
        fg.zeros(2),
        fg.ones(2),
        fg.empty(2),
        fg.full((2,), 1.5),
        fg.rand(2),
        fg.randn(2),
        fg.arange(0, 1, 0.5),
        fg.linspace(0, 1, 3),
        fg.logspace(0, 1, 2),
        fg.eye(2),
        fg.tensor([1, 2]) * 1.5,
        fg.tensor([1, 2]) / 2,
        fg.tensor([1, 2]).exp(),
        fg.nn.Linear(2, 2).weight,
        fg.Tensor([1.0]),
    ]
    assert [i for i, t in enumerate(float_made) if t.dtype != fg.float64] == []
    assert fg.tensor([1, 2]).dtype == fg.int64 and fg.arange(3).dtype == fg.int64 and fg.full((2,), 1).dtype == fg.int64
    assert (fg.ones(2, dtype=fg.float32) * 1.5).dtype == fg.float32  # a Python float does not widen a tensor


def test_new_factories():
    a = fg.zeros(2, dtype=fg.float64, requires_grad=True)
    ones = a.new_ones(2, 3)
    assert ones.shape == (2, 3) and ones.dtype == fg.float64 and not ones.requires_grad
    assert_tensor(ones, np.ones((2, 3)))
    assert a.new_zeros((3,)).shape == (3,) and a.new_zeros([1, 2], dtype=fg.int64).dtype == fg.int64
    assert a.new_empty(2, 2).shape == (2, 2) and a.new_empty((0,)).dtype == fg.float64
    full = a.new_full((2,), 3, requires_grad=True)
    assert full.dtype == fg.float64 and full.requires_grad and full.is_leaf
    assert_tensor(full, np.array([3.0, 3.0]))
    t = fg.zeros(2, dtype=fg.int64).new_tensor([1.5])
    assert t.dtype == fg.int64 and t.tolist() == [1]
    assert a.new_tensor([1, 2]).dtype == fg.float64 and a.new_tensor([1, 2], dtype=fg.float32).dtype == fg.float32
    assert a.new_ones(2, device="cpu").device == fg.device("cpu")
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        copy = a.new_tensor(a)
    assert not copy.requires_grad and copy.dtype == fg.float64


@pytest.mark.parametrize("value,name", [(1.0, "float"), (1, "int"), ([1.0], "list"), ("x", "str")])
def test_assigning_a_non_tensor_to_grad(value, name):
    x = fg.zeros(2, requires_grad=True)
    with pytest.raises(TypeError, match=f"assigned grad expected to be a Tensor or None but got grad of type {name}"):
        x.grad = value
    assert x.grad is None
    x.grad = fg.ones(2)
    x.grad = None
    assert x.grad is None
