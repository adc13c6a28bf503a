"""A compiled plain function's graph holds what it reaches besides its arguments (a global model, a closure's
tensor) as constants, so its cache watches those bindings, as torch's guards do: `model.eval()` on a global
model gives another graph, and a global or closure variable rebound, or a submodule replaced, is captured
anew. Each check compares the compiled call with eager's at that moment. Under torch the functions compile with
backend="aot_eager" and the same checks hold."""

import gc
import weakref

import ferrograd as fg
from helpers import AGAINST_TORCH

nn = fg.nn
BACKEND = "aot_eager"

MODEL = None
SCALE = None


def _run_global_model(x):
    return MODEL(x)


def _helper(x):
    return MODEL(x) * SCALE


def _through_a_helper(x):
    return _helper(x) + 1


def test_a_global_models_training_flag_and_submodules_are_guarded():
    global MODEL
    fg.manual_seed(0)
    MODEL = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5), nn.BatchNorm1d(4))
    f = fg.compile(_run_global_model, backend=BACKEND, fullgraph=True)
    x = fg.randn(8, 4)
    f(x)
    f(x)
    MODEL.eval()  # dropout off, BatchNorm's running statistics
    assert fg.equal(f(x), MODEL(x))
    MODEL[0] = nn.Linear(4, 4)  # a submodule replaced: its weights are the graph's no longer
    assert fg.equal(f(x), MODEL(x))
    MODEL.train()
    with fg.no_grad():
        fg.manual_seed(1)
        got = f(x)
        fg.manual_seed(1)
        assert fg.equal(got, MODEL(x))


def test_a_rebound_global_reached_through_a_helper_is_captured_anew():
    global MODEL, SCALE
    MODEL, SCALE = nn.Linear(3, 3), fg.tensor([2.0])
    f = fg.compile(_through_a_helper, backend=BACKEND)
    x = fg.randn(2, 3)
    assert fg.allclose(f(x), MODEL(x) * 2 + 1)
    f(x)
    SCALE = fg.tensor([3.0])
    assert fg.allclose(f(x), MODEL(x) * 3 + 1)
    MODEL = nn.Linear(3, 3)
    assert fg.allclose(f(x), MODEL(x) * 3 + 1)


def test_a_rebound_closure_tensor_is_captured_anew():
    bias = fg.ones(3)
    f = fg.compile(lambda x: x + bias, backend=BACKEND)
    x = fg.zeros(3)
    assert fg.equal(f(x), fg.ones(3))
    f(x)
    bias = fg.full((3,), 5.0)  # the closure's cell now holds this
    assert fg.equal(f(x), fg.full((3,), 5.0))


def test_an_unchanged_global_model_replays_without_capturing_again():
    global MODEL
    MODEL = nn.Linear(3, 3)
    f = fg.compile(_run_global_model, backend=BACKEND)
    x = fg.randn(2, 3)
    f(x)
    f(x)
    if not AGAINST_TORCH:
        assert f._compiled._watching and len(f._compiled.cache) == 1
    with fg.no_grad():
        MODEL.weight.add_(1)  # an in-place change is read at replay, not a new binding
    assert fg.equal(f(x), MODEL(x))
    if not AGAINST_TORCH:
        assert len(f._compiled.cache) == 1


def test_a_function_watching_a_module_that_holds_it_is_collected():
    def make():
        model = nn.Linear(2, 2)
        f = fg.compile(lambda x: model(x), backend=BACKEND)
        model.f = f
        f(fg.ones(1, 2))
        f(fg.ones(1, 2))
        return weakref.ref(model)

    gone = make()
    gc.collect()
    assert gone() is None


class Scaled(nn.Module):
    """A forward reading plain attributes: a number and a flag."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.scale = 2.0
        self.shift = True

    def forward(self, x):
        y = self.lin(x) * self.scale
        return y + 1 if self.shift else y


def test_a_compiled_modules_plain_attributes_are_guarded():
    model = Scaled()
    compiled = fg.compile(model, backend=BACKEND, fullgraph=True)
    x = fg.randn(2, 3)
    compiled(x)
    assert fg.equal(compiled(x), model(x))
    model.scale = 3.0
    assert fg.equal(compiled(x), model(x))
    model.shift = False
    assert fg.equal(compiled(x), model(x))
    model.scale = 3.0  # set again, equal: the graph stays
    assert fg.equal(compiled(x), model(x))
    if not AGAINST_TORCH:
        assert len(compiled.forward.cache) == 1


def test_a_dropouts_probability_changed_after_compiling_is_seen():
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
    model.compile(backend=BACKEND)
    x = fg.randn(8, 4)
    model(x)
    model(x)
    model[1].p = 0.0
    assert fg.equal(model(x), model[0](x))


def test_a_global_models_attribute_is_guarded():
    global MODEL
    MODEL = Scaled()
    f = fg.compile(_run_global_model, backend=BACKEND)
    x = fg.randn(2, 3)
    f(x)
    f(x)
    MODEL.scale = -1.0
    assert fg.equal(f(x), MODEL(x))


FACTOR = 2.0


def _scaled_by_a_global_number(x):
    return x * FACTOR


def test_a_rebound_global_number_is_captured_anew():
    global FACTOR
    f = fg.compile(_scaled_by_a_global_number, backend=BACKEND, fullgraph=True)
    x = fg.randn(3)
    assert fg.equal(f(x), x * 2.0)
    f(x)
    FACTOR = 3.5  # the graph holds 2.0 as a constant
    assert fg.equal(f(x), x * 3.5)
    FACTOR = 2.0
