"""`ferrograd.compile`'s fused chains (elementwise ops run chunk by chunk through their own slice kernels,
closed by sum/amax/amin or written to one output) give eager's values: dtypes, shapes, NaN and inf, empty
and small inputs, non-contiguous inputs (a guard of their own, replayed node by node), numbers on either
side, and chains whose result needs a gradient (one CompiledFunctionBackward node, whose backward is eager's
rules captured and fused; second derivatives through eager's ops). Row groups (chains with sums or means over
the last dim inside them, run a block of rows at a time: norms written out) too. Under torch the calls use
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


def test_a_chain_needing_a_gradient_records_one_compiled_node_with_eager_gradients():
    compiled = fg.compile(chain, backend=BACKEND)
    x = _rand((N,), fg.float64).requires_grad_()
    chain(x).backward()
    want = x.grad.clone()
    x.grad = None
    compiled(x)  # the capture (ferrograd's capture call runs eagerly)
    out = compiled(x)
    # one node for the fused chain, as torch's aot_eager records
    assert type(out.grad_fn).__name__ == "CompiledFunctionBackward"
    out.backward()
    if AGAINST_TORCH:
        assert fg.allclose(x.grad, want, rtol=1e-12)
    else:  # the same rules through the same kernels
        assert fg.equal(x.grad, want)


def new_gelu(x):
    """minGPT's NewGELU, as written there."""
    return 0.5 * x * (1.0 + fg.tanh(0.7978845608028654 * (x + 0.044715 * fg.pow(x, 3.0))))


def scaled_tanh_loss(x, w):
    return ((x * w).tanh() - 0.25).pow(2).sum()


@pytest.mark.parametrize("dtype", [fg.float32, fg.float64])
@pytest.mark.parametrize("fn", [silu, gelu_tanh, new_gelu])
def test_training_through_a_fused_chain_gives_eager_values_and_gradients(fn, dtype):
    compiled = fg.compile(fn, backend=BACKEND)
    for seed in (0, 1, 2):  # the capture, then replays
        x = _rand((311, 337), dtype, seed).requires_grad_()
        upstream = _rand((311, 337), dtype, seed + 10)
        want = fn(x)
        (want_grad,) = fg.autograd.grad(want, x, upstream)
        got = compiled(x)
        (got_grad,) = fg.autograd.grad(got, x, upstream)
        if AGAINST_TORCH:
            _close(got, want, dtype)
            _close(got_grad, want_grad, dtype)
        else:  # eager's kernels and rules, element by element: the same bits
            assert fg.equal(got, want) and fg.equal(got_grad, want_grad)
            assert (type(got.grad_fn).__name__ == "CompiledFunctionBackward") == (seed > 0)


def test_a_closure_parameter_and_an_input_both_get_their_gradients():
    w = _rand((N,), fg.float64, 7).requires_grad_()
    compiled = fg.compile(lambda x: scaled_tanh_loss(x, w), backend=BACKEND)
    x = _rand((N,), fg.float64, 8).requires_grad_()
    scaled_tanh_loss(x, w).backward()
    want_x, want_w = x.grad.clone(), w.grad.clone()
    for _ in range(2):
        x.grad = w.grad = None
        compiled(x).backward()
        assert fg.allclose(x.grad, want_x, rtol=1e-12) and fg.allclose(w.grad, want_w, rtol=1e-12)
    # the input alone wanting a gradient is another backward (the parameter's edge is gone)
    x.grad = w.grad = None
    w.requires_grad_(False)
    compiled(x).backward()
    assert fg.allclose(x.grad, want_x, rtol=1e-12) and w.grad is None


def test_second_derivatives_through_a_fused_chain_are_eager_ones():
    compiled = fg.compile(new_gelu, backend=BACKEND)
    x = _rand((N,), fg.float64).requires_grad_()
    (first,) = fg.autograd.grad(new_gelu(x).sum(), x, create_graph=True)
    (second,) = fg.autograd.grad((first * first).sum(), x)
    compiled(x)
    if AGAINST_TORCH:  # torch's compiled backward refuses a double backward; ferrograd's runs the chain's eager ops
        with pytest.raises(RuntimeError, match="double backward|create_graph=False"):
            (compiled_first,) = fg.autograd.grad(compiled(x).sum(), x, create_graph=True)
            fg.autograd.grad((compiled_first * compiled_first).sum(), x)
        return
    (compiled_first,) = fg.autograd.grad(compiled(x).sum(), x, create_graph=True)
    (compiled_second,) = fg.autograd.grad((compiled_first * compiled_first).sum(), x)
    assert fg.equal(compiled_first.detach(), first.detach()) and fg.equal(compiled_second, second)


