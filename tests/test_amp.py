"""Mixed-precision tools as scripts use them on the CPU: `torch.amp.GradScaler` (enabled for "cpu": scaling,
unscaling, skipped steps, scale updates, state dicts; disabled with torch's warning for "cuda"), the deprecated
`torch.cuda.amp`/`torch.cpu.amp` spellings, and `torch.autocast` blocks and decorators (state, arguments,
warnings), and what a CPU region computes: every listed op's result dtype, values and float32 gradients against
torch's bfloat16 autocast (tests/golden/autocast.json; cases in tests/cases_autocast.py), nesting, the cast cache."""

import pickle
import warnings

import ferrograd as fg
import pytest
from cases_autocast import CASES as AUTOCAST_CASES
from helpers import AGAINST_TORCH
from recorded import check, expected

AUTOCAST_EXPECTED = expected("autocast", AUTOCAST_CASES)

NO_CUDA_SCALER = "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling."
NO_CUDA_AUTOCAST = "CUDA is not available or torch_xla is imported. Disabling autocast."
CUDA_BUILD = fg.backends.cuda.is_built()  # a CUDA torch without a driver answers as a CPU build here


def _model():
    lin = fg.nn.Linear(3, 1)
    with fg.no_grad():
        lin.weight.copy_(fg.tensor([[1.0, -2.0, 0.5]]))
        lin.bias.fill_(0.25)
    return lin


def _loss(lin):
    x = fg.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
    return lin(x).pow(2).mean()


# ---------------------------------------------------------------------------
# GradScaler
# ---------------------------------------------------------------------------


def test_cuda_scaler_warns_and_is_disabled():
    with pytest.warns(UserWarning) as caught:
        scaler = fg.amp.GradScaler("cuda")
    assert str(caught[0].message) == NO_CUDA_SCALER
    with pytest.warns(UserWarning, match="CUDA is not available"):
        default = fg.amp.GradScaler()
    assert scaler.is_enabled() is False and default.is_enabled() is False
    x = fg.ones(2)
    assert scaler.scale(x) is x
    assert scaler.get_scale() == 1.0 and scaler.state_dict() == {}
    lin = _model()
    opt = fg.optim.SGD(lin.parameters(), lr=0.1)
    _loss(lin).backward()
    want = (lin.weight - 0.1 * lin.weight.grad).detach()
    assert scaler.step(opt) is None
    scaler.update()
    scaler.unscale_(opt)
    scaler.load_state_dict({})
    assert fg.allclose(lin.weight.detach(), want)


def test_disabled_on_request_warns_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scaler = fg.amp.GradScaler("cuda", enabled=False)
        cpu = fg.amp.GradScaler("cpu", enabled=False)
    assert not scaler.is_enabled() and not cpu.is_enabled()


def test_cpu_scaler_scales_unscales_and_steps():
    scaler = fg.amp.GradScaler("cpu")
    assert scaler.is_enabled() and scaler.get_scale() == 65536.0
    lin = _model()
    opt = fg.optim.SGD(lin.parameters(), lr=0.1)
    loss = _loss(lin)
    scaled = scaler.scale(loss)
    assert scaled.item() == loss.item() * 65536.0
    scaled.backward()
    reference = _model()
    _loss(reference).backward()
    assert fg.allclose(lin.weight.grad, reference.weight.grad * 65536.0)
    scaler.unscale_(opt)
    assert fg.allclose(lin.weight.grad, reference.weight.grad)
    with pytest.raises(RuntimeError, match=r"^unscale_\(\) has already been called on this optimizer since the last"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match=r"^step\(\) has already been called since the last update\(\)\.$"):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match=r"^unscale_\(\) is being called after step\(\)\.$"):
        scaler.unscale_(opt)
    want = reference.weight - 0.1 * reference.weight.grad
    assert fg.allclose(lin.weight, want)
    scaler.update()
    assert scaler.get_scale() == 65536.0
    assert scaler.state_dict() == {
        "scale": 65536.0,
        "growth_factor": 2.0,
        "backoff_factor": 0.5,
        "growth_interval": 2000,
        "_growth_tracker": 1,
    }


def test_an_inf_gradient_skips_the_step_and_backs_off():
    scaler = fg.amp.GradScaler("cpu", init_scale=1024.0)
    w = fg.nn.Parameter(fg.ones(2))
    opt = fg.optim.SGD([w], lr=0.1)
    scaler.scale(w.sum()).backward()
    w.grad = fg.tensor([float("inf"), 1.0])
    assert scaler.step(opt) is None
    assert w.tolist() == [1.0, 1.0]  # skipped
    scaler.update()
    assert scaler.get_scale() == 512.0 and scaler.state_dict()["_growth_tracker"] == 0
    w.grad = fg.tensor([float("nan"), 1.0])
    scaler.step(opt)
    scaler.update()
    assert scaler.get_scale() == 256.0 and w.tolist() == [1.0, 1.0]


