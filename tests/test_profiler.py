"""The profiler: which ops and backward nodes a program records (against PyTorch's, recorded in
tests/golden/profiler.json), how ranges nest and self times add up, the schedule's actions and windows, the
table's columns, the Chrome trace, and that profiling off records nothing.

ferrograd records each op a Python call runs as one event (`aten::matmul`; PyTorch also records the `aten::mm`
and `aten::resolve_conj` it runs inside) and each backward node without the ops its rule runs (the rules run in
Rust), so the comparison is on what both record: the ops called directly in a range, and the nodes the engine
ran. Input shapes: ferrograd records the op's tensor inputs; PyTorch adds `[]` for each non-tensor argument
(add's alpha, mean's dtype), so ferrograd's are a prefix of PyTorch's with only `[]` after it."""

import json
import os
import warnings

import ferrograd as fg
import profiler_cases
import pytest
from ferrograd.autograd.profiler import profile, record_function
from helpers import AGAINST_TORCH

GOLDEN_PATH = os.path.join(os.path.dirname(__file__), "golden", "profiler.json")
with open(GOLDEN_PATH) as _f:
    GOLDEN = json.load(_f)

ferrograd_only = pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd's own event buffer")


@pytest.fixture(scope="module")
def program():
    return profiler_cases.profiled_program(fg)


def test_forward_ops_are_torchs(program):
    ops = profiler_cases.forward_ops(program)
    assert [name for name, _ in ops] == [name for name, _ in GOLDEN["forward_ops"]]
    for (name, shapes), (_, torch_shapes) in zip(ops, GOLDEN["forward_ops"]):
        assert shapes == torch_shapes[: len(shapes)], name
        assert all(s == [] for s in torch_shapes[len(shapes) :]), name


def test_backward_nodes_are_torchs(program):
    assert profiler_cases.backward_nodes(program) == GOLDEN["backward_nodes"]


def test_backward_node_events_nest_in_the_engines(program):
    prefix = "autograd::engine::evaluate_function: "
    engine_events = [e for e in program.function_events if e.name.startswith(prefix)]
    assert engine_events
    for e in engine_events:
        node = [c for c in e.cpu_children if c.name == e.name[len(prefix) :]]
        assert len(node) == 1, e.name
        assert e.time_range.start <= node[0].time_range.start <= node[0].time_range.end <= e.time_range.end


def test_user_ranges_nest_and_self_time_is_total_minus_children():
    x = fg.ones(8)
    with profile() as prof:
        with record_function("outer"):
            with record_function("inner1"):
                x = x + 1
            with record_function("inner2"):
                with record_function("inner3"):
                    x = x * 2
    events = {e.name: e for e in prof.function_events if e.name in ("outer", "inner1", "inner2", "inner3")}
    assert events["outer"].cpu_parent is None
    assert events["inner1"].cpu_parent is events["outer"]
    assert events["inner2"].cpu_parent is events["outer"]
    assert events["inner3"].cpu_parent is events["inner2"]
    assert all(e.is_user_annotation for e in events.values())
    for e in prof.function_events:
        assert e.self_cpu_time_total == pytest.approx(
            e.cpu_time_total - sum(c.cpu_time_total for c in e.cpu_children), abs=1e-6
        )
        assert e.self_cpu_time_total >= -1e-6
    # self times split the top-level ranges' time between every event, none counted twice
    top = sum(e.cpu_time_total for e in prof.function_events if e.cpu_parent is None)
    assert prof.self_cpu_time_total == pytest.approx(top, rel=1e-9, abs=1e-6)
    assert events["outer"].cpu_time_total >= events["inner1"].cpu_time_total + events["inner2"].cpu_time_total


def test_record_function_as_decorator():
    @record_function("decorated")
    def f(x):
        return x * 2

    with profile() as prof:
        f(fg.ones(3))
    (event,) = [e for e in prof.function_events if e.name == "decorated"]
    assert "aten::mul" in [c.name for c in event.cpu_children]


