"""The points where ops are not smooth or meet special values (ties, zeros, bounds, infinities), as a table
shared by tests/golden/record_edges.py (which evaluates it in torch) and tests/test_edges.py (which compares
ferrograd with the recording).

Each case is a function of its inputs (every input a float tensor that requires grad) returning a tensor or a
tuple of tensors; the recording keeps each output's values and the gradient of each input for the loss
sum_k (out_k * w_k).sum(), where w_k = 1, 2, 3, ... over out_k's elements (distinct weights show which
element a gradient went to). Each case runs in float32 and float64.
"""

import itertools
import math

import ferrograd as fg

F = fg.nn.functional
nan, inf = math.nan, math.inf

DTYPES = ["float32", "float64"]


class Case:
    def __init__(self, name, fn, *inputs, rtol=None):
        self.name = name
        self.fn = fn
        self.inputs = inputs
        self.rtol = rtol  # where torch itself rounds a constant (said where so)

    def __repr__(self):
        return self.name


def _const(like, data):
    """A constant of the input's dtype (no gradient)."""
    return fg.tensor(data, dtype=like.dtype)


# every order of x, min and max among 0, 1, 2 and NaN
_GRID = list(itertools.product([0.0, 1.0, 2.0, nan], repeat=3))

CASES = [
    # clamp: torch passes the gradient where min <= x <= max (number bounds) ...
    Case("clamp-min0", lambda x: x.clamp(min=0), [-1.0, 0.0, 0.5, 2.0]),
    Case("clamp-both", lambda x: x.clamp(-1, 1), [-2.0, -1.0, 0.0, 1.0, 2.0]),
    Case("clamp-max", lambda x: x.clamp(max=1.0), [0.0, 1.0, 2.0]),
    Case("clamp-min-fn", lambda x: fg.clamp_min(x, 0.5), [0.0, 0.5, 1.0]),
    Case("clamp-max-fn", lambda x: fg.clamp_max(x, 0.5), [0.0, 0.5, 1.0]),
    Case("clamp-min-eq-max", lambda x: x.clamp(1.0, 1.0), [0.0, 1.0, 2.0]),
    Case("clamp-min-gt-max", lambda x: x.clamp(2.0, 1.0), [0.0, 1.0, 1.5, 2.0, 3.0]),
    Case("clamp-nan", lambda x: x.clamp(0.0, 1.0), [nan, 0.5, inf, -inf]),
    Case("clip", lambda x: fg.clip(x, -1.0, 1.0), [-1.0, 1.0, 3.0]),
    # ... and with tensor bounds: the bound gets it only where x lies strictly outside
    Case(
        "clamp-tensor-both",
        lambda x, lo, hi: fg.clamp(x, lo, hi),
        [-2.0, -1.0, 0.0, 1.0, 2.0, 1.0, 1.5, 2.0],
        [-1.0, -1.0, -1.0, -1.0, -1.0, 2.0, 2.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
    ),
    Case("clamp-tensor-min", lambda x, lo: x.clamp(min=lo), [-1.0, 0.0, 1.0], [0.0, 0.0, 0.0]),
    Case("clamp-tensor-max", lambda x, hi: x.clamp(max=hi), [-1.0, 0.0, 1.0], [0.0, 0.0, 0.0]),
    Case("clamp-tensor-all-equal", lambda x, lo, hi: x.clamp(lo, hi), [1.0, 2.0], [1.0, 2.0], [1.0, 2.0]),
    Case("clamp-tensor-nan", lambda x, lo, hi: x.clamp(lo, hi), [nan, 0.0, 0.5], [0.0, nan, 0.0], [1.0, 1.0, nan]),
    Case("clamp-tensor-min-nan", lambda x, lo: x.clamp(min=lo), [nan, 0.0], [0.0, nan]),
    Case("clamp-tensor-grid", lambda x, lo, hi: fg.clamp(x, lo, hi), *[list(col) for col in zip(*_GRID)]),
    Case("clamp-tensor-min-grid", lambda x, lo: x.clamp(min=lo), *[list(col) for col in zip(*_GRID)][:2]),
    Case("clamp-tensor-max-grid", lambda x, hi: x.clamp(max=hi), *[list(col) for col in zip(*_GRID)][:2]),
    Case("maximum-grid", lambda x, y: fg.maximum(x, y), *[list(col) for col in zip(*_GRID)][:2]),
    Case("minimum-grid", lambda x, y: fg.minimum(x, y), *[list(col) for col in zip(*_GRID)][:2]),
    Case("clamp-tensor-broadcast", lambda x, lo: x.clamp(min=lo), [[0.0, 1.0], [2.0, -1.0]], [0.0]),
    # maximum / minimum: ties split the gradient in halves
    Case("maximum-ties", lambda x, y: fg.maximum(x, y), [1.0, 2.0, 3.0, nan], [1.0, 0.0, 3.0, 1.0]),
    Case("minimum-ties", lambda x, y: fg.minimum(x, y), [1.0, 2.0, 3.0, 0.0], [1.0, 0.0, 3.0, nan]),
    Case("max-binary", lambda x, y: fg.max(x, y), [1.0, 2.0], [1.0, 3.0]),
    Case("maximum-both-nan", lambda x, y: fg.maximum(x, y), [nan, nan], [nan, 1.0]),
    # full reductions spread the gradient evenly over the ties; max(dim) picks one index
    Case("max-ties", lambda x: x.max(), [1.0, 3.0, 3.0, 2.0]),
    Case("min-ties", lambda x: x.min(), [[1.0, 3.0], [1.0, 1.0]]),
    Case("max-nan", lambda x: x.max(), [1.0, nan, 3.0]),
    Case("max-dim-ties", lambda x: x.max(dim=1), [[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]]),
    Case("min-dim-ties-keepdim", lambda x: x.min(0, keepdim=True), [[1.0, 3.0], [1.0, 0.0], [4.0, 0.0]]),
    Case("max-dim-nan", lambda x: fg.max(x, 0), [[1.0, nan], [nan, 2.0], [3.0, 4.0]]),
    Case("amax-ties", lambda x: x.amax(), [[1.0, 3.0], [3.0, 3.0]]),
    Case("amax-dim-ties", lambda x: x.amax(dim=1), [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]),
    Case("amin-dims-ties", lambda x: fg.amin(x, dim=(0, 1)), [[[1.0, 2.0], [1.0, 0.0]], [[1.0, 0.0], [5.0, 0.0]]]),
    Case("amax-keepdim", lambda x: x.amax(0, keepdim=True), [[1.0, 3.0], [1.0, 2.0]]),
    Case("argmax-ties", lambda x: (x * x.argmax(dim=1, keepdim=True)).sum(), [[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]]),
    Case("sort-ties", lambda x: x.sort(stable=True), [3.0, 1.0, 3.0, 1.0, 2.0]),
    Case("sort-desc-ties", lambda x: x.sort(descending=True, stable=True), [[3.0, 1.0, 3.0], [0.0, 0.0, 0.0]]),
    Case("topk", lambda x: x.topk(2), [1.0, 5.0, 3.0, 4.0]),
    Case("topk-ties-dim0", lambda x: x.topk(2, dim=0), [[1.0, 2.0], [1.0, 2.0], [1.0, 0.0]]),
    Case("sort-nan", lambda x: x.sort(), [nan, 1.0, nan, 0.0]),
    Case("prod-nan-and-zero", lambda x: x.prod(), [nan, 0.0, 2.0]),
    Case("prod-dim-nan-and-zeros", lambda x: x.prod(1), [[nan, 0.0, 2.0], [0.0, 0.0, inf], [1.0, 2.0, 3.0]]),
    Case("topk-smallest", lambda x: x.topk(2, largest=False), [[4.0, 2.0, 3.0], [0.0, 1.0, -1.0]]),
    Case("median-odd", lambda x: x.median(), [3.0, 1.0, 2.0]),
    Case("median-even-lower", lambda x: x.median(), [4.0, 1.0, 3.0, 2.0]),
    Case("median-ties", lambda x: x.median(), [2.0, 2.0, 1.0, 2.0]),
    Case("median-dim", lambda x: x.median(dim=1), [[3.0, 1.0, 2.0, 5.0], [1.0, 1.0, 0.0, 1.0]]),
    Case("median-dim-keepdim", lambda x: fg.median(x, 0, keepdim=True), [[3.0, 1.0], [2.0, 1.0], [1.0, 4.0]]),
    # zero in the non-smooth elementwise functions
    Case("abs", lambda x: x.abs(), [-1.0, 0.0, 2.0]),
    Case("relu", lambda x: x.relu(), [-1.0, 0.0, 2.0, nan]),
    Case("relu-inplace", lambda x: F.relu(x * 1.0, inplace=True), [-1.0, 0.0, 2.0, nan]),
    Case("F-relu", lambda x: F.relu(x), [-1.0, 0.0, 2.0]),
    Case("sign", lambda x: x.sign(), [-1.0, 0.0, 2.0]),
    Case("sqrt", lambda x: x.sqrt(), [0.0, 4.0, -1.0]),
    # finite up to the largest double, as torch's (Rust's asinh overflowed to inf from 9e307)
    Case("asinh-huge", lambda x: x.asinh(), [1e308, -1.7e308, 1e38, 3e8, -3e8, 1e20, 0.5]),
    Case("rsqrt", lambda x: x.rsqrt(), [0.0, 4.0]),
    Case("reciprocal", lambda x: x.reciprocal(), [0.0, 2.0]),
    Case("log", lambda x: x.log(), [0.0, 1.0, -1.0]),
    Case("pow-2", lambda x: x**2, [0.0, -1.5]),
    Case("pow-0", lambda x: x**0, [0.0, 2.0, -1.0]),
    Case("pow-1", lambda x: x**1, [0.0, 2.0]),
    Case("pow-half", lambda x: x**0.5, [0.0, 4.0, -1.0]),
    # torch computes x ** ±0.5 as sqrt and 1/sqrt: NaN at -inf, -inf at -0 (powf: inf for both)
    Case("pow-half-signed", lambda x: x**0.5, [-inf, -0.0, inf, nan, 2.0]),
    Case("pow-neg-half", lambda x: x**-0.5, [-inf, -0.0, 0.0, inf, 4.0]),
    Case("pow-1.5", lambda x: x**1.5, [0.0, 4.0]),
    Case("pow-neg1", lambda x: x**-1, [0.0, 2.0]),
    Case("pow-neg2", lambda x: x.pow(-2.0), [0.0, -2.0]),
    Case("pow-tensor-base0", lambda x, y: x**y, [0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 2.0, -1.0, 0.5]),
    Case("pow-tensor", lambda x, y: fg.pow(x, y), [-2.0, 2.0, 1.0, -1.0], [0.5, 0.0, 3.0, 2.0]),
    Case("pow-scalar-base0", lambda y: 0.0**y, [0.0, 1.0, 2.0, -1.0]),
    Case("pow-scalar-base", lambda y: fg.pow(2.0, y), [0.0, -1.0, 3.0]),
    Case("norm-2-zero", lambda x: x.norm(), [0.0, 0.0, 0.0]),
    Case("norm-2-dim-zero-row", lambda x: x.norm(dim=1), [[0.0, 0.0], [3.0, 4.0]]),
    Case("norm-1", lambda x: x.norm(p=1), [0.0, -2.0, 3.0]),
    Case("norm-inf-ties", lambda x: x.norm(p=inf), [-3.0, 3.0, 1.0]),
    Case("norm-neg-inf-ties", lambda x: x.norm(p=-inf, dim=1), [[-3.0, 3.0, 1.0], [1.0, -1.0, 2.0]]),
    Case("norm-3-zero", lambda x: x.norm(p=3), [0.0, 0.0]),
    Case("norm-0.5-with-zero", lambda x: x.norm(p=0.5), [0.0, 1.0, 4.0]),
    Case("norm-dim0-zero-column", lambda x: x.norm(dim=0), [[0.0, 1.0], [0.0, 0.0]]),
    Case("norm-nan", lambda x: x.norm(), [nan, 1.0]),
    Case("normalize-zero", lambda x: F.normalize(x, dim=1), [[0.0, 0.0], [3.0, 4.0]]),
    # a NaN norm stays NaN through clamp_min(eps), as in torch (not eps, which gave x · 1e12)
    Case("normalize-nan", lambda x: F.normalize(x, dim=1), [[nan, 1.0, 2.0], [1.0, 2.0, 2.0]]),
    Case("normalize-nan-p1", lambda x: F.normalize(x, p=1, dim=0), [[nan, 1.0], [1.0, 2.0]]),
    Case("leaky-relu", lambda x: F.leaky_relu(x, 0.2), [-1.0, 0.0, 2.0]),
    Case("leaky-relu-nan", lambda x: F.leaky_relu(x, 0.2), [nan]),
    Case("hardtanh-nan", lambda x: F.hardtanh(x), [nan]),
    Case("elu-nan", lambda x: F.elu(x), [nan]),
    Case("abs-nan", lambda x: x.abs(), [nan, -0.0]),
    Case("leaky-relu-default", lambda x: F.leaky_relu(x), [0.0]),
    Case("elu", lambda x: F.elu(x), [-1.0, 0.0, 2.0]),
    Case("elu-alpha", lambda x: F.elu(x, alpha=0.5), [-1.0, 0.0, 2.0]),
    Case("celu", lambda x: F.celu(x, alpha=2.0), [-1.0, 0.0, 2.0]),
    Case("selu", lambda x: F.selu(x), [-1.0, 0.0, 2.0]),
    Case("prelu", lambda x, w: F.prelu(x, w), [-1.0, 0.0, 2.0], [0.25]),
    Case("hardtanh", lambda x: F.hardtanh(x), [-2.0, -1.0, 0.0, 1.0, 2.0]),
    Case("hardtanh-range", lambda x: F.hardtanh(x, -0.5, 0.5), [-0.5, 0.5, 0.0]),
    Case("relu6", lambda x: F.relu6(x), [-1.0, 0.0, 3.0, 6.0, 7.0]),
    # torch's kernel multiplies the gradient by 1/6 rounded to float32, in float64 too (matched exactly)
    Case("hardsigmoid", lambda x: F.hardsigmoid(x), [-4.0, -3.0, 0.0, 3.0, 4.0, -1.0, 2.5]),
    Case("hardsigmoid-nonfinite", lambda x: F.hardsigmoid(x), [nan, inf, -inf, 1e38, 2.9999, -2.9999]),
    Case("hardswish", lambda x: F.hardswish(x), [-4.0, -3.0, 0.0, 3.0, 4.0]),
    # x · 6 / 6 overflows in float32 at 3.4e38 in torch's kernel; NaN stays NaN and takes g
    Case("hardswish-nonfinite", lambda x: F.hardswish(x), [nan, inf, -inf, 3.4e38, 1e38, -1e38, 2.5]),
    Case("threshold-nan", lambda x: F.threshold(x, 1.0, -2.0), [nan, 1.0, 2.0, -inf, inf]),
    Case("hardshrink-nan", lambda x: F.hardshrink(x), [nan, 0.5, -0.5, inf]),
    Case("softshrink-nan", lambda x: F.softshrink(x), [nan, 0.5, -0.5, inf, -inf]),
    Case("threshold", lambda x: F.threshold(x, 1.0, -2.0), [0.0, 1.0, 2.0]),
    Case("hardshrink", lambda x: F.hardshrink(x), [-0.5, 0.0, 0.5, 1.0]),
    Case("softshrink", lambda x: F.softshrink(x), [-0.5, 0.0, 0.5, 1.0]),
    Case("softplus-threshold", lambda x: F.softplus(x, beta=2.0, threshold=4.0), [1.0, 2.0, 3.0]),
    Case("mish", lambda x: F.mish(x), [-1.0, 0.0, 2.0]),
    Case("glu", lambda x: F.glu(x), [[0.0, 1.0, 0.0, -2.0]]),
    # zeros in products
    Case("prod-one-zero", lambda x: x.prod(), [2.0, 0.0, 3.0]),
    Case("prod-two-zeros", lambda x: x.prod(), [0.0, 2.0, 0.0]),
    Case("prod-no-zero", lambda x: x.prod(), [2.0, -1.5, 3.0]),
    Case("prod-dim-zeros", lambda x: x.prod(1), [[2.0, 0.0, 3.0], [0.0, 0.0, 1.0], [1.0, 2.0, 3.0]]),
    Case("prod-dim-keepdim", lambda x: x.prod(0, keepdim=True), [[0.0, 1.0], [2.0, 0.0]]),
    Case("cumprod-zeros", lambda x: x.cumprod(1), [[0.0, 2.0, 0.0, 3.0], [2.0, 0.0, 3.0, 4.0], [2.0, 3.0, 4.0, 0.0]]),
    Case("cumprod-no-zero", lambda x: x.cumprod(0), [2.0, -0.5, 3.0]),
    # infinities in logsumexp and friends
    Case("logsumexp-inf", lambda x: x.logsumexp(0), [inf, 1.0]),
    Case("logsumexp-neg-inf", lambda x: x.logsumexp(dim=1), [[-inf, 0.0], [-inf, -inf]]),
    Case("logsumexp-two-inf", lambda x: fg.logsumexp(x, 0), [inf, inf]),
    Case("softmax-neg-inf", lambda x: x.softmax(dim=1), [[-inf, 0.0, 1.0]]),
    Case("log-softmax-neg-inf", lambda x: F.log_softmax(x, dim=1), [[-inf, 0.0, 1.0]]),
    # exact bounds in losses
    Case("smooth-l1-at-beta", lambda x, y: F.smooth_l1_loss(x, y, reduction="none"), [0.0, 1.0, 2.5], [1.0, 0.0, 2.0]),
    Case("smooth-l1-beta0", lambda x, y: F.smooth_l1_loss(x, y, reduction="none", beta=0.0), [0.0, 1.0], [0.0, 0.0]),
    Case("huber-at-delta", lambda x, y: F.huber_loss(x, y, reduction="none", delta=0.5), [0.5, 0.0, 2.0], [0, 0, 2.0]),
    Case("l1-at-zero", lambda x, y: F.l1_loss(x, y, reduction="none"), [1.0, 0.0], [1.0, 1.0]),
    Case(
        "bce-at-0-and-1",
        lambda x: F.binary_cross_entropy(x, _const(x, [0.0, 1.0, 0.0, 1.0]), reduction="none"),
        [0.0, 0.0, 1.0, 1.0],
    ),
    # other special points
    Case("atan2-origin", lambda y, x: fg.atan2(y, x), [0.0, 1.0], [0.0, 0.0]),
    Case("div-by-zero", lambda x, y: x / y, [1.0, 0.0, -1.0], [0.0, 0.0, 0.0]),
    # the divisor's gradient as torch orders it, -g · ((x / y) / y): finite where -g · x / y² is inf / inf
    Case("div-huge", lambda x, y: x / y, [1e38, -3e38, 1e-30, 3.0, 1e308], [1e38, 2e38, 1e-30, 1e-40, 1e300]),
    Case("softsign-huge", lambda x: F.softsign(x), [1e38, -1e38, 3.4e38, 1e20, 2.0]),
    Case("std-constant", lambda x: x.std(), [2.0, 2.0, 2.0]),
    Case("var-constant", lambda x: x.var(), [2.0, 2.0, 2.0]),
    Case("floor-ceil-round", lambda x: x.floor() + x.ceil() + x.round(), [0.5, 1.0, -1.5]),
    Case("max-pool1d-ties", lambda x: F.max_pool1d(x, 2, 1), [[[1.0, 3.0, 3.0, 2.0]]]),
    Case("max-pool2d-ties", lambda x: F.max_pool2d(x, 2), [[[[1.0, 1.0], [1.0, 1.0]]]]),
    # every tap of a dilated window in the padding: -inf at torch's index (was 0.0); forward only, as torch's
    # backward writes the gradient at that index, past the input (a heap corruption in torch 2.15)
    Case(
        "max-pool1d-window-in-padding",
        lambda x: F.max_pool1d(x.detach(), 2, 1, 1, dilation=3, return_indices=True),
        [[[1.0, 2.0]]],
    ),
    Case(
        "max-pool2d-window-in-padding",
        lambda x: F.max_pool2d(x.detach(), 2, 1, 1, dilation=3, return_indices=True),
        [[[1.0, 2.0], [3.0, 4.0]]],
    ),
    Case("max-pool1d-all-neg-inf", lambda x: F.max_pool1d(x, 2, return_indices=True), [[[-inf, -inf, nan, -inf]]]),
    Case(
        "max-pool2d-nan-ties",
        lambda x: F.max_pool2d(x, 2, 1, return_indices=True),
        [[[[nan, 1.0, 1.0], [nan, 1.0, -inf]]]],
    ),
    # the average pools sum in the input's type and divide after, as torch's kernels: 1e38 + 3.4e38 is inf in
    # float32 (finite in float64), and an inf stays inside its own windows (the matrix form gave 0 · inf = NaN)
    Case("avg-pool1d-huge", lambda x: F.avg_pool1d(x, 2), [[[1e38, 3.4e38, 3.4e38, 1e38, 3e38, -3e38]]]),
    Case("avg-pool1d-inf", lambda x: F.avg_pool1d(x, 3, 1, 1), [[[1.0, inf, 2.0, 3.0, 4.0, -inf]]]),
    Case(
        "avg-pool1d-inf-no-pad-count",
        lambda x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False),
        [[[1.0, inf, 2.0, 3.0, nan, 5.0]]],
    ),
    Case("avg-pool2d-inf", lambda x: F.avg_pool2d(x, 2, 1), [[[[inf, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, -inf]]]]),
    Case(
        "avg-pool2d-huge-divisor",
        lambda x: F.avg_pool2d(x, 2, divisor_override=3),
        [[[[3e38, 3e38, 1.0, inf], [1e38, 1e38, 2.0, 3.0]]]],
    ),
    Case(
        "avg-pool2d-huge-ceil", lambda x: F.avg_pool2d(x, 2, ceil_mode=True), [[[[3e38, 3e38, 3e38], [1e38, 1.0, 2.0]]]]
    ),
    Case("adaptive-avg-pool1d-inf", lambda x: F.adaptive_avg_pool1d(x, 3), [[[1.0, inf, 2.0, 3.0]]]),
    Case("adaptive-avg-pool1d-huge", lambda x: F.adaptive_avg_pool1d(x, 2), [[[3e38, 3e38, 1e38, 1.0, -inf]]]),
    Case(
        "adaptive-avg-pool2d-inf",
        lambda x: F.adaptive_avg_pool2d(x, (2, 2)),
        [[[[1.0, inf, 2.0], [3.0, 4.0, 5.0], [3e38, 3e38, 6.0]]]],
    ),
    # exp overflows before log1p in torch's formula: 100 gives inf in float32 (a softplus would give 100)
    Case(
        "soft-margin-overflow",
        lambda x: F.soft_margin_loss(x, _const(x, [1.0, 1.0, -1.0, 1.0, -1.0, 1.0]), reduction="none"),
        [-100.0, -1e38, 100.0, 50.0, 1.0, -3.4e38],
    ),
    Case(
        "soft-margin-overflow-mean",
        lambda x: F.soft_margin_loss(x, _const(x, [1.0, -1.0, 1.0])),
        [-20.0, 100.0, 0.5],
    ),
    Case("layer-norm-constant", lambda x: F.layer_norm(x, (3,)), [[2.0, 2.0, 2.0]]),
]


def _outputs(result):
    return list(result) if isinstance(result, tuple) else [result]


def _record(t):
    a = t.detach().numpy()
    return {"dtype": str(t.dtype).split(".")[-1], "shape": list(a.shape), "data": a.reshape(-1).tolist()}


def evaluate(case, dtype_name):
    """{"values": [each output], "grads": [each input's gradient or None]} of `case` in `dtype_name`."""
    dtype = getattr(fg, dtype_name)
    xs = [fg.tensor(data, dtype=dtype, requires_grad=True) for data in case.inputs]
    outs = _outputs(case.fn(*xs))
    loss = None
    for out in outs:
        if out.dtype.is_floating_point and out.requires_grad:
            w = fg.arange(1, out.numel() + 1, dtype=dtype).reshape(out.shape)
            term = (out * w).sum()
            loss = term if loss is None else loss + term
    if loss is not None:
        loss.backward()
    return {"values": [_record(o) for o in outs], "grads": [None if x.grad is None else _record(x.grad) for x in xs]}
