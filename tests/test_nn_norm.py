"""Normalisation layers against torch (values recorded by tests/golden/record_norm.py): BatchNorm1d/2d over
training steps then eval (running statistics, momentum incl. None, affine, track_running_stats=False),
InstanceNorm1d/2d, LayerNorm, GroupNorm and the functional forms: outputs, gradients, buffers, reprs.
Gradients also against float64 finite differences; torch's errors for bad input."""

import warnings

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import layer_cases as lc
import numpy as np
import pytest
from helpers import golden, gradcheck
from recorded import check

CASES = golden("norm")["cases"]


@pytest.mark.parametrize("entry", CASES, ids=[e["case"]["id"] for e in CASES])
def test_against_torch(entry):
    tol = (1e-4, 1e-5) if "float32" in entry["case"]["id"] else None
    check(entry["case"]["id"], lambda: lc.run(entry["case"]), entry["expected"], tol)


def test_batch_norm_running_stats_formula(rng):
    """running = (1 - m) running + m batch, with the unbiased variance; momentum=None averages the batches."""
    x = [rng.standard_normal((6, 2)) for _ in range(3)]
    for momentum in (0.1, None):
        bn = nn.BatchNorm1d(2, momentum=momentum, dtype=fg.float64)
        mean, var = np.zeros(2), np.ones(2)
        for k, xi in enumerate(x, 1):
            bn(fg.tensor(xi))
            m = 1.0 / k if momentum is None else momentum
            mean = (1 - m) * mean + m * xi.mean(0)
            var = (1 - m) * var + m * xi.var(0, ddof=1)
        np.testing.assert_allclose(bn.running_mean.numpy(), mean, rtol=1e-12)
        np.testing.assert_allclose(bn.running_var.numpy(), var, rtol=1e-12)
        assert int(bn.num_batches_tracked) == 3 and bn.num_batches_tracked.dtype == fg.int64
        assert not bn.running_mean.requires_grad


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, w, b: F.batch_norm(x, None, None, w, b, True),
        lambda x, w, b: F.batch_norm(x, fg.zeros(3, dtype=x.dtype), fg.ones(3, dtype=x.dtype), w, b, True, 0.2),
        lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
        lambda x, w, b: F.group_norm(x.reshape(2, 6, 2), 3, fg.cat([w, w]), fg.cat([b, b])),
    ],
    ids=["batch_norm", "batch_norm-running", "instance_norm", "group_norm"],
)
def test_gradcheck(fn, rng):
    gradcheck(fn, [rng.standard_normal((2, 3, 4)), rng.uniform(0.5, 2, 3), rng.standard_normal(3)])


def test_batch_norm_eval_gradcheck(rng):
    mean, var = fg.tensor(rng.standard_normal(3)), fg.tensor(rng.uniform(0.5, 2, 3))
    gradcheck(
        lambda x, w: F.batch_norm(x, mean, var, w, None, False), [rng.standard_normal((4, 3)), rng.uniform(0.5, 2, 3)]
    )


@pytest.mark.parametrize("training", [True, False], ids=["training", "eval"])
def test_batch_norm_is_one_native_node(training, rng):
    """One NativeBatchNormBackward0 over (input, weight, bias), with torch's saved fields; its gradients
    differentiate again (double backward against finite differences)."""
    bn = nn.BatchNorm2d(3, dtype=fg.float64)
    bn.train(training)
    x = fg.tensor(rng.standard_normal((2, 3, 4, 4)), requires_grad=True)
    y = bn(x)
    node = y.grad_fn
    assert node.name() == "NativeBatchNormBackward0"
    assert [type(f[0]).__name__ for f in node.next_functions] == ["AccumulateGrad"] * 3
    assert node._saved_training is training and node._saved_eps == 1e-5
    assert node._saved_input is x and node._saved_weight is bn.weight
    # the buffers themselves (torch gives their very objects; ferrograd keeps that only for tensors with grad)
    assert node._saved_running_mean.data_ptr() == bn.running_mean.data_ptr()
    assert node._saved_running_var.data_ptr() == bn.running_var.data_ptr()
    if training:
        xn = x.detach().numpy()
        np.testing.assert_allclose(node._saved_result1.numpy(), xn.mean((0, 2, 3)), rtol=1e-12)
        np.testing.assert_allclose(node._saved_result2.numpy(), 1 / np.sqrt(xn.var((0, 2, 3)) + 1e-5), rtol=1e-12)
    else:
        assert node._saved_result1.shape == (0,) and node._saved_result2.shape == (0,)
    y2 = F.batch_norm(x, None, None, training=True)
    assert [f[0] for f in y2.grad_fn.next_functions][1:] in ([], [None, None])  # torch lists the missing ones


