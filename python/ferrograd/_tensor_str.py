"""Tensor printing that matches PyTorch's ``repr(tensor)`` character for character.

Semantics follow ``torch/_tensor_str.py`` with its print options (`set_printoptions`), by default:
precision 4, threshold 1000 elements (then summarize with 3 edge items per
dimension), line width 80, scientific notation chosen automatically.

The tensor object only needs ``dtype`` (``str()`` like ``ferrograd.float64`` and
``.is_floating_point``), ``shape``, ``requires_grad``, ``grad_fn`` (``None`` or an
object with ``.name()``, shown without a C++ namespace as PyTorch does) and ``detach().numpy()``.
"""

import math

import numpy as np


class _PrintOptions:
    """torch's `PRINT_OPTS`: what `set_printoptions` sets and every repr reads."""

    def __init__(self):
        self.precision, self.threshold, self.edgeitems, self.linewidth = _PROFILES["default"]
        self.sci_mode = None  # None: chosen from the values; True or False: forced


# (precision, threshold, edgeitems, linewidth) of each of torch's profiles
_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}
PRINT_OPTS = _PrintOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """Sets how tensors print, as torch's: a profile ('default', 'short', 'full') first, then each option given;
    `sci_mode` is set every call (None: automatic)."""
    if profile in _PROFILES:
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = _PROFILES[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions():
    """The current options as a dict that `set_printoptions(**options)` takes."""
    names = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")
    return {name: getattr(PRINT_OPTS, name) for name in names}


# Dtypes whose name is not printed for non-empty tensors (float32 is the default dtype).
_QUIET_DTYPES = ("float32", "int64", "bool")


def _quiet_complex():
    """The complex dtype torch prints without its name: the default dtype's complex one."""
    try:
        from . import _core
    except ImportError:  # loaded on its own to print torch's tensors (tests/test_printing.py): torch's default
        return "complex64"
    return "complex128" if _core.get_default_dtype() == _core.float64 else "complex64"


def _summarize(a):
    """Keep only the first/last `edgeitems` entries of every dimension that is long enough."""
    edge = PRINT_OPTS.edgeitems
    for axis, n in enumerate(a.shape):
        if n > 2 * edge:
            keep = np.r_[0:edge, n - edge : n]
            a = np.take(a, keep, axis=axis)
    return a


class _Formatter:
    """Picks one format (int / fixed / scientific) and one width for all printed values."""

    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        flat = values.reshape(-1)
        if not floating:
            if flat.size:
                self.width = max(len(str(v)) for v in flat.tolist())
            return
        finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size == 0:
            return
        mags = np.abs(finite)
        lo, hi = mags.min(), mags.max()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        with np.errstate(over="ignore"):  # 1e200 / 1e-200 is inf, which is "big" as in torch
            big_range = hi / lo > 1000.0 or hi > 1.0e8
        forced = PRINT_OPTS.sci_mode
        if forced is not None:
            self.sci_mode = forced
        elif self.int_mode:
            self.sci_mode = big_range
        else:
            self.sci_mode = big_range or lo < 1.0e-4
        precision = PRINT_OPTS.precision
        if self.sci_mode:
            strs = ["{:.{}e}".format(v, precision) for v in finite.tolist()]
            self.width = max(len(s) for s in strs)
        elif self.int_mode:
            # +1 for the trailing "." that marks a float.
            self.width = max(len(f"{v:.0f}") + 1 for v in finite.tolist())
        else:
            self.width = max(len("{:.{}f}".format(v, precision)) for v in finite.tolist())

    def format(self, v):
        if not self.floating:
            s = str(v)
        elif self.sci_mode:
            s = "{:{}.{}e}".format(v, self.width, PRINT_OPTS.precision)
        elif self.int_mode:
            s = f"{v:.0f}"
            if math.isfinite(v):
                s += "."
        else:
            s = "{:.{}f}".format(v, PRINT_OPTS.precision)
        return s.rjust(self.width)


class _ComplexFormatter:
    """torch's two formatters of a complex tensor: one for the real parts, one for the imaginary parts, each
    choosing its own mode and width; an element is ``re+imj`` (the imaginary part's padding dropped)."""

    def __init__(self, values):
        self.real = _Formatter(values.real, True)
        self.imag = _Formatter(values.imag, True)
        # torch's element length: both widths and the "j"
        self.width = self.real.width + self.imag.width + 1

    def format(self, v):
        imag = (self.imag.format(v.imag) + "j").lstrip()
        # a sign of its own (negatives, -0.0) or a "+"
        if imag[0] not in "+-":
            imag = "+" + imag
        return self.real.format(v.real) + imag


def _tensor_body(arr, indent, floating):
    if arr.size == 0:
        return "[]"
    summarize = arr.size > PRINT_OPTS.threshold
    shown = _summarize(arr) if summarize else arr
    fmt = _ComplexFormatter(shown) if arr.dtype.kind == "c" else _Formatter(shown, floating)
    return _layout(shown, arr.shape, indent, summarize, fmt)


def _layout(a, full_shape, indent, summarize, fmt):
    """Recursive layout of the (possibly summarized) array ``a``.

    ``full_shape`` is the unsummarized shape: it tells which dims were cut and need "...".
    1-D rows wrap to the line width; sub-blocks of a k-D array are separated by k-1 newlines.
    """
    if a.ndim == 0:
        return fmt.format(a.item())
    edge = PRINT_OPTS.edgeitems
    cut = summarize and full_shape[0] > 2 * edge
    if a.ndim == 1:
        row = a.tolist()
        if cut:
            items = [fmt.format(v) for v in row[:edge]] + [" ..."] + [fmt.format(v) for v in row[edge:]]
        else:
            items = [fmt.format(v) for v in row]
        per_line = max(1, (PRINT_OPTS.linewidth - indent) // (fmt.width + 2))
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    subs = [_layout(a[i], full_shape[1:], indent + 1, summarize, fmt) for i in range(a.shape[0])]
    if cut:
        subs.insert(edge, "...")
    sep = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(subs) + "]"


def _torch_len(suffix):
    """Length the suffix has in PyTorch's output (``torch.`` is 4 characters shorter than ``ferrograd.``).

    Line breaks are decided on this length so that our output has exactly torch's line structure.
    """
    return len(suffix.replace("ferrograd.", "torch."))


def _add_suffixes(body, suffixes, indent, force_newline=False):
    """Append ``, suffix`` items, moving one to a new indented line when it would pass the line width (the first
    one always, with ``force_newline``: a sparse tensor's ``size=``)."""
    out = [body]
    # Same arithmetic as torch, which counts the last line as 2 characters longer than it is.
    last_len = len(body) - body.rfind("\n") + 1
    for s in suffixes:
        n = _torch_len(s)
        if force_newline or last_len + n + 2 > PRINT_OPTS.linewidth:
            out.append(",\n" + " " * indent + s)
            last_len = indent + n
            force_newline = False
        else:
            out.append(", " + s)
            last_len += n + 2
    out.append(")")
    return "".join(out)


def _is_floating(t, arr):
    fp = getattr(t.dtype, "is_floating_point", None)
    if callable(fp):
        fp = fp()
    if fp is None:
        fp = arr.dtype.kind == "f"
    return bool(fp)


def tensor_repr(t):
    """``repr(tensor)`` exactly as PyTorch prints it (with ``ferrograd.`` dtype names)."""
    prefix = "tensor("
    indent = len(prefix)
    shape = tuple(t.shape)
    if getattr(t, "is_meta", False):  # (the printing tests pass stand-ins for tensors)
        return _add_suffixes(prefix + "...", _meta_suffixes(t, shape) + _grad_suffixes(t), indent)
    dtype_str = str(t.dtype)
    dtype_name = dtype_str.rsplit(".", 1)[-1]
    # numpy has no bfloat16; its values are exactly float32 values
    arr = np.asarray((t.detach().float() if dtype_name == "bfloat16" else t.detach()).numpy())
    suffixes = []
    if arr.size == 0:
        # Empty: no values to hint at the dtype, so only float32 stays silent.
        if len(shape) != 1:
            suffixes.append("size=" + str(shape))
        if dtype_name != "float32":
            suffixes.append("dtype=" + dtype_str)
        body = "[]"
    else:
        if dtype_name not in _QUIET_DTYPES and dtype_name != _quiet_complex():
            suffixes.append("dtype=" + dtype_str)
        body = _tensor_body(arr.reshape(shape), indent, _is_floating(t, arr))
    return _add_suffixes(prefix + body, suffixes + _grad_suffixes(t), indent)


def _grad_suffixes(t):
    grad_fn = t.grad_fn
    if grad_fn is not None:
        return [f"grad_fn=<{grad_fn.name().rsplit('::', 1)[-1]}>"]
    return ["requires_grad=True"] if t.requires_grad else []


def _meta_suffixes(t, shape):
    """A meta tensor has no values to show: torch prints `...`, its device (even under `with torch.device('meta')`:
    torch compares with the CPU or CUDA default only), its size, and its dtype unless it is the default dtype (int64
    included)."""
    from . import get_default_dtype

    suffixes = ["device='meta'", "size=" + str(shape)]
    if t.dtype != get_default_dtype():
        suffixes.append("dtype=" + str(t.dtype))
    return suffixes


def _part_str(t, indent):
    """The body of a sparse tensor's indices or values (no ``tensor(``, no dtype), as torch's ``_tensor_str``."""
    dtype_name = str(t.dtype).rsplit(".", 1)[-1]
    arr = np.asarray((t.detach().float() if dtype_name == "bfloat16" else t.detach()).numpy())
    if arr.size == 0:
        return "[], size=" + str(tuple(t.shape))
    return _tensor_body(arr.reshape(tuple(t.shape)), indent, _is_floating(t, arr))


def sparse_repr(s):
    """``repr`` of a sparse COO tensor: its indices and values, then size, nnz, dtype, layout and grad."""
    prefix = "tensor("
    indent = len(prefix)
    indices, values = s._indices(), s._values()
    body = (
        "indices=tensor("
        + _part_str(indices, indent + len("indices=tensor("))
        + "),\n"
        + " " * indent
        + "values=tensor("
        + _part_str(values, indent + len("values=tensor("))
        + ")"
    )
    suffixes = ["size=" + str(tuple(s.shape)), f"nnz={s._nnz()}"]
    if str(s.dtype).rsplit(".", 1)[-1] not in (*_QUIET_DTYPES, _quiet_complex()):
        suffixes.append("dtype=" + str(s.dtype))
    suffixes.append("layout=" + str(s.layout))
    grad_fn = s.grad_fn
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn.name().rsplit('::', 1)[-1]}>")
    elif s.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent, force_newline=True)


def tensor_str(t):
    """``str(tensor)``; identical to ``repr`` as in PyTorch."""
    return tensor_repr(t)
