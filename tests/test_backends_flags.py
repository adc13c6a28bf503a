"""The settings CPU programs write for PyTorch's backends: `torch.backends.*` flags (defaults, bool-only
setters with torch's errors, `flags()` blocks, `import torch.backends.cudnn as cudnn`), float32 matmul
precision, deterministic algorithms and denormal flushing. Values are torch's on a CPU-only build."""

import os
import subprocess
import sys
import warnings

import ferrograd as fg
import pytest
from helpers import AGAINST_TORCH

# the reference torch here may be a CUDA build without a driver: where that answers otherwise than a CPU-only
# build (cuDNN is there), the CPU-only answer is checked for ferrograd only
CPU_ONLY_BUILD = not fg.backends.cuda.is_built()


@pytest.fixture(autouse=True)
def _restore_flags():
    b = fg.backends
    saved = (
        b.cudnn.enabled,
        b.cudnn.benchmark,
        b.cudnn.deterministic,
        b.cudnn.allow_tf32,
        b.mkldnn.enabled,
        fg.get_float32_matmul_precision(),
        fg.are_deterministic_algorithms_enabled(),
        fg.is_deterministic_algorithms_warn_only_enabled(),
    )
    yield
    b.cudnn.enabled, b.cudnn.benchmark, b.cudnn.deterministic, b.cudnn.allow_tf32, b.mkldnn.enabled = saved[:5]
    fg.set_float32_matmul_precision(saved[5])
    fg.use_deterministic_algorithms(saved[6], warn_only=saved[7])


