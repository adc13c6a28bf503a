"""`ferrograd.utils.benchmark`: `Timer(stmt, setup, globals=...).timeit(number)` and its `Measurement`, the part
of `torch.utils.benchmark` that tutorials time their statements with (Python's `timeit` underneath, the same
warm-up and the same printed summary)."""

import math
import statistics
import textwrap
import timeit as _timeit

__all__ = ["Timer", "Measurement", "select_unit"]


def select_unit(t):
    """(unit, scale) that prints `t` seconds as a number of O(1): ns, us, ms or s."""
    exponent = int(math.log10(t) // 3) if t > 0 else -3
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(exponent, "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


class Measurement:
    """Times per run of one timed statement (`times`), with torch's summary as its repr."""

    def __init__(self, number_per_run, raw_times, stmt, setup="pass", label=None, sub_label=None, description=None,
                 num_threads=1):  # fmt: skip
        self.number_per_run = number_per_run
        self.raw_times = list(raw_times)
        self.stmt = stmt
        self.setup = setup
        self.label = label
        self.sub_label = sub_label
        self.description = description
        self.num_threads = num_threads

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self):
        return statistics.median(self.times)

    @property
    def mean(self):
        return statistics.mean(self.times)

    def _title(self):
        if self.label is None:
            return self.stmt if "\n" not in self.stmt else "stmt:\n" + textwrap.indent(self.stmt, "  ")
        return self.label + (f": {self.sub_label}" if self.sub_label else "")

    def __repr__(self):
        n = len(self.times)
        unit, scale = select_unit(self.median)
        sections = [self._title(), self.description or ""]
        if self.setup != "pass":
            sections.append("setup:" + (f" {self.setup}" if "\n" not in self.setup else "\n" + self.setup))
        head = "\n".join(s for s in sections if s)
        threads = f"{self.num_threads} thread{'s' if self.num_threads > 1 else ''}"
        per = "per measurement," if n > 1 else ","
        return (
            f"{object.__repr__(self)}\n{head}\n  {'Median: ' if n > 1 else ''}{self.median / scale:.2f} {unit}\n"
            f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs {per} {threads}"
        )


class Timer:
    """Times `stmt` (a string run with `globals`) after `setup`, as `torch.utils.benchmark.Timer`."""

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=None, globals=None, label=None,
                 sub_label=None, description=None, env=None, num_threads=1, language="python"):  # fmt: skip
        if language not in ("python", "py"):
            raise ValueError(f"Invalid language `{language}`.")
        self._stmt = textwrap.dedent(stmt).strip() if isinstance(stmt, str) else stmt
        self._setup = textwrap.dedent(setup).strip() if isinstance(setup, str) else setup
        self._globals = dict(globals or {})
        self._meta = dict(label=label, sub_label=sub_label, description=description, num_threads=num_threads)
        kwargs = {"timer": timer} if timer is not None else {}
        self._timer = _timeit.Timer(stmt=self._stmt, setup=self._setup, globals=self._globals, **kwargs)

    def timeit(self, number=1000000):
        """Runs `stmt` `number` times (after a warm-up of a hundredth of that, at least 2) and measures them."""
        self._timer.timeit(number=max(int(number // 100), 2))
        return Measurement(number, [self._timer.timeit(number=number)], self._stmt, self._setup, **self._meta)