def test_a_compiled_chains_gradient_matches_finite_differences():
    # gradcheck's full Jacobian is 33 K calls at the fusion size: central differences at sampled coordinates instead
    compiled = fg.compile(lambda x: (x * fg.sigmoid(x)).sum(), backend=BACKEND)
    x = _rand((128, 129), fg.float64).requires_grad_()  # just above the fusion size
    compiled(x)
    compiled(x).backward()
    flat, eps = x.detach().reshape(-1), 1e-6
    for i in np.random.default_rng(0).choice(flat.shape[0], 12, replace=False).tolist():
        up, down = flat.clone(), flat.clone()
        up[i] += eps
        down[i] -= eps
        numeric = (float(compiled(up.reshape(x.shape))) - float(compiled(down.reshape(x.shape)))) / (2 * eps)
        assert abs(numeric - float(x.grad.reshape(-1)[i])) < 1e-5 * max(1.0, abs(numeric))


def test_an_operand_written_in_place_before_backward_raises_as_in_eager():
    compiled = fg.compile(silu, backend=BACKEND)
    leaf = _rand((N,), fg.float64).requires_grad_()
    x = leaf * 1.0
    out = compiled(x)
    with fg.no_grad():
        x.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def rms_norm(x, w):
    """LLaMA's RMSNorm, as written there: the tail reads a per-row statistic and a per-column weight."""
    return x * fg.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w


def bias_tanh(x, b):
    return fg.tanh(x + b) * 0.5


@pytest.mark.parametrize("dtype", [fg.float32, fg.float64])
@pytest.mark.parametrize("fn", [rms_norm, bias_tanh])
def test_chains_reading_broadcast_operands_are_fused_with_eager_values_and_gradients(fn, dtype):
    compiled = fg.compile(fn, backend=BACKEND)
    for seed in (0, 1, 2):
        x = _rand((256, 384), dtype, seed).requires_grad_()
        w = _rand((384,), dtype, seed + 5).requires_grad_()
        upstream = _rand((256, 384), dtype, seed + 9)
        want = fn(x, w)
        want_grads = fg.autograd.grad(want, (x, w), upstream)
        got = compiled(x, w)
        got_grads = fg.autograd.grad(got, (x, w), upstream)
        with fg.no_grad():
            got_no_grad = compiled(x, w)
        if AGAINST_TORCH:
            for g, v in zip((got, got_no_grad, *got_grads), (want, want, *want_grads)):
                _close(g, v, dtype)
        else:  # the same kernels per element, broadcast or not: the same bits
            assert fg.equal(got, want) and fg.equal(got_no_grad, want)
            assert all(fg.equal(g, v) for g, v in zip(got_grads, want_grads))
            assert (type(got.grad_fn).__name__ == "CompiledFunctionBackward") == (seed > 0)
    if not AGAINST_TORCH:
        assert _fused_groups(compiled) >= 1


def layer_norm_by_hand(x, w, b):
    """LayerNorm written out (as in nanoGPT's early LayerNorm or a tutorial's): two row means inside one chain."""
    centred = x - x.mean(-1, keepdim=True)
    var = (centred * centred).mean(-1, keepdim=True)
    return centred * fg.rsqrt(var + 1e-5) * w + b


def softmax_by_hand(x, w, b):
    """exp over a row's sum (no max taken: the inputs are small), scaled per column."""
    e = (x * 0.5).exp()
    return e / e.sum(-1, keepdim=True) * w + b


def stable_softmax_by_hand(x, w, b):
    """The usual softmax written out: the row's max taken first (its gradient shared among ties, as amax's)."""
    e = (x - x.amax(-1, keepdim=True)).exp()
    return e / e.sum(-1, keepdim=True) * w + b


