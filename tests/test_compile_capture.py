"""`ferrograd.compile` capturing and replaying: compiled results equal eager ones (values over shapes, dtypes,
layouts, 0-d and empty inputs; gradients, gradcheck in float64), guards recapture, `.item()` breaks the graph
(a warning, or `Unsupported` under fullgraph=True). Under torch the calls use backend="aot_eager" (Dynamo's
capture without inductor's C++ build); checks of ferrograd's own cache run only on ferrograd."""

import warnings

import ferrograd as fg
import numpy as np
import pytest
from helpers import AGAINST_TORCH

BACKEND = "aot_eager"


def chain(x):
    return (x * x + x).exp().sum()


def pointwise(x, y):
    return ((x - y) * 0.5).tanh() + x.abs().clamp(max=1.0), (x - y).amax()


def _rand(shape, dtype=fg.float32, seed=0):
    return fg.tensor(np.random.default_rng(seed).uniform(-1, 1, shape), dtype=dtype)


def _cache(f):
    return f._compiled.cache


@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 5), (300, 700)])
@pytest.mark.parametrize("dtype", [fg.float32, fg.float64])
def test_a_chain_compiled_equals_eager(shape, dtype):
    compiled = fg.compile(chain, backend=BACKEND)
    for seed in (0, 1):  # the capture, then the replay on new values
        x = _rand(shape, dtype, seed)
        want, got = chain(x), compiled(x)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert fg.allclose(got, want, rtol=1e-5 if dtype == fg.float32 else 1e-12)


def test_broadcasting_and_non_contiguous_inputs():
    compiled = fg.compile(pointwise, backend=BACKEND)
    for seed in (0, 1):
        x, y = _rand((4, 6), seed=seed).t(), _rand((6, 1), seed=seed + 5)
        for got, want in zip(compiled(x, y), pointwise(x, y)):
            assert fg.equal(got, want)


def test_gradients_are_the_eager_ones_and_gradcheck_passes():
    compiled = fg.compile(chain, backend=BACKEND)
    x = _rand((5, 3), fg.float64).requires_grad_()
    chain(x).backward()
    want = x.grad.clone()
    x.grad = None
    for _ in range(2):
        compiled(x).backward()
        assert fg.allclose(x.grad, want, rtol=1e-12)
        x.grad = None
    assert fg.autograd.gradcheck(compiled, (x,))


def test_a_module_compiles_with_its_parameters_as_inputs():
    fg.manual_seed(0)
    model = fg.nn.Sequential(fg.nn.Tanh())
    compiled = fg.compile(model, backend=BACKEND)
    x = _rand((4, 3))
    assert fg.equal(compiled(x), model(x)) and fg.equal(compiled(x), model(x))


@pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd's own cache")
def test_guards_recapture_and_replays_do_not_recapture():
    compiled = fg.compile(chain, backend=BACKEND)
    compiled(_rand((3,)))
    compiled(_rand((3,), seed=1))
    assert len(_cache(compiled)) == 1
    compiled(_rand((4,)))
    compiled(_rand((4,), fg.float64))
    compiled(_rand((4,), fg.float64).requires_grad_())
    with fg.no_grad():
        compiled(_rand((4,), fg.float64).requires_grad_())
    assert len(_cache(compiled)) == 5


@pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd's own cache")
def test_the_recompile_limit_falls_back_to_eager_with_a_warning():
    compiled = fg.compile(chain, backend=BACKEND, recompile_limit=2)
    compiled(_rand((1,)))
    compiled(_rand((2,)))
    with pytest.warns(UserWarning, match=r"recompile_limit \(2\)"):
        got = compiled(_rand((3,)))
    assert fg.equal(got, chain(_rand((3,)))) and len(_cache(compiled)) == 2


def reads_item(x):
    return x * x.sum().item()


