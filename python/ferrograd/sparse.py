"""`torch.sparse`: sparse COO tensors as graph networks use them (a normalized adjacency times dense features).

A COO tensor is an int64 `indices` tensor (`sparse_dim × nnz`), a `values` tensor (`nnz × dense dims`) and a
size. It is a Python object over those two dense tensors; every step is a whole-tensor op of the core
(coalescing sorts once and adds duplicates with `index_add`; `sparse @ dense` is one core op, `_sparse_mm`, with
its gradients to the values and to the dense operand), so nothing loops over entries in Python. Gradients
flow through the values: a sparse leaf's `.grad` is a sparse tensor at its (coalesced) indices.
"""

import builtins
import math

from . import _core
from ._arg_errors import require_tensor as _require_tensor
from ._core import Tensor
from ._layout import sparse_coo
from ._size import Size

__all__ = [
    "SparseTensor",
    "check_sparse_tensor_invariants",
    "from_dense",
    "mm",
    "sparse_coo_tensor",
    "spmm",
    "sum",
    "DoubleTensor",
    "FloatTensor",
    "LongTensor",
]


_NUMBERS = (builtins.int, builtins.float, builtins.bool)
_SPARSE_PLUS_DENSE = "add(sparse, dense) is not supported. Use add(dense, sparse) instead."


def _size_list(shape):
    return "[" + ", ".join(str(n) for n in shape) + "]"


