"""`ferrograd.utils.benchmark`: `Timer(stmt, setup, globals=...)` with `timeit`, `blocked_autorange` and
`adaptive_autorange`, and its `Measurement`: the part of `torch.utils.benchmark` that tutorials time their
statements with (Python's `timeit` underneath, torch's block sizes, warm-up and printed summary)."""

import enum
import math
import statistics
import textwrap
import timeit as _timeit

__all__ = ["Colorize", "Compare", "Language", "Timer", "Measurement", "select_unit"]


class Language(enum.Enum):
    """The language of a timed statement (torch's `Language`)."""

    PYTHON = 0
    CPP = 1


def select_unit(t):
    """(unit, scale) that prints `t` seconds as a number of O(1): ns, us, ms or s."""
    exponent = int(math.log10(t) // 3) if t > 0 else -3
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(exponent, "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


def _quantile(sorted_times, q):
    """torch's `quantile` (linear interpolation between the two nearest ranks)."""
    position = q * (len(sorted_times) - 1)
    low = math.floor(position)
    high = min(low + 1, len(sorted_times) - 1)
    return sorted_times[low] + (sorted_times[high] - sorted_times[low]) * (position - low)


class Measurement:
    """Times per run of one timed statement (`times`), with torch's summary as its repr: the median, the
    interquartile range from four measurements on, and torch's warning when that range is wide."""

    def __init__(self, number_per_run, raw_times, stmt, setup="pass", label=None, sub_label=None, description=None,
                 num_threads=1, env=None, global_setup=""):  # fmt: skip
        self.number_per_run = number_per_run
        self.raw_times = list(raw_times)
        self.stmt = stmt
        self.setup = setup
        self.label = label
        self.sub_label = sub_label
        self.description = description
        self.num_threads = num_threads
        self._env = env
        self.global_setup = global_setup

    @property
    def env(self):
        return "Unspecified env" if self._env is None else self._env

    @property
    def as_row_name(self):
        return self.sub_label or self.stmt or "[Unknown]"

    @property
    def _task(self):
        """What the measurement timed (torch's TaskSpec): measurements of one task merge."""
        return (self.stmt, self.setup, self.global_setup, self.label, self.sub_label, self.description, self._env,
                self.num_threads)  # fmt: skip

    @property
    def significant_figures(self):
        """torch's estimate of the digits the median can be trusted to: from the spread of the middle half of
        the times (a 90% interval, at least 25 ns), 1 to 4."""
        times = sorted(self.times)
        middle = times[len(times) // 4 : math.ceil(3 * len(times) / 4)]
        mean = sum(middle) / len(middle)
        std = math.sqrt(sum((t - mean) ** 2 for t in middle) / len(middle))
        interval = max(1.645 * std / math.sqrt(len(middle)), 25e-9)
        return min(max(math.floor(math.log10(self.median / interval)), 1), 4)

    @property
    def has_warnings(self):
        return bool(self._warnings())

    @staticmethod
    def merge(measurements):
        """One measurement a task (its times in seconds per run, `number_per_run` 1), in first-seen order."""
        groups = {}
        for m in measurements:
            groups.setdefault(m._task, []).append(m)
        merged = []
        for (stmt, setup, global_setup, label, sub_label, description, env, threads), group in groups.items():
            times = [t for m in group for t in m.times]
            merged.append(Measurement(1, times, stmt, setup, label, sub_label, description, threads, env, global_setup))
        return merged

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self):
        return _quantile(sorted(self.times), 0.5)

    @property
    def mean(self):
        return statistics.mean(self.times)

    @property
    def iqr(self):
        times = sorted(self.times)
        return _quantile(times, 0.75) - _quantile(times, 0.25)

    def meets_confidence(self, threshold=_IQR_WARN_THRESHOLD):
        return self.iqr / self.median < threshold

    @property
    def title(self):
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        if "\n" not in self.stmt:
            return self.stmt + (f": {self.sub_label}" if self.sub_label else "")
        return f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n{textwrap.indent(self.stmt, '  ')}"

    def _setup_str(self):
        if self.setup == "pass" or not self.setup:
            return ""
        return f"setup:\n{textwrap.indent(self.setup, '  ')}" if "\n" in self.setup else f"setup: {self.setup}"

    def _warnings(self):
        if self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
            if self.meets_confidence(_IQR_WARN_THRESHOLD):
                return []
            msg = "This could indicate system fluctuation."
        else:
            msg = "This suggests significant environmental influence."
        return [f"  WARNING: Interquartile range is {self.iqr / self.median * 100:.1f}% of the median measurement.\n"
                f"           {msg}"]  # fmt: skip

    def __repr__(self):
        times = sorted(self.times)
        n = len(times)
        median, p25, p75 = _quantile(times, 0.5), _quantile(times, 0.25), _quantile(times, 0.75)
        unit, scale = select_unit(median)
        sections = [self.title, self.description or "", self._setup_str()]
        summary = "\n".join(f"{s}\n" if "\n" in s else s for s in sections if s)
        threads = f"{self.num_threads} thread{'s' if self.num_threads > 1 else ''}"
        per = "per measurement," if n > 1 else ","
        lines = [object.__repr__(self), summary, f"  {'Median: ' if n > 1 else ''}{median / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {(p75 - p25) / scale:.2f} {unit} ({p25 / scale:.2f} to {p75 / scale:.2f})")
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs {per} {threads}")
        lines.extend(self._warnings())
        return "\n".join(lines).strip()


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


from .compare import Colorize, Compare  # noqa: E402  (it uses this module's Measurement)
