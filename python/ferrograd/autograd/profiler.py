"""`ferrograd.autograd.profiler`: the events the core timed while a profile ran (ops, backward nodes, user
ranges), read as PyTorch's `FunctionEvent`s, averaged by name (`key_averages`), printed as PyTorch's table and
exported as a Chrome trace. Times are in microseconds, as in PyTorch.

The core records each op a Python call runs as one event (`aten::matmul`, not the `aten::mm` PyTorch runs inside
it), and each backward node as `autograd::engine::evaluate_function: <node>` around `<node>` (its rule runs in
Rust and records no ops of its own)."""

import functools
import json
import os
from collections import defaultdict

from .. import _core

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg", "FormattedTimesMixin"]

# the core's EventKind, by number
_OP, _USER_ANNOTATION, _EVALUATE_FUNCTION, _BACKWARD_RULE = range(4)
_ENGINE_PREFIX = "autograd::engine::evaluate_function: "
# PyTorch names a leaf's gradient sink by its C++ class
_NODE_NAMES = {"AccumulateGrad": "torch::autograd::AccumulateGrad"}


def _format_time(time_us):
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us, total_time_us):
    if total_time_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


class FormattedTimesMixin:
    """The `*_str` forms of the times, and `cpu_time` (the average per call)."""

    cpu_time_str = property(lambda self: _format_time(self.cpu_time))
    cpu_time_total_str = property(lambda self: _format_time(self.cpu_time_total))
    self_cpu_time_total_str = property(lambda self: _format_time(self.self_cpu_time_total))

    @property
    def cpu_time(self):
        return 0.0 if self.count == 0 else 1.0 * self.cpu_time_total / self.count

    # the device columns torch keeps beside the CPU ones: nothing runs on a device here, so they are 0 (a
    # table sorted by "cuda_time_total" keeps its order, as torch's on a CPU-only run)
    device_time_total = self_device_time_total = device_time = cuda_time = 0.0
    device_memory_usage = self_device_memory_usage = 0
    device_time_str = device_time_total_str = self_device_time_total_str = property(lambda self: _format_time(0.0))


class Interval:
    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        return self.end - self.start


class FunctionEvent(FormattedTimesMixin):
    """One timed range: an op, a backward node, or a `record_function` range."""

    def __init__(
        self,
        id,
        name,
        thread,
        start_us,
        end_us,
        input_shapes=None,
        sequence_nr=-1,
        is_user_annotation=False,
        trace_name=None,
    ):
        self.id = id
        self.name = name
        self.trace_name = name if trace_name is None else trace_name
        self.thread = thread
        self.time_range = Interval(start_us, end_us)
        self.input_shapes = input_shapes
        self.sequence_nr = sequence_nr
        self.is_user_annotation = is_user_annotation
        self.cpu_children = []
        self.cpu_parent = None
        self.count = 1
        self.node_id = -1
        self.stack = []
        self.is_async = False
        self.is_remote = False
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.device_type = "CPU"
        self.overload_name = ""

    @property
    def key(self):
        return self.name

    @property
    def cpu_time_total(self):
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(child.cpu_time_total for child in self.cpu_children)

    def __repr__(self):
        return (
            f"<FunctionEvent id={self.id} name={self.name} cpu_time={self.cpu_time_str} "
            f"start_us={self.time_range.start:.3f} end_us={self.time_range.end:.3f} "
            f"cpu_children={[c.id for c in self.cpu_children]} thread={self.thread} "
            f"input_shapes={self.input_shapes} seq_nr={self.sequence_nr}>"
        )