class SparseTensor:
    """A sparse COO tensor (PyTorch's `torch.Tensor` with `layout=torch.sparse_coo`).

    Unlike PyTorch's, it is not an instance of the dense `ferrograd.Tensor` class: dense methods it does not
    define raise AttributeError here where PyTorch raises NotImplementedError for the sparse backend."""

    __slots__ = ("_idx", "_vals", "_shape", "_coalesced", "_leaf", "__weakref__")

    def __init__(self, indices, values, shape, coalesced, leaf=None):
        self._idx = indices
        self._vals = values
        self._shape = Size(shape)
        self._coalesced = coalesced
        # made from values that require grad or have history, it is not a leaf (torch's node links them)
        self._leaf = values.grad_fn is None and not values.requires_grad if leaf is None else leaf

    # ---- what it is ----
    @property
    def shape(self):
        return self._shape

    def size(self, dim=None):
        if dim is None:
            return self._shape
        return self._shape[_wrap_dim(dim, len(self._shape))]

    def dim(self):
        return len(self._shape)

    ndim = property(dim)

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def numel(self):
        return math.prod(self._shape)

    @property
    def dtype(self):
        return self._vals.dtype

    @property
    def device(self):
        return self._vals.device

    layout = property(lambda self: sparse_coo)
    is_sparse = property(lambda self: True)
    is_cuda = property(lambda self: False)
    is_cpu = property(lambda self: True)

    def is_floating_point(self):
        return self._vals.is_floating_point()

    def sparse_dim(self):
        return self._idx.shape[0]

    def dense_dim(self):
        return self._vals.dim() - 1

    def _nnz(self):
        return self._idx.shape[1]

    def is_coalesced(self):
        return self._coalesced

    def _indices(self):
        return self._idx

    def _values(self):
        return self._vals

    def indices(self):
        if not self._coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._idx

    def values(self):
        if not self._coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return self._vals

    def __repr__(self):
        from ._tensor_str import sparse_repr

        return sparse_repr(self)

    __str__ = __repr__

    # ---- autograd ----
    @property
    def requires_grad(self):
        return self._vals.requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad=True):
        if not self._leaf:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
                )
            return self
        self._vals.requires_grad_(requires_grad)
        return self

    @property
    def is_leaf(self):
        return self._leaf

    @property
    def grad_fn(self):
        """The node that made the values (PyTorch's own node for the COO tensor is not modelled)."""
        return None if self._leaf else self._vals.grad_fn

    @property
    def grad(self):
        """A leaf's gradient: a sparse tensor at its coalesced indices (as `torch.sparse.mm` gives it)."""
        g = self._vals.grad if self._leaf else None
        if g is None:
            return None
        if self._coalesced:
            return SparseTensor(self._idx, g, self._shape, False, leaf=True)
        # every copy of a repeated index got the same gradient: keep the first of each, in sorted order
        perm, first, _ = _sorted_groups(self._idx, self._shape)
        keep = perm.index_select(0, first)
        return SparseTensor(self._idx.index_select(1, keep), g.index_select(0, keep), self._shape, False, leaf=True)

    @grad.setter
    def grad(self, value):
        if value is not None:
            raise RuntimeError("assigning a gradient to a sparse tensor is not supported; set it to None")
        self._vals.grad = None

    def detach(self):
        return SparseTensor(self._idx, self._vals.detach(), self._shape, self._coalesced, leaf=True)

    def clone(self):
        return SparseTensor(self._idx.clone(), self._vals.clone(), self._shape, self._coalesced)

    # ---- conversions ----
    def to(self, *args, **kwargs):
        return self._with_values(self._vals.to(*args, **kwargs))

    def double(self):
        return self._with_values(self._vals.double())

    def float(self):
        return self._with_values(self._vals.float())

    def long(self):
        return self._with_values(self._vals.long())

    def cpu(self):
        return self

    def cuda(self, device=None, non_blocking=False):
        return self._vals.cuda()  # raises torch's CPU-build error

    def to_sparse_coo(self):
        return self

    def type(self, dtype=None):
        if dtype is None:
            return "torch.sparse." + self._vals.type().rsplit(".", 1)[-1]
        return self.to(dtype)

    def coalesce(self):
        """Indices sorted (row-major) and unique, the values of repeated indices added."""
        if self._coalesced:
            return self
        if self._nnz() == 0:
            return SparseTensor(self._idx, self._vals, self._shape, True, leaf=self._leaf)
        perm, first, group = _sorted_groups(self._idx, self._shape)
        indices = self._idx.index_select(1, perm.index_select(0, first))
        zeros = _core.zeros((first.shape[0], *self._vals.shape[1:]), dtype=self._vals.dtype)
        values = zeros.index_add(0, group, self._vals.index_select(0, perm))
        return SparseTensor(indices, values, self._shape, True)

    def to_dense(self, dtype=None, *, masked_grad=None):
        sparse_sizes = self._shape[: self.sparse_dim()]
        flat = _linear_index(self._idx, sparse_sizes)
        rows = math.prod(sparse_sizes)
        zeros = _core.zeros((rows, *self._vals.shape[1:]), dtype=self._vals.dtype)
        dense = zeros.index_add(0, flat, self._vals).reshape(tuple(self._shape))
        return dense if dtype is None else dense.to(dtype)

    def to_sparse(self, sparse_dim=None):
        if sparse_dim is not None and sparse_dim != self.sparse_dim():
            raise RuntimeError(
                f"to_sparse: conversion from Sparse to Sparse with sparse_dim argument !=self.sparse_dim() is "
                f"not supported (got {sparse_dim} and {self.sparse_dim()})"
            )
        return self

    # ---- arithmetic ----
    def _with_values(self, values, coalesced=None):
        return SparseTensor(self._idx, values, self._shape, self._coalesced if coalesced is None else coalesced)

    def _scalar(self, other, op):
        if isinstance(other, (SparseTensor, Tensor)):
            return NotImplemented
        if not isinstance(other, (builtins.int, builtins.float, builtins.bool)):
            return NotImplemented
        return self._with_values(op(self._vals, other))

    def __mul__(self, other):
        return self._scalar(other, lambda v, x: v * x)

    __rmul__ = __mul__

    def mul(self, other):
        return self * other

    def __truediv__(self, other):
        return self._scalar(other, lambda v, x: v / x)

    def div(self, other):
        return self / other

    def __neg__(self):
        return self._with_values(-self._vals)

    def neg(self):
        return -self

    def add(self, other, *, alpha=1):
        if isinstance(other, (Tensor, *_NUMBERS)):
            raise RuntimeError(_SPARSE_PLUS_DENSE)
        if not isinstance(other, SparseTensor):
            raise TypeError(f"add(): a sparse tensor adds only a sparse tensor here, not {type(other).__name__}")
        if other._shape != self._shape:
            raise RuntimeError(
                f"add: expected sizes of 'self' and 'other' to match, but {_size_list(self._shape)} != "
                f"{_size_list(other._shape)}"
            )
        if other.sparse_dim() != self.sparse_dim():
            raise RuntimeError(
                f"add: expected 'self' and 'other' to have same sparse dimensions, but got {self.sparse_dim()} "
                f"and {other.sparse_dim()}"
            )
        theirs = other._vals if alpha == 1 else other._vals * alpha
        if other is self:  # torch scales the one tensor instead of doubling its entries
            return self._with_values(self._vals + theirs)
        indices = _core.cat([self._idx, other._idx], 1)
        values = _core.cat([self._vals, theirs.to(self._vals.dtype)], 0)
        both = SparseTensor(indices, values, self._shape, False)
        # two coalesced operands give a coalesced sum, as torch's merge does
        return both.coalesce() if self._coalesced and other._coalesced else both

    def __add__(self, other):
        if isinstance(other, (SparseTensor, Tensor, *_NUMBERS)):
            return self.add(other)
        return NotImplemented

    def sub(self, other, *, alpha=1):
        return self.add(other, alpha=-alpha)

    def __sub__(self, other):
        if isinstance(other, (SparseTensor, Tensor, *_NUMBERS)):
            return self.sub(other)
        return NotImplemented

    def _check_dense_size(self, dense):
        """torch adds a sparse tensor into a dense one of its own size only (no broadcasting)."""
        if tuple(dense.shape) != tuple(self._shape):
            raise RuntimeError(
                f"add: expected 'self' and 'other' to have same size, but self has size {_size_list(dense.shape)} "
                f"while other has size {_size_list(self._shape)} (FYI: dense-sparse addition does not currently "
                "support broadcasting)"
            )

    def __radd__(self, other):
        """`dense + sparse`: a dense result, with the usual type promotion."""
        if isinstance(other, Tensor):
            self._check_dense_size(other)
            return other + self.to_dense()
        if isinstance(other, _NUMBERS):
            raise RuntimeError(_SPARSE_PLUS_DENSE)  # torch makes the number a dense tensor on the left
        return NotImplemented

    def __rsub__(self, other):
        """`dense - sparse`: a dense result."""
        if isinstance(other, Tensor):
            self._check_dense_size(other)
            return other - self.to_dense()
        return NotImplemented

    def sum(self, dim=None, keepdim=False, dtype=None):
        if dim is None:
            return self._vals.sum(dtype=dtype)
        return sum(self, dim, dtype)

    # ---- shape ----
    def t(self):
        if self.dim() > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
        if self.sparse_dim() < 2:
            return self
        flipped = self._idx.flip(0)
        return SparseTensor(flipped, self._vals, (self._shape[1], self._shape[0]), False)

    def transpose(self, dim0, dim1):
        n = self.sparse_dim()
        d0, d1 = _wrap_dim(dim0, self.dim()), _wrap_dim(dim1, self.dim())
        if d0 == d1:
            return self
        if d0 >= n or d1 >= n:
            raise RuntimeError("transpose of a sparse tensor's dense dimensions is not supported")
        order = list(range(n))
        order[d0], order[d1] = d1, d0
        idx = self._idx.index_select(0, _core.tensor(order))
        shape = list(self._shape)
        shape[d0], shape[d1] = shape[d1], shape[d0]
        return SparseTensor(idx, self._vals, shape, False)

    # ---- products ----
    def _product(self, dense, sparse_grad):
        _require_tensor(dense, "mm", "mat2", 1)
        if self.dim() != 2 or self.sparse_dim() != 2:
            raise RuntimeError(
                f"mm: a sparse matrix with 2 sparse dimensions is needed, got size {_size_list(self._shape)} "
                f"with {self.sparse_dim()} sparse dimensions"
            )
        rows, cols = self._shape
        return _core._sparse_mm(self._idx, self._vals, dense, rows, cols, sparse_grad)

    def mm(self, mat2):
        return self._product(mat2, False)

    def matmul(self, other):
        if isinstance(other, Tensor) and other.dim() == 1:
            return self._product(other.unsqueeze(1), False).squeeze(1)
        return self._product(other, False)

    __matmul__ = matmul

    def __rmatmul__(self, other):
        """`dense @ sparse`, as `(sparseᵀ @ denseᵀ)ᵀ`."""
        if not isinstance(other, Tensor):
            return NotImplemented
        if other.dim() == 1:
            return self.t()._product(other.unsqueeze(1), False).squeeze(1)
        return self.t()._product(other.t(), False).t()


