"""`jit` (script, trace and the decorators) and `futures`: what a program that scripts or traces a model and
goes on in Python sees. Runs against torch too (FG_TEST_AGAINST_TORCH=1); where ferrograd refuses by design
(TorchScript archives), the test says so and checks torch's other answer."""

import copy
import io
import warnings

import ferrograd as fg
import ferrograd.nn as nn
import numpy as np
import pytest
from helpers import AGAINST_TORCH

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.drop = nn.Dropout(0.5)
        self.register_buffer("offset", fg.ones(2))

    def forward(self, x):
        return self.drop(self.scaled(x)) + self.offset

    def scaled(self, x):
        return self.fc(x).relu() * 2


def make_net():
    fg.manual_seed(0)
    return Net()


def test_script_module_shares_parameters_and_keeps_its_own_mode():
    net = make_net()
    scripted = fg.jit.script(net)
    assert isinstance(scripted, fg.jit.ScriptModule) and isinstance(scripted, nn.Module)
    assert type(scripted).__name__ == "RecursiveScriptModule" and scripted.original_name == "Net"
    assert type(scripted.fc).__name__ == "RecursiveScriptModule" and scripted.fc.original_name == "Linear"
    assert scripted.fc.weight is net.fc.weight and scripted.offset is net.offset
    assert list(scripted.state_dict()) == list(net.state_dict()) == ["offset", "fc.weight", "fc.bias"]
    scripted.eval()
    assert net.training and net.drop.training and not scripted.drop.training
    x = fg.arange(6.0).reshape(2, 3)
    net.eval()
    np.testing.assert_array_equal(scripted(x).detach().numpy(), net(x).detach().numpy())
    scripted(x).sum().backward()
    assert net.fc.weight.grad is not None and net.fc.weight.grad.shape == (2, 3)


def test_script_module_repr_is_torchs():
    scripted = fg.jit.script(nn.Sequential(nn.Linear(2, 2), nn.ReLU()))
    assert repr(scripted) == (
        "RecursiveScriptModule(\n  original_name=Sequential\n  (0): RecursiveScriptModule(original_name=Linear)\n"
        "  (1): RecursiveScriptModule(original_name=ReLU)\n)"
    )
    assert tuple(scripted(fg.ones(4, 2)).shape) == (4, 2)


def test_trace_module_runs_the_example_and_prints_as_torch():
    net = make_net().eval()
    seen = []

    def record(module, args, output):
        seen.append(fg.jit.is_tracing())

    handle = net.register_forward_hook(record)
    traced = fg.jit.trace(net, fg.ones(1, 3))
    handle.remove()
    assert seen and seen[0] is True and not fg.jit.is_tracing()  # torch checks the trace by running it again
    assert type(traced).__name__ == "TopLevelTracedModule" and isinstance(traced, fg.jit.ScriptModule)
    assert repr(traced) == (
        "Net(\n  original_name=Net\n  (fc): Linear(original_name=Linear)\n  (drop): Dropout(original_name=Dropout)\n)"
    )
    x = fg.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(traced(x).detach().numpy(), net(x).detach().numpy())


def test_script_and_trace_functions():
    def f(x, y):
        return x * y + 1

    scripted = fg.jit.script(f)
    assert type(scripted).__name__ == "ScriptFunction" and scripted.name == "f"
    assert scripted(fg.ones(2), fg.full((2,), 3.0)).tolist() == [4.0, 4.0]
    traced = fg.jit.trace(f, (fg.ones(2), fg.ones(2)))
    assert traced.name == "f"
    assert traced(fg.full((3,), 2.0), fg.full((3,), 2.0)).tolist() == [5.0, 5.0, 5.0]
    assert fg.jit.script(scripted) is scripted
    # a list is the arguments, as a tuple is (pytorch/tutorials' tuning_guide: `trace(model, [example])`)
    assert fg.jit.trace(f, [fg.ones(2), fg.ones(2)])(fg.ones(1), fg.ones(1)).tolist() == [2.0]
    linear = fg.nn.Linear(2, 2).eval()
    assert fg.jit.trace(linear, [fg.rand(1, 2)])(fg.rand(1, 2)).shape == (1, 2)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'y'"):
        fg.jit.trace(f, [[fg.ones(1), fg.ones(1)]])


def test_the_example_runs_with_its_errors():
    def f(x, y):
        return x + y

    with pytest.raises(TypeError, match="missing 1 required positional argument: 'y'"):
        fg.jit.trace(f, fg.ones(2))
    with pytest.raises(AttributeError, match="expected a dictionary of"):
        fg.jit.trace_module(nn.Linear(1, 1), 3)


def test_deprecation_warnings_are_torchs():
    def f(x):
        return x

    expected = {
        "script": "`torch.jit.script` is deprecated. Please switch to `torch.compile` or `torch.export`.",
        "trace": "`torch.jit.trace` is deprecated. Please switch to `torch.compile` or `torch.export`.",
        "fork": "`torch.jit.fork` is deprecated. Please use `torch.compile` instead.",
        "wait": "`torch.jit.wait` is deprecated. Please use `torch.compile` instead.",
    }
    calls = {
        "script": lambda: fg.jit.script(f),
        "trace": lambda: fg.jit.trace(f, fg.ones(1)),
        "fork": lambda: fg.jit.fork(f, fg.ones(1)),
        "wait": lambda: fg.jit.wait(fg.jit.fork(f, fg.ones(1))),
    }
    for name, call in calls.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        messages = [str(w.message) for w in caught if w.category is FutureWarning]
        assert expected[name] in messages, (name, messages)


