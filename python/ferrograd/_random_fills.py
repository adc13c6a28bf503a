"""torch's in-place draws that ferrograd composes of `uniform_`/`normal_` (the core's generator) and elementwise
ops, by torch's formulas: `random_` (integers in [from, to)), `log_normal_` (exp of a normal), `cauchy_`
(``median + sigma * tan(pi * (u - 1/2))``), `geometric_` (``ceil(log(u) / log1p(-p))``), and `randint_like`. The
streams are not torch's (its generator is not ferrograd's); the distributions are.

The draws are copied into the tensor (`copy_`): a leaf that requires grad refuses them with torch's error, and a
graph tensor's old history gets no gradient, as torch's `RandomBackward0`... give none (the node's name is
`CopyBackwards`)."""

import builtins
import math

from . import _core
from ._core import Tensor
from ._write_out import _name

__all__ = ["binomial", "poisson", "randint_like"]

# the integers a float dtype holds exactly from 0: random_()'s range for it, [0, 2**digits]
_FLOAT_DIGITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}
_INT_BOUNDS = {
    "bool": (0, 1),
    "uint8": (0, 2**8 - 1),
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
}


def _key(dtype):
    return str(dtype).rpartition(".")[2]


def _uniform(self, generator):
    """Uniform [0, 1) draws of `self`'s shape in float64."""
    return _core.zeros(self.shape, dtype=_core.float64).uniform_(generator=generator)


def _write(self, values):
    return self.copy_(values)


def _bounds(dtype):
    key = _key(dtype)
    if key in _FLOAT_DIGITS:
        top = 2 ** _FLOAT_DIGITS[key]
        return -top, top
    return _INT_BOUNDS[key]


def _check_in_bounds(dtype, value, which):
    low, high = _bounds(dtype)
    if not low <= value <= high:
        raise RuntimeError(f"{which} is out of bounds for {_name(dtype, c_name=True)}")


def _random_(self, *bounds, generator=None, **keywords):
    """Integers uniform in [from, to) (`random_(from, to)`; `to=None`: up to the dtype's maximum), [0, to)
    (`random_(to)`), or with no bounds [0, 2**digits] for a float dtype and [0, max] for an integer one.
    (torch's first keyword is `from`, a Python keyword.)"""
    if "from" in keywords:
        bounds = (keywords.pop("from"),) + bounds
    if "to" in keywords:
        bounds = (bounds[0] if bounds else 0, keywords.pop("to"))
    if keywords:
        raise TypeError(f"random_() got an unexpected keyword argument '{next(iter(keywords))}'")
    low, high = _bounds(self.dtype)
    if not bounds:
        start, stop = 0, high + 1
    elif len(bounds) == 1:
        start, stop = 0, bounds[0]
        if stop <= 0:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from=0 >= to={stop}")
        _check_in_bounds(self.dtype, stop - 1, "to - 1")
    else:
        start, stop = bounds[0], high + 1 if bounds[1] is None else bounds[1]
        _check_in_bounds(self.dtype, start, "from")
        if start >= stop:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={start} >= to={stop}")
        _check_in_bounds(self.dtype, stop - 1, "to - 1")
    draws = (_uniform(self, generator) * (stop - start)).floor() + start
    return _write(self, draws.clamp(start, stop - 1))


def _floating_only(self, kernel):
    if not self.is_floating_point():
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_name(self.dtype)}'")


def _log_normal_(self, mean=1, std=2, *, generator=None):
    """exp of normal draws of `mean` and `std` (the log-normal's parameters)."""
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    _floating_only(self, "log_normal_cpu")
    normal = _core.zeros(self.shape, dtype=_core.float64).normal_(mean, std, generator=generator)
    return _write(self, normal.exp())


def _cauchy_(self, median=0, sigma=1, *, generator=None):
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    if not self.is_floating_point():
        raise RuntimeError(
            "Cauchy distribution is a continuous probability distribution. dtype must be a floating point but you "
            f"specified {_name(self.dtype, c_name=True)}"
        )
    return _write(self, median + sigma * ((_uniform(self, generator) - 0.5) * math.pi).tan())


def _geometric_(self, p, *, generator=None):
    """The number of Bernoulli(p) trials up to the first success (1, 2, ...)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    survive = 1 - _uniform(self, generator)  # in (0, 1]: its log is finite
    return _write(self, (survive.log() / math.log1p(-p)).ceil().clamp_min(1))


def randint_like(
    input: Tensor,
    low: builtins.int = 0,
    high: "builtins.int | None" = None,
    *,
    generator=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad: builtins.bool = False,
    memory_format=None,
) -> Tensor:
    """Integers uniform in [low, high) (or [0, low) given one bound) in `input`'s shape and dtype."""
    if high is None:
        low, high = 0, low
    out = _core.zeros(input.shape, dtype=input.dtype if dtype is None else dtype)
    _random_(out, low, high, generator=generator)
    return out.requires_grad_() if requires_grad else out


def poisson(input: Tensor, generator=None) -> Tensor:
    """A Poisson count for each rate of `input` (in its dtype), drawn as torch draws them (the core's
    `_poisson`); as torch's, the rates get a zero gradient (PoissonBackward0)."""
    if not input.is_floating_point():
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for '{_name(input.dtype)}'")
    return _core._poisson(input, generator=generator)


def binomial(count: Tensor, prob: Tensor, generator=None) -> Tensor:
    """Successes among `count` trials of chance `prob` each (broadcast together), in `count`'s dtype, drawn as
    torch draws them (the core's `_binomial`)."""
    for value, name in ((count, "count"), (prob, "prob")):
        if not value.is_floating_point():
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, got: {_name(value.dtype)}")
    if prob.dtype != count.dtype:
        raise RuntimeError(f"Found dtype {_name(prob.dtype)} but expected {_name(count.dtype)}")
    return _core._binomial(count, prob, generator=generator)


TENSOR_ATTRIBUTES: dict[str, object] = {
    "random_": _random_,
    "log_normal_": _log_normal_,
    "cauchy_": _cauchy_,
    "geometric_": _geometric_,
}