def _wrap_dim(dim, ndim):
    if not -ndim <= dim < builtins.max(ndim, 1):
        lo, hi = -builtins.max(ndim, 1), builtins.max(ndim, 1) - 1
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
    return dim % builtins.max(ndim, 1)


def _linear_index(indices, sparse_sizes):
    """Row-major position of each entry among the sparse dimensions (int64, length nnz)."""
    flat = _core.zeros((indices.shape[1],), dtype=_core.int64)
    for d, n in enumerate(sparse_sizes):
        flat = flat * n + indices[d]
    return flat


def _sorted_groups(indices, shape):
    """For coalescing: the stable permutation sorting entries by position, the sorted positions where each run
    of equal indices starts, and each sorted entry's run number."""
    flat = _linear_index(indices, shape[: indices.shape[0]])
    ordered, perm = flat.sort(stable=True)
    starts = _core.ones((ordered.shape[0],), dtype=_core.bool)
    if ordered.shape[0] > 1:
        starts[1:] = ordered[1:] != ordered[:-1]
    first = starts.nonzero().squeeze(1)
    group = starts.long().cumsum(0) - 1
    return perm, first, group


def _as_tensor(data, dtype=None):
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    return _core.tensor(data, dtype=dtype)


def _check_invariants(indices, shape):
    if indices.shape[1] == 0:
        return
    lows, highs = indices.amin(1).tolist(), indices.amax(1).tolist()
    for d, (low, high) in enumerate(zip(lows, highs)):
        if low < 0:
            raise RuntimeError(f"found negative index {low} for dim {d}")
        if high >= shape[d]:
            raise RuntimeError(
                f"size is inconsistent with indices: for dim {d}, size is {shape[d]} but found index {high}"
            )


