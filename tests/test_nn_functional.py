"""`fg.nn.functional` losses, dropout, normalisation, embedding, padding, convolution and pooling:
forward against numpy references (float32/float64, strided inputs), gradients against float64
finite differences, grad_fn names and PyTorch's errors."""

import warnings

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd import nn
from helpers import FLOAT_NAMES, assert_tensor, gradcheck, to_numpy

F64 = fg.float64


def T(a, dtype="float64", requires_grad=False):
    return fg.tensor(np.asarray(a), dtype=getattr(fg, dtype), requires_grad=requires_grad)


def grad_fn_name(t):
    return type(t.grad_fn).__name__ if not hasattr(t.grad_fn, "name") else t.grad_fn.name()


def reduce_np(loss, reduction):
    return {"none": loss, "mean": loss.mean(), "sum": loss.sum()}[reduction]


REDUCTIONS = ["none", "mean", "sum"]

# ---------------------------------------------------------------------------
# losses
# ---------------------------------------------------------------------------


def smooth_l1_np(x, t, beta):
    d = np.abs(x - t)
    return d if beta == 0 else np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)


def bce_np(x, t, w=None):
    loss = -(t * np.maximum(np.log(x), -100) + (1 - t) * np.maximum(np.log(1 - x), -100))
    return loss if w is None else loss * w


def bce_logits_np(x, t, w=None, pw=None):
    log_sig = -np.logaddexp(0, -x)
    log_1m_sig = -np.logaddexp(0, x)
    pw = 1.0 if pw is None else pw
    loss = -(pw * t * log_sig + (1 - t) * log_1m_sig)
    return loss if w is None else loss * w