def test_defaults_are_torchs():
    # in a fresh interpreter: other tests (and the programs they stand for) set these flags and may leave them
    code = """
import ferrograd as fg
b = fg.backends
assert b.cuda.matmul.allow_tf32 is False
assert (b.cudnn.enabled, b.cudnn.benchmark, b.cudnn.deterministic, b.cudnn.allow_tf32) == (True, False, False, True)
assert b.mkldnn.enabled is True and b.mkldnn.deterministic is False
assert b.cuda.matmul.allow_fp16_reduced_precision_reduction is True
assert b.cuda.matmul.allow_bf16_reduced_precision_reduction is True
assert b.mps.is_available() is False and b.mps.is_built() is False
assert fg.get_float32_matmul_precision() == "highest"
assert fg.are_deterministic_algorithms_enabled() is False
assert fg.is_deterministic_algorithms_warn_only_enabled() is False
assert fg.get_deterministic_debug_mode() == 0
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ.copy())
    assert done.stdout.strip() == "ok", done.stderr


@pytest.mark.skipif(not CPU_ONLY_BUILD, reason="a CUDA build of torch has cuDNN")
def test_no_cudnn_on_a_cpu_only_build():
    assert fg.backends.cudnn.is_available() is False
    assert fg.backends.cudnn.version() is None
    assert fg.backends.cudnn.benchmark_limit is None


@pytest.mark.skipif(AGAINST_TORCH, reason="torch has oneDNN and OpenMP; ferrograd has neither")
def test_ferrograd_reports_no_onednn_openmp_or_mkl():
    assert fg.backends.mkldnn.is_available() is False
    assert fg.backends.openmp.is_available() is False
    assert fg.backends.mkl.is_available() is False


def test_flags_keep_what_is_set():
    b = fg.backends
    b.cudnn.benchmark = True
    b.cudnn.deterministic = True
    b.cudnn.enabled = False
    b.cudnn.allow_tf32 = False
    b.mkldnn.enabled = False
    assert (b.cudnn.benchmark, b.cudnn.deterministic, b.cudnn.enabled, b.cudnn.allow_tf32) == (True, True, False, False)
    assert b.mkldnn.enabled is False


@pytest.mark.parametrize(
    ("backend", "flag", "setter"),
    [
        ("cudnn", "benchmark", "set_benchmark_cudnn"),
        ("cudnn", "deterministic", "set_deterministic_cudnn"),
        ("cudnn", "enabled", "set_enabled_cudnn"),
        ("cudnn", "allow_tf32", "set_allow_tf32_cublas"),
        ("mkldnn", "enabled", "set_enabled_mkldnn"),
        ("mkldnn", "deterministic", "set_deterministic_mkldnn"),
    ],
)
@pytest.mark.parametrize("value", [1, "yes", None, 1.0])
def test_flags_take_only_bools(backend, flag, setter, value):
    module = getattr(fg.backends, backend)
    before = getattr(module, flag)
    with pytest.raises(RuntimeError) as info:
        setattr(module, flag, value)
    assert str(info.value) == f"{setter} expects a bool, but got {type(value).__name__}"
    assert getattr(module, flag) is before


def test_matmul_allow_tf32_is_the_float32_matmul_precision():
    matmul = fg.backends.cuda.matmul
    matmul.allow_tf32 = True
    assert fg.get_float32_matmul_precision() == "high"
    matmul.allow_tf32 = False
    assert fg.get_float32_matmul_precision() == "highest"
    fg.set_float32_matmul_precision("medium")
    assert matmul.allow_tf32 is True
    fg.set_float32_matmul_precision("highest")
    assert matmul.allow_tf32 is False
    with pytest.raises(RuntimeError, match="^set_allow_tf32_cublas expects a bool, but got int$"):
        matmul.allow_tf32 = 1
    with pytest.raises(TypeError, match="expects a bool or a tuple/list of bools, but got <class 'int'>"):
        matmul.allow_fp16_reduced_precision_reduction = 1
    with pytest.raises(AttributeError, match="^Unknown attribute no_such_flag$"):
        matmul.no_such_flag = True
    with pytest.raises(AttributeError, match="^Unknown attribute no_such_flag$"):
        matmul.no_such_flag  # noqa: B018


def test_float32_matmul_precision_validates_as_torch():
    for precision in ("high", "medium", "highest"):
        fg.set_float32_matmul_precision(precision)
        assert fg.get_float32_matmul_precision() == precision
    fg.set_float32_matmul_precision("high")
    with pytest.warns(UserWarning) as caught:
        fg.set_float32_matmul_precision("low")
    assert str(caught[0].message).startswith(
        "low is not one of 'highest', 'high', or 'medium'; the currentsetFloat32MatmulPrecision call has no effect."
    )
    assert fg.get_float32_matmul_precision() == "high"  # unchanged
    with pytest.raises(RuntimeError, match="^set_float32_matmul_precision expects a str, but got int$"):
        fg.set_float32_matmul_precision(3)


def test_flags_blocks_restore_the_flags():
    cudnn = fg.backends.cudnn
    cudnn.enabled, cudnn.benchmark, cudnn.deterministic = True, False, False
    with cudnn.flags(enabled=False, benchmark=True, deterministic=True):
        assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == (False, True, True)
    assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == (True, False, False)
    with pytest.raises(ValueError, match="inside"):
        with fg.backends.mkldnn.flags(enabled=False):
            assert fg.backends.mkldnn.enabled is False
            raise ValueError("inside")
    assert fg.backends.mkldnn.enabled is True
    with pytest.raises(RuntimeError, match="^set_benchmark_cudnn expects a bool, but got int$"):
        with cudnn.flags(benchmark=1):
            pass
    assert cudnn.benchmark is False


def test_backends_import_as_modules():
    import ferrograd.backends.cudnn as cudnn
    import ferrograd.backends.mkldnn
    from ferrograd.backends import mps, openmp

    assert cudnn is fg.backends.cudnn and ferrograd.backends.mkldnn is fg.backends.mkldnn
    assert mps.is_available() is False and isinstance(openmp.is_available(), bool)
    cudnn.benchmark = True
    assert fg.backends.cudnn.benchmark is True


def test_deterministic_algorithms():
    fg.use_deterministic_algorithms(True)
    assert fg.are_deterministic_algorithms_enabled() is True
    assert fg.is_deterministic_algorithms_warn_only_enabled() is False
    assert fg.get_deterministic_debug_mode() == 2
    fg.use_deterministic_algorithms(True, warn_only=True)
    assert fg.is_deterministic_algorithms_warn_only_enabled() is True
    assert fg.get_deterministic_debug_mode() == 1
    fg.set_deterministic_debug_mode("default")
    assert fg.are_deterministic_algorithms_enabled() is False
    fg.set_deterministic_debug_mode("error")
    assert fg.get_deterministic_debug_mode() == 2
    fg.use_deterministic_algorithms(False)
    with pytest.raises(TypeError, match=r"argument 'mode' \(position 1\) must be bool, not int"):
        fg.use_deterministic_algorithms(1)
    with pytest.raises(TypeError, match="argument 'warn_only' must be bool, not int"):
        fg.use_deterministic_algorithms(True, warn_only=1)
    with pytest.raises(RuntimeError, match="expected one of `default`, `warn`, `error`, but got loud"):
        fg.set_deterministic_debug_mode("loud")
    with pytest.raises(RuntimeError, match="expected 0, 1, or 2, but got 5"):
        fg.set_deterministic_debug_mode(5)
    assert fg.are_deterministic_algorithms_enabled() is False


def test_set_flush_denormal_takes_a_bool_and_says_whether_it_flushes():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        answer = fg.set_flush_denormal(True)
    assert isinstance(answer, bool)
    assert fg.set_flush_denormal(False) is answer
    with pytest.raises(RuntimeError, match="^flush_denormal expects a bool, but got int$"):
        fg.set_flush_denormal(1)
    # after turning it off, denormals survive arithmetic in either framework
    tiny = fg.tensor([1e-40], dtype=fg.float32)
    assert (tiny * 1.0).item() != 0.0


@pytest.mark.skipif(AGAINST_TORCH, reason="torch can flush denormals on this machine; ferrograd does not")
def test_ferrograd_does_not_flush_denormals():
    assert fg.set_flush_denormal(True) is False
    assert (fg.tensor([1e-40], dtype=fg.float32) * 1.0).item() != 0.0
