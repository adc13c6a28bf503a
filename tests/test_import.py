"""`import ferrograd` stays light: numpy (~70 ms to import), the subpackages (`nn`, `optim`, `autograd`, ...) and
the stdlib modules they need load only when first used, and every lazily loaded name still resolves as before.

The time itself is measured by benches/import_time.py (tests never assert times): here, what is imported."""

import subprocess
import sys

import pytest
from helpers import AGAINST_TORCH

# what torch imports is torch's business: the tests of what `import ferrograd` loads are ferrograd's only
ferrograd_only = pytest.mark.skipif(AGAINST_TORCH, reason="torch itself imports numpy and its subpackages")

# loaded on first use, each (with what they import in turn) a part of `import ferrograd` that most programs
# pay for only once they use it
LAZY_SUBMODULES = {
    "ferrograd._dynamo",
    "ferrograd.accelerator",
    "ferrograd.amp",
    "ferrograd.autograd",
    "ferrograd.backends",
    "ferrograd.compiler",
    "ferrograd.cpu",
    "ferrograd.cuda",
    "ferrograd.cuda.amp",
    "ferrograd.distributed",
    "ferrograd.distributions",
    "ferrograd.nn",
    "ferrograd.optim",
    "ferrograd.optim.lr_scheduler",
    "ferrograd.return_types",
    "ferrograd.sparse",
    "ferrograd.utils",
    "ferrograd.viz",
}