@pytest.mark.parametrize("training", [True, False], ids=["training", "eval"])
def test_batch_norm_double_backward(training, rng):
    mean, var = fg.tensor(rng.standard_normal(3)), fg.tensor(rng.uniform(0.5, 2, 3))
    x = fg.tensor(rng.standard_normal((4, 3, 2)), requires_grad=True)
    w = fg.tensor(rng.uniform(0.5, 2, 3), requires_grad=True)
    b = fg.tensor(rng.standard_normal(3), requires_grad=True)
    assert fg.autograd.gradgradcheck(lambda x, w, b: F.batch_norm(x, mean, var, w, b, training), (x, w, b))


def test_batch_norm_large_and_strided_against_numpy(rng):
    """Enough data to split the channels across threads, and a channels-last (permuted) input."""
    x = rng.standard_normal((8, 16, 24, 24)).astype(np.float32) * 3 + 5
    w, b = rng.standard_normal(16).astype(np.float32), rng.standard_normal(16).astype(np.float32)
    xt = fg.tensor(np.ascontiguousarray(x.transpose(0, 2, 3, 1))).permute(0, 3, 1, 2)  # channels last in memory
    assert not xt.is_contiguous()
    xt.requires_grad_(True)
    rm, rv = fg.zeros(16), fg.ones(16)
    y = F.batch_norm(xt, rm, rv, fg.tensor(w), fg.tensor(b), True, 0.1, 1e-5)
    m, v = x.mean((0, 2, 3), dtype=np.float64), x.var((0, 2, 3), dtype=np.float64)
    shape = (1, 16, 1, 1)
    xhat = (x - m.reshape(shape)) / np.sqrt(v.reshape(shape) + 1e-5)
    np.testing.assert_allclose(y.detach().numpy(), xhat * w.reshape(shape) + b.reshape(shape), rtol=1e-4, atol=1e-4)
    count = x.size // 16
    np.testing.assert_allclose(rm.numpy(), 0.1 * m, rtol=1e-5)
    np.testing.assert_allclose(rv.numpy(), 0.9 + 0.1 * v * count / (count - 1), rtol=1e-5)
    g = rng.standard_normal(x.shape).astype(np.float32)
    y.backward(fg.tensor(g))
    gw = g * w.reshape(shape)
    dx = (gw - gw.mean((0, 2, 3), keepdims=True) - xhat * (gw * xhat).mean((0, 2, 3), keepdims=True)) / np.sqrt(
        v.reshape(shape) + 1e-5
    )
    np.testing.assert_allclose(xt.grad.numpy(), dx, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_batch_norm_half_types_compute_in_float32(dtype, rng):
    """torch keeps the input's dtype for the output and its gradient; float32 parameters beside it are allowed,
    and the saved statistics are float32."""
    half = getattr(fg, dtype)
    x = fg.tensor(rng.standard_normal((4, 3, 5))).to(half).requires_grad_(True)
    w = fg.ones(3, requires_grad=True)
    y = F.batch_norm(x, None, None, w, None, True)
    assert y.dtype == half and y.grad_fn._saved_result1.dtype == fg.float32
    x32 = x.detach().float().numpy()
    want = (x32 - x32.mean((0, 2), keepdims=True)) / np.sqrt(x32.var((0, 2), keepdims=True) + 1e-5)
    np.testing.assert_allclose(y.detach().float().numpy(), want, atol=2e-2)
    y.sum().backward()
    assert x.grad.dtype == half and w.grad.dtype == fg.float32


def test_batch_norm_dtype_and_rank_errors():
    lc.raises(
        RuntimeError,
        "mixed dtype (CPU): expect parameter to have scalar type of Float",
        lambda: F.batch_norm(fg.randn(4, 3), None, None, fg.ones(3, dtype=fg.float64), training=True),
    )
    lc.raises(
        RuntimeError,
        "mixed dtype (CPU): all inputs must share same datatype.",
        lambda: F.batch_norm(fg.randn(4, 3, dtype=fg.float64), fg.zeros(3), fg.ones(3)),
    )
    lc.raises(
        RuntimeError,
        "mixed dtype (CPU): expect parameter to have scalar type of Float",
        lambda: F.batch_norm(fg.randn(4, 3).bfloat16(), None, None, fg.ones(3).half(), training=True),
    )
    lc.raises(
        NotImplementedError,
        "\"batch_norm\" not implemented for 'Long'",
        lambda: F.batch_norm(fg.ones(4, 3).long(), None, None, training=True),
    )
    lc.raises(
        IndexError,
        "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
        lambda: F.batch_norm(fg.randn(3), None, None, training=True),
    )
    lc.raises(
        RuntimeError,
        "running_mean should contain 0 elements not 3",
        lambda: F.batch_norm(fg.randn(3), fg.zeros(3), fg.ones(3)),
    )
    rm = fg.zeros(3)
    lc.raises(
        RuntimeError,
        "weight should contain 3 elements not 4",
        lambda: F.batch_norm(fg.randn(2, 3), rm, fg.ones(3), fg.ones(4), training=True),
    )
    assert rm.tolist() == [0.0, 0.0, 0.0]  # a failed call moves no statistic


def test_errors():
    lc.raises(
        ValueError,
        "Expected more than 1 value per channel when training, got input size",
        lambda: F.batch_norm(fg.randn(1, 3), fg.zeros(3), fg.ones(3), training=True),
    )
    lc.raises(
        RuntimeError,
        "running_mean should contain 3 elements not 4",
        lambda: F.batch_norm(fg.randn(2, 3), fg.zeros(4), fg.ones(4), training=True),
    )
    lc.raises(
        RuntimeError,
        "weight should contain 3 elements not 4",
        lambda: F.batch_norm(fg.randn(2, 3), None, None, fg.ones(4), training=True),
    )
    lc.raises(
        RuntimeError,
        "running_mean must be defined in evaluation mode",
        lambda: F.batch_norm(fg.randn(2, 3), None, None),
    )
    lc.raises(ValueError, "expected 2D or 3D input (got 4D input)", lambda: nn.BatchNorm1d(3)(fg.randn(2, 3, 4, 5)))
    lc.raises(ValueError, "expected 4D input (got 3D input)", lambda: nn.BatchNorm2d(3)(fg.randn(2, 3, 4)))
    lc.raises(ValueError, "expected 5D input (got 4D input)", lambda: nn.BatchNorm3d(3)(fg.randn(2, 3, 4, 4)))
    lc.raises(ValueError, "expected 4D or 5D input (got 3D input)", lambda: nn.InstanceNorm3d(3)(fg.randn(3, 4, 4)))
    lc.raises(RuntimeError, "running_mean should contain 4 elements not 3", lambda: nn.BatchNorm1d(3)(fg.randn(2, 4)))
    lc.raises(ValueError, "expected 2D or 3D input (got 4D input)", lambda: nn.InstanceNorm1d(3)(fg.randn(2, 3, 4, 5)))
    lc.raises(
        ValueError,
        "expected input's size at dim=1 to match num_features (3), but got: 4.",
        lambda: nn.InstanceNorm1d(3, affine=True)(fg.randn(2, 4, 5)),
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nn.InstanceNorm1d(3)(fg.randn(2, 4, 5))
    assert any("does not match num_features" in str(w.message) for w in caught)
    lc.raises(
        ValueError,
        "Expected more than 1 spatial element when training, got input size",
        lambda: F.instance_norm(fg.randn(2, 6)),
    )
    lc.raises(
        RuntimeError,
        "Expected number of channels in input to be divisible by num_groups, but got input of shape [2, 6, 4] and "
        "num_groups=4",
        lambda: F.group_norm(fg.randn(2, 6, 4), 4),
    )
    lc.raises(
        RuntimeError,
        "Expected weight to be a vector of size equal to the number of channels in input, but got weight of shape "
        "[4] and input of shape [2, 6, 5]",
        lambda: nn.GroupNorm(2, 4)(fg.randn(2, 6, 5)),
    )
    lc.raises(ValueError, "num_channels (5) must be divisible by num_groups (2)", lambda: nn.GroupNorm(2, 5))
    lc.raises(
        RuntimeError,
        "Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 5]",
        lambda: nn.LayerNorm(4)(fg.randn(2, 5)),
    )


def test_rms_norm_errors():
    lc.raises(
        RuntimeError,
        "Given normalized_shape=[3], expected input with shape [*3], but got input of size[2, 3, 4]",
        lambda: F.rms_norm(fg.randn(2, 3, 4), (3,)),
    )
    lc.raises(
        RuntimeError,
        "Expected weight to be of same shape as normalized_shape, but got weight of shape [2] and normalized_shape = "
        "[3]",
        lambda: F.rms_norm(fg.ones(2, 3), (3,), fg.ones(2)),
    )
    lc.raises(
        RuntimeError,
        "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got "
        "normalized_shape = []",
        lambda: F.rms_norm(fg.ones(2, 3), []),
    )
    lc.raises(
        NotImplementedError, "\"rms_norm\" not implemented for 'Long'", lambda: F.rms_norm(fg.ones(2, 3).long(), (3,))
    )
    lc.raises(
        TypeError,
        "rms_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int",
        lambda: F.rms_norm(fg.ones(2, 3), 3),
    )


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_rms_norm_narrow_floats_compute_in_float32(rng, dtype):
    """torch upcasts half and bfloat16 to float32 (its eps too) and rounds the result once."""
    x = fg.tensor(rng.standard_normal((3, 4)) * 1e-3).to(getattr(fg, dtype))
    w = fg.tensor(rng.standard_normal(4)).to(getattr(fg, dtype))
    x32, w32 = x.float().numpy(), w.float().numpy()
    eps = np.finfo(np.float32).eps
    want = (x32 / np.sqrt((x32 * x32).mean(-1, keepdims=True) + eps)) * w32
    got = F.rms_norm(x, (4,), w)
    assert got.dtype == getattr(fg, dtype)
    np.testing.assert_array_equal(got.float().numpy(), fg.tensor(want).to(getattr(fg, dtype)).float().numpy())


def test_rms_norm_gradcheck_and_graph(rng):
    gradcheck(
        lambda x, w: F.rms_norm(x, (2, 3), w, 1e-4), [rng.standard_normal((4, 2, 3)), rng.standard_normal((2, 3))]
    )
    gradcheck(lambda x: nn.RMSNorm(3, dtype=fg.float64)(x), [rng.standard_normal((2, 3))])
    y = F.rms_norm(fg.randn(2, 3, requires_grad=True), [3])
    assert y.grad_fn.name() == "MulBackward0"
    assert y.grad_fn.next_functions[1][0].name() == "RsqrtBackward0"
    m = nn.RMSNorm([3, 4], eps=1e-6, elementwise_affine=False)
    assert repr(m) == "RMSNorm((3, 4), eps=1e-06, elementwise_affine=False)" and m.weight is None
    assert repr(nn.RMSNorm(4)) == "RMSNorm((4,), eps=None, elementwise_affine=True)"
    assert list(nn.RMSNorm(4).state_dict()) == ["weight"] and nn.RMSNorm(4).weight.tolist() == [1.0] * 4
    assert not hasattr(nn.RMSNorm(4), "bias")  # torch's has none, not a None one


def test_buffers_and_state_dict():
    bn = nn.BatchNorm2d(3)
    assert list(bn.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert [n for n, _ in nn.BatchNorm1d(3, track_running_stats=False).named_buffers()] == []
    assert bn.running_var.tolist() == [1.0, 1.0, 1.0] and bn.weight.tolist() == [1.0, 1.0, 1.0]
    bn.eval()
    x = fg.randn(2, 3, 2, 2)
    out = bn(x)  # eval with the initial statistics: x / sqrt(1 + eps)
    np.testing.assert_allclose(out.detach().numpy(), x.numpy() / np.sqrt(1 + 1e-5), rtol=1e-6)
    assert int(bn.num_batches_tracked) == 0


def test_sync_batch_norm_is_a_batch_norm_outside_distributed_training():
    """On the CPU without a process group, torch's SyncBatchNorm normalises with this batch's statistics, as a
    BatchNorm; `convert_sync_batchnorm` swaps every batch norm for one sharing its parameters and buffers."""
    fg.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(2, 3, 1), nn.BatchNorm2d(3, momentum=0.3), nn.Sequential(nn.BatchNorm1d(3)))
    reference = nn.BatchNorm2d(3, momentum=0.3)
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    sync = converted[1]
    assert type(sync) is nn.SyncBatchNorm and type(converted[2][0]) is nn.SyncBatchNorm
    assert sync.weight is model[1].weight and sync.running_mean is model[1].running_mean
    assert repr(sync) == "SyncBatchNorm(3, eps=1e-05, momentum=0.3, affine=True, bias=True, track_running_stats=True)"
    x = fg.randn(4, 3, 2, 2)
    assert fg.allclose(sync(x), reference(x)) and fg.allclose(sync.running_var, reference.running_var)
    sync.eval()
    reference.eval()
    assert fg.allclose(sync(x), reference(x))
    lc.raises(ValueError, "expected at least 2D input (got 1D input)", lambda: nn.SyncBatchNorm(3)(fg.randn(3)))
    lc.raises(
        ValueError,
        "SyncBatchNorm number of input channels should be non-zero",
        lambda: nn.SyncBatchNorm(0)(fg.randn(2, 0)),
    )


def test_batch_norm_of_rows_against_numpy(rng):
    """(N, C) input (BatchNorm1d on 2-d data, planes of one element), with a channel far from zero."""
    x = rng.standard_normal((300, 7)) + np.array([0, 0, 0, 1000.0, 0, 0, -3])
    w, b, g = rng.standard_normal(7), rng.standard_normal(7), rng.standard_normal((300, 7))
    xt = fg.tensor(x, requires_grad=True)
    rm, rv = fg.zeros(7, dtype=fg.float64), fg.ones(7, dtype=fg.float64)
    y = F.batch_norm(xt, rm, rv, fg.tensor(w), fg.tensor(b), True, 0.1, 1e-5)
    m, v = x.mean(0), x.var(0)
    xhat = (x - m) / np.sqrt(v + 1e-5)
    np.testing.assert_allclose(y.detach().numpy(), xhat * w + b, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(rv.numpy(), 0.9 + 0.1 * x.var(0, ddof=1), rtol=1e-12)
    y.backward(fg.tensor(g))
    gw = g * w
    dx = (gw - gw.mean(0) - xhat * (gw * xhat).mean(0)) / np.sqrt(v + 1e-5)
    np.testing.assert_allclose(xt.grad.numpy(), dx, rtol=1e-8, atol=1e-10)
    assert F.batch_norm(fg.zeros(4, 0), fg.zeros(0), fg.ones(0)).shape == (4, 0)  # no channels: nothing to do