_checks_enabled = False
# torch warns once per process that unchecked COO tensors are being made, unless the program chose a setting
_checks_chosen = False
_warned_unchecked = False
_UNCHECKED = (
    "Sparse invariant checks are implicitly disabled. Memory errors (e.g. SEGFAULT) will occur when operating on a "
    "sparse tensor which violates the invariants, but checks incur performance overhead. To silence this warning, "
    "explicitly opt in or out. See `torch.sparse.check_sparse_tensor_invariants.__doc__` for guidance."
)


class check_sparse_tensor_invariants:  # torch's name
    """Checks indices against the size when COO tensors are made: as a context manager, or through its
    static `enable()`/`disable()`/`is_enabled()`."""

    def __init__(self, enable=True):
        self.state = enable

    @staticmethod
    def is_enabled():
        return _checks_enabled

    @staticmethod
    def enable():
        global _checks_enabled, _checks_chosen
        _checks_enabled, _checks_chosen = True, True

    @staticmethod
    def disable():
        global _checks_enabled, _checks_chosen
        _checks_enabled, _checks_chosen = False, True

    def __enter__(self):
        global _checks_enabled, _checks_chosen
        self.saved, _checks_enabled, _checks_chosen = _checks_enabled, self.state, True
        return self

    def __exit__(self, *exc):
        global _checks_enabled
        _checks_enabled = self.saved


