"""`ferrograd.profiler`: PyTorch's `torch.profiler` on the core's op timing: `profile` with `schedule` and
`step()`, `tensorboard_trace_handler`, `record_function`. CPU only; the events and their summaries are those
of `ferrograd.autograd.profiler`."""

import gzip
import os
import warnings
from enum import Enum

from ..autograd import profiler as _autograd_profiler
from ..autograd.profiler import EventList, record_function

__all__ = [
    "ProfilerAction",
    "ProfilerActivity",
    "profile",
    "record_function",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]


class ProfilerActivity(Enum):
    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


def supported_activities():
    return {ProfilerActivity.CPU}


class ProfilerAction(Enum):
    """What the profiler does in a step, as a `schedule` returns it."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """The action for each step: `skip_first` steps of NONE, then cycles of `wait` NONE, `warmup` WARMUP and
    `active` RECORD steps (the last RECORD_AND_SAVE), `repeat` times (0: without end)."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0)."
        )
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    cycle = wait + warmup + active

    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        in_cycle = step % cycle
        if in_cycle < wait:
            return ProfilerAction.NONE
        if in_cycle < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if in_cycle < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _default_schedule_fn(_step):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False, use_python_export=False):
    """An `on_trace_ready` that writes each trace as `<worker>.<time ns>.pt.trace.json[.gz]` into `dir_name`
    (TensorBoard's profiler plugin reads that folder; Perfetto opens each file)."""
    import socket
    import time

    def handler_fn(prof):
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            file_name += ".gz"
        prof.export_chrome_trace(os.path.join(dir_name, file_name))

    return handler_fn


_A = ProfilerAction
# what to do between two actions (PyTorch's table, without its device-stopped states)
_TRANSITIONS = {
    (_A.NONE, _A.NONE): (),
    (_A.NONE, _A.WARMUP): ("prepare",),
    (_A.NONE, _A.RECORD): ("prepare", "start"),
    (_A.NONE, _A.RECORD_AND_SAVE): ("prepare", "start"),
    (_A.WARMUP, _A.NONE): ("warn", "start", "stop"),
    (_A.WARMUP, _A.WARMUP): (),
    (_A.WARMUP, _A.RECORD): ("start",),
    (_A.WARMUP, _A.RECORD_AND_SAVE): ("start",),
    (_A.RECORD, _A.NONE): ("warn", "stop"),
    (_A.RECORD, _A.WARMUP): ("warn", "stop"),
    (_A.RECORD, _A.RECORD): (),
    (_A.RECORD, _A.RECORD_AND_SAVE): (),
    (_A.RECORD_AND_SAVE, _A.NONE): ("stop", "ready"),
    (_A.RECORD_AND_SAVE, _A.WARMUP): ("stop", "ready", "prepare"),
    (_A.RECORD_AND_SAVE, _A.RECORD): ("stop", "ready", "prepare", "start"),
    (_A.RECORD_AND_SAVE, _A.RECORD_AND_SAVE): ("stop", "ready", "prepare", "start"),
    (_A.WARMUP, None): ("start", "stop"),
    (_A.RECORD, None): ("stop", "ready"),
    (_A.RECORD_AND_SAVE, None): ("stop", "ready"),
}


class profile:
    """`with profile(schedule=..., on_trace_ready=...) as prof:` and `prof.step()` at the end of each step:
    records the steps the schedule marks RECORD, and hands each finished window to `on_trace_ready`. Without a
    schedule it records everything between start and stop."""

    def __init__(
        self,
        *,
        activities=None,
        schedule=None,
        on_trace_ready=None,
        record_shapes=False,
        profile_memory=False,
        with_stack=False,
        with_flops=False,
        with_modules=False,
        experimental_config=None,
        execution_trace_observer=None,
        acc_events=False,
        custom_trace_id_callback=None,
        post_processing_timeout_s=None,
    ):
        self.activities = set(activities) if activities else supported_activities()
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.on_trace_ready = on_trace_ready
        self.record_steps = schedule is not None
        self.schedule = schedule if schedule is not None else _default_schedule_fn
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self.profiler = None
        self.step_rec_fn = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()

    def start(self):
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self._enter_step()

    def stop(self):
        self._exit_step()
        self._transit_action(self.current_action, None)

    def step(self):
        """Marks the start of the next step (and takes the schedule's action for it)."""
        self._exit_step()
        prev_action = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit_action(prev_action, self.current_action)
        if self.record_steps:
            self._enter_step()

    def _enter_step(self):
        self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
        self.step_rec_fn.__enter__()

    def _exit_step(self):
        if self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None

    def _transit_action(self, prev_action, current_action):
        for what in _TRANSITIONS.get((prev_action, current_action), ()):
            if what == "warn":
                warnings.warn(f"Incorrect schedule: {prev_action.name} followed by {current_action.name}", stacklevel=3)
            elif what == "prepare":
                self.profiler = _autograd_profiler.profile(record_shapes=self.record_shapes)
            elif what == "start":
                if self.profiler is None:
                    self.profiler = _autograd_profiler.profile(record_shapes=self.record_shapes)
                self.profiler.__enter__()
            elif what == "stop":
                if self.profiler is not None and self.profiler.running:
                    self.profiler.__exit__(None, None, None)
            elif what == "ready" and self.on_trace_ready is not None:
                self.on_trace_ready(self)

    def _events(self):
        if self.profiler is None or self.profiler.function_events is None:
            raise AssertionError("Profiler must be initialized before getting events")
        return self.profiler.function_events

    def events(self):
        """The events of the last recorded window, unaveraged (`FunctionEvent`s)."""
        return self._events()

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        return self._events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path):
        if path.endswith(".gz"):
            plain = path[: -len(".gz")]
            self._events().export_chrome_trace(plain)
            with open(plain, "rb") as src, gzip.open(path, "wb") as dst:
                dst.write(src.read())
            os.remove(plain)
            return None
        return self._events().export_chrome_trace(path)


__all__ += ["EventList"]