def test_the_scale_grows_after_growth_interval_clean_steps():
    scaler = fg.amp.GradScaler("cpu", init_scale=4.0, growth_factor=3.0, growth_interval=2)
    w = fg.nn.Parameter(fg.ones(1))
    opt = fg.optim.SGD([w], lr=0.0)
    scales = []
    for _ in range(5):
        opt.zero_grad()
        scaler.scale(w.sum()).backward()
        scaler.step(opt)
        scaler.update()
        scales.append(scaler.get_scale())
    assert scales == [4.0, 12.0, 12.0, 36.0, 36.0]
    scaler.update(5.0)
    assert scaler.get_scale() == 5.0
    scaler.update(fg.tensor(7.0))
    assert scaler.get_scale() == 7.0


def test_scaler_errors_and_nested_outputs():
    scaler = fg.amp.GradScaler("cpu")
    opt = fg.optim.SGD([fg.nn.Parameter(fg.ones(1))], lr=0.1)
    with pytest.raises(AssertionError, match="^Attempted step but _scale is None."):
        scaler.step(opt)
    with pytest.raises(AssertionError, match="^The growth factor must be > 1.0.$"):
        fg.amp.GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(AssertionError, match="^The backoff factor must be < 1.0.$"):
        fg.amp.GradScaler("cpu", backoff_factor=1.0)
    a, b = fg.ones(1), fg.full((2,), 2.0)
    scaled = scaler.scale([a, (b,)])
    assert isinstance(scaled, list) and isinstance(scaled[1], tuple)
    assert scaled[0].tolist() == [65536.0] and scaled[1][0].tolist() == [131072.0, 131072.0]
    with pytest.raises(ValueError, match="^outputs must be a Tensor or an iterable of Tensors$"):
        scaler.scale([3])
    with pytest.raises(RuntimeError, match="^Closure use is not currently supported if GradScaler is enabled.$"):
        scaler.step(opt, closure=lambda: 0)
    with pytest.raises(RuntimeError, match="^The source state dict is empty"):
        scaler.load_state_dict({})


def test_scaler_state_dict_and_pickle_round_trip():
    scaler = fg.amp.GradScaler("cpu", init_scale=8.0, growth_interval=3)
    w = fg.nn.Parameter(fg.ones(1))
    opt = fg.optim.SGD([w], lr=0.1)
    scaler.scale(w.sum()).backward()
    scaler.step(opt)
    scaler.update()
    other = fg.amp.GradScaler("cpu")
    other.load_state_dict(scaler.state_dict())
    assert (
        other.state_dict()
        == scaler.state_dict()
        == {
            "scale": 8.0,
            "growth_factor": 2.0,
            "backoff_factor": 0.5,
            "growth_interval": 3,
            "_growth_tracker": 1,
        }
    )
    copy = pickle.loads(pickle.dumps(scaler))
    assert copy.state_dict() == scaler.state_dict()


def test_deprecated_spellings_warn_and_fix_the_device():
    with pytest.warns(FutureWarning, match=r"`torch.cuda.amp.GradScaler\(args...\)` is deprecated"):
        with pytest.warns(UserWarning, match="CUDA is not available"):
            cuda = fg.cuda.amp.GradScaler()
    assert not cuda.is_enabled() and isinstance(cuda, fg.amp.GradScaler)
    with pytest.warns(FutureWarning, match=r"Please use `torch.amp.GradScaler\('cpu', args...\)` instead."):
        cpu = fg.cpu.amp.GradScaler()
    assert cpu.is_enabled()
    with pytest.warns(FutureWarning, match=r"`torch.cpu.amp.autocast\(args...\)` is deprecated"):
        block = fg.cpu.amp.autocast(enabled=False)
    assert isinstance(block, fg.amp.autocast)
    with block:
        assert not fg.is_autocast_enabled("cpu")
    with pytest.warns(FutureWarning, match="torch.cuda.amp.autocast"):
        with fg.cuda.amp.autocast(enabled=False):
            assert not fg.is_autocast_enabled()


# ---------------------------------------------------------------------------
# autocast
# ---------------------------------------------------------------------------


def test_autocast_is_torch_amp_autocast():
    assert fg.autocast is fg.amp.autocast and fg.GradScaler is fg.amp.GradScaler
    assert fg.amp.is_autocast_available("cpu") and fg.amp.is_autocast_available("cuda")


def test_cpu_autocast_region_sets_and_restores_the_state():
    assert fg.is_autocast_enabled() is False and fg.is_autocast_enabled("cpu") is False
    assert fg.get_autocast_dtype("cpu") == fg.bfloat16 and fg.get_autocast_dtype("cuda") == fg.float16
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with fg.autocast(device_type="cpu", dtype=fg.bfloat16):
            assert fg.is_autocast_enabled("cpu") is True and fg.is_autocast_enabled() is False
            assert fg.get_autocast_dtype("cpu") == fg.bfloat16
            with fg.autocast("cpu", enabled=False):
                assert fg.is_autocast_enabled("cpu") is False
            assert fg.is_autocast_enabled("cpu") is True
        with fg.autocast("cpu", dtype=fg.float16):
            assert fg.get_autocast_dtype("cpu") == fg.float16
    assert fg.is_autocast_enabled("cpu") is False and fg.get_autocast_dtype("cpu") == fg.bfloat16


