"""`ferrograd.compile`'s fused chains (elementwise ops run chunk by chunk through their own slice kernels,
closed by sum/amax/amin or written to one output) give eager's values: dtypes, shapes, NaN and inf, empty
and small inputs, non-contiguous inputs (a guard of their own, replayed node by node), numbers on either
side, and chains whose result needs a gradient (node by node, eager's rules). Under torch the calls use
backend="aot_eager"; the count of fused groups is checked on ferrograd only."""

import ferrograd as fg
import numpy as np
import pytest
from helpers import AGAINST_TORCH

BACKEND = "aot_eager"
N = 100_003  # above the fusion size, not a multiple of the chunk


def chain(x):
    return (x * x + x).exp().sum()


def scalars(x):
    y = -(((2.0 - x) / 3.0) ** 2) * x
    return y.amax(), (x * 0.5).sin().amin()


def silu(x):
    return x * fg.sigmoid(x)


def gelu_tanh(x):
    return 0.5 * x * (1.0 + fg.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


def _rand(shape, dtype=fg.float32, seed=0):
    return fg.tensor(np.random.default_rng(seed).uniform(-1, 1, shape), dtype=dtype)


def _fused_groups(compiled):
    return sum(e[0].fused_groups for e in compiled._compiled.cache.values() if isinstance(e, tuple))


def _close(got, want, dtype):
    assert got.dtype == want.dtype and got.shape == want.shape
    assert fg.allclose(got, want, rtol=1e-5 if dtype == fg.float32 else 1e-12, equal_nan=True)


@pytest.mark.parametrize("dtype", [fg.float32, fg.float64])
@pytest.mark.parametrize("fn", [chain, scalars])
def test_a_fused_reduction_equals_eager(fn, dtype):
    compiled = fg.compile(fn, backend=BACKEND)
    for seed in (0, 1):  # the capture, then the replay on new values
        x = _rand((N,), dtype, seed)
        got, want = compiled(x), fn(x)
        for g, w in zip(got, want) if isinstance(want, tuple) else [(got, want)]:
            _close(g, w, dtype)
    if not AGAINST_TORCH:
        assert _fused_groups(compiled) >= 1


@pytest.mark.parametrize("dtype", [fg.float32, fg.float64])
@pytest.mark.parametrize("fn", [silu, gelu_tanh])
def test_a_fused_chain_without_a_reduction_equals_eager_under_no_grad(fn, dtype):
    compiled = fg.compile(fn, backend=BACKEND)
    with fg.no_grad():
        for seed in (0, 1):
            x = _rand((317, 331), dtype, seed)
            got, want = compiled(x), fn(x)
            _close(got, want, dtype)
            assert got.is_contiguous()
            if dtype == fg.float64:  # the same kernels per element: the same values
                assert fg.equal(got, want)
    if not AGAINST_TORCH:
        assert _fused_groups(compiled) == 1


def test_nan_and_inf_propagate_through_a_fused_chain():
    compiled = fg.compile(scalars, backend=BACKEND)
    x = _rand((N,))
    x[5] = float("nan")
    got, want = compiled(x), scalars(x)
    assert all(bool(fg.isnan(g)) and bool(fg.isnan(w)) for g, w in zip(got, want))
    compiled = fg.compile(chain, backend=BACKEND)
    y = _rand((N,))
    y[N - 1] = float("inf")
    assert float(compiled(y)) == float("inf") == float(chain(y))
    y[0] = float("nan")
    assert np.isnan(float(compiled(y))) and np.isnan(float(chain(y)))


@pytest.mark.parametrize("shape", [(0,), (), (5,), (0, 3)])
def test_empty_and_small_inputs_replay_as_eager(shape):
    compiled = fg.compile(silu, backend=BACKEND)
    x = _rand(shape)
    _close(compiled(x), silu(x), fg.float32)
    compiled = fg.compile(chain, backend=BACKEND)
    _close(compiled(x), chain(x), fg.float32)


def test_non_contiguous_and_broadcast_inputs_replay_node_by_node():
    compiled = fg.compile(chain, backend=BACKEND)
    for seed in (0, 1):
        x = _rand((400, 300), seed=seed).t()
        _close(compiled(x), chain(x), fg.float32)
    both = fg.compile(lambda x, y: (x * y + x).exp().sum(), backend=BACKEND)
    x, y = _rand((300, 400)), _rand((400,), seed=3)
    _close(both(x, y), (x * y + x).exp().sum(), fg.float32)


def test_integer_inputs_and_mixed_dtypes_keep_eager_promotion():
    compiled = fg.compile(lambda x, y: (x * y + x).sum(), backend=BACKEND)
    x = fg.arange(N)
    y = _rand((N,), fg.float64)
    got, want = compiled(x, x), (x * x + x).sum()
    assert got.dtype == want.dtype == fg.int64 and fg.equal(got, want)
    got, want = compiled(_rand((N,)), y), (_rand((N,)) * y + _rand((N,))).sum()
    _close(got, want, fg.float64)


def test_a_chain_needing_a_gradient_replays_eager_rules():
    compiled = fg.compile(chain, backend=BACKEND)
    x = _rand((N,), fg.float64).requires_grad_()
    chain(x).backward()
    want = x.grad.clone()
    x.grad = None
    out = compiled(x)
    assert out.grad_fn is not None
    if not AGAINST_TORCH:  # torch's aot_eager records one CompiledFunctionBackward node
        assert type(out.grad_fn).__name__ == "SumBackward0"
    out.backward()
    assert fg.allclose(x.grad, want, rtol=1e-12)