def test_item_breaks_the_graph_and_fullgraph_raises():
    x = fg.ones(3)
    if not AGAINST_TORCH:  # torch 2.15's Dynamo captures this `.item()` (a float it specializes on)
        with pytest.raises(fg._dynamo.exc.Unsupported):
            fg.compile(reads_item, backend=BACKEND, fullgraph=True)(x)
    compiled = fg.compile(reads_item, backend=BACKEND)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert fg.equal(compiled(x), fg.full((3,), 3.0)) and fg.equal(compiled(x * 2), fg.full((3,), 12.0))
    if not AGAINST_TORCH:
        messages = [str(w.message) for w in caught]
        assert messages == [
            "ferrograd.compile: graph break in reads_item: Tensor.item() cannot be captured; it runs eagerly"
        ]


@pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd's own reasons")
def test_a_tensor_made_inside_by_an_untraced_op_breaks_the_graph_with_its_reason():
    with pytest.raises(fg._dynamo.exc.Unsupported, match=r"^reshape\(\) reads a tensor that was made outside"):
        fg.compile(lambda x: x + fg.nonzero(x).flatten(), backend=BACKEND, fullgraph=True)(fg.ones(3))


@pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd's own cache")
def test_guards_read_the_module_state_in_parameters_then_buffers_order():
    """The guards' one walk of the module tree gives what `parameters()` + `buffers()` give: tied weights and a
    shared submodule once each, in the same order (the captured graph's inputs), then the call's tensors; every
    module's training flag is in the key."""
    from ferrograd._dynamo.capture import CompiledFunction

    shared = fg.nn.Linear(3, 3)
    model = fg.nn.Sequential(fg.nn.Linear(3, 3), fg.nn.BatchNorm1d(3), shared, fg.nn.Sequential(shared), None)
    model[0].weight = model[2].weight  # tied
    model[1].eval()
    x = fg.ones(2, 3)
    compiled = CompiledFunction(model, False, None, model)
    key, inputs = compiled._guards([x, x])
    assert [id(t) for t in inputs] == [id(t) for t in [*model.parameters(), *model.buffers(), x, x]]
    model[3].eval()
    assert compiled._guards([x, x])[0] != key
    model[3].train()
    assert compiled._guards([x, x])[0] == key
    assert compiled._guards([x, x.clone()])[0] != key  # the same tensor twice is a guard
    assert compiled._guards([x, fg.ones(2, 4)])[0] != key


def _no_branch(a, b):
    return (a / (fg.abs(a) + 1)) * b


