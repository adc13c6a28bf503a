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
from ._combine import broadcast_tensors
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


# below this rate a count is drawn by multiplying uniforms until they fall under exp(-rate) (a few rounds);
# from it on by Hörmann's transformed rejection (PTRS), as numpy and torch draw them
_PTRS_FROM_RATE = 10.0


def _poisson_small(rates, generator):
    """Knuth's multiplication method over every rate at once: a round per count, the rates still drawing."""
    threshold = (-rates).exp()
    counts = _core.zeros(rates.shape, dtype=_core.float64)
    product = _core.ones(rates.shape, dtype=_core.float64)
    drawing = rates > 0
    while drawing.any().item():
        product = _core.where(drawing, product * _uniform(rates, generator), product)
        drawing = drawing.logical_and(product > threshold)
        counts = counts + drawing.double()
    return counts


def _transformed_proposal(a, b, c, generator):
    """One round of Hörmann's transformed rejection: (us, v, k), the uniform's distance from its ends, the
    acceptance uniform and the proposed count ``floor((2a / us + b) u + c)`` for u uniform on (-1/2, 1/2)."""
    u = _uniform(c, generator) - 0.5
    v = _uniform(c, generator)
    us = 0.5 - u.abs()
    return us, v, ((2 * a / us + b) * u + c).floor()


def _poisson_large(rates, generator):
    """Hörmann's PTRS: each round proposes a count for every rate still open and accepts some."""
    root, log_rate = rates.sqrt(), rates.log()
    b = 0.931 + 2.53 * root
    a = -0.059 + 0.02483 * b
    log_inv_alpha = (1.1239 + 1.1328 / (b - 3.4)).log()
    vr = 0.9277 - 3.6224 / (b - 2)
    counts = _core.zeros(rates.shape, dtype=_core.float64)
    open_ = _core.ones(rates.shape, dtype=_core.bool)
    while open_.any().item():
        us, v, k = _transformed_proposal(a, b, rates + 0.43, generator)
        quick = (us >= 0.07).logical_and(v <= vr)
        possible = (k >= 0).logical_and((us >= 0.013).logical_or(v <= us))
        bound = -rates + k * log_rate - (k.clamp_min(0) + 1).lgamma()
        exact = possible.logical_and(v.log() + log_inv_alpha - (a / (us * us) + b).log() <= bound)
        accepted = open_.logical_and(quick.logical_or(exact))
        counts = _core.where(accepted, k, counts)
        open_ = open_.logical_and(accepted.logical_not())
    return counts


def poisson(input: Tensor, generator=None) -> Tensor:
    """A Poisson count for each rate of `input` (in its dtype); no gradient flows back to the rates."""
    if not input.is_floating_point():
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for '{_name(input.dtype)}'")
    rates = input.detach().double()
    if rates.numel() and not (rates >= 0).all().item():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    finite = rates.isfinite()
    small = rates.lt(_PTRS_FROM_RATE)
    counts = _core.where(small, _poisson_small(rates.where(small, 0.0), generator), 0.0)
    large = small.logical_not().logical_and(finite)
    if large.any().item():
        counts = _core.where(large, _poisson_large(rates.where(large, _PTRS_FROM_RATE), generator), counts)
    return _core.where(finite, counts, rates).to(input.dtype)


# below this mean (count * the smaller of p, 1 - p) a binomial is drawn by counting geometric waiting times
# (about mean + 1 rounds); from it on by Hörmann's BTRS rejection
_BTRS_FROM_MEAN = 10.0


def _binomial_small(n, p, generator):
    """Successes among n trials of chance p <= 1/2: the geometric gaps between successes summed until they
    pass n, a round per success for every draw at once."""
    log_miss = (-p).log1p()
    position = _core.zeros(n.shape, dtype=_core.float64)
    successes = _core.zeros(n.shape, dtype=_core.float64)
    drawing = (p > 0).logical_and(n > 0)
    while drawing.any().item():
        gap = ((1 - _uniform(n, generator)).log() / log_miss).ceil().clamp_min(1)
        position = position + gap
        drawing = drawing.logical_and(position <= n)
        successes = successes + drawing.double()
    return successes


def _binomial_large(n, p, generator):
    """Hörmann's BTRS for chance p <= 1/2: each round proposes a count for every draw still open."""
    q = 1 - p
    spq = (n * p * q).sqrt()
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    vr = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spq
    log_odds = (p / q).log()
    mode = ((n + 1) * p).floor()
    h = (mode + 1).lgamma() + (n - mode + 1).lgamma()
    counts = _core.zeros(n.shape, dtype=_core.float64)
    open_ = _core.ones(n.shape, dtype=_core.bool)
    while open_.any().item():
        us, v, k = _transformed_proposal(a, b, c, generator)
        inside = (k >= 0).logical_and(k <= n)
        quick = (us >= 0.07).logical_and(v <= vr)
        kk = k.clamp_min(0).minimum(n)  # (the bound is read only where k is inside [0, n])
        bound = h - (kk + 1).lgamma() - (n - kk + 1).lgamma() + (kk - mode) * log_odds
        exact = (v * alpha / (a / (us * us) + b)).log() <= bound
        accepted = open_.logical_and(inside).logical_and(quick.logical_or(exact))
        counts = _core.where(accepted, k, counts)
        open_ = open_.logical_and(accepted.logical_not())
    return counts


def binomial(count: Tensor, prob: Tensor, generator=None) -> Tensor:
    """Successes among `count` trials of chance `prob` each (broadcast together), in `count`'s dtype."""
    for value, name in ((count, "count"), (prob, "prob")):
        if not value.is_floating_point():
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, got: {_name(value.dtype)}")
    if prob.dtype != count.dtype:
        raise RuntimeError(f"Found dtype {_name(prob.dtype)} but expected {_name(count.dtype)}")
    n, p = broadcast_tensors(count.detach().double(), prob.detach().double())
    valid = n.isfinite().logical_and(p >= 0).logical_and(p <= 1).logical_and(n >= 0)
    n, p = n.floor().where(valid, 0.0), p.where(valid, 0.0)
    flipped = p > 0.5
    chance = _core.where(flipped, 1 - p, p)
    small = (n * chance) < _BTRS_FROM_MEAN
    draws = _binomial_small(n.where(small, 0.0), chance, generator)
    large = small.logical_not()
    if large.any().item():
        draws = _core.where(large, _binomial_large(n.where(large, 1.0), chance.where(large, 0.5), generator), draws)
    draws = _core.where(flipped, n - draws, draws)
    return draws.where(valid, builtins.float("nan")).to(count.dtype)


TENSOR_ATTRIBUTES: dict[str, object] = {
    "random_": _random_,
    "log_normal_": _log_normal_,
    "cauchy_": _cauchy_,
    "geometric_": _geometric_,
}
