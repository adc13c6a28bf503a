"""What torch.func's tutorials reach besides the transforms: `utils.benchmark.Timer` (its measurement and printed
summary), `utils._pytree` (flattening and the TreeSpec repr that vmap's errors print), and functorch's
pre-2.0 names (`make_functional_with_buffers`, the deprecated transforms), which tools/run_as_torch.py gives a
program's `import functorch`."""

import importlib
import re
import warnings

import benchmark_compare_cases
import ferrograd as fg
import ferrograd.nn as nn
import numpy as np
import pytest
from ferrograd.utils import _pytree
from ferrograd.utils.benchmark import Timer
from helpers import AGAINST_TORCH, golden


def _functorch():
    return importlib.import_module("functorch" if AGAINST_TORCH else "ferrograd._functorch_api")


def test_timer_measures_and_prints_as_torch():
    calls = []
    m = Timer(stmt="f()", globals={"f": lambda: calls.append(1)}).timeit(10)
    assert len(calls) == 10 + 2  # the warm-up: a hundredth of the runs, at least 2
    assert m.number_per_run == 10 and len(m.times) == 1 and m.times[0] > 0
    lines = repr(m).splitlines()
    assert re.fullmatch(r"<\w+(\.\w+)*\.Measurement object at 0x[0-9a-f]+>", lines[0]), lines[0]
    assert lines[1] == "f()"
    assert re.fullmatch(r"  \d+\.\d\d (ns|us|ms|s)", lines[2]), lines[2]
    assert lines[3] == "  1 measurement, 10 runs , 1 thread"
    assert len(lines) == 4


def test_timer_setup_and_label():
    m = Timer(stmt="y = x * 2", setup="x = 3", label="double").timeit(5)
    lines = repr(m).splitlines()
    assert lines[1] == "double"
    assert lines[2] == "setup: x = 3"


def test_blocked_autorange_measures_blocks_and_prints_the_iqr():
    """pytorch/tutorials' benchmark and timer_quick_start recipes: `blocked_autorange` picks a block size, then
    measures blocks until `min_run_time`; the summary has the IQR line from four measurements on; `torch` is a
    global of the statement without being given, and a multi-line setup prints indented."""
    calls = []
    timer = Timer(stmt="f(torch.ones(2))", setup="a = 1\nb = 2", globals={"f": lambda t: calls.append(t)}, label="ones")
    m = timer.blocked_autorange(min_run_time=0.05)
    assert len(m.times) >= 1 and all(t > 0 for t in m.times) and m.number_per_run >= 1
    assert sum(m.raw_times) >= 0.05 and isinstance(calls[-1], fg.Tensor)
    times = sorted(m.times)
    assert min(times) <= m.median <= max(times) and m.iqr >= 0
    lines = repr(m).splitlines()
    assert lines[1:6] == ["ones", "setup:", "  a = 1", "  b = 2", ""]
    assert re.fullmatch(r"  Median: \d+\.\d\d (ns|us|ms|s)", lines[6]) or len(m.times) == 1, lines[6]
    if len(m.times) >= 4:
        assert re.fullmatch(r"  IQR:    \d+\.\d\d \w+ \(\d+\.\d\d to \d+\.\d\d\)", lines[7]), lines[7]
    n = len(m.times)
    runs = f"{n} measurement{'s' if n > 1 else ''}, {m.number_per_run} runs {'per measurement,' if n > 1 else ','}"
    runs += " 1 thread"
    assert f"  {runs}" in lines
    adaptive = Timer(stmt="x * 2", setup="x = torch.ones(3)").adaptive_autorange(max_run_time=0.2)
    assert len(adaptive.times) >= 1 and adaptive.median > 0
    from ferrograd.utils.benchmark import Language

    assert Language.PYTHON.value == 0 and Language.CPP.value == 1
    assert Timer("x", "x = 1", language=Language.PYTHON).timeit(3).number_per_run == 3


def _measurement(times, **task):
    """A measurement of 10 runs a time (torch builds one from a TaskSpec, ferrograd from the task's fields)."""
    raw = [t * 10 for t in times]
    if AGAINST_TORCH:
        from torch.utils.benchmark.utils.common import Measurement, TaskSpec

        return Measurement(number_per_run=10, raw_times=raw, task_spec=TaskSpec(stmt="f(x)", setup="pass", **task))
    from ferrograd.utils.benchmark import Measurement

    return Measurement(10, raw, "f(x)", "pass", **task)


def test_compare_prints_torchs_tables():
    """pytorch/tutorials' benchmark recipe prints its measurements through `Compare`: one table a label, rows by
    threads then sub-label, columns by description; trimmed, colorized and with warnings as torch prints them
    (recorded from torch, tests/golden/benchmark_compare.json)."""
    from ferrograd.utils.benchmark import Compare

    tables = benchmark_compare_cases.tables(Compare(benchmark_compare_cases.measurements(_measurement)))
    assert tables == golden("benchmark_compare")["tables"]
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`"):
        Compare([1.0])


def test_pytree_round_trip_and_repr():
    tree = ((1, 2), {"a": 3, "b": [4]})
    leaves, spec = _pytree.tree_flatten(tree)
    assert leaves == [1, 2, 3, 4]
    assert _pytree.tree_unflatten([5, 6, 7, 8], spec) == ((5, 6), {"a": 7, "b": [8]})
    assert repr(spec) == (
        "TreeSpec(tuple, None, [TreeSpec(tuple, None, [*,\n    *]),\n  TreeSpec(dict, ['a', 'b'], [*,\n"
        "    TreeSpec(list, None, [*])])])"
    )
    assert _pytree.tree_map(lambda v: v * 10, tree) == ((10, 20), {"a": 30, "b": [40]})
    assert repr(_pytree.tree_flatten(fg.ones(1))[1]) == "*"
    with pytest.raises(ValueError):
        spec.unflatten([1, 2])


def test_make_functional_with_buffers_matches_the_module():
    ft = _functorch()
    fg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4)).double().eval()
    x = fg.tensor(np.random.default_rng(0).uniform(-1, 1, (5, 3)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        func, params, buffers = ft.make_functional_with_buffers(model)
    assert any("`functorch.make_functional_with_buffers` is deprecated" in str(w.message) for w in caught)
    assert len(params) == 4 and len(buffers) == 3
    np.testing.assert_allclose(func(params, buffers, x).detach().numpy(), model(x).detach().numpy())
    doubled = tuple(p * 2 for p in params)
    assert not np.allclose(func(doubled, buffers, x).detach().numpy(), model(x).detach().numpy())


def test_functorch_transforms_warn_and_agree():
    ft = _functorch()
    x = fg.tensor([0.5, -1.0], dtype=fg.float64)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out, tangent = ft.jvp(fg.sin, (x,), (fg.ones(2, dtype=fg.float64),))
        g = ft.grad(lambda a: a.sin().sum())(x)
    messages = [str(w.message) for w in caught]
    assert any("`functorch.jvp` is deprecated" in m and "`torch.func.jvp`" in m for m in messages)
    assert any("`functorch.grad` is deprecated" in m for m in messages)
    np.testing.assert_allclose(tangent.numpy(), np.cos([0.5, -1.0]))
    np.testing.assert_allclose(g.numpy(), np.cos([0.5, -1.0]))