def sparse_coo_tensor(
    indices,
    values,
    size=None,
    *,
    dtype=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    check_invariants=None,
    is_coalesced=None,
):
    """A COO tensor with entries `values` at `indices` (`sparse_dim × nnz`); without `size`, the smallest
    that holds the indices. The values are shared, not copied, as in PyTorch."""
    global _warned_unchecked
    if check_invariants is None and not _checks_chosen and not _warned_unchecked:
        _warned_unchecked = True
        from ._utils import warn_at_caller

        warn_at_caller(_UNCHECKED)
    return _coo_tensor(indices, values, size, dtype, device, requires_grad, check_invariants, is_coalesced)


def _coo_tensor(indices, values, size, dtype, device, requires_grad, check_invariants, is_coalesced):
    if size is not None and not isinstance(size, (tuple, list)):
        raise TypeError(
            f"sparse_coo_tensor() received an invalid combination of arguments - got (Tensor, Tensor, "
            f"{type(size).__name__}), but expected one of:\n * (object indices, object values, tuple of ints size, "
            "*, torch.dtype dtype = None, torch.device device = None, bool pin_memory = False, "
            "bool requires_grad = False, bool check_invariants = None, bool is_coalesced = None)"
        )
    if device is not None:
        from . import _device

        _device.check(device)
    if values is None:
        raise RuntimeError("Could not infer dtype of NoneType")
    idx = _as_tensor(indices)
    vals = _as_tensor(values, dtype)
    if idx.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if idx.dim() != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {_size_list(idx.shape)}")
    if idx.dtype != _core.int64:
        idx = idx.long()
    if vals.dim() == 0:
        vals = vals.reshape(1)
    sparse_dim, nnz = idx.shape
    if vals.shape[0] != nnz:
        raise RuntimeError(
            f"indices and values must have same nnz, but got nnz from indices: {nnz}, nnz from values: {vals.shape[0]}"
        )
    dense_sizes = tuple(vals.shape[1:])
    if size is None:
        highs = idx.amax(1).tolist() if nnz else [-1] * sparse_dim
        lows = idx.amin(1).tolist() if nnz else [0] * sparse_dim
        for d, low in enumerate(lows):
            if low < 0:
                raise RuntimeError(f"found negative index {low} for dim {d}")
        shape = tuple(h + 1 for h in highs) + dense_sizes
    else:
        shape = tuple(builtins.int(n) for n in size)
        if len(shape) != sparse_dim + len(dense_sizes):
            raise RuntimeError(
                f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(shape)}, sparse_dim = "
                f"{sparse_dim}, dense_dim = {len(dense_sizes)}"
            )
        # torch multiplies the sizes as unsigned numbers: a negative one overflows, unless another is 0
        if 0 not in shape and (builtins.any(n < 0 for n in shape) or math.prod(shape) >= 2**63):
            raise RuntimeError("numel: integer multiplication overflow")
        if tuple(shape[sparse_dim:]) != dense_sizes:
            raise RuntimeError(
                f"values has incorrect size, expected {_size_list((nnz, *shape[sparse_dim:]))}, got "
                f"{_size_list(vals.shape)}"
            )
        if check_invariants or (check_invariants is None and _checks_enabled):
            _check_invariants(idx, shape)
    if not vals.requires_grad:
        vals = vals.detach()  # shares the data; its own flag, so `requires_grad_()` leaves the caller's alone
    s = SparseTensor(idx, vals, shape, bool(is_coalesced) if is_coalesced is not None else nnz < 2)
    if requires_grad:
        s.requires_grad_()
    return s


