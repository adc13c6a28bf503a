"""Tensor methods of torch's that compose ops the core has: `sum_to_size`, `itemsize`/`nbytes`, the adjoints
`H`/`mH` (conjugate transposes), the legacy `new`, `fill_diagonal_`, `put`/`put_` (flat
indexing), `index_reduce` (a `scatter_reduce` over the index spread along `dim`), `isreal` and `hardshrink`; with
the function forms `ferrograd.put` and `ferrograd.index_reduce` (installed on `Tensor` by `_tensor_python`)."""

import builtins

from . import _core, _utils
from ._arg_errors import require_tensor
from ._core import Tensor
from ._misc_functions import isreal
from ._size import Size
from ._write_out import _name

__all__ = ["adjoint", "index_reduce", "put"]

_INDEX_REDUCE_BETA = "index_reduce() is in beta and the API may change at any time."
_INDEX_REDUCE_MODES = ("prod", "mean", "amax", "amin")
_type_name = _name  # torch's ScalarType name (`Float`)


def _wrap_dim(dim, ndim):
    top = builtins.max(ndim, 1)
    if not -top <= dim < top:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-top}, {top - 1}], but got {dim})")
    return dim % top


def _sizes(args):
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else tuple(args)


def sum_to_size(self, *size) -> Tensor:
    """`self` summed (keeping dims) down to `size`, which it must expand from; `self` itself at that size."""
    size = _sizes(size)
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    expandable = lead >= 0 and all(s in (1, d) for s, d in zip(size, shape[lead:]))
    if not expandable:
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    if size == shape:
        return self
    dims = list(builtins.range(lead)) + [lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1]
    summed = self.sum(dims, keepdim=True, dtype=self.dtype) if dims else self
    return summed.view(size) if lead else summed


def _conj_if_complex(t):
    return t.conj() if t.is_complex() else t


def _adjoint(self):
    """`x.H`: the conjugate transpose of a matrix (the transpose for real dtypes)."""
    if self.dim() == 0:
        _utils.warn_at_caller("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().")
        return _conj_if_complex(self)
    if self.dim() != 2:
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor."
            + (" For batches of matrices, consider using tensor.mH" if self.dim() > 2 else "")
        )
    return _conj_if_complex(self.transpose(0, 1))


def _matrix_adjoint(self, name="tensor.mH"):
    if self.dim() == 0:
        deprecated = "Tensor.mH" if name == "tensor.mH" else "adjoint()"
        _utils.warn_at_caller(f"{deprecated} is deprecated on 0-D tensors. Consider using x.conj().")
        return _conj_if_complex(self)
    if self.dim() < 2:
        raise RuntimeError(f"{name} is only supported on matrices or batches of matrices. Got {self.dim()}-D tensor.")
    return _conj_if_complex(self.transpose(-2, -1))


def adjoint(input) -> Tensor:
    """The conjugate transpose of the last two dims: a view for real dtypes; for complex ones the conjugate is
    computed (torch's is a lazy conjugate view with `is_conj()` True; ferrograd has no conjugate bit)."""
    require_tensor(input, "adjoint", "input", 1)
    return _matrix_adjoint(input, "tensor.adjoint()")


def _new(self, *args, **kwargs):
    """The legacy constructor: `x.new()` empty, `x.new(2, 3)` of those sizes, `x.new(data)` from data, in
    `x`'s dtype."""
    if kwargs:
        raise TypeError(f"new() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if not args:
        return _core.zeros(0, dtype=self.dtype)
    if len(args) == 1 and isinstance(args[0], Tensor):
        data = args[0]
        if data.dtype != self.dtype:
            raise TypeError(f"expected {_options(self.dtype)} (got {_options(data.dtype)})")
        return data
    if all(isinstance(a, builtins.int) and not isinstance(a, builtins.bool) for a in args):
        return _core.zeros(args, dtype=self.dtype)
    if len(args) == 1 and isinstance(args[0], Size):
        return _core.zeros(tuple(args[0]), dtype=self.dtype)
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return _core.tensor(args[0]).to(self.dtype)
    raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")


def _options(dtype):
    """c10's text of the TensorOptions of a CPU tensor of `dtype`."""
    return (
        f"TensorOptions(dtype={_name(dtype, c_name=True)}, device=cpu, layout=Strided, requires_grad=false (default), "
        "pinned_memory=false (default), memory_format=(nullopt))"
    )


def _fill_diagonal_(self, fill_value, wrap=False):
    """Fills the main diagonal in place (every dim of equal length past 2-d); with `wrap`, a tall matrix's
    diagonal starts again after each block of ncols + 1 rows, as torch's flat stride of ncols + 1 does."""
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.dim() > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if self.dim() > 2:
        diagonal = self
        while diagonal.dim() > 1:
            diagonal = diagonal.diagonal(0, 0, 1)
        diagonal.fill_(fill_value)
        return self
    rows, cols = self.shape
    block = cols + 1
    starts = builtins.range(0, rows, block) if wrap and rows > block else (0,)
    for start in starts:
        self.narrow(0, start, builtins.min(cols, rows - start)).diagonal().fill_(fill_value)
    return self


def _put_checks(self, index, source, first):
    require_tensor(index, "put", "index", first)
    require_tensor(source, "put", "source", first + 1)
    if index.dtype != _core.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_type_name(index.dtype)}")
    if self.dtype != source.dtype:
        raise RuntimeError(
            f"put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{_type_name(self.dtype)} and source.dtype = {_type_name(source.dtype)}"
        )
    if index.numel() != source.numel():
        raise IndexError(
            f"put_(): Expected source and index to have the same number of elements, but got source.numel() = "
            f"{source.numel()}, index.numel() = {index.numel()}"
        )


