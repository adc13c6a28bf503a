"""Named tuples returned by ops such as `max(dim)` (PyTorch's `torch.return_types`)."""

from collections import namedtuple


def _make(name, fields=("values", "indices")):
    base = namedtuple(name, fields)

    def __repr__(self):
        parts = ",\n".join(f"{field}={value!r}" for field, value in zip(fields, self))
        return f"ferrograd.return_types.{name}(\n{parts})"

    cls = type(name, (base,), {"__slots__": (), "__repr__": __repr__, "__module__": __name__})
    return cls


max = _make("max")
min = _make("min")
sort = _make("sort")
topk = _make("topk")
median = _make("median")
cummax = _make("cummax")
cummin = _make("cummin")
aminmax = _make("aminmax", ("min", "max"))

__all__ = ["max", "min", "sort", "topk", "median", "cummax", "cummin", "aminmax"]
