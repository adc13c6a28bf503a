"""Cases for CPU autocast recorded from torch (tests/golden/record_autocast.py) and checked by tests/test_amp.py:
the result dtype of every listed op inside a bfloat16 region, values and float32 gradients of a Linear, a conv, an
MLP and attention against torch's bfloat16 autocast, float16 regions, nesting and the weight-cast cache."""

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np


def _t(shape, seed, requires_grad=False):
    values = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return fg.tensor(values, requires_grad=requires_grad)


def _dtypes():
    x, w, b = _t((4, 8), 1), _t((6, 8), 2), _t((6,), 3)
    batch1, batch2 = _t((2, 3, 4), 4), _t((2, 4, 5), 5)
    q, k, v = _t((1, 2, 4, 8), 6), _t((1, 2, 4, 8), 7), _t((1, 2, 4, 8), 8)
    labels = fg.tensor([0, 1, 2, 3])
    with fg.autocast("cpu"):
        y = F.linear(x, w, b)
        ops = {
            "linear": y,
            "mm": x.mm(w.t()),
            "matmul": x @ w.t(),
            "matmul_batched": batch1 @ batch2,
            "matmul_vector": x[0] @ x[1],
            "bmm": fg.bmm(batch1, batch2),
            "addmm": fg.addmm(_t((4, 6), 9), x, w.t()),
            "baddbmm": fg.baddbmm(_t((2, 3, 5), 10), batch1, batch2),
            "conv1d": F.conv1d(_t((1, 2, 7), 11), _t((3, 2, 3), 12)),
            "conv2d": F.conv2d(_t((1, 2, 5, 5), 13), _t((3, 2, 3, 3), 14), _t((3,), 15)),
            "conv2d_groups": F.conv2d(_t((1, 4, 5, 5), 16), _t((4, 2, 3, 3), 17), groups=2),
            "sdpa": F.scaled_dot_product_attention(q, k, v),
            "sdpa_causal": F.scaled_dot_product_attention(q, k, v, is_causal=True),
            "mse_loss": F.mse_loss(y, _t((4, 6), 18)),
            "l1_loss": F.l1_loss(y, _t((4, 6), 19)),
            "smooth_l1_loss": F.smooth_l1_loss(y, _t((4, 6), 20)),
            "nll_loss": F.nll_loss(y, labels),
            "cross_entropy": F.cross_entropy(y, labels),
            "bce_with_logits": F.binary_cross_entropy_with_logits(y, _t((4, 6), 21).sigmoid()),
            "float64_matmul": x.double() @ w.double().t(),
            "int_matmul": fg.ones(2, 2, dtype=fg.int64) @ fg.ones(2, 2, dtype=fg.int64),
            "relu_of_bfloat16": F.relu(y),
            "add_mixed": y + x[:, :6],
            "cat_mixed": fg.cat([y, x[:, :6]]),
        }
    return {name: out.dtype for name, out in ops.items()}


def _grads(out, params):
    out.float().sum().backward()
    return [p.grad for p in params]


def _linear():
    x, w, b = _t((4, 8), 1), _t((6, 8), 2, True), _t((6,), 3, True)
    with fg.autocast("cpu"):
        y = F.linear(x, w, b)
    return {"out": y, "grad_fn": type(y.grad_fn).__name__, "grads": _grads(y, [w, b])}


def _linear_3d_input():
    x, w, b = _t((2, 3, 8), 4, True), _t((6, 8), 5, True), _t((6,), 6, True)
    with fg.autocast("cpu"):
        y = F.linear(x, w, b)
    return {"out": y, "grads": _grads(y, [x, w, b])}


def _conv2d():
    x, w, b = _t((2, 3, 6, 6), 7, True), _t((4, 3, 3, 3), 8, True), _t((4,), 9, True)
    with fg.autocast("cpu"):
        y = F.conv2d(x, w, b, padding=1)
    return {"out": y, "grads": _grads(y, [x, w, b])}


def _mlp():
    fg.manual_seed(0)
    model = fg.nn.Sequential(fg.nn.Linear(8, 16), fg.nn.ReLU(), fg.nn.Linear(16, 3))
    with fg.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(_t(tuple(p.shape), 30 + i))
    x, target = _t((5, 8), 40), _t((5, 3), 41)
    with fg.autocast("cpu", dtype=fg.bfloat16):
        out = model(x)
        loss = F.mse_loss(out, target)
    loss.backward()
    return {"out": out, "loss": loss, "grads": [p.grad for p in model.parameters()]}


def _attention():
    q, k, v = _t((1, 2, 4, 8), 50, True), _t((1, 2, 5, 8), 51, True), _t((1, 2, 5, 8), 52, True)
    with fg.autocast("cpu"):
        y = F.scaled_dot_product_attention(q, k, v)
    return {"out": y, "grads": _grads(y, [q, k, v])}


def _float16_region():
    x, w = _t((4, 8), 60), _t((6, 8), 61, True)
    with fg.autocast("cpu", dtype=fg.float16):
        y = F.linear(x, w)
        dtype = fg.get_autocast_dtype("cpu")
    return {"out": y, "dtype": dtype, "grads": _grads(y, [w])}


def _nesting():
    a, b = _t((2, 3), 70), _t((3, 2), 71)
    seen = []
    with fg.autocast("cpu"):
        seen.append(((a @ b).dtype, fg.is_autocast_enabled("cpu"), fg.get_autocast_dtype("cpu")))
        with fg.autocast("cpu", enabled=False):
            seen.append(((a @ b).dtype, fg.is_autocast_enabled("cpu"), fg.get_autocast_dtype("cpu")))
            with fg.autocast("cpu", dtype=fg.float16):
                seen.append(((a @ b).dtype, fg.is_autocast_enabled("cpu"), fg.get_autocast_dtype("cpu")))
            seen.append(((a @ b).dtype, fg.is_autocast_enabled("cpu"), fg.get_autocast_dtype("cpu")))
        seen.append(((a @ b).dtype, fg.is_autocast_enabled("cpu"), fg.get_autocast_dtype("cpu")))
    seen.append(((a @ b).dtype, fg.is_autocast_enabled("cpu"), fg.get_autocast_dtype("cpu")))

    @fg.autocast("cpu")
    def decorated():
        return (a @ b).dtype

    return {"seen": seen, "decorated": decorated(), "after": (a @ b).dtype}


def _cast_node(y):
    """The ToCopyBackward0 node between the weight and `y = linear(x, w)` (through its TBackward0)."""
    return y.grad_fn.next_functions[1][0].next_functions[0][0]


def _cache():
    x, w, frozen = _t((2, 8), 80), _t((6, 8), 81, True), _t((6, 8), 82)
    result = {}
    for cache_enabled in (True, False):
        with fg.autocast("cpu", cache_enabled=cache_enabled):
            y1, y2 = F.linear(x, w), F.linear(x, w)
            node1, node2 = _cast_node(y1), _cast_node(y2)
            result[f"cached_{cache_enabled}"] = node1.metadata is node2.metadata
            result[f"node_{cache_enabled}"] = type(_cast_node(y1)).__name__
            result[f"frozen_{cache_enabled}"] = F.linear(x, frozen).dtype
    return result


CASES = {
    "dtypes": _dtypes,
    "linear": _linear,
    "linear_3d_input": _linear_3d_input,
    "conv2d": _conv2d,
    "mlp": _mlp,
    "attention": _attention,
    "float16_region": _float16_region,
    "nesting": _nesting,
    "cache": _cache,
}