def test_key_averages_count_and_sum():
    x = fg.ones(4)
    with profile() as prof:
        for _ in range(5):
            x = x + 1
        x = x.relu()
    averages = {a.key: a for a in prof.key_averages()}
    adds = [e for e in prof.function_events if e.name == "aten::add"]
    assert averages["aten::add"].count == 5 == len(adds)
    assert averages["aten::add"].cpu_time_total == pytest.approx(sum(e.cpu_time_total for e in adds))
    assert averages["aten::add"].self_cpu_time_total == pytest.approx(sum(e.self_cpu_time_total for e in adds))
    assert averages["aten::add"].cpu_time == pytest.approx(averages["aten::add"].cpu_time_total / 5)
    assert averages["aten::relu"].count == 1


def test_group_by_input_shape():
    with profile(record_shapes=True) as prof:
        fg.ones(2, 3).relu()
        fg.ones(4).relu()
        fg.ones(4).relu()
    groups = [(a.key, a.input_shapes, a.count) for a in prof.key_averages(group_by_input_shape=True)]
    relus = [g for g in groups if g[0] == "aten::relu"]
    assert relus == [("aten::relu", [[2, 3]], 1), ("aten::relu", [[4]], 2)]


def _columns(header_line):
    return [c for c in header_line.strip().split("  ") if c.strip()]


def test_table_columns_are_torchs(program):
    grouped = program.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total")
    lines = grouped.splitlines()
    assert [c.strip() for c in _columns(lines[1])] == [c.strip() for c in _columns(GOLDEN["table_header"])]
    assert set(lines[0]) == {"-", " "} and lines[0] == lines[2]
    plain = program.key_averages().table(sort_by="self_cpu_time_total").splitlines()
    # the name column is 55 wide (the engine's AccumulateGrad event is longer), the others 12: the same line
    assert plain[1] == GOLDEN["table_header_ungrouped"]
    assert plain[-1].startswith("Self CPU time total: ")


@pytest.mark.parametrize("sort_by", ["self_cpu_time_total", "cpu_time_total", "count"])
def test_table_sorts_and_limits(program, sort_by):
    averages = program.key_averages()
    table = averages.table(sort_by=sort_by, row_limit=4)
    rows = table.splitlines()[3:-2]
    assert len(rows) == 4
    expected = sorted(averages, key=lambda a: getattr(a, sort_by), reverse=True)[:4]
    for row, avg in zip(rows, expected):
        assert row.strip().split("  ")[0] in (avg.key, avg.key[:52] + "...")
        assert row.split()[-1] == str(avg.count)


def test_chrome_trace(tmp_path, program):
    path = tmp_path / "trace.json"
    program.export_chrome_trace(str(path))
    with open(path) as f:
        trace = json.load(f)
    complete = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    assert complete
    for e in complete:
        assert {"name", "ph", "ts", "dur", "pid", "tid", "cat"} <= set(e)
        assert e["dur"] >= 0
    by_name = {e["name"]: e for e in complete}
    assert by_name["forward"]["cat"] == "user_annotation"
    assert by_name["aten::matmul"]["cat"] == "cpu_op"
    forward, matmul = by_name["forward"], by_name["aten::matmul"]
    assert forward["ts"] <= matmul["ts"] and matmul["ts"] + matmul["dur"] <= forward["ts"] + forward["dur"] + 1e-3


def test_schedule_actions_are_torchs():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert profiler_cases.schedule_actions(fg) == GOLDEN["schedule_actions"]


def test_schedule_windows_are_torchs():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert profiler_cases.schedule_windows(fg) == GOLDEN["schedule_windows"]


def test_schedule_rejects_bad_arguments():
    with pytest.raises(AssertionError, match="Invalid profiler schedule arguments"):
        fg.profiler.schedule(wait=0, warmup=0, active=0)
    with pytest.warns(UserWarning, match="warmup"):
        fg.profiler.schedule(wait=1, warmup=0, active=1)