@pytest.mark.parametrize("dtype", FLOAT_NAMES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_l1_and_smooth_l1_forward(dtype, reduction, rng):
    x, t = rng.uniform(-2, 2, (3, 4)), rng.uniform(-2, 2, (3, 4))
    xs = T(x.T, dtype).t()  # a transposed (non-contiguous) input
    assert_tensor(F.l1_loss(xs, T(t, dtype), reduction=reduction), reduce_np(np.abs(x - t), reduction), dtype=dtype)
    for beta in (1.0, 0.5, 0.0):
        expected = reduce_np(smooth_l1_np(x, t, beta), reduction)
        assert_tensor(F.smooth_l1_loss(xs, T(t, dtype), reduction=reduction, beta=beta), expected, dtype=dtype)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("beta", [1.0, 0.7, 0.0])
def test_smooth_l1_gradients(reduction, beta, rng):
    x, t = rng.uniform(-2, 2, (3, 4)), rng.uniform(-2, 2, (3, 4))
    gradcheck(lambda a, b: F.smooth_l1_loss(a, b, reduction=reduction, beta=beta), [x, t])
    gradcheck(lambda a, b: F.l1_loss(a, b, reduction=reduction), [x, t])


@pytest.mark.parametrize("dtype", FLOAT_NAMES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_forward(dtype, reduction, rng):
    x, t, w = rng.uniform(0.05, 0.95, (4, 3)), rng.uniform(0, 1, (4, 3)), rng.uniform(0.5, 2, (3,))
    assert_tensor(
        F.binary_cross_entropy(T(x, dtype), T(t, dtype), reduction=reduction),
        reduce_np(bce_np(x, t), reduction),
        dtype=dtype,
    )
    got = F.binary_cross_entropy(T(x, dtype), T(t, dtype), weight=T(w, dtype), reduction=reduction)
    assert_tensor(got, reduce_np(bce_np(x, t, w), reduction), dtype=dtype)


def test_binary_cross_entropy_clamps_log_at_minus_100():
    x, t = T([0.0, 1.0, 0.0, 1.0]), T([0.0, 1.0, 1.0, 0.0])
    assert_tensor(F.binary_cross_entropy(x, t, reduction="none"), np.array([0.0, 0.0, 100.0, 100.0]))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy_gradients(reduction, rng):
    x, t, w = rng.uniform(0.1, 0.9, (3, 4)), rng.uniform(0, 1, (3, 4)), rng.uniform(0.5, 2, (4,))
    gradcheck(lambda a, b: F.binary_cross_entropy(a, b, reduction=reduction), [x, t])
    gradcheck(lambda a, b: F.binary_cross_entropy(a, b, weight=T(w), reduction=reduction), [x, t])


@pytest.mark.parametrize("dtype", FLOAT_NAMES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce_with_logits_forward(dtype, reduction, rng):
    x, t = rng.uniform(-4, 4, (4, 3)), rng.uniform(0, 1, (4, 3))
    w, pw = rng.uniform(0.5, 2, (3,)), rng.uniform(0.5, 3, (3,))
    xs = T(x[:, ::-1].copy(), dtype).flip(1)
    assert_tensor(
        F.binary_cross_entropy_with_logits(xs, T(t, dtype), reduction=reduction),
        reduce_np(bce_logits_np(x, t), reduction),
        dtype=dtype,
    )
    got = F.binary_cross_entropy_with_logits(
        T(x, dtype), T(t, dtype), weight=T(w, dtype), pos_weight=T(pw, dtype), reduction=reduction
    )
    assert_tensor(got, reduce_np(bce_logits_np(x, t, w, pw), reduction), dtype=dtype)


def test_bce_with_logits_is_stable_for_large_logits():
    x, t = T([1000.0, -1000.0, 1000.0]), T([1.0, 0.0, 0.0])
    assert_tensor(F.binary_cross_entropy_with_logits(x, t, reduction="none"), np.array([0.0, 0.0, 1000.0]))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce_with_logits_gradients(reduction, rng):
    x, t = rng.uniform(-3, 3, (3, 4)), rng.uniform(0, 1, (3, 4))
    w, pw = rng.uniform(0.5, 2, (4,)), rng.uniform(0.5, 3, (4,))
    gradcheck(lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction=reduction), [x, t])
    f = lambda a, b: F.binary_cross_entropy_with_logits(a, b, weight=T(w), pos_weight=T(pw), reduction=reduction)
    gradcheck(f, [x, t])


def kl_np(x, t, log_target):
    if log_target:
        return np.exp(t) * (t - x)
    return np.where(t == 0, 0.0, t * np.log(np.where(t == 0, 1.0, t))) - t * x


@pytest.mark.parametrize("dtype", FLOAT_NAMES)
@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(dtype, reduction, log_target, rng):
    x = np.log(rng.dirichlet(np.ones(5), 3))
    t = rng.dirichlet(np.ones(5), 3)
    t[0, 1] = 0.0  # xlogy: a zero target contributes 0
    if log_target:
        t = np.log(rng.dirichlet(np.ones(5), 3))
    loss = kl_np(x, t, log_target)
    expected = loss.sum() / 3 if reduction == "batchmean" else reduce_np(loss, reduction)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = F.kl_div(T(x, dtype), T(t, dtype), reduction=reduction, log_target=log_target)
        assert_tensor(got, expected, dtype=dtype)
        gradcheck(lambda a, b: F.kl_div(a, b, reduction=reduction, log_target=log_target), [x, np.abs(t) + 0.1])


def test_kl_div_mean_warns():
    with pytest.warns(UserWarning, match="batchmean"):
        F.kl_div(T([-1.0]), T([0.5]))


def test_loss_grad_fn_names(rng):
    x = T(rng.uniform(0.1, 0.9, (2, 3)), requires_grad=True)
    t = T(rng.uniform(0, 1, (2, 3)))
    assert grad_fn_name(F.l1_loss(x, t)) == "MeanBackward0"
    assert grad_fn_name(F.l1_loss(x, t, reduction="none")) == "AbsBackward0"
    assert grad_fn_name(F.smooth_l1_loss(x, t)) == "SmoothL1LossBackward0"
    assert grad_fn_name(F.binary_cross_entropy(x, t)) == "BinaryCrossEntropyBackward0"
    assert grad_fn_name(F.binary_cross_entropy_with_logits(x, t)) == "BinaryCrossEntropyWithLogitsBackward0"
    assert grad_fn_name(F.kl_div(x, t, reduction="batchmean")) == "DivBackward0"
    assert grad_fn_name(F.kl_div(x, t, reduction="sum")) == "SumBackward0"


def test_loss_errors():
    x, t = T([0.5, 0.5]), T([1.0, 0.0])
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(T([1.5, 0.5]), t)
    with pytest.raises(
        ValueError, match=r"Using a target size .* that is different to the input size .* is deprecated"
    ):
        F.binary_cross_entropy(x, T([1.0]))
    with pytest.raises(ValueError, match=r"Target size .* must be the same as input size"):
        F.binary_cross_entropy_with_logits(x, T([1.0]))
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.smooth_l1_loss(x, t, reduction="foo")
    with pytest.raises(RuntimeError, match="smooth_l1_loss does not support negative values for beta"):
        F.smooth_l1_loss(x, t, beta=-1.0)
    with pytest.warns(UserWarning, match="different to the input size"):
        F.l1_loss(x, T([1.0]))


# ---------------------------------------------------------------------------
# dropout
# ---------------------------------------------------------------------------


def test_dropout_masks_and_scales_reproducibly():
    x = fg.ones(2000, dtype=F64)
    fg.manual_seed(3)
    a = F.dropout(x, p=0.25)
    fg.manual_seed(3)
    b = F.dropout(x, p=0.25)
    va = to_numpy(a)
    np.testing.assert_array_equal(va, to_numpy(b))
    assert set(np.unique(va)) <= {0.0, 1 / 0.75}
    assert abs((va == 0).mean() - 0.25) < 0.05


def test_dropout_gradient_is_the_mask():
    x = fg.rand(50, dtype=F64, requires_grad=True)
    y = F.dropout(x, p=0.5)
    assert grad_fn_name(y) == "MulBackward0"
    y.sum().backward()
    np.testing.assert_allclose(to_numpy(x.grad), to_numpy(y) / to_numpy(x))


def test_dropout_identity_cases_and_errors():
    x = fg.rand(3, requires_grad=True)
    assert F.dropout(x, training=False) is x
    assert F.dropout(x, p=0.0) is x
    assert_tensor(F.dropout(x, p=1.0), np.zeros(3, np.float32))
    for p in (-0.1, 1.5):
        with pytest.raises(ValueError, match=f"dropout probability has to be between 0 and 1, but got {p}"):
            F.dropout(x, p=p)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        F.dropout(fg.tensor([1, 2, 3]))
    y = fg.ones(1000)
    F.dropout(y, p=0.5, inplace=True)
    assert set(np.unique(to_numpy(y))) == {0.0, 2.0}


# ---------------------------------------------------------------------------
# layer_norm, normalize, embedding, one_hot, pad
# ---------------------------------------------------------------------------


def layer_norm_np(x, k, w=None, b=None, eps=1e-5):
    axes = tuple(range(x.ndim - k, x.ndim))
    y = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + eps)
    if w is not None:
        y = y * w
    return y if b is None else y + b


@pytest.mark.parametrize("dtype", FLOAT_NAMES)
def test_layer_norm_forward(dtype, rng):
    x, w, b = rng.uniform(-2, 2, (2, 3, 4)), rng.uniform(0.5, 2, (3, 4)), rng.uniform(-1, 1, (3, 4))
    xs = T(x.swapaxes(0, 1).copy(), dtype).transpose(0, 1)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else {}
    assert_tensor(F.layer_norm(xs, (4,)), layer_norm_np(x, 1), dtype=dtype, **tol)
    assert_tensor(F.layer_norm(xs, [3, 4], T(w, dtype), T(b, dtype)), layer_norm_np(x, 2, w, b), dtype=dtype, **tol)
    assert_tensor(F.layer_norm(T(x, dtype), [4], eps=0.5), layer_norm_np(x, 1, eps=0.5), dtype=dtype, **tol)
    with pytest.raises(TypeError, match="must be tuple of ints, not int"):
        F.layer_norm(T(x, dtype), 4)


def test_layer_norm_gradients_and_name(rng):
    x, w, b = rng.uniform(-2, 2, (2, 3, 4)), rng.uniform(0.5, 2, (4,)), rng.uniform(-1, 1, (4,))
    gradcheck(lambda a: F.layer_norm(a, (4,)), [x])
    gradcheck(lambda a, ww, bb: F.layer_norm(a, (4,), ww, bb), [x, w, b])
    gradcheck(lambda a, ww: F.layer_norm(a, (3, 4), ww.expand(3, 4)), [x, w])
    gradcheck(lambda a, bb: F.layer_norm(a, (4,), None, bb), [x[0, 0], b])  # no batch dims
    assert grad_fn_name(F.layer_norm(T(x, requires_grad=True), (4,))) == "NativeLayerNormBackward0"
    # the backward differentiates again
    xt = T(x, requires_grad=True)
    (g,) = fg.autograd.grad((F.layer_norm(xt, (4,)) * T(w)).pow(2).sum(), xt, create_graph=True)
    g.sum().backward()
    assert xt.grad is not None and np.isfinite(to_numpy(xt.grad)).all()


def test_layer_norm_errors():
    x = fg.rand(2, 3)
    with pytest.raises(
        RuntimeError,
        match=r"Given normalized_shape=\[2\], expected input with shape \[\*, 2\], but got input of size\[2, 3\]",
    ):
        F.layer_norm(x, (2,))
    with pytest.raises(
        RuntimeError, match=r"Expected weight to be of same shape as normalized_shape, but got weight of shape \[2\]"
    ):
        F.layer_norm(x, (3,), weight=fg.ones(2))
    with pytest.raises(RuntimeError, match="Expected normalized_shape to be at least 1-dimensional"):
        F.layer_norm(x, ())


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, float("inf")])
@pytest.mark.parametrize("dim", [1, 0, -1])
def test_normalize(p, dim, rng):
    x = rng.uniform(-2, 2, (3, 4))
    norm = (
        np.abs(x).max(dim, keepdims=True) if p == float("inf") else (np.abs(x) ** p).sum(dim, keepdims=True) ** (1 / p)
    )
    for dtype in FLOAT_NAMES:
        assert_tensor(F.normalize(T(x, dtype), p=p, dim=dim), x / np.maximum(norm, 1e-12), dtype=dtype)
    gradcheck(lambda a: F.normalize(a, p=p, dim=dim), [x])
    assert grad_fn_name(F.normalize(T(x, requires_grad=True), p=p, dim=dim)) == "DivBackward0"