def test_cpu_autocast_as_a_decorator():
    @fg.autocast("cpu")
    def enabled_inside():
        return fg.is_autocast_enabled("cpu")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert enabled_inside() is True
    assert enabled_inside.__name__ == "enabled_inside"
    assert fg.is_autocast_enabled("cpu") is False
    with pytest.raises(TypeError, match=r"^autocast\(\)\(func\) requires a callable, but got int\."):
        fg.autocast("cpu")(3)


def test_cuda_autocast_warns_and_disables():
    with pytest.warns(UserWarning) as caught:
        block = fg.autocast("cuda")
    assert str(caught[0].message) == NO_CUDA_AUTOCAST
    with block:
        assert fg.is_autocast_enabled() is False and fg.is_autocast_enabled("cuda") is False


def test_cpu_autocast_refuses_other_dtypes_with_torchs_warning():
    with pytest.warns(UserWarning) as caught:
        block = fg.autocast("cpu", dtype=fg.float32)
    assert str(caught[0].message) == (
        "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
        f"CPU Autocast only supports dtypes of {fg.bfloat16}, {fg.float16} currently."
    )
    with block:
        assert fg.is_autocast_enabled("cpu") is False


def test_autocast_argument_errors():
    with pytest.raises(ValueError, match="^Expected `device_type` of type `str`, got: `<class 'int'>`$"):
        fg.autocast(device_type=3)
    with pytest.raises(RuntimeError, match="device type at start of device string: xyz"):
        fg.autocast("xyz")
    with pytest.raises(TypeError, match=r"argument 'device_type' \(position 1\) must be str, not int"):
        fg.is_autocast_enabled(3)
    with pytest.warns(DeprecationWarning, match=r"is_autocast_cpu_enabled\(\) is deprecated"):
        assert fg.is_autocast_cpu_enabled() is False
    with pytest.warns(DeprecationWarning, match=r"Please use torch.get_autocast_dtype\('cpu'\) instead"):
        assert fg.get_autocast_cpu_dtype() == fg.bfloat16
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with fg.autocast("cpu", enabled=False, cache_enabled=False):
            assert fg.is_autocast_cache_enabled() is False
    assert fg.is_autocast_cache_enabled() is True


def test_custom_fwd_and_bwd_carry_the_autocast_state():
    class Double(fg.autograd.Function):
        @staticmethod
        @fg.amp.custom_fwd(device_type="cpu")
        def forward(ctx, x):
            return x * 2

        @staticmethod
        @fg.amp.custom_bwd(device_type="cpu")
        def backward(ctx, grad):
            return grad * 2

    x = fg.ones(2, requires_grad=True)
    Double.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        fg.amp.custom_fwd(device_type=None)


# bfloat16 results: inputs rounded to bfloat16, products summed in float32, rounded once or twice (torch's
# oneDNN kernels fuse the bias add before rounding, ferrograd rounds the product and the sum): a few bf16 ulps
AUTOCAST_TOL = (3e-2, 3e-2)


@pytest.mark.parametrize("name", sorted(AUTOCAST_CASES))
def test_autocast_recorded(name):
    check(name, AUTOCAST_CASES[name], AUTOCAST_EXPECTED[name], tol=AUTOCAST_TOL)


def test_autocast_region_warns_nothing_and_casts_back_to_float32_grads():
    w = fg.ones(3, 2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with fg.autocast("cpu"):
            out = fg.ones(2, 3) @ w
    assert out.dtype == fg.bfloat16 and out.tolist() == [[3.0, 3.0], [3.0, 3.0]]
    out.float().sum().backward()
    assert w.grad.dtype == fg.float32 and w.grad.tolist() == [[2.0, 2.0]] * 3


@pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd's cache size is not torch API")
def test_autocast_cache_holds_weights_until_the_outermost_region_exits():
    x, w = fg.ones(2, 4), fg.ones(3, 4, requires_grad=True)
    with fg.autocast("cpu"):
        fg.nn.functional.linear(x, w)
        with fg.autocast("cpu"):
            fg.nn.functional.linear(x, w)
            fg.nn.functional.linear(x, fg.ones(3, 4, requires_grad=True) * 2)  # not a leaf: not cached
        assert fg._core._autocast_cache_len() == 1
    assert fg._core._autocast_cache_len() == 0
    with fg.autocast("cpu", cache_enabled=False):
        fg.nn.functional.linear(x, w)
        assert fg._core._autocast_cache_len() == 0


def test_autocast_state_is_per_thread():
    import threading

    seen = []
    with fg.autocast("cpu"):
        worker = threading.Thread(target=lambda: seen.append((fg.ones(2, 2) @ fg.ones(2, 2)).dtype))
        worker.start()
        worker.join()
    assert seen == [fg.float32]
