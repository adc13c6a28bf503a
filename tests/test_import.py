"""`import ferrograd` stays light: numpy (~70 ms to import) is loaded only when a numpy feature is used."""

import subprocess
import sys

import pytest
from helpers import AGAINST_TORCH

pytestmark = pytest.mark.skipif(AGAINST_TORCH, reason="torch itself imports numpy")


def _modules_after(code):
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys\nprint(' '.join(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(out.stdout.split())


def test_import_leaves_numpy_out():
    mods = _modules_after("import ferrograd, ferrograd.nn, ferrograd.nn.functional, ferrograd.autograd")
    assert "ferrograd" in mods
    assert "numpy" not in mods


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


def test_ops_and_backward_need_no_numpy():
    code = (
        "import ferrograd as fg\n"
        "x = fg.ones(2, 2, requires_grad=True)\n"
        "out = ((x + 2) * (x + 2) * 3).mean()\n"
        "out.backward()\n"
        "assert x.grad.tolist() == [[4.5, 4.5], [4.5, 4.5]]\n"
    )
    assert "numpy" not in _modules_after(code)


def test_numpy_features_still_work_after_a_lazy_import():
    code = "import ferrograd as fg\nimport numpy as np\nassert fg.from_numpy(np.ones(3)).sum().item() == 3.0\n"
    assert "numpy" in _modules_after(code)