def _branch(a, b):
    x = a / (fg.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def test_explain_counts_graphs_ops_and_breaks():
    """torch's `_dynamo.explain(f)(*args)`: the graph of a function without a branch (its 4 ops), and the one break
    of a data-dependent branch (torch runs the graphs around it; ferrograd the function eagerly)."""
    whole = fg._dynamo.explain(_no_branch)(fg.randn(10), fg.randn(10))
    assert (whole.graph_count, whole.graph_break_count, whole.op_count) == (1, 0, 4)
    assert str(whole).startswith("Graph Count: 1\nGraph Break Count: 0\nOp Count: 4\nBreak Reasons:\n")
    broken = fg._dynamo.explain(_branch)(fg.randn(10), fg.randn(10))
    assert broken.graph_break_count == 1 and len(broken.break_reasons) == 1
    assert "Break Reason 1:" in str(broken)
    if not AGAINST_TORCH:
        assert broken.graph_count == 0
        assert broken.break_reasons[0].reason.startswith("Tensor.__bool__() (data-dependent control flow)")


@pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd's own cache")
def test_reset_forgets_every_capture():
    compiled = fg.compile(chain)
    compiled(fg.ones(3))
    assert len(_cache(compiled)) == 1
    fg._dynamo.reset()
    assert len(_cache(compiled)) == 0
    assert fg.equal(compiled(fg.ones(3)), chain(fg.ones(3))) and len(_cache(compiled)) == 1


@pytest.mark.skipif(AGAINST_TORCH, reason="torch counts each getitem of a split as an op")
def test_explain_counts_a_multi_output_op_once():
    out = fg._dynamo.explain(lambda x: [p * 2 for p in x.split(2)])(fg.randn(6))
    assert out.ops_per_graph == [["split", "mul", "mul", "mul"]] and out.op_count == 4


def _last_position(x):
    return x[:, [-1], :] * 2  # nanoGPT's generate: the last position's logits, a list index


def _rows(x, rows):
    return x[rows].exp()


@pytest.mark.parametrize("dtype", [fg.float32, fg.float64])
def test_indexing_with_a_list_or_an_index_tensor_is_one_graph(dtype):
    """Advanced indexing is captured: a list in the code is a constant of the graph, an index tensor argument is
    read anew on every replay; values and gradients are eager's (gradcheck in float64)."""
    last = fg.compile(_last_position, backend=BACKEND, fullgraph=True)
    rows = fg.compile(_rows, backend=BACKEND, fullgraph=True)
    for seed in (0, 1):
        x = _rand((2, 5, 3), dtype, seed)
        assert fg.equal(last(x), _last_position(x))
        index = fg.tensor([[seed, 1], [-1, 0]])  # negative, repeated, and new values on the replay
        assert fg.equal(rows(x, index), _rows(x, index))
    if not AGAINST_TORCH:
        assert len(_cache(last)) == 1 and len(_cache(rows)) == 1
    if dtype == fg.float64:
        x = _rand((2, 5, 3), dtype, 2).requires_grad_()
        assert fg.autograd.gradcheck(last, (x,))
        assert fg.autograd.gradcheck(lambda t: rows(t, fg.tensor([1, 1, 0])), (x,))


def test_an_out_of_range_index_raises_on_the_replay_too():
    rows = fg.compile(_rows, backend=BACKEND)
    x = _rand((3, 2))
    rows(x, fg.tensor([0, 2]))
    with pytest.raises(IndexError, match="out of bounds for dimension 0 with size 3"):
        rows(x, fg.tensor([0, 3]))


@pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd's own reasons")
def test_a_boolean_mask_index_breaks_the_graph_with_its_reason():
    with pytest.raises(fg._dynamo.exc.Unsupported, match=r"^indexing with a boolean mask"):
        fg.compile(lambda x: x[x > 0], backend=BACKEND, fullgraph=True)(fg.ones(3))


_OPS = {
    "tril": lambda x: x.tril() + x.triu(1) * 2,
    "masked_fill": lambda x: x.masked_fill(x > 0, -1.0) * x,
    "logical_not_any": lambda x: x * (x > 0).logical_not() + (x > 0.5).any(-1, keepdim=True) * x,
    "squeeze": lambda x: x.unsqueeze(0).squeeze(0).unsqueeze(1).squeeze() + x[None, :, None].squeeze((0, 2)),
    "sort_topk_max": lambda x: x.sort(-1)[0] + x.topk(6, -1)[0] + x.max(-1, keepdim=True)[0],
    "argmax": lambda x: x * x.argmax(-1, keepdim=True),
    "pad": lambda x: fg.nn.functional.pad(x, (1, 2, 0, 1), value=0.5) * 2,
    "cumsum": lambda x: x.cumsum(1),
    "clone_cast_detach": lambda x: x.clone() * (x > 0).double() + x * x.detach().sign().float().double(),
    "var_std": lambda x: x.var(-1, keepdim=True) * x + x.std(),
    "gather": lambda x, i: x.gather(1, i) + x.index_select(1, i[0]),
    "flip_roll_repeat": lambda x: x.flip(0) + x.roll(1, 1) * x + x.repeat(1, 2)[:, 3:9],
    "pool_upsample": lambda x: (
        (
            fg.nn.functional.interpolate(fg.nn.functional.avg_pool2d(x[None, None], 2), scale_factor=2, mode="bilinear")
            + fg.nn.functional.interpolate(x[None, None], scale_factor=2)[..., ::2, ::2]
        )[0, 0]
        * x
    ),
    "conv_transpose": lambda x: fg.nn.functional.conv_transpose2d(x[None, None], _KERNEL, stride=2)[0, 0, :4, :6] * x,
    "literal": lambda x: x * fg.tensor([1.0, -2.0, 0.5, 4.0, 0.0, 6.0], dtype=fg.float64),
    "pointwise_losses": lambda x: (
        fg.nn.functional.binary_cross_entropy_with_logits(x, (x > 0).double(), pos_weight=(x > 0.5).double() + 1)
        + fg.nn.functional.smooth_l1_loss(x, x.sign() * 0.5, beta=0.5)
        + fg.nn.functional.binary_cross_entropy(x.sigmoid(), (x > 0.2).double(), reduction="sum")
    ),
    "addmm_rnn": lambda x: fg.addmm(x[0], x[:, :4].t(), x[:, :6]).tanh() * x,
    "pixel_shuffle_baddbmm": lambda x: (
        fg.nn.functional.pixel_shuffle(x.reshape(1, 4, 2, 3), 2).reshape(4, 6) * x
        + fg.baddbmm(x[None], x[None, :, :4], x[None, :4, :], beta=0.5, alpha=2.0)[0]
    ),
    "adaptive_pools": lambda x: fg.cat(
        [
            fg.nn.functional.adaptive_max_pool2d(x[None, None], (3, 4)).flatten(),
            fg.nn.functional.adaptive_avg_pool2d(x[None, None], (3, 4)).flatten(),
            fg.nn.functional.adaptive_max_pool1d(x[None], 4).flatten(),
        ]
    ),
    "pools_3d": lambda x: fg.cat(
        [
            fg.nn.functional.max_pool3d(x.reshape(1, 1, 2, 3, 4), 2, stride=1).flatten(),
            fg.nn.functional.avg_pool3d(x.reshape(1, 1, 2, 3, 4), 2, stride=1).flatten(),
            fg.nn.functional.adaptive_max_pool3d(x.reshape(1, 1, 2, 3, 4), (1, 2, 2)).flatten(),
            fg.nn.functional.adaptive_avg_pool3d(x.reshape(1, 1, 2, 3, 4), (2, 2, 2)).flatten(),
        ]
    ),
    "conv3d": lambda x: (
        fg.nn.functional.conv3d(
            x.reshape(1, 1, 2, 3, 4), _KERNEL[:, :, None, :2, :2].expand(1, 1, 2, 2, 2), padding=(0, 1, 0)
        ).flatten()
        * 2
    ),
    "embedding_bag": lambda x: (
        fg.nn.functional.embedding_bag(fg.tensor([0, 2, 1, 3, 3]), x, fg.tensor([0, 2]), mode="mean")
        + fg.nn.functional.embedding_bag(fg.tensor([[1, 0], [3, 2]]), x, mode="sum")
    ),
    "lstm_cell": lambda x: fg.cat(fg.lstm_cell(x[:, :3], (x[:, 3:5], x[:, 4:6]), _W_IH, _W_HH), 1) * x[:, :4],
    "inplace_with_parameters": lambda x: (
        fg.nn.functional.leaky_relu(x * 1, 0.2, inplace=True)
        + fg.nn.functional.hardtanh(x * 2, -0.5, 0.5, inplace=True)  # ReLU6's
        + fg.nn.functional.elu(x * 3, inplace=True)
    ),
    "float_classes": lambda x: x * x.isfinite() + (x / (x > 0)).isinf() + (x.log()).isnan(),
}
_KERNEL = _rand((1, 1, 3, 3), fg.float64, 9)  # a tensor from outside the function: a constant of its graph
_W_IH, _W_HH = _rand((8, 3), fg.float64, 10), _rand((8, 2), fg.float64, 11)  # an LSTM cell's weights, H = 2


@pytest.mark.parametrize("name", sorted(_OPS))
def test_common_ops_are_captured_with_eager_values_and_gradients(name):
    """Each op a real model reaches (masks, casts, squeeze, sort/topk/max, pad, scans, statistics, gathers) is
    captured in one graph (fullgraph=True); the replay on new values is eager's, and gradcheck passes through it
    in float64."""
    f = _OPS[name]
    compiled = fg.compile(f, backend=BACKEND, fullgraph=True)
    for seed in (0, 1):
        x = _rand((4, 6), fg.float64, seed)
        args = (x, fg.tensor([[seed, 5], [2, 2], [0, 1], [4, 3]])) if name == "gather" else (x,)
        want, got = f(*args), compiled(*args)
        assert got.dtype == want.dtype and fg.allclose(got, want, rtol=1e-12, atol=1e-12)
    x = _rand((4, 6), fg.float64, 2).requires_grad_()
    if name == "gather":
        index = fg.tensor([[1, 5], [2, 2], [0, 1], [4, 3]])
        assert fg.autograd.gradcheck(lambda t: compiled(t, index), (x,))
    else:
        assert fg.autograd.gradcheck(compiled, (x,))


@pytest.mark.skipif(AGAINST_TORCH, reason="torch's compiled dropout draws other numbers than its eager one")
def test_causal_attention_with_dropout_is_one_graph_drawing_eager_masks():
    """nanoGPT's attention in training (causal, dropout): one graph, whose replays draw eager's masks."""
    f = lambda q: fg.nn.functional.scaled_dot_product_attention(q, q, q, dropout_p=0.1, is_causal=True)
    compiled = fg.compile(f, backend=BACKEND, fullgraph=True)
    for seed in (0, 1):
        q = _rand((2, 4, 8, 8), fg.float32, seed)
        fg.manual_seed(seed)
        want = f(q)
        fg.manual_seed(seed)
        assert fg.equal(compiled(q), want)


_RANDOM_LAYERS = {
    "dropout2d": lambda x: fg.nn.functional.dropout2d(x.reshape(2, 3, 2, 2), 0.5).flatten() * 2,
    "dropout1d": lambda x: fg.nn.functional.dropout1d(x.reshape(2, 3, 4), 0.3) + 1,
    "alpha_dropout": lambda x: fg.nn.functional.alpha_dropout(x, 0.2, training=True) * x,
    "feature_alpha_dropout": lambda x: fg.nn.functional.feature_alpha_dropout(x[None], 0.4, training=True) - x,
    "bernoulli": lambda x: x * x.bernoulli(0.3) + fg.bernoulli(x.sigmoid()),
    "randn_rand": lambda x: x + fg.randn_like(x) * fg.rand(x.shape[0], 1),  # a VAE's noise
    "randint_randperm": lambda x: x[fg.randperm(4)] * fg.randint(0, 5, (1, 6)),  # a shuffle, random crops
    # sampling the next token (nanoGPT's generate), with and without replacement
    "multinomial": lambda x: x.gather(1, fg.multinomial(x.softmax(-1), 6)) + fg.multinomial(x.abs(), 6, True),
    "poisson_binomial_gamma": lambda x: (
        fg.poisson(x.abs())
        + fg.binomial(fg.full_like(x, 5.0), x.sigmoid())
        + fg.distributions.Gamma(x.abs() + 0.5, fg.ones_like(x), validate_args=False).sample()
    ),
}


@pytest.mark.skipif(AGAINST_TORCH, reason="torch's compiled random ops draw other numbers than its eager ones")
@pytest.mark.parametrize("name", sorted(_RANDOM_LAYERS))
def test_random_layers_are_one_graph_drawing_eager_masks(name):
    """Channel dropout, alpha dropout, bernoulli, randn, rand, multinomial, poisson, binomial and gamma draws are
    nodes: one graph, whose replays draw anew from the same generator, so the same seed gives eager's numbers."""
    f = _RANDOM_LAYERS[name]
    compiled = fg.compile(f, backend=BACKEND, fullgraph=True)
    for seed in (0, 1, 2):
        x = _rand((4, 6), fg.float32, seed)
        fg.manual_seed(seed)
        want = f(x)
        fg.manual_seed(seed)
        assert fg.equal(compiled(x), want)
    assert len(_cache(compiled)) == 1


def test_adaptive_max_pool_replays_nan_windows_as_eager():
    """Eager checks for NaNs before choosing each window's position; the graph takes that path always, so a replay
    on NaNs gives eager's values and indices (a window's last NaN)."""
    f = lambda x: fg.nn.functional.adaptive_max_pool2d(x, (2, 2), return_indices=True)
    compiled = fg.compile(f, backend=BACKEND, fullgraph=True)
    compiled(_rand((1, 3, 5), fg.float32, 0))
    x = _rand((1, 3, 5), fg.float32, 1)
    x[0, 0, 1] = x[0, 2, 4] = x[0, 1, 1] = float("nan")
    (want_v, want_i), (got_v, got_i) = f(x), compiled(x)
    assert fg.equal(got_i, want_i) and fg.allclose(got_v, want_v, equal_nan=True)
    assert got_v.isnan().sum() == 3  # the windows overlap: three of four hold a NaN