def test_normalize_zero_vector_has_finite_gradient():
    x = T([[0.0, 0.0], [3.0, 4.0]], requires_grad=True)
    y = F.normalize(x, dim=1)
    assert_tensor(y, np.array([[0.0, 0.0], [0.6, 0.8]]))
    y.sum().backward()
    assert np.isfinite(to_numpy(x.grad)).all()


@pytest.mark.parametrize("dtype", FLOAT_NAMES)
def test_embedding_forward_and_gradient(dtype, rng):
    w = rng.uniform(-1, 1, (5, 3))
    idx = np.array([[1, 3, 1], [0, 4, 1]])
    assert_tensor(F.embedding(fg.tensor(idx), T(w, dtype)), w[idx], dtype=dtype)
    wt = T(w, requires_grad=True)
    out = F.embedding(fg.tensor(idx), wt)
    assert grad_fn_name(out) == "EmbeddingBackward0"
    v = rng.standard_normal(out.shape)
    out.backward(T(v))
    expected = np.zeros_like(w)
    np.add.at(expected, idx, v)  # repeated indices accumulate
    assert_tensor(wt.grad, expected)
    gradcheck(lambda a: F.embedding(fg.tensor(idx), a), [w])


def test_embedding_padding_idx_gets_no_gradient(rng):
    w = rng.uniform(-1, 1, (4, 2))
    idx = np.array([0, 2, 2, 3])
    for padding_idx, row in ((2, 2), (-1, 3)):
        wt = T(w, requires_grad=True)
        out = F.embedding(fg.tensor(idx), wt, padding_idx=padding_idx)
        assert_tensor(out, w[idx])  # the padding row is still read
        out.sum().backward()
        expected = np.zeros_like(w)
        np.add.at(expected, idx, 1.0)
        expected[row] = 0.0
        assert_tensor(wt.grad, expected)


