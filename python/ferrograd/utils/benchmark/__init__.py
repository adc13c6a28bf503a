"""`ferrograd.utils.benchmark`: `Timer(stmt, setup, globals=...)` with `timeit`, `blocked_autorange` and
`adaptive_autorange`, its `Measurement` (`common.py`) and `Compare`'s tables (`compare.py`): the part of
`torch.utils.benchmark` that tutorials time their statements with (Python's `timeit` underneath, torch's
block sizes, warm-up and printed summary)."""

import enum
import statistics
import textwrap
import timeit as _timeit

from .common import Measurement, select_unit
from .compare import Colorize, Compare

__all__ = ["Colorize", "Compare", "Language", "Timer", "Measurement", "select_unit"]


class Language(enum.Enum):
    """The language of a timed statement (torch's `Language`)."""

    PYTHON = 0
    CPP = 1


class _Threads:
    """torch's `set_torch_threads`: the measurement runs at the Timer's thread count."""

    def __init__(self, n):
        self.n = n

    def __enter__(self):
        from ... import get_num_threads, set_num_threads

        self.before = get_num_threads()
        set_num_threads(self.n)

    def __exit__(self, *exc):
        from ... import set_num_threads

        set_num_threads(self.before)


class Timer:
    """Times `stmt` (a string run with `globals`, where `torch` is this package unless given) after `setup`, as
    `torch.utils.benchmark.Timer`: `timeit`, `blocked_autorange` and `adaptive_autorange`."""

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=None, globals=None, label=None,
                 sub_label=None, description=None, env=None, num_threads=1, language="python"):  # fmt: skip
        import ferrograd

        if language in (Language.CPP, "cpp", "c++"):
            # torch compiles such a statement against its C++ API (libtorch), which ferrograd does not have
            raise RuntimeError("ferrograd's Timer times Python statements only: there is no C++ API to time")
        if language not in (Language.PYTHON, "python", "py"):
            raise ValueError(f"Invalid language `{language}`.")
        self._stmt = textwrap.dedent(stmt).strip() if isinstance(stmt, str) else stmt
        self._setup = textwrap.dedent(setup).strip() if isinstance(setup, str) else setup
        self._globals = dict(globals or {})
        self._globals.setdefault("torch", ferrograd)
        self._num_threads = num_threads
        self._meta = dict(
            label=label, sub_label=sub_label, description=description, num_threads=num_threads, env=env,
            global_setup=global_setup,
        )  # fmt: skip
        kwargs = {"timer": timer} if timer is not None else {}
        self._timer = _timeit.Timer(stmt=self._stmt, setup=self._setup, globals=self._globals, **kwargs)

    def _measurement(self, number, times):
        return Measurement(number, times, self._stmt, self._setup, **self._meta)

    def timeit(self, number=1000000):
        """Runs `stmt` `number` times (after a warm-up of a hundredth of that, at least 2) and measures them."""
        with _Threads(self._num_threads):
            self._timer.timeit(number=max(int(number // 100), 2))
            return self._measurement(number, [self._timer.timeit(number=number)])

    def _estimate_block_size(self, min_run_time):
        """torch's: grows the block tenfold until the timer's own cost is under 1e-4 of a block (a warm-up too)."""
        with _Threads(self._num_threads):
            overhead = statistics.median(self._timer.timeit(0) for _ in range(5))
            number = 1
            while True:
                time_taken = self._timer.timeit(number)
                if (overhead / time_taken <= 1e-4 and time_taken >= min_run_time / 1000) or time_taken > min_run_time:
                    return number
                if number * 10 > 2147483647:
                    return number
                number *= 10

    def _measure(self, number, stop, min_run_time, max_run_time=None, callback=None):
        total, times, can_stop = 0.0, [], False
        with _Threads(self._num_threads):
            while total < min_run_time or not can_stop:
                spent = self._timer.timeit(number)
                times.append(spent)
                total += spent
                if callback:
                    callback(number, spent)
                can_stop = stop(times)
                if max_run_time and total > max_run_time:
                    break
        return self._measurement(number, times)

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of `stmt` until `min_run_time` seconds were measured, the block size chosen first."""
        number = self._estimate_block_size(min_run_time)
        return self._measure(number, lambda times: True, min_run_time, callback=callback)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0, callback=None):
        """Blocks of `stmt` until their interquartile range is under `threshold` of the median (or
        `max_run_time`)."""
        number = self._estimate_block_size(0.05)

        def stop(times):
            return len(times) > 3 and self._measurement(number, times).meets_confidence(threshold)

        return self._measure(number, stop, min_run_time, max_run_time, callback)
