"""`torch.utils.benchmark.Compare`: many measurements as one table a label, rows by thread count and sub-label,
columns by description, in torch's layout (so that a benchmark script prints what it prints under torch)."""

import enum
import math

from .common import Measurement, select_unit

__all__ = ["Colorize", "Compare"]

_UNIT_NAMES = {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}
_BEST, _GOOD, _BAD, _VERY_BAD = "\033[92m", "\033[34m", "\033[2m\033[91m", "\033[31m"
_BOLD, _END = "\033[1m", "\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _leading_digits(x):
    return math.ceil(math.log10(x))


def _trim_sigfig(x, n):
    """`x` rounded to `n` significant figures (3.14159, 2 -> 3.1)."""
    scale = 10 ** (_leading_digits(abs(x)) - n)
    return round(x / scale) * scale


def _colored(text, value, best):
    if value <= best * 1.01 or value <= best + 100e-9:
        return _BEST + _BOLD + text + _END * 2
    if value <= best * 1.1:
        return _GOOD + _BOLD + text + _END * 2
    if value >= best * 5:
        return _VERY_BAD + _BOLD + text + _END * 2
    if value >= best * 2:
        return _BAD + text + _END * 2
    return text


class _Column:
    """How one column prints its numbers: one width and number of decimals for all its cells."""

    def __init__(self, cells, scale, trim, highlight):
        present = [m for m in cells if m is not None]
        self.scale, self.trim = scale, trim
        self.highlight = highlight and any(m.has_warnings for m in present)
        digits = [(_leading_digits(m.median / scale), m) for m in present]
        units = max(d for d, _ in digits)
        decimals = min(max(m.significant_figures - d, 0) for d, m in digits) if trim else 1
        width = units + decimals + (1 if decimals else 0)
        self.template = f"{{:>{width}.{decimals}f}}{{:>{7 if self.highlight else 0}}}"

    def text(self, m):
        if m is None:
            return " " * len(self.template.format(1, ""))
        value = m.median / self.scale
        if self.trim:
            value = _trim_sigfig(value, m.significant_figures)
        spread = f" (! {m.iqr / m.median * 100:.0f}%)" if self.highlight and m.has_warnings else ""
        return self.template.format(value, spread)


def _table(results, colorize, trim, highlight):
    """One label's table, as torch renders it."""
    unit, scale = select_unit(min(m.median for m in results))
    row_keys = list(dict.fromkeys((m.num_threads, m.env, m.as_row_name) for m in results))
    row_keys.sort(key=lambda key: key[:2])  # by threads and env; the rows' own order kept within
    col_keys = list(dict.fromkeys(m.description for m in results))
    grid = [[None] * len(col_keys) for _ in row_keys]
    for m in results:
        grid[row_keys.index((m.num_threads, m.env, m.as_row_name))][col_keys.index(m.description)] = m
    envs = {m.env for m in results}
    show_env = len(envs) > 1
    env_width = max(len(e) for e in envs) if show_env else 0

    groups, separators, row_envs = [], [], []  # each row's thread group, its separator, its shown env
    prior_threads, prior_env, group = None, "", -1
    for threads, env, _ in row_keys:
        starts = threads != prior_threads
        if starts:
            prior_threads, prior_env, group = threads, "", group + 1
        groups.append(group)
        separators.append(threads if starts else None)
        row_envs.append(f"({env})" if show_env and env != prior_env else "")
        prior_env = env
    columns = [_Column([row[j] for row in grid], scale, trim, highlight) for j in range(len(col_keys))]

    cells = [["", *[str(k) for k in col_keys]]]
    for row, env in zip(grid, row_envs):
        name = next(m for m in row if m is not None).as_row_name
        cells.append(["  " + env.ljust(env_width + 4) + name, *[c.text(m) for c, m in zip(columns, row)]])
    widths = [max(len(r[j]) for r in cells) for j in range(len(cells[0]))]
    header = "  |  ".join(text.center(w) for text, w in zip(cells[0], widths))
    lines = [header]
    for i, (row, texts) in enumerate(zip(grid, cells[1:])):
        if separators[i] is not None:
            lines.append(f"{separators[i]} threads: ".ljust(len(header), "-"))
        best = [None] * len(row)
        if colorize == Colorize.ROWWISE:
            best = [min(m.median for m in row if m is not None)] * len(row)
        elif colorize == Colorize.COLUMNWISE:
            mates = [other for other, g in zip(grid, groups) if g == groups[i]]
            best = [min((r[j].median for r in mates if r[j] is not None), default=None) for j in range(len(row))]
        out = [texts[0].ljust(widths[0])]
        for text, w, m, b in zip(texts[1:], widths[1:], row, best):
            text = text.center(w)
            if colorize != Colorize.NONE and m is not None and b is not None:
                text = _colored(text, m.median, b)
            out.append(text)
        lines.append("  |  ".join(out))
    warned = highlight and any(m.has_warnings for m in results)
    title = f"[{(' ' + (results[0].label or '') + ' ').center(len(header) - 2, '-')}]"
    note = "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n" if warned else ""
    return f"{title}\n" + "\n".join(lines) + f"\n\nTimes are in {_UNIT_NAMES[unit]}s ({unit}).\n{note}"


class Compare:
    """The measurements as tables (`print()` or `str()`): one a label; `trim_significant_figures`, `colorize` and
    `highlight_warnings` change how they print."""

    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def extend_results(self, results):
        for r in results:
            if not isinstance(r, Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self):
        self._trim_significant_figures = True

    def colorize(self, rowwise=False):
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self):
        self._highlight_warnings = True

    def __str__(self):
        by_label = {}
        for m in Measurement.merge(self._results):
            by_label.setdefault(m.label, []).append(m)
        options = (self._colorize, self._trim_significant_figures, self._highlight_warnings)
        return "\n".join(_table(results, *options) for results in by_label.values())

    def print(self):
        print(str(self))