def test_decorators_and_helpers_leave_python_as_it_is():
    def g(x):
        return x + 1

    assert fg.jit.ignore(g) is g and fg.jit.ignore(drop=True)(g) is g
    assert fg.jit.unused(g) is g and fg.jit.export(g) is g
    assert fg.jit.annotate(int, 3) == 3
    assert fg.jit.is_scripting() is False
    assert fg.jit.isinstance([1, 2], list[int]) and not fg.jit.isinstance([1, "a"], list[int])
    assert fg.jit.isinstance({"a": 1}, dict[str, int]) and not fg.jit.isinstance((1,), tuple[int, int])
    assert tuple(fg.jit.Attribute(3, int)) == (3, int)
    assert fg.jit.set_fusion_strategy([("DYNAMIC", 3)]) == [("STATIC", 2), ("DYNAMIC", 10)]
    assert fg.jit.set_fusion_strategy([("STATIC", 2), ("DYNAMIC", 10)]) == [("DYNAMIC", 3)]
    with fg.jit.optimized_execution(False), fg.jit.fuser("fuser1"):
        pass
    with pytest.raises(Exception, match=r"unrecognized fuser option \(name: fuser9\)"):
        with fg.jit.fuser("fuser9"):
            pass


def test_freeze_and_optimize_check_as_torch():
    with pytest.raises(RuntimeError, match="Freezing expects a ScriptModule as input"):
        fg.jit.freeze(nn.Linear(1, 1))
    scripted = fg.jit.script(nn.Linear(1, 1))
    with pytest.raises(RuntimeError, match="only implemented for modules in eval mode"):
        fg.jit.freeze(scripted)
    frozen = fg.jit.freeze(scripted.eval())
    assert isinstance(frozen, fg.jit.ScriptModule)
    assert frozen(fg.ones(1, 1)).shape == (1, 1)
    with pytest.raises(RuntimeError, match="optimize_for_inference expects a ScriptModule as input"):
        fg.jit.optimize_for_inference(nn.Linear(1, 1))


def test_script_refuses_what_torch_refuses():
    with pytest.raises(TypeError, match="<class 'int'> is a built-in class"):
        fg.jit.script(3)


def test_script_modules_deepcopy_but_do_not_pickle():
    scripted = fg.jit.script(nn.Linear(2, 2))
    duplicate = copy.deepcopy(scripted)
    assert type(duplicate).__name__ == "RecursiveScriptModule"
    assert duplicate.weight is not scripted.weight and fg.equal(duplicate.weight, scripted.weight)
    with pytest.raises(
        RuntimeError,
        match=r"Tried to serialize object __torch__\.torch\.nn\.modules\.linear\.(___torch_mangle_\d+\.)?Linear ",
    ):
        fg.save(scripted, io.BytesIO())


def test_load_checks_the_path_first(tmp_path):
    missing = str(tmp_path / "missing.pt")
    with pytest.raises(ValueError, match=f"The provided filename {missing} does not exist"):
        fg.jit.load(missing)
    with pytest.raises(ValueError, match="is a directory"):
        fg.jit.load(str(tmp_path))


@pytest.mark.skipif(AGAINST_TORCH, reason="torch writes and runs TorchScript archives; ferrograd refuses them")
def test_torchscript_archives_are_refused_with_the_way_out(tmp_path):
    scripted = fg.jit.script(nn.Linear(2, 2))
    for call in (lambda: scripted.save(str(tmp_path / "m.pt")), lambda: fg.jit.save(scripted, io.BytesIO())):
        with pytest.raises(NotImplementedError, match=r"ferrograd.save\(model.state_dict\(\), path\)"):
            call()
    (tmp_path / "m.pt").write_bytes(b"PK\x03\x04")
    with pytest.raises(NotImplementedError, match="cannot run TorchScript archives"):
        fg.jit.load(str(tmp_path / "m.pt"))


def test_fork_and_futures():
    future = fg.jit.fork(lambda a, b: a * b, fg.full((2,), 3.0), b=fg.full((2,), 2.0))
    assert fg.jit.wait(future).tolist() == [6.0, 6.0] and future.done()
    made = fg.futures.Future()
    assert not made.done()
    chained = made.then(lambda done: done.value() + 1)
    seen = []
    made.add_done_callback(lambda done: seen.append(done.value()))
    made.set_result(4)
    assert made.wait() == 4 and made.value() == 4 and chained.wait() == 5 and seen == [4]
    with pytest.raises(RuntimeError, match="Attempting to mark a completed Future as complete again"):
        made.set_result(5)
    failed = fg.futures.Future()
    failed.set_exception(ValueError("bad input"))
    with pytest.raises(ValueError, match="bad input"):
        failed.wait()
    assert fg.futures.wait_all([made, chained]) == [4, 5]
    assert [done.value() for done in fg.futures.collect_all([made, chained]).wait()] == [4, 5]
    assert isinstance(made, fg.Future)
