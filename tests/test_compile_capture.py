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
def test_a_random_tensor_made_inside_breaks_the_graph_with_its_reason():
    with pytest.raises(fg._dynamo.exc.Unsupported, match=r"^add\(\) reads a tensor that was made outside"):
        fg.compile(lambda x: x + fg.rand(3), backend=BACKEND, fullgraph=True)(fg.ones(3))


@pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd's own cache")
def test_guards_read_the_module_state_in_parameters_then_buffers_order():
    """The guards' one walk of the module tree gives what `parameters()` + `buffers()` and `modules()` give:
    tied weights and a shared submodule once each, in the same order (the captured graph's inputs)."""
    from ferrograd._core import _module_state

    shared = fg.nn.Linear(3, 3)
    model = fg.nn.Sequential(fg.nn.Linear(3, 3), fg.nn.BatchNorm1d(3), shared, fg.nn.Sequential(shared), None)
    model[0].weight = model[2].weight  # tied
    model[1].eval()
    tensors, training = _module_state(model)
    assert [id(t) for t in tensors] == [id(t) for t in list(model.parameters()) + list(model.buffers())]
    assert training == tuple(m.training for m in model.modules())


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