class FunctionEventAvg(FormattedTimesMixin):
    """The events of one name (and input shapes, when grouped by them) added together."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.is_user_annotation = False
        self.cpu_time_total = 0
        self.self_cpu_time_total = 0
        self.input_shapes = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.cpu_parent = None
        self.cpu_children = None
        self.overload_name = None

    def add(self, other):
        if self.key is None:
            self.key = other.key
            self.node_id = other.node_id
            self.is_user_annotation = other.is_user_annotation
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError("Expected other to be a FunctionEvent or FunctionEventAvg")
        if other.key != self.key:
            raise AssertionError(f"Expected keys to match, got {other.key} vs {self.key}")
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.count += other.count
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
            f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes}>"
        )


class EventList(list):
    """A list of events (or of averages) with PyTorch's summaries."""

    def __init__(self, *args, **kwargs):
        kwargs.pop("use_device", None)
        kwargs.pop("profile_memory", None)
        kwargs.pop("with_flops", None)
        super().__init__(*args, **kwargs)

    @property
    def self_cpu_time_total(self):
        return sum(event.self_cpu_time_total for event in self)

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0, group_by_overload_name=False):
        """One `FunctionEventAvg` per name (per name and input shapes when grouped), in order of first call."""
        stats = defaultdict(FunctionEventAvg)
        for event in self:
            key = (event.key, str(event.input_shapes)) if group_by_input_shapes else event.key
            stats[key].add(event)
            if group_by_input_shapes:
                stats[key].input_shapes = event.input_shapes
        return EventList(stats.values())

    def total_average(self):
        total = FunctionEventAvg()
        for event in self:
            total.cpu_time_total += event.cpu_time_total
            total.self_cpu_time_total += event.self_cpu_time_total
            total.count += event.count
        total.key = "Total"
        return total

    def table(
        self,
        sort_by=None,
        row_limit=100,
        max_src_column_width=75,
        max_name_column_width=55,
        max_shapes_column_width=80,
        header=None,
        top_level_events_only=False,
        time_unit=None,
    ):
        """PyTorch's table: Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg, # of Calls (and
        Input Shapes when grouped by them); `sort_by` is an attribute, largest first."""
        return _build_table(
            self,
            sort_by=sort_by,
            row_limit=row_limit,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width,
            header=header,
            top_level_events_only=top_level_events_only,
            time_unit=time_unit,
        )

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        """A JSON trace Chrome (chrome://tracing) and Perfetto open: one complete ("X") event per range."""
        pid = os.getpid()
        trace_events = []
        for event in self:
            args = {"External id": event.id}
            if event.sequence_nr >= 0:
                args["Sequence number"] = event.sequence_nr
            if event.input_shapes is not None and not event.is_user_annotation:
                args["Input Dims"] = event.input_shapes
            trace_events.append(
                {
                    "ph": "X",
                    "cat": "user_annotation" if event.is_user_annotation else "cpu_op",
                    "name": event.trace_name,
                    "pid": pid,
                    "tid": event.thread,
                    "ts": event.time_range.start,
                    "dur": event.time_range.elapsed_us(),
                    "args": args,
                }
            )
        trace = {"schemaVersion": 1, "deviceProperties": [], "displayTimeUnit": "ms", "traceEvents": trace_events}
        with open(path, "w") as f:
            json.dump(trace, f)


def _sort_key(sort_by):
    # PyTorch's names for the device columns, read as the CPU ones on a CPU-only build
    return sort_by.replace("cuda", "device").replace("xpu", "device").replace("privateuse1", "device")


def _build_table(
    events,
    sort_by=None,
    row_limit=100,
    max_name_column_width=55,
    max_shapes_column_width=80,
    header=None,
    top_level_events_only=False,
    time_unit=None,
):
    if len(events) == 0:
        return ""
    has_input_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    if sort_by is not None:
        key = _sort_key(sort_by)
        events = EventList(sorted(events, key=lambda e: getattr(e, key), reverse=True))

    name_width = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    shapes_width = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_width = min(shapes_width, max_shapes_column_width)

    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
    widths = [name_width] + [12] * (len(headers) - 1)
    if has_input_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_width)
    spacing = "  "
    row_format = "".join("{: >" + str(w) + "}" + spacing for w in widths)
    header_sep = "".join("-" * w + spacing for w in widths)
    line_length = sum(w + len(spacing) for w in widths) - len(spacing)

    def show(time_us, default):
        units = {"s": 1e6, "ms": 1e3, "us": 1.0}
        return f"{time_us / units[time_unit]:.3f}{time_unit}" if time_unit in units else default

    total = sum(e.self_cpu_time_total for e in events)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [header_sep, row_format.format(*headers), header_sep]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[: max_name_column_width - 3] + "..."
        row = [
            name,
            _format_time_share(e.self_cpu_time_total, total),
            show(e.self_cpu_time_total, e.self_cpu_time_total_str),
            _format_time_share(e.cpu_time_total, total),
            show(e.cpu_time_total, e.cpu_time_total_str),
            show(e.cpu_time, e.cpu_time_str),
            e.count,
        ]
        if has_input_shapes:
            row.append(str(e.input_shapes)[:shapes_width])
        lines.append(row_format.format(*row))
    lines += [header_sep, f"Self CPU time total: {show(total, _format_time(total))}"]
    return "".join(line + "\n" for line in lines)


