"""The float32 functions with SIMD kernels of their own (exp, log, tanh, sin, cos, erf, GELU, sigmoid, SiLU)
give every element the same bits whatever the layout: contiguous, strided, transposed or broadcast,
for lengths around the vector width (16 lanes), with NaN and ±inf among the values, and above the
threading threshold. Values are checked against float64 numpy within float32 accuracy."""

import math

import ferrograd as fg
import numpy as np
import pytest
from helpers import AGAINST_TORCH

F = fg.nn.functional
OPS = {
    "exp": (lambda t: t.exp(), np.exp),
    "log": (lambda t: t.log(), np.log),
    "tanh": (lambda t: t.tanh(), np.tanh),
    "sin": (lambda t: t.sin(), np.sin),
    "cos": (lambda t: t.cos(), np.cos),
    "erf": (lambda t: t.erf(), np.vectorize(math.erf)),
    "gelu": (lambda t: F.gelu(t), lambda v: 0.5 * v * (1 + np.vectorize(math.erf)(v / math.sqrt(2)))),
    "sigmoid": (lambda t: t.sigmoid(), lambda v: 1 / (1 + np.exp(-v))),
    "silu": (lambda t: F.silu(t), lambda v: v / (1 + np.exp(-v))),
}


def values(n, seed):
    """n normal values (scaled to cover the functions' ranges) with NaN, ±inf and ±0 every 7th place."""
    v = np.random.default_rng(seed).standard_normal(n).astype(np.float32) * 4
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], dtype=np.float32)
    at = np.arange(0, n, 7)[: len(specials)]
    v[at] = specials[: len(at)]
    return v


# torch's own GELU, sigmoid and SiLU take a vectorized path for contiguous data and a scalar one for the rest,
# whose results differ in the last bit; the same bits in every layout is a property of ferrograd's kernels.
LAYOUT_BITS_DIFFER_IN_TORCH = {"gelu", "sigmoid", "silu"}
FERROGRAD_KERNEL_ONLY = pytest.mark.skipif(
    AGAINST_TORCH, reason="torch's vectorized and scalar kernels round differently by layout; ferrograd's do not"
)


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=FERROGRAD_KERNEL_ONLY) if n in LAYOUT_BITS_DIFFER_IN_TORCH else n for n in sorted(OPS)],
)
@pytest.mark.parametrize("n", [1, 15, 16, 17, 31, 33, 70])
def test_every_layout_gives_the_same_bits(name, n):
    op, _ = OPS[name]
    rows = values(3 * n * 2, n).reshape(3, 2 * n)
    base = fg.tensor(rows)
    want = op(fg.tensor(np.ascontiguousarray(rows[:, ::2]))).numpy()
    strided = op(base[:, ::2]).numpy()
    np.testing.assert_array_equal(strided, want)  # NaN in the same places, same bits elsewhere
    transposed = op(fg.tensor(np.ascontiguousarray(rows[:, ::2].T)).T).numpy()
    np.testing.assert_array_equal(transposed, want)
    row = fg.tensor(rows[0, ::2])
    broadcast = op(row.expand(3, n)).numpy()
    np.testing.assert_array_equal(broadcast, np.broadcast_to(op(row).numpy(), (3, n)))


@pytest.mark.parametrize("name", sorted(OPS))
def test_values_against_float64_above_the_threading_threshold(name):
    op, ref = OPS[name]
    x = np.random.default_rng(7).standard_normal(300_001).astype(np.float32) * 4
    if name == "log":
        x = np.abs(x) + np.float32(1e-3)
    got = op(fg.tensor(x)).numpy().astype(np.float64)
    want = ref(x.astype(np.float64))
    # a few float32 roundings; GELU's 1 + erf cancels for x well below 0, so it is held to |x| instead
    scale = np.abs(x) if name == "gelu" else np.abs(want)
    assert np.all(np.abs(got - want) <= 4 * np.finfo(np.float32).eps * scale + 1e-38), name