def _run(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def _modules_after(code):
    return set(_run(code + "\nimport sys\nprint(' '.join(sorted(sys.modules)))").split())


@ferrograd_only
def test_import_leaves_numpy_out():
    mods = _modules_after("import ferrograd, ferrograd.nn, ferrograd.nn.functional, ferrograd.autograd")
    assert "ferrograd" in mods
    assert "numpy" not in mods


@ferrograd_only
def test_import_leaves_the_heavy_optional_parts_for_first_use():
    # utils.data (dataclasses, traceback, re, queue for its workers), distributed and nn.parallel (mpi4py),
    # and typing (the generated function forms) load when first used, not with `import ferrograd`
    mods = _modules_after("import ferrograd")
    assert {"ferrograd.utils.data", "ferrograd.distributed", "ferrograd.nn.parallel", "mpi4py"}.isdisjoint(mods)
    assert {"typing", "dataclasses", "inspect"}.isdisjoint(mods)
    used = _modules_after(
        "import ferrograd as fg\n"
        "assert fg.utils.data.TensorDataset(fg.ones(3))[0][0].item() == 1.0\n"
        "assert fg.distributed.is_available() in (True, False)\n"
        "assert fg.nn.parallel.DistributedDataParallel.__name__ == 'DistributedDataParallel'\n"
    )
    assert {"ferrograd.utils.data", "ferrograd.distributed", "ferrograd.nn.parallel"} <= used


@ferrograd_only
def test_ops_and_backward_need_no_numpy():
    code = (
        "import ferrograd as fg\n"
        "x = fg.ones(2, 2, requires_grad=True)\n"
        "out = ((x + 2) * (x + 2) * 3).mean()\n"
        "out.backward()\n"
        "assert x.grad.tolist() == [[4.5, 4.5], [4.5, 4.5]]\n"
    )
    assert "numpy" not in _modules_after(code)


@ferrograd_only
def test_saving_and_loading_tensors_leaves_nn_for_first_use(tmp_path):
    # save looks for nn.Parameter only where nn is loaded (no Parameter exists before); load imports nn only
    # for a file that holds a parameter, which still loads as one in a fresh interpreter
    plain, params = str(tmp_path / "plain"), str(tmp_path / "params")
    code = (
        f"import ferrograd as fg\nfg.save({{'w': fg.ones(2)}}, {plain!r})\nassert fg.load({plain!r})['w'].sum() == 2\n"
    )
    assert "ferrograd.nn" not in _modules_after(code)
    _run(f"import ferrograd as fg\nfg.save({{'p': fg.nn.Parameter(fg.ones(2))}}, {params!r})")
    code = f"import ferrograd as fg\nprint(type(fg.load({params!r})['p']).__name__)"
    assert _run(code).split() == ["Parameter"]


@ferrograd_only
def test_numpy_features_still_work_after_a_lazy_import():
    code = "import ferrograd as fg\nimport numpy as np\nassert fg.from_numpy(np.ones(3)).sum().item() == 3.0\n"
    assert "numpy" in _modules_after(code)


@ferrograd_only
def test_import_leaves_the_subpackages_for_first_use():
    mods = _modules_after("import ferrograd")
    assert {"ferrograd", "ferrograd._core"} <= mods
    assert LAZY_SUBMODULES.isdisjoint(mods), sorted(LAZY_SUBMODULES & mods)


@ferrograd_only
def test_import_loads_no_stdlib_module_a_tensor_op_does_not_need():
    # functools brings collections (a third of what `import ferrograd` cost), copy brings weakref; those who
    # decorate, warn or deepcopy import them then; `from __future__ import annotations` imports `__future__`
    # at run time (the generated function forms quote their annotations instead). Against a bare
    # interpreter's modules: what `site` loads differs between Pythons and venvs.
    added = _modules_after("import ferrograd") - _modules_after("pass")
    assert {"functools", "collections", "copy", "weakref", "warnings", "importlib", "__future__"}.isdisjoint(added)


@ferrograd_only
def test_each_lazy_submodule_loads_on_first_access():
    for name in sorted(LAZY_SUBMODULES):
        parent, _, attr = name.rpartition(".")
        mods = _modules_after(f"import {parent}\nimport sys\nassert sys.modules[{parent!r}].{attr} is not None")
        assert name in mods


def test_lazy_submodules_resolve_as_eager_ones_did():
    code = """
import pickle
import ferrograd as torch
from ferrograd import nn as nn_from
import ferrograd.nn as nn
import ferrograd.optim.lr_scheduler as lr_scheduler_module
from ferrograd.nn import functional as F

assert nn_from is nn is torch.nn
assert torch.optim.lr_scheduler is lr_scheduler_module
lin = torch.nn.Linear(2, 3)
assert isinstance(lin, nn.Module) and isinstance(lin.weight, torch.nn.Parameter)
assert isinstance(lin.weight, torch.Tensor)
opt = torch.optim.SGD(lin.parameters(), lr=0.5)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.1)
opt.step()
sched.step()
assert abs(opt.param_groups[0]["lr"] - 0.05) < 1e-12
assert torch.nn.utils.clip_grad_norm_ is nn.utils.clip_grad_norm_
assert callable(torch.autograd.grad) and torch.autograd.Function.__name__ == "Function"
assert isinstance(torch.tensor([1.0, 3.0]).max(0), torch.return_types.max)
assert F.relu(torch.tensor([-1.0, 2.0])).tolist() == [0.0, 2.0]
assert torch.cuda.is_available() is False
assert torch.backends.mps.is_available() is False
assert torch.accelerator.is_available() is False
assert torch.autocast is torch.amp.autocast and torch.GradScaler is torch.amp.GradScaler
assert "autocast" in dir(torch) and torch.compile(lin, disable=True) is lin
assert torch.utils.data.TensorDataset(torch.ones(2))[1][0].item() == 1.0
assert {"nn", "optim", "autograd", "return_types", "utils", "cuda", "backends"} <= set(dir(torch))
assert "lr_scheduler" in dir(torch.optim) and "utils" in dir(torch.nn)
try:
    torch.no_such_submodule
except AttributeError as e:
    assert "no_such_submodule" in str(e)
else:
    raise AssertionError("an unknown attribute must raise AttributeError")
print(pickle.dumps({"model": lin, "sched": sched.state_dict()}).hex())
"""
    blob = _run(code).strip()
    # a fresh interpreter unpickles it without importing anything of ferrograd first
    check = f"""
import pickle
obj = pickle.loads(bytes.fromhex({blob!r}))
import ferrograd
assert isinstance(obj["model"], ferrograd.nn.Linear)
assert tuple(obj["model"].weight.shape) == (3, 2)
assert obj["sched"]["last_epoch"] == 1
print("ok")
"""
    assert _run(check).strip() == "ok"


@ferrograd_only
def test_python_adds_only_the_declared_attributes_to_the_rust_classes():
    # `_tensor_python` is the one place that does; the subpackages, loaded here too, add nothing
    code = (
        "import types, ferrograd, ferrograd.nn, ferrograd.optim, ferrograd.autograd, ferrograd.utils.data\n"
        "from ferrograd import _core, _tensor_python\n"
        "declared = {'Tensor': _tensor_python.TENSOR_ATTRIBUTES, 'dtype': _tensor_python.DTYPE_ATTRIBUTES}\n"
        "python = (types.FunctionType, property)\n"
        "for name in sorted(dir(_core)):\n"
        "    cls = getattr(_core, name)\n"
        "    if isinstance(cls, type):\n"
        "        added = {k: v for k, v in vars(cls).items() if isinstance(v, python)}\n"
        "        if added != declared.get(name, {}):\n"
        "            print(name, sorted(added))\n"
        "print(len(declared['Tensor']), len(declared['dtype']))\n"
    )
    # every Python attribute on a Rust class is a declared one, and each declared one is there
    assert _run(code).splitlines() == ["77 1"]