def from_dense(x, sparse_dim=None):
    """`x.to_sparse(sparse_dim)`: the nonzero entries (or, with dense dimensions, the nonzero slices)."""
    ndim = x.dim()
    if sparse_dim is None:
        sparse_dim = ndim
    if not 0 <= sparse_dim <= ndim:
        raise RuntimeError(
            f"dense_to_sparse: sparse_dim argument must be in [0,{ndim}] range, but {sparse_dim} is given"
        )
    if sparse_dim == 0 and ndim > 0:
        raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0")
    if ndim == 0:
        return SparseTensor(_core.zeros((0, 1), dtype=_core.int64), x.reshape(1), (), True)
    mask = x != 0
    if sparse_dim < ndim:
        mask = mask.any(tuple(range(sparse_dim, ndim)))
    indices = mask.nonzero().t()
    values = x[tuple(indices[d] for d in range(sparse_dim))]
    return SparseTensor(indices, values, tuple(x.shape), True)


def mm(mat1, mat2):
    """`mat1 @ mat2` for a sparse `mat1` and a dense `mat2`; the sparse operand's gradient is sparse."""
    if isinstance(mat1, SparseTensor):
        return mat1._product(mat2, True)
    return mat1.mm(mat2)


def spmm(mat1, mat2):
    """`torch.spmm`: `mat1 @ mat2` (sparse or dense `mat1`)."""
    return mat1.mm(mat2)


def sum(input, dim=None, dtype=None):  # torch's name
    """Sum over `dim` (all dimensions when None): a dense scalar when every sparse dimension is summed, else a
    coalesced sparse tensor of the remaining dimensions."""
    if not isinstance(input, SparseTensor):
        return input.sum(dim, dtype=dtype) if dim is not None else input.sum(dtype=dtype)
    if dim is None:
        return input._vals.sum(dtype=dtype)
    dims = [dim] if isinstance(dim, builtins.int) else list(dim)
    dims = sorted({_wrap_dim(d, input.dim()) for d in dims})
    n = input.sparse_dim()
    sparse_dims = [d for d in dims if d < n]
    dense_dims = [d - n + 1 for d in dims if d >= n]
    values = input._vals.sum(dense_dims, dtype=dtype) if dense_dims else input._vals
    if dtype is not None and not dense_dims:
        values = values.to(dtype)
    kept = [d for d in range(n) if d not in sparse_dims]
    if not kept:
        return values.sum(0)
    indices = input._idx.index_select(0, _core.tensor(kept))
    shape = [input._shape[d] for d in kept] + [input._shape[d] for d in range(n, input.dim()) if d not in dims]
    return SparseTensor(indices, values, shape, False).coalesce()


# torch's deprecation warnings for the legacy constructors, each given once per process
_LEGACY_FORMS = {
    "shape": "shape, *, device=) is deprecated.  Please use torch.sparse_coo_tensor(shape, dtype=, device=).",
    "entries": "indices, values, *, device=) is deprecated.  Please use torch.sparse_coo_tensor(indices, values, "
    "dtype=, device=).",
    "entries and shape": "indices, values, shape, *, device=) is deprecated.  Please use "
    "torch.sparse_coo_tensor(indices, values, shape, dtype=, device=).",
}
_legacy_warned: set[str] = set()


def _warn_legacy(form):
    if form not in _legacy_warned:
        _legacy_warned.add(form)
        from ._utils import warn_at_caller

        warn_at_caller("torch.sparse.SparseTensor(" + _LEGACY_FORMS[form])


def _legacy(dtype):
    def make(*args, size=None):
        if args and builtins.all(isinstance(a, builtins.int) for a in args):
            _warn_legacy("shape")
            shape = tuple(args)
            return SparseTensor(
                _core.zeros((len(shape), 0), dtype=_core.int64), _core.zeros((0,), dtype=dtype), shape, True
            )
        if len(args) not in (2, 3):
            raise TypeError("expected (indices, values) or (indices, values, size)")
        indices, values, *rest = args if size is None else (*args, size)
        _warn_legacy("entries and shape" if rest else "entries")
        return _coo_tensor(indices, values, rest[0] if rest else None, None, None, False, None, None)

    return make


# `torch.sparse.FloatTensor(indices, values, size)` (deprecated in torch): the values keep their dtype, as there
FloatTensor = _legacy(_core.float32)
DoubleTensor = _legacy(_core.float64)
LongTensor = _legacy(_core.int64)
