"""Programs run under the profiler both by PyTorch (recorded into tests/golden/profiler.json by
tests/golden/record_profiler.py) and by ferrograd (tests/test_profiler.py), and what is compared of them."""

import collections

import numpy as np

# (wait, warmup, active, repeat, skip_first) of the schedules whose actions and windows are compared
SCHEDULES = [(1, 1, 2, 2, 1), (0, 1, 1, 0, 0), (2, 0, 1, 3, 0), (1, 2, 3, 1, 2)]
SCHEDULE_STEPS = 14


def profiled_program(fg):
    """A small training step: matmul, relu, add, mul, mean and their backward, in a user range."""
    rng = np.random.default_rng(0)
    x = fg.tensor(rng.standard_normal((4, 3)).astype(np.float32), requires_grad=True)
    w = fg.tensor(rng.standard_normal((3, 5)).astype(np.float32), requires_grad=True)
    b = fg.tensor(rng.standard_normal(5).astype(np.float32), requires_grad=True)
    with fg.autograd.profiler.profile(record_shapes=True) as prof:
        with fg.autograd.profiler.record_function("forward"):
            h = (x @ w).relu()
            h = h + b
            loss = (h * h).mean()
        loss.backward()
    return prof


def forward_ops(prof):
    """The ops called directly in the user range, in order, with their input shapes."""
    (forward,) = [e for e in prof.function_events if e.name == "forward"]
    return [[e.name, e.input_shapes] for e in forward.cpu_children]


def backward_nodes(prof):
    """How often the engine ran each node, and what each node's event holds directly."""
    prefix = "autograd::engine::evaluate_function: "
    counts = collections.Counter(e.name[len(prefix) :] for e in prof.function_events if e.name.startswith(prefix))
    return dict(sorted(counts.items()))


def schedule_actions(fg):
    out = {}
    for wait, warmup, active, repeat, skip_first in SCHEDULES:
        fn = fg.profiler.schedule(wait=wait, warmup=warmup, active=active, repeat=repeat, skip_first=skip_first)
        out[str((wait, warmup, active, repeat, skip_first))] = [fn(step).name for step in range(SCHEDULE_STEPS)]
    return out


def schedule_windows(fg):
    """For each schedule: at which step each trace was handed over, and the step ranges and user ranges in it."""
    out = {}
    for wait, warmup, active, repeat, skip_first in SCHEDULES:
        traces = []

        def ready(prof, traces=traces):
            names = [e.name for e in prof.events() if e.name.startswith(("ProfilerStep", "work"))]
            traces.append([prof.step_num, names])

        sched = fg.profiler.schedule(wait=wait, warmup=warmup, active=active, repeat=repeat, skip_first=skip_first)
        x = fg.ones(3)
        with fg.profiler.profile(
            activities=[fg.profiler.ProfilerActivity.CPU], schedule=sched, on_trace_ready=ready
        ) as p:
            for step in range(SCHEDULE_STEPS):
                with fg.profiler.record_function(f"work{step}"):
                    x = x + 1
                p.step()
        out[str((wait, warmup, active, repeat, skip_first))] = traces
    return out