def _put_at(self, index, source, accumulate=False, first=1):
    """`self` with `source`'s values written (or, with `accumulate`, added) at the flat `index` of `self`
    taken in row-major order; negative indices count from the end. (`first`: the position of `index` among
    the caller's arguments, for the TypeError.)"""
    _put_checks(self, index, source, first)
    numel = self.numel()
    flat_index = index.reshape(-1)
    if flat_index.numel():
        low, high = flat_index.min().item(), flat_index.max().item()
        for bad in (high,) if high >= numel else (low,) if low < -numel else ():
            raise IndexError(f"out of range: tried to access index {bad} on a tensor of {numel} elements.")
    flat_index = _core.where(flat_index < 0, flat_index + numel, flat_index)
    flat = self.reshape(-1).index_put((flat_index,), source.reshape(-1), accumulate)
    return flat.view(self.shape)


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: builtins.bool = False) -> Tensor:
    require_tensor(input, "put", "input", 1)
    return _put_at(input, index, source, accumulate, first=2)


def _index_reduce_at(self, dim, index, source, reduce, *, include_self=True, first=1):
    require_tensor(index, "index_reduce", "index", first + 1)
    require_tensor(source, "index_reduce", "source", first + 2)
    _utils.warn_once_at_caller(_INDEX_REDUCE_BETA)
    if reduce not in _INDEX_REDUCE_MODES:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d = _wrap_dim(dim, self.dim())
    if index.dim() > 1:
        raise IndexError(
            f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.dim()} with type: "
            f"{_type_name(index.dtype)} and size: {list(index.shape)}"
        )
    if index.dtype not in (_core.int32, _core.int64):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: {_type_name(index.dtype)}")
    if self.dtype != source.dtype:
        raise RuntimeError(
            f"index_reduce_(): self ({_type_name(self.dtype)}) and source ({_type_name(source.dtype)}) must have "
            "the same scalar type"
        )
    source_size = source.shape[d] if source.dim() else 1
    if index.numel() != source_size:
        raise RuntimeError(
            f"index_reduce_(): Number of indices ({index.numel()}) should be equal to source.size(dim): "
            f"({source_size}), for dim: {d}"
        )
    if index.numel() and (index.min().item() < 0 or index.max().item() >= (self.shape[d] if self.dim() else 1)):
        raise IndexError("index out of range in self")
    spread = [1] * builtins.max(source.dim(), 1)
    spread[d] = index.numel()
    spread_index = index.long().reshape(spread).expand(source.shape if source.dim() else (1,))
    return self.scatter_reduce(d, spread_index, source, reduce, include_self=include_self)


def index_reduce(
    input: Tensor, dim: builtins.int, index: Tensor, source: Tensor, reduce: str, *, include_self: builtins.bool = True
) -> Tensor:
    """`input` with the slices of `source` reduced (prod, mean, amax or amin) into the slices of `input` that
    `index` names along `dim` (with `input`'s own values unless not `include_self`)."""
    require_tensor(input, "index_reduce", "input", 1)
    return _index_reduce_at(input, dim, index, source, reduce, include_self=include_self, first=2)


def _put(self, index, source, accumulate=False):
    return _put_at(self, index, source, accumulate)


def _index_reduce(self, dim, index, source, reduce, *, include_self=True):
    return _index_reduce_at(self, dim, index, source, reduce, include_self=include_self)


def _hardshrink(self, lambd=0.5):
    from .nn.functional import hardshrink

    return hardshrink(self, lambd)


TENSOR_ATTRIBUTES: dict[str, object] = {
    "sum_to_size": sum_to_size,
    "itemsize": property(lambda self: self.element_size(), doc="The size of one element in bytes."),
    "nbytes": property(lambda self: self.numel() * self.element_size(), doc="The size of the elements in bytes."),
    "H": property(_adjoint, doc="The conjugate transpose of a matrix."),
    "mH": property(_matrix_adjoint, doc="The conjugate transpose of the last two dims."),
    "adjoint": lambda self: _matrix_adjoint(self, "tensor.adjoint()"),
    "new": _new,
    "fill_diagonal_": _fill_diagonal_,
    "put": _put,
    "index_reduce": _index_reduce,
    "isreal": lambda self: isreal(self),
    "hardshrink": _hardshrink,
}