@pytest.mark.parametrize("shape", [(256, 384), (37, 3001), (1100, 17)])
@pytest.mark.parametrize("dtype", [fg.float32, fg.float64])
@pytest.mark.parametrize("fn", [layer_norm_by_hand, softmax_by_hand, stable_softmax_by_hand])
def test_row_groups_give_eager_values_and_gradients(fn, dtype, shape):
    compiled = fg.compile(fn, backend=BACKEND)
    for seed in (0, 1):
        x = _rand(shape, dtype, seed).requires_grad_()
        w = _rand(shape[-1:], dtype, seed + 5).requires_grad_()
        b = _rand(shape[-1:], dtype, seed + 6).requires_grad_()
        upstream = _rand(shape, dtype, seed + 9)
        want = fn(x, w, b)
        want_grads = fg.autograd.grad(want, (x, w, b), upstream)
        got = compiled(x, w, b)
        got_grads = fg.autograd.grad(got, (x, w, b), upstream)
        with fg.no_grad():
            got_no_grad = compiled(x, w, b)
        if AGAINST_TORCH:
            for g, v in zip((got, got_no_grad, *got_grads), (want, want, *want_grads)):
                _close(g, v, dtype)
        else:  # eager's kernels per element and eager's row sums per row: the same bits
            assert fg.equal(got, want) and fg.equal(got_no_grad, want)
            assert all(fg.equal(g, v) for g, v in zip(got_grads, want_grads))
            assert (type(got.grad_fn).__name__ == "CompiledFunctionBackward") == (seed > 0)
    if not AGAINST_TORCH:  # one graph with grad mode on, one under no_grad: each one group
        groups = [e[0].fused_groups for e in compiled._compiled.cache.values() if isinstance(e, tuple)]
        assert groups == [1, 1]


def test_a_row_group_over_a_transposed_or_broadcast_input_replays_node_by_node():
    compiled = fg.compile(lambda x, w, b: layer_norm_by_hand(x, w, b), backend=BACKEND)
    w, b = _rand((300,), seed=1), _rand((300,), seed=2)
    for x in (_rand((300, 400), seed=3).t(), _rand((1, 300), seed=4).expand(400, 300)):
        _close(compiled(x, w, b), layer_norm_by_hand(x, w, b), fg.float32)


def test_a_row_groups_gradient_matches_finite_differences():
    compiled = fg.compile(lambda x, w: layer_norm_by_hand(x, w, 0.5).pow(2).sum(), backend=BACKEND)
    x = _rand((64, 300), fg.float64).requires_grad_()  # above the fusion size
    w = _rand((300,), fg.float64, 3)
    compiled(x, w)
    compiled(x, w).backward()
    flat, eps = x.detach().reshape(-1), 1e-6
    for i in np.random.default_rng(1).choice(flat.shape[0], 12, replace=False).tolist():
        up, down = flat.clone(), flat.clone()
        up[i] += eps
        down[i] -= eps
        numeric = (float(compiled(up.reshape(x.shape), w)) - float(compiled(down.reshape(x.shape), w))) / (2 * eps)
        assert abs(numeric - float(x.grad.reshape(-1)[i])) < 1e-5 * max(1.0, abs(numeric))


class LlamaRMSNorm(fg.nn.Module):
    """Hugging Face's LlamaRMSNorm, as written there (its casts to float32 and back are no-ops on float32)."""

    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = fg.nn.Parameter(fg.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(fg.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * fg.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


def test_a_compiled_llama_rms_norm_module_trains_as_eager():
    def model_and_steps(compiled):
        fg.manual_seed(0)
        model = fg.nn.Sequential(fg.nn.Linear(64, 256), LlamaRMSNorm(256), fg.nn.Linear(256, 8))
        opt = fg.optim.AdamW(model.parameters(), lr=1e-2)
        run = fg.compile(model, backend=BACKEND) if compiled else model
        x, y = _rand((128, 64), seed=3), _rand((128, 8), seed=4)
        losses = []
        for _ in range(4):
            opt.zero_grad()
            loss = fg.nn.functional.mse_loss(run(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses, [p.detach().clone() for p in model.parameters()]

    (eager_losses, eager_params), (losses, params) = model_and_steps(False), model_and_steps(True)
    if AGAINST_TORCH:
        assert np.allclose(losses, eager_losses, rtol=1e-5)
        assert all(fg.allclose(p, q, rtol=1e-4, atol=1e-6) for p, q in zip(params, eager_params))
    else:  # the norm's row group and its captured backward: eager's bits, step after step
        assert losses == eager_losses
        assert all(fg.equal(p, q) for p, q in zip(params, eager_params))
