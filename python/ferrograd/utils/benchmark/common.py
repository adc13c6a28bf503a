"""What `utils.benchmark`'s timer and table share (torch's `utils.common`): `Measurement` and `select_unit`."""

import math
import statistics
import textwrap

__all__ = ["Measurement", "select_unit"]


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