@pytest.mark.parametrize("dtype", FLOAT_NAMES)
def test_embedding_gradient_recorded_and_not_agree(dtype, rng):
    # the plain backward adds rows in one pass; under create_graph it goes through differentiable ops
    w = rng.uniform(-1, 1, (6, 4))
    idx = fg.tensor(np.array([[5, 0, 5], [2, 2, 2]]))
    v = T(rng.standard_normal((2, 3, 4)), dtype, requires_grad=True)  # so a recorded gradient has history
    grads = []
    for create_graph in (False, True):
        wt = T(w, dtype, requires_grad=True)
        (g,) = fg.autograd.grad(F.embedding(idx, wt, padding_idx=2), wt, v, create_graph=create_graph)
        assert g.requires_grad == create_graph
        grads.append(to_numpy(g.detach()))
    expected = np.zeros_like(w)
    np.add.at(expected, np.array([[5, 0, 5]]), to_numpy(v.detach())[:1])
    assert_tensor(T(grads[0], dtype), expected, dtype=dtype)
    np.testing.assert_array_equal(grads[0], grads[1])


def test_embedding_errors():
    w = fg.rand(3, 2)
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(fg.tensor([3]), w)
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(fg.tensor([-1]), w)
    with pytest.raises(
        RuntimeError,
        match="Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int",
    ):
        F.embedding(fg.tensor([1.0]), w)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(fg.tensor([1]), w, padding_idx=3)


def test_one_hot():
    t = fg.tensor([[0, 2], [1, 0]])
    out = F.one_hot(t)
    assert out.dtype == fg.int64
    assert_tensor(out, np.eye(3, dtype=np.int64)[[[0, 2], [1, 0]]])
    assert_tensor(F.one_hot(t, num_classes=4), np.eye(4, dtype=np.int64)[[[0, 2], [1, 0]]])
    assert tuple(F.one_hot(fg.zeros(0, dtype=fg.int64), 3).shape) == (0, 3)
    with pytest.raises(RuntimeError, match="one_hot is only applicable to index tensor of type LongTensor"):
        F.one_hot(fg.tensor([1.0]))
    with pytest.raises(RuntimeError, match="Class values must be non-negative"):
        F.one_hot(fg.tensor([-1]))
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes"):
        F.one_hot(fg.tensor([3]), 2)
    with pytest.raises(RuntimeError, match="Can not infer total number of classes from empty tensor"):
        F.one_hot(fg.zeros(0, dtype=fg.int64))


PADS = [
    ((1, 2), "constant"),
    ((1, 0, 2, 1), "constant"),
    ((-1, 1), "constant"),
    ((1, 1, 0, 0, 1, 0), "constant"),
    ((2, 1), "reflect"),
    ((1, 2, 2, 0), "reflect"),
    ((2, 3), "replicate"),
    ((1, 0, 3, 1), "replicate"),
]
NP_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge"}


