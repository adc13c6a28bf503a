"""torch.distributions.utils: broadcasting parameters, probabilities <-> logits, and `lazy_property`."""

import functools
from numbers import Number

import ferrograd as fg

__all__ = [
    "broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs", "probs_to_logits", "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]  # fmt: skip

euler_constant = 0.57721566490153286060  # Euler-Mascheroni constant


def broadcast_all(*values):
    """The values broadcast to one shape, as tensors: numbers become tensors of the first tensor's dtype
    (the default dtype when there is none)."""
    if not all(isinstance(v, (fg.Tensor, Number)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number, torch.Tensor or objects implementing __torch_function__."
        )
    if not all(isinstance(v, fg.Tensor) for v in values):
        dtype = next((v.dtype for v in values if isinstance(v, fg.Tensor)), fg.get_default_dtype())
        values = tuple(v if isinstance(v, fg.Tensor) else fg.tensor(v, dtype=dtype) for v in values)
    return fg.broadcast_tensors(*values)


def _standard_normal(shape, dtype, device=None):
    """N(0, 1) draws of `shape`, through `normal_` as torch draws them (so seeded streams agree)."""
    return fg.empty(shape, dtype=dtype).normal_()


def _sum_rightmost(value, dim):
    """`value` summed over its `dim` rightmost dimensions."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from logits: sigmoid for a binary event, softmax over the last dimension otherwise."""
    if is_binary:
        return fg.sigmoid(logits)
    return fg.softmax(logits, dim=-1)


def clamp_probs(probs):
    """Probabilities kept in [eps, 1 - eps] of their dtype, so their logarithms and logits stay finite."""
    eps = fg.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Logits from probabilities (clamped first): log(p) - log(1 - p) for a binary event, log(p) otherwise."""
    clamped = clamp_probs(probs)
    if is_binary:
        return fg.log(clamped) - fg.log1p(-clamped)
    return fg.log(clamped)


class lazy_property:
    """A property computed on first access (with grad enabled, so a parameter derived from another keeps
    its graph) and then stored on the instance, where it shadows this descriptor."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with fg.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What the class attribute reads as: both a lazy_property and a property (documentation tools see
    a property)."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def _tril_mask(n, diag):
    rows = fg.arange(n)
    return rows < rows.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag=0):
    """The entries of `mat`'s lower triangle (from diagonal `diag` down), row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag)]


def vec_to_tril_matrix(vec, diag=0):
    """The lower-triangular matrix whose triangle (from diagonal `diag` down) holds `vec`, row by row."""
    # n solves n (n + 1) / 2 + diag-dependent terms = len(vec)
    b = 1 + 2 * diag
    n = (-b + (b**2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > fg.finfo(vec.dtype).eps:
        raise ValueError(
            f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
            "the lower triangular part of a square D x D matrix."
        )
    n = round(n)
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    mat[..., _tril_mask(n, diag)] = vec
    return mat


def _batch_shape_of(given, broadcast):
    """A distribution's batch shape: () when every parameter was given as a number, else the shape the
    parameters broadcast to (`broadcast`, one of them after broadcast_all)."""
    return fg.Size() if all(isinstance(v, Number) for v in given) else broadcast.size()
