"""`torch.compile` as scripts use it: the signature and its checks, decorator forms, and on an `nn.Module` an
`OptimizedModule` like torch's (`_orig_mod`, `_orig_mod.`-prefixed state dict keys, attribute forwarding,
train/eval, repr, pickling); results and gradients identical to eager. ferrograd runs compiled models eagerly
(no compiler yet); under torch the calls use backend="eager" except one, which keeps the tests quick."""

import pickle

import ferrograd as fg
import numpy as np
import pytest


def _mlp():
    fg.manual_seed(0)
    return fg.nn.Sequential(fg.nn.Linear(4, 8), fg.nn.ReLU(), fg.nn.Linear(8, 2))


def _inputs():
    return fg.tensor(np.random.default_rng(0).uniform(-1, 1, (5, 4)), dtype=fg.float32)


def test_a_compiled_module_is_an_optimized_module_around_it():
    model = _mlp()
    compiled = fg.compile(model)
    assert type(compiled).__name__ == "OptimizedModule"
    assert type(compiled).__module__.endswith("._dynamo.eval_frame")
    assert type(compiled) is fg._dynamo.OptimizedModule
    assert isinstance(compiled, fg.nn.Module) and compiled._orig_mod is model
    assert list(compiled._modules) == ["_orig_mod"]
    assert list(compiled.state_dict()) == [
        "_orig_mod.0.weight",
        "_orig_mod.0.bias",
        "_orig_mod.2.weight",
        "_orig_mod.2.bias",
    ]
    assert [name for name, _ in compiled.named_parameters()] == list(compiled.state_dict())
    assert repr(compiled) == "OptimizedModule(\n  (_orig_mod): " + repr(model).replace("\n", "\n  ") + "\n)"
    assert len(compiled) == 3


def test_attributes_read_and_write_through_to_the_original():
    lin = fg.nn.Linear(2, 3)
    compiled = fg.compile(lin)
    assert compiled.weight is lin.weight and compiled.in_features == 2
    compiled.note = "kept"
    assert lin.note == "kept" and "note" not in compiled.__dict__
    del compiled.note
    assert not hasattr(lin, "note")
    compiled.eval()
    assert lin.training is False and compiled.training is False
    compiled.train()
    assert lin.training is True
    lin.eval()
    assert compiled.training is False
    assert "weight" in dir(compiled)
    with pytest.raises(TypeError, match="^Linear does not support len\\(\\)$"):
        len(compiled)
    with pytest.raises(AttributeError):
        compiled.no_such_attribute  # noqa: B018


def test_results_and_gradients_are_the_eager_ones():
    model = _mlp()
    x = _inputs()
    want = model(x)
    want.sum().backward()
    want_grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    compiled = fg.compile(model, backend="eager")
    got = compiled(x)
    assert fg.equal(got, want)
    got.sum().backward()
    for p, g in zip(model.parameters(), want_grads):
        assert fg.equal(p.grad, g)


def test_state_dicts_move_between_compiled_modules_not_to_plain_ones():
    source = fg.compile(fg.nn.Linear(2, 3), backend="eager")
    target_model = fg.nn.Linear(2, 3)
    target = fg.compile(target_model, backend="eager")
    target.load_state_dict(source.state_dict())
    assert fg.equal(target_model.weight, source.weight)
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "weight", "bias"'):
        fg.nn.Linear(2, 3).load_state_dict(source.state_dict())
    # the usual fix: load the original module's own state dict
    fg.nn.Linear(2, 3).load_state_dict(source._orig_mod.state_dict())


def test_decorator_forms_and_functions():
    def double(x):
        return x * 2

    compiled = fg.compile(double, backend="eager")
    assert compiled.__wrapped__ is double and compiled.__name__ == "double"

    @fg.compile(backend="eager")
    def triple(x):
        return x * 3

    @fg.compile(fullgraph=True, dynamic=False, backend="eager")
    def halve(x):
        return x / 2

    x = fg.tensor([1.0, 2.0])
    assert compiled(x).tolist() == [2.0, 4.0] and triple(x).tolist() == [3.0, 6.0]
    assert halve(x).tolist() == [0.5, 1.0]
    decorate = fg.compile(mode="reduce-overhead")
    assert callable(decorate)
    with pytest.raises(RuntimeError, match="^Model can't be None$"):
        decorate(None)


def test_the_bare_decorator_with_the_default_backend():
    @fg.compile
    def add_one(x):
        return x + 1

    assert add_one.__name__ == "add_one"
    assert add_one(fg.tensor([1.0, 2.0])).tolist() == [2.0, 3.0]


def test_disable_returns_the_model_itself():
    lin = fg.nn.Linear(2, 2)
    assert fg.compile(lin, disable=True) is lin

    def f(x):
        return x

    assert fg.compile(f, disable=True) is f


def test_arguments_are_checked_as_torch_checks_them():
    lin = fg.nn.Linear(2, 2)
    with pytest.raises(RuntimeError, match="^Either mode or options can be specified, but both can't be specified"):
        fg.compile(lin, mode="default", options={"a": 1})
    with pytest.raises(RuntimeError) as info:
        fg.compile(lin, mode="fastest")
    assert str(info.value) == (
        "Unrecognized mode=fastest, should be one of: default, lite, reduce-overhead, max-autotune-no-cudagraphs, "
        "max-autotune"
    )
    with pytest.raises(RuntimeError) as info:
        fg.compile(lin, backend="nope")
    assert type(info.value).__name__ == "InvalidBackend"
    assert str(info.value) == "Invalid backend: 'nope'. See `torch._dynamo.list_backends()` for available backends."
    with pytest.raises(AssertionError, match="^A callable function is expected, but <class 'int'> is provided.$"):
        fg.compile(3)
    for mode in ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"):
        assert isinstance(fg.compile(lin, mode=mode), fg.nn.Module)
    assert isinstance(fg.compile(lin, backend="eager", mode="anything"), fg.nn.Module)  # modes are inductor's


def test_pickling_keeps_the_wrapper():
    compiled = fg.compile(fg.nn.Linear(2, 3), backend="eager")
    copy = pickle.loads(pickle.dumps(compiled))
    assert type(copy) is type(compiled) and fg.equal(copy.weight, compiled.weight)
    assert list(copy.state_dict()) == ["_orig_mod.weight", "_orig_mod.bias"]


def test_dynamo_and_compiler_bits_scripts_touch():
    assert fg._dynamo.config.suppress_errors is False
    fg._dynamo.config.suppress_errors = True
    try:
        assert fg._dynamo.config.suppress_errors is True
    finally:
        fg._dynamo.config.suppress_errors = False
    assert fg._dynamo.config.cache_size_limit == 8
    assert fg._dynamo.reset() is None
    assert fg.compiler.is_compiling() is False and fg._dynamo.is_compiling() is False
    assert fg.compiler.reset() is None
    assert "inductor" in fg._dynamo.list_backends() and "eager" not in fg._dynamo.list_backends()
    assert "eager" in fg._dynamo.list_backends(exclude_tags=None)