def _function_events(raw, start_ns):
    """The core's events as `FunctionEvent`s (µs from the profile's start), each linked to its enclosing one on
    its thread: the core hands them over by thread and start, a range before those it holds."""
    events = EventList()
    open_ranges = []
    for i, (name, kind, start, end, thread, shapes, sequence_nr) in enumerate(raw):
        if kind == _EVALUATE_FUNCTION:
            name = _ENGINE_PREFIX + _NODE_NAMES.get(name, name)
        elif kind == _BACKWARD_RULE:
            name = _NODE_NAMES.get(name, name)
        trace_name = name
        if kind == _USER_ANNOTATION and name.startswith("ProfilerStep#"):
            # PyTorch averages the steps as one name, and keeps each step's own in the trace
            name = "ProfilerStep*"
        event = FunctionEvent(
            id=i + 1,
            name=name,
            trace_name=trace_name,
            thread=thread,
            start_us=(start - start_ns) / 1000.0,
            end_us=(end - start_ns) / 1000.0,
            input_shapes=shapes,
            sequence_nr=sequence_nr,
            is_user_annotation=kind == _USER_ANNOTATION,
        )
        while open_ranges and (
            open_ranges[-1].thread != thread or open_ranges[-1].time_range.end < event.time_range.end
        ):
            open_ranges.pop()
        if open_ranges:
            event.cpu_parent = open_ranges[-1]
            open_ranges[-1].cpu_children.append(event)
        open_ranges.append(event)
        events.append(event)
    # every thread's events, by start (as PyTorch lists them)
    events.sort(key=lambda e: e.time_range.start)
    return events


class profile:
    """`with profile() as prof:` times every op the block runs (and every backward node, and every
    `record_function` range); then `prof.key_averages().table(...)`, `prof.export_chrome_trace(path)`.
    `use_device`, `profile_memory` and `with_stack` are accepted and record nothing more on this CPU-only build
    (torch 2.15 no longer takes `use_cuda`)."""

    def __init__(
        self,
        enabled=True,
        *,
        use_device=None,
        record_shapes=False,
        with_flops=False,
        profile_memory=False,
        with_stack=False,
        with_modules=False,
        use_kineto=False,
        use_cpu=True,
        experimental_config=None,
        acc_events=False,
        custom_trace_id_callback=None,
    ):
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.use_device = None
        self.entered = False
        self.running = False
        self.function_events = None
        self._start_ns = 0

    def __enter__(self):
        if not self.enabled:
            return None  # as PyTorch: `with profile(enabled=False) as prof` binds None
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._start()
        return self

    def _start(self):
        self._start_ns = _core._profiler_now()
        _core._profiler_start(self.record_shapes)
        self.running = True

    def _stop(self):
        self.running = False
        raw = _core._profiler_stop()
        self.function_events = _function_events(raw, self._start_ns)

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.running:
            return None
        self._stop()
        return None

    def _check_finish(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def __repr__(self):
        if self.function_events is None:
            return "<unfinished torch.autograd.profile>"
        return repr(self.function_events)

    def __str__(self):
        if self.function_events is None:
            return "<unfinished torch.autograd.profile>"
        return str(self.function_events)

    def table(self, sort_by=None, row_limit=100, header=None, top_level_events_only=False, **kwargs):
        self._check_finish()
        return self.function_events.table(
            sort_by=sort_by, row_limit=row_limit, header=header, top_level_events_only=top_level_events_only, **kwargs
        )

    def export_chrome_trace(self, path):
        self._check_finish()
        return self.function_events.export_chrome_trace(path)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        self._check_finish()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n)

    def total_average(self):
        self._check_finish()
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        self._check_finish()
        return self.function_events.self_cpu_time_total


class record_function:
    """A named range in the profile (`with record_function("forward"):` or as a decorator); ranges nest. Costs
    one check when no profiler runs."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._start_ns = None

    def __enter__(self):
        self._start_ns = _core._profiler_now() if _core._profiler_enabled() else None
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if self._start_ns is not None:
            _core._profiler_record_range(self.name, self._start_ns)
            self._start_ns = None
        return None

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        return wrapped