def test_tensorboard_trace_handler_writes_traces(tmp_path):
    out = tmp_path / "logs"
    sched = fg.profiler.schedule(wait=0, warmup=1, active=1, repeat=2)
    x = fg.ones(3)
    with fg.profiler.profile(
        activities=[fg.profiler.ProfilerActivity.CPU],
        schedule=sched,
        on_trace_ready=fg.profiler.tensorboard_trace_handler(str(out), worker_name="worker0"),
    ) as prof:
        for _ in range(5):
            x = x + 1
            prof.step()
    files = sorted(os.listdir(out))
    assert len(files) == 2
    for name in files:
        assert name.startswith("worker0.") and name.endswith(".pt.trace.json")
        with open(out / name) as f:
            names = [e["name"] for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
        assert "aten::add" in names


def test_profile_without_schedule_records_everything():
    with fg.profiler.profile(activities=[fg.profiler.ProfilerActivity.CPU], record_shapes=True) as prof:
        fg.ones(2, 2).exp()
    assert "aten::exp" in [e.name for e in prof.events()]
    assert "aten::exp" in prof.key_averages().table()


def test_disabled_profile_binds_none_and_records_nothing():
    with profile(enabled=False) as prof:
        fg.ones(3) + 1
    assert prof is None
    x = fg.ones(3)
    for _ in range(10):
        x = x + 1  # before the profile: not in it
    with profile() as prof:
        with record_function("only"):
            pass
    assert [e.name for e in prof.function_events] == ["only"]


@ferrograd_only
def test_off_buffers_nothing_and_a_long_profile_leaves_nothing_behind():
    from ferrograd import _core

    x = fg.ones(4)
    for _ in range(1000):
        x = x + 1
    assert _core._profiler_buffered() == (0, 0)
    for _ in range(3):
        with profile(record_shapes=True) as prof:
            for _ in range(20000):
                x = x + 1
        assert len(prof.function_events) == 20000
        assert _core._profiler_buffered() == (0, 0)
        for _ in range(1000):
            x = x + 1
        assert _core._profiler_buffered() == (0, 0)
    assert not _core._profiler_enabled()


# ops whose event PyTorch names the same at the top level, however it runs them inside
NAMED_OPS = [
    ("aten::exp", lambda x: x.exp()),
    ("aten::sigmoid", lambda x: x.sigmoid()),
    ("aten::sum", lambda x: x.sum()),
    ("aten::t", lambda x: x.t()),
    ("aten::view", lambda x: x.view(6)),
    ("aten::reshape", lambda x: x.reshape(3, 2)),
    ("aten::select", lambda x: x[0]),
    ("aten::slice", lambda x: x[:, 1:]),
    ("aten::sub", lambda x: x - 1),
    ("aten::div", lambda x: x / 2),
    ("aten::pow", lambda x: x**2),
    ("aten::neg", lambda x: -x),
    ("aten::add_", lambda x: x.add_(1)),
    ("aten::mul_", lambda x: x.mul_(2)),
    ("aten::clone", lambda x: x.clone()),
    ("aten::max", lambda x: x.max()),
    ("aten::softmax", lambda x: x.softmax(1)),
    ("aten::cat", lambda x: fg.cat([x, x])),
    ("aten::zeros", lambda x: fg.zeros(2, 3)),
    ("aten::ones", lambda x: fg.ones(2, 3)),
    ("aten::linear", lambda x: fg.nn.functional.linear(x, fg.ones(4, 3))),
    ("aten::item", lambda x: x.sum().item()),
]


@pytest.mark.parametrize("name, op", NAMED_OPS, ids=[n for n, _ in NAMED_OPS])
def test_ops_are_named_as_torch_names_them(name, op):
    x = fg.ones(2, 3)
    with profile() as prof:
        op(x)
    top = [e.name for e in prof.function_events if e.cpu_parent is None]
    assert top[-1] == name


def test_a_table_sorts_by_the_device_columns_and_use_cuda_is_refused_as_in_torch_2_15():
    """pytorch/tutorials' scaled_dot_product_attention tutorial sorts its table by "cuda_time_total"; on a
    CPU-only run the device times are 0, so the table keeps its order. torch 2.15 took `use_cuda` out."""
    with profile() as prof:
        (fg.ones(3) * 2).sum()
    averages = prof.key_averages()
    assert all(e.device_time_total == 0 and e.self_device_time_total == 0 for e in averages)
    table = averages.table(sort_by="cuda_time_total", row_limit=10)
    assert "aten::sum" in table and "aten::mul" in table
    with pytest.raises(TypeError, match="unexpected keyword argument 'use_cuda'"):
        profile(use_cuda=False)