def pad_np(a, pad, mode, value=0.0):
    widths = [(0, 0)] * a.ndim
    for i in range(len(pad) // 2):
        widths[a.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    crop = tuple(slice(max(-b, 0), a.shape[d] - max(-e, 0)) for d, (b, e) in enumerate(widths))
    a = a[crop]
    widths = [(max(b, 0), max(e, 0)) for b, e in widths]
    kw = {"constant_values": value} if mode == "constant" else {}
    return np.pad(a, widths, mode=NP_MODE[mode], **kw)


@pytest.mark.parametrize("pad,mode", PADS)
def test_pad(pad, mode, rng):
    x = rng.uniform(-1, 1, (2, 3, 4))
    for dtype in FLOAT_NAMES:
        xs = T(x.swapaxes(1, 2).copy(), dtype).transpose(1, 2)
        assert_tensor(F.pad(xs, pad, mode=mode), pad_np(x, pad, mode), dtype=dtype)
    if mode == "constant":
        assert_tensor(F.pad(T(x), pad, value=1.5), pad_np(x, pad, mode, 1.5))
    gradcheck(lambda a: F.pad(a, pad, mode=mode), [x])
    k = len(pad) // 2
    name = {
        "constant": "ConstantPadNdBackward0",
        "reflect": f"ReflectionPad{k}DBackward0",
        "replicate": f"ReplicationPad{k}DBackward0",
    }[mode]
    assert grad_fn_name(F.pad(T(x, requires_grad=True), pad, mode=mode)) == name


def test_pad_errors():
    x = fg.rand(2, 3)
    with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
        F.pad(x, (1,))
    with pytest.raises(
        RuntimeError,
        match="Padding length should be less than or equal to two times the input dimension but got padding length 6 "
        "and input of dimension 2",
    ):
        F.pad(x, (1, 1, 1, 1, 1, 1))
    with pytest.raises(
        RuntimeError,
        match=r"Argument #4: Padding size should be less than the corresponding input dimension, but got: padding "
        r"\(3, 3\) at dimension 1 of input \[2, 3\]",
    ):
        F.pad(x, (3, 3), mode="reflect")
    with pytest.raises(NotImplementedError, match="Unrecognised padding mode foo"):
        F.pad(x, (1, 1), mode="foo")
    with pytest.raises(RuntimeError, match='Padding mode "reflect" doesn\'t take in value argument'):
        F.pad(x, (1, 1), mode="reflect", value=2)


# ---------------------------------------------------------------------------
# convolution
# ---------------------------------------------------------------------------


def conv2d_np(x, w, b=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for ki in range(kh):
        for kj in range(kw):
            i0, j0 = ki * dilation[0], kj * dilation[1]
            patch = xp[
                :, :, i0 : i0 + stride[0] * (oh - 1) + 1 : stride[0], j0 : j0 + stride[1] * (ow - 1) + 1 : stride[1]
            ]
            for g in range(groups):
                out[:, g * og : (g + 1) * og] += np.einsum(
                    "nchw,oc->nohw", patch[:, g * cg : (g + 1) * cg], w[g * og : (g + 1) * og, :, ki, kj]
                )
    return out if b is None else out + b[None, :, None, None]


CONV2D_CASES = [
    dict(),
    dict(stride=2),
    dict(padding=1),
    dict(padding=(2, 1), stride=(1, 2)),
    dict(dilation=2, padding=1),
    dict(groups=2),
    dict(groups=2, stride=(2, 1), dilation=(1, 2), padding=(1, 0)),
]


def _np_conv_kwargs(kw):
    two = lambda v: tuple(v) if isinstance(v, tuple) else (v, v)
    return dict(
        stride=two(kw.get("stride", 1)),
        padding=two(kw.get("padding", 0)),
        dilation=two(kw.get("dilation", 1)),
        groups=kw.get("groups", 1),
    )


@pytest.mark.parametrize("kw", CONV2D_CASES)
@pytest.mark.parametrize("dtype", FLOAT_NAMES)
def test_conv2d_forward(kw, dtype, rng):
    groups = kw.get("groups", 1)
    x = rng.uniform(-1, 1, (2, 4, 7, 6))
    w = rng.uniform(-1, 1, (6, 4 // groups, 3, 2))
    b = rng.uniform(-1, 1, (6,))
    expected = conv2d_np(x, w, b, **_np_conv_kwargs(kw))
    xs = T(x.swapaxes(2, 3).copy(), dtype).transpose(2, 3)  # strided input
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else {}
    assert_tensor(F.conv2d(xs, T(w, dtype), T(b, dtype), **kw), expected, dtype=dtype, **tol)
    assert_tensor(
        F.conv2d(T(x[0], dtype), T(w, dtype), None, **kw),
        conv2d_np(x[:1], w, **_np_conv_kwargs(kw))[0],
        dtype=dtype,
        **tol,
    )


@pytest.mark.parametrize("kw", CONV2D_CASES)
def test_conv2d_gradients(kw, rng):
    groups = kw.get("groups", 1)
    x = rng.uniform(-1, 1, (2, 4, 5, 4))
    w = rng.uniform(-1, 1, (4, 4 // groups, 3, 2))
    b = rng.uniform(-1, 1, (4,))
    gradcheck(lambda a, ww, bb: F.conv2d(a, ww, bb, **kw), [x, w, b])


def test_conv2d_double_backward(rng):
    x = rng.uniform(-1, 1, (1, 2, 5, 5))
    w = rng.uniform(-1, 1, (3, 2, 3, 3))

    def grad_of_input(a, ww):
        a = a if a.requires_grad else a.detach().requires_grad_()  # the finite-difference calls
        (g,) = fg.autograd.grad(F.conv2d(a, ww, padding=1).pow(2).sum(), a, create_graph=True)
        return g

    gradcheck(grad_of_input, [x, w])


def test_conv2d_padding_strings(rng):
    x = rng.uniform(-1, 1, (1, 2, 6, 5))
    for k in ((3, 3), (2, 4)):
        w = rng.uniform(-1, 1, (3, 2) + k)
        for dilation in (1, 2):
            out = F.conv2d(T(x), T(w), padding="same", dilation=dilation)
            tot = [dilation * (kk - 1) for kk in k]
            xp = np.pad(x, ((0, 0), (0, 0), (tot[0] // 2, tot[0] - tot[0] // 2), (tot[1] // 2, tot[1] - tot[1] // 2)))
            assert_tensor(out, conv2d_np(xp, w, dilation=(dilation, dilation)))
            assert tuple(out.shape[2:]) == (6, 5)
        assert_tensor(F.conv2d(T(x), T(w), padding="valid"), conv2d_np(x, w))
    gradcheck(lambda a, ww: F.conv2d(a, ww, padding="same"), [x, rng.uniform(-1, 1, (2, 2, 2, 3))])


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1), dict(dilation=2, groups=2), dict(padding="same")])
@pytest.mark.parametrize("dtype", FLOAT_NAMES)
def test_conv1d(kw, dtype, rng):
    groups = kw.get("groups", 1)
    x = rng.uniform(-1, 1, (2, 4, 9))
    w = rng.uniform(-1, 1, (6, 4 // groups, 3))
    b = rng.uniform(-1, 1, (6,))
    kw2 = {k: (v if isinstance(v, str) or k == "groups" else (1 if k != "padding" else 0, v)) for k, v in kw.items()}
    if kw.get("padding") == "same":
        kw2["padding"] = (0, 1)
    expected = conv2d_np(x[:, :, None], w[:, :, None], b, **_np_conv_kwargs(kw2))[:, :, 0]
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else {}
    assert_tensor(F.conv1d(T(x, dtype), T(w, dtype), T(b, dtype), **kw), expected, dtype=dtype, **tol)
    assert_tensor(F.conv1d(T(x[1], dtype), T(w, dtype), T(b, dtype), **kw), expected[1], dtype=dtype, **tol)
    gradcheck(lambda a, ww, bb: F.conv1d(a, ww, bb, **kw), [x[:1, :, :6], w, b])


def test_conv_grad_fn_names(rng):
    x = T(rng.uniform(-1, 1, (1, 2, 5, 5)), requires_grad=True)
    w = T(rng.uniform(-1, 1, (3, 2, 3, 3)), requires_grad=True)
    assert grad_fn_name(F.conv2d(x, w)) == "ConvolutionBackward0"
    assert grad_fn_name(F.conv2d(x[0], w)) == "SqueezeBackward1"
    assert grad_fn_name(F.conv1d(x[:, :, 0], w[:, :, 0])) == "ConvolutionBackward0"
    assert grad_fn_name(F.conv1d(x[0, :, 0], w[:, :, 0])) == "SqueezeBackward1"


def test_conv_zero_batch(rng):
    w = rng.uniform(-1, 1, (3, 2, 3, 3))
    out = F.conv2d(fg.zeros(0, 2, 5, 5, dtype=F64), T(w))
    assert tuple(out.shape) == (0, 3, 3, 3)


def test_conv_errors():
    x, w = fg.rand(1, 2, 5, 5), fg.rand(3, 2, 3, 3)
    cases = [
        (lambda: F.conv2d(x, w, None, 2, "same"), "padding='same' is not supported for strided convolutions"),
        (
            lambda: F.conv2d(x[0, 0], w),
            r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got input of size: \[5, 5\]",
        ),
        (
            lambda: F.conv2d(x, w[:, :1]),
            r"Given groups=1, weight of size \[3, 1, 3, 3\], expected input\[1, 2, 5, 5\] to have 1 channels, but "
            r"got 2 channels instead",
        ),
        (lambda: F.conv2d(x, w, groups=2), "Given groups=2, expected weight to be divisible by 2 at dimension 0"),
        (lambda: F.conv2d(x, w, stride=0), "non-positive stride is not supported"),
        (lambda: F.conv2d(x, w, padding=-1), "negative padding is not supported"),
        (lambda: F.conv2d(x, w, padding="foo"), "Invalid padding string: 'foo'"),
        (
            lambda: F.conv2d(x[:, :, :2], w),
            r"Calculated padded input size per channel: \(2 x 5\). Kernel size: \(3 x 3\). Kernel size can't be "
            r"greater than actual input size",
        ),
        (
            lambda: F.conv2d(x, w, bias=fg.rand(2)),
            r"Given weight of size \[3, 2, 3, 3\], expected bias to be 1-dimensional with 3 elements, but got bias "
            r"of size \[2\] instead",
        ),
        (
            lambda: F.conv1d(x, w),
            r"Expected 2D \(unbatched\) or 3D \(batched\) input to conv1d, but got input of size: \[1, 2, 5, 5\]",
        ),
        (lambda: F.conv2d(x.double(), w), "expected scalar type Double but found Float"),
        (lambda: F.conv2d(x, w, dilation=0), r"dilation should be greater than zero, but got \[0, 0\]"),
        (lambda: F.conv2d(x, w, groups=0), "non-positive groups is not supported"),
        (
            lambda: F.conv2d(x, w, stride=(1, 1, 1)),
            r"expected stride to be a single integer value or a list of 2 values to match the convolution "
            r"dimensions, but got stride=\[1, 1, 1\]",
        ),
    ]
    for fn, msg in cases:
        with pytest.raises(RuntimeError, match=msg):
            fn()


# ---------------------------------------------------------------------------
# pooling
# ---------------------------------------------------------------------------


def pool_out(size, k, s, p, d, ceil_mode):
    num = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = num // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def max_pool_np(x, k, s, p, d, ceil_mode):
    *lead, h, w = x.shape
    oh, ow = pool_out(h, k[0], s[0], p[0], d[0], ceil_mode), pool_out(w, k[1], s[1], p[1], d[1], ceil_mode)
    out = np.full(tuple(lead) + (oh, ow), -np.inf)
    for i in range(oh):
        for j in range(ow):
            for ki in range(k[0]):
                for kj in range(k[1]):
                    hh, ww = i * s[0] - p[0] + ki * d[0], j * s[1] - p[1] + kj * d[1]
                    if 0 <= hh < h and 0 <= ww < w:
                        out[..., i, j] = np.maximum(out[..., i, j], x[..., hh, ww])
    return out


def avg_pool_np(x, k, s, p, ceil_mode, count_include_pad):
    *lead, h, w = x.shape
    oh, ow = pool_out(h, k[0], s[0], p[0], 1, ceil_mode), pool_out(w, k[1], s[1], p[1], 1, ceil_mode)
    out = np.zeros(tuple(lead) + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * s[0] - p[0], j * s[1] - p[1]
            h1, w1 = min(h0 + k[0], h + p[0]), min(w0 + k[1], w + p[1])
            size = (h1 - h0) * (w1 - w0)
            h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, h), min(w1, w)
            div = size if count_include_pad else (h1 - h0) * (w1 - w0)
            out[..., i, j] = x[..., h0:h1, w0:w1].sum((-2, -1)) / div
    return out


POOL_CASES = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=(2, 3), stride=(1, 2)),
    dict(kernel_size=3, stride=2, ceil_mode=True),
    dict(kernel_size=2, stride=2, padding=1, ceil_mode=True),
]


def _pool_np_args(kw):
    two = lambda v: tuple(v) if isinstance(v, tuple) else (v, v)
    k = two(kw["kernel_size"])
    return k, two(kw.get("stride", k)), two(kw.get("padding", 0))


@pytest.mark.parametrize(
    "kw", POOL_CASES + [dict(kernel_size=2, dilation=2), dict(kernel_size=3, dilation=(1, 2), padding=1)]
)
@pytest.mark.parametrize("dtype", FLOAT_NAMES)
def test_max_pool2d(kw, dtype, rng):
    x = rng.permutation(2 * 3 * 7 * 6).reshape(2, 3, 7, 6) / 10.0  # distinct values: a unique argmax
    k, s, p = _pool_np_args(kw)
    d = kw.get("dilation", 1)
    d = d if isinstance(d, tuple) else (d, d)
    expected = max_pool_np(x, k, s, p, d, kw.get("ceil_mode", False))
    xs = T(x.swapaxes(2, 3).copy(), dtype).transpose(2, 3)
    out, idx = F.max_pool2d(xs, return_indices=True, **kw)
    assert_tensor(out, expected, dtype=dtype)
    assert idx.dtype == fg.int64
    flat = x.reshape(2, 3, -1)
    np.testing.assert_array_equal(
        np.take_along_axis(flat, to_numpy(idx).reshape(2, 3, -1), 2).reshape(expected.shape), expected
    )
    assert_tensor(F.max_pool2d(T(x[0], dtype), **kw), expected[0], dtype=dtype)  # unbatched
    gradcheck(lambda a: F.max_pool2d(a, **kw), [x[:1]])


def test_max_pool2d_nan_and_int_and_name():
    x = T([[[[1.0, np.nan], [3.0, 2.0]]]], requires_grad=True)
    out = F.max_pool2d(x, 2)
    assert np.isnan(to_numpy(out)).all()
    assert grad_fn_name(out) == "MaxPool2DWithIndicesBackward0"
    out.sum().backward()
    assert_tensor(x.grad, np.array([[[[0.0, 1.0], [0.0, 0.0]]]]))
    xi = fg.tensor([[[1, 5], [3, 2]]])
    assert_tensor(F.max_pool2d(xi, 2), np.array([[[5]]]), dtype="int64")


@pytest.mark.parametrize(
    "kw",
    POOL_CASES
    + [
        dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
        dict(kernel_size=2, padding=1, ceil_mode=True, count_include_pad=False),
    ],
)
@pytest.mark.parametrize("dtype", FLOAT_NAMES)
def test_avg_pool2d(kw, dtype, rng):
    x = rng.uniform(-1, 1, (2, 3, 7, 6))
    k, s, p = _pool_np_args(kw)
    expected = avg_pool_np(x, k, s, p, kw.get("ceil_mode", False), kw.get("count_include_pad", True))
    xs = T(x.swapaxes(2, 3).copy(), dtype).transpose(2, 3)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else {}
    assert_tensor(F.avg_pool2d(xs, **kw), expected, dtype=dtype, **tol)
    assert_tensor(F.avg_pool2d(T(x[0], dtype), **kw), expected[0], dtype=dtype, **tol)
    gradcheck(lambda a: F.avg_pool2d(a, **kw), [x[:1, :2]])


def adaptive_np(x, oh, ow):
    *lead, h, w = x.shape
    out = np.zeros(tuple(lead) + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            h0, h1 = (i * h) // oh, -((-(i + 1) * h) // oh)
            w0, w1 = (j * w) // ow, -((-(j + 1) * w) // ow)
            out[..., i, j] = x[..., h0:h1, w0:w1].mean((-2, -1))
    return out


@pytest.mark.parametrize("size", [(3, 2), 4, (7, 6), (None, 3), (5, 4)])
@pytest.mark.parametrize("dtype", FLOAT_NAMES)
def test_adaptive_avg_pool2d(size, dtype, rng):
    x = rng.uniform(-1, 1, (2, 3, 7, 6))
    oh, ow = (size, size) if isinstance(size, int) else size
    oh = 7 if oh is None else oh
    expected = adaptive_np(x, oh, ow)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else {}
    xs = T(x.swapaxes(2, 3).copy(), dtype).transpose(2, 3)
    assert_tensor(F.adaptive_avg_pool2d(xs, size), expected, dtype=dtype, **tol)
    assert_tensor(F.adaptive_avg_pool2d(T(x[0], dtype), size), expected[0], dtype=dtype, **tol)
    gradcheck(lambda a: F.adaptive_avg_pool2d(a, size), [x[:1, :2]])


def test_pool_grad_fn_names_and_double_backward(rng):
    x = T(rng.uniform(-1, 1, (1, 2, 5, 5)), requires_grad=True)
    assert grad_fn_name(F.avg_pool2d(x, 2)) == "AvgPool2DBackward0"
    assert grad_fn_name(F.adaptive_avg_pool2d(x, 2)) == "AdaptiveAvgPool2DBackward0"
    assert grad_fn_name(F.adaptive_avg_pool2d(x, 1)) == "MeanBackward1"
    a = rng.uniform(-1, 1, (1, 1, 5, 5))

    def grad_of_avg(t):
        t = t if t.requires_grad else t.detach().requires_grad_()
        (g,) = fg.autograd.grad(F.avg_pool2d(t, 3, 2, 1).pow(2).sum(), t, create_graph=True)
        return g

    gradcheck(grad_of_avg, [a])

    def grad_of_max(t):
        t = t if t.requires_grad else t.detach().requires_grad_()
        (g,) = fg.autograd.grad(F.max_pool2d(t, 2, 1).pow(2).sum(), t, create_graph=True)
        return g

    gradcheck(grad_of_max, [rng.permutation(16).reshape(1, 1, 4, 4) / 4.0])


def test_pool_errors():
    x = fg.rand(1, 2, 5, 5)
    cases = [
        (
            lambda: F.max_pool2d(x, 2, padding=2),
            "pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and dilation=1",
        ),
        (lambda: F.max_pool2d(x, 2, stride=0), "stride should not be zero"),
        (
            lambda: F.max_pool2d(x, 6),
            r"Given input size: \(2x5x5\). Calculated output size: \(2x0x0\). Output size is too small",
        ),
        (lambda: F.max_pool2d(x[0, 0], 2), r"non-empty 3D or 4D \(batch mode\) tensor expected for input"),
        (lambda: F.avg_pool2d(x, 2, padding=2), "pad should be at most half of effective kernel size"),
        (lambda: F.avg_pool2d(x, 6), "Output size is too small"),
        (
            lambda: F.max_pool2d(x, 2, dilation=0),
            "dilation should be greater than zero, but got dilationH: 0 dilationW: 0",
        ),
        (
            lambda: F.adaptive_avg_pool2d(x[0, 0], 2),
            r"adaptive_avg_pool2d\(\): Expected 3D or 4D tensor, but got \[5, 5\]",
        ),
        (lambda: F.adaptive_avg_pool2d(x, (2,)), "adaptive_avg_pool2d: output_size must be 2"),
        (
            lambda: F.max_pool2d(x, (2, 2, 2)),
            "max_pool2d: kernel_size must either be a single int, or a tuple of two ints",
        ),
    ]
    for fn, msg in cases:
        with pytest.raises(RuntimeError, match=msg):
            fn()
    with pytest.raises(NotImplementedError, match="\"adaptive_avg_pool2d\" not implemented for 'Long'"):
        F.adaptive_avg_pool2d(x.long(), 2)


# ---------------------------------------------------------------------------
# unfold / fold (the im2col / col2im ops under conv)
# ---------------------------------------------------------------------------


def unfold_np(x, k, d, p, s):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p[0],) * 2, (p[1],) * 2))
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    cols = np.zeros((n, c, k[0], k[1], oh, ow))
    for ki in range(k[0]):
        for kj in range(k[1]):
            i0, j0 = ki * d[0], kj * d[1]
            cols[:, :, ki, kj] = xp[:, :, i0 : i0 + s[0] * (oh - 1) + 1 : s[0], j0 : j0 + s[1] * (ow - 1) + 1 : s[1]]
    return cols.reshape(n, c * k[0] * k[1], oh * ow), (oh, ow)


UNFOLD_CASES = [
    dict(kernel_size=2),
    dict(kernel_size=(2, 3), stride=2, padding=1),
    dict(kernel_size=3, dilation=2, padding=(2, 1)),
]


@pytest.mark.parametrize("kw", UNFOLD_CASES)
@pytest.mark.parametrize("dtype", FLOAT_NAMES)
def test_unfold_and_fold(kw, dtype, rng):
    two = lambda v: tuple(v) if isinstance(v, tuple) else (v, v)
    k, d, p, s = two(kw["kernel_size"]), two(kw.get("dilation", 1)), two(kw.get("padding", 0)), two(kw.get("stride", 1))
    x = rng.uniform(-1, 1, (2, 3, 6, 7))
    expected, blocks = unfold_np(x, k, d, p, s)
    xs = T(x.swapaxes(2, 3).copy(), dtype).transpose(2, 3)
    cols = F.unfold(xs, **kw)
    assert_tensor(cols, expected, dtype=dtype)
    assert_tensor(F.unfold(T(x[0], dtype), **kw), expected[0], dtype=dtype)
    # fold is unfold's adjoint: <unfold(x), y> == <x, fold(y)>
    y = rng.uniform(-1, 1, expected.shape)
    folded = F.fold(T(y, dtype), (6, 7), **kw)
    assert tuple(folded.shape) == x.shape
    np.testing.assert_allclose(
        (expected * y).sum(), (x * to_numpy(folded)).sum(), rtol=1e-5 if dtype == "float32" else 1e-12
    )
    gradcheck(lambda a: F.unfold(a, **kw), [x[:1, :2]])
    gradcheck(lambda a: F.fold(a, (6, 7), **kw), [y[:1]])
    assert grad_fn_name(F.unfold(T(x, requires_grad=True), **kw)) == "Im2ColBackward0"
    assert grad_fn_name(F.fold(T(y, requires_grad=True), (6, 7), **kw)) == "Col2ImBackward0"


@pytest.mark.parametrize("kw", UNFOLD_CASES)
def test_fold_and_unfold_modules_are_the_functions(kw, rng):
    x = T(rng.uniform(-1, 1, (2, 3, 6, 7)), "float64")
    cols = nn.Unfold(**kw)(x)
    assert fg.equal(cols, F.unfold(x, **kw))
    assert fg.equal(nn.Fold((6, 7), **kw)(cols), F.fold(cols, (6, 7), **kw))


def test_fold_and_unfold_reprs_show_the_arguments_as_given():
    # torch's reprs
    assert repr(nn.Unfold((2, 3), stride=2, padding=1)) == "Unfold(kernel_size=(2, 3), dilation=1, padding=1, stride=2)"
    assert (
        repr(nn.Fold((6, 7), 3, dilation=2, padding=(2, 1)))
        == "Fold(output_size=(6, 7), kernel_size=3, dilation=2, padding=(2, 1), stride=1)"
    )
    assert repr(nn.Unfold(2)) == "Unfold(kernel_size=2, dilation=1, padding=0, stride=1)"


def test_unfold_fold_errors():
    x = fg.rand(1, 2, 5, 5)
    with pytest.raises(
        RuntimeError,
        match=r"calculated shape of the array of sliding blocks as \(0, 0\), but its components must be at least one",
    ):
        F.unfold(x, 6)
    with pytest.raises(
        RuntimeError,
        match=r"expected size of input's dimension 2 to match the calculated number of sliding blocks 2 \* 2 = 4, "
        r"but got input.size\(2\)=8",
    ):
        F.fold(fg.rand(1, 8, 8), (3, 3), 2)
    with pytest.raises(
        RuntimeError,
        match=r"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
        r"input.size\(1\)=7",
    ):
        F.fold(fg.rand(1, 7, 4), (3, 3), 2)
    with pytest.raises(RuntimeError, match=r"Expected 2D or 3D \(batch mode\) tensor for input"):
        F.fold(fg.rand(8), (3, 3), 2)
    with pytest.raises(
        RuntimeError, match="stride should be greater than zero, but got stride_height: 0 stride_width: 0"
    ):
        F.unfold(x, 2, stride=0)
