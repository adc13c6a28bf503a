"""`linalg.multi_dot`, `linalg.vander` and `linalg.matrix_power`'s argument check: compositions of `mm`,
`cumprod` and `cat` written as PyTorch's own (`LinearAlgebra.cpp`), so results and `grad_fn` names agree."""

import builtins

from . import _core
from ._arg_errors import require_tensor, type_name

# the dtype names of multi_dot's message (C++ type names, as torch prints them there)
_CPP_TYPE_NAMES = {
    "float64": "double",
    "float32": "float",
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
}


def _cpp_name(dtype):
    return _CPP_TYPE_NAMES[str(dtype).removeprefix("ferrograd.")]


def _chain_order(shapes):
    """The split points of the cheapest product order of matrices of `shapes` (the classic O(n³) dynamic
    program PyTorch runs for more than three matrices)."""
    n = len(shapes)
    dims = [s[0] for s in shapes] + [shapes[-1][1]]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _chain(tensors, split, i, j):
    if i == j:
        return tensors[i]
    k = split[i][j]
    return _chain(tensors, split, i, k).mm(_chain(tensors, split, k + 1, j))


def multi_dot(tensors, *, out=None):
    """The product of the matrices in `tensors` in the cheapest order; the first may be a row vector and
    the last a column vector (1-D), their dimension dropped from the result."""
    if out is not None:
        raise NotImplementedError("linalg.multi_dot(): out= is not supported")
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    out_shape = []
    if first.ndim == 1:
        first = first.unsqueeze(0)
    elif first.ndim == 2:
        out_shape.append(first.shape[0])
    else:
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.ndim}D")
    if last.ndim == 1:
        last = last.unsqueeze(-1)
    elif last.ndim == 2:
        out_shape.append(last.shape[1])
    else:
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.ndim}D")
    for i in range(1, n - 1):
        if tensors[i].ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {tensors[i].ndim}D")
    mats = [first, *tensors[1:-1], last]
    for i in range(1, n):
        if mats[i].dtype != mats[0].dtype:
            raise RuntimeError(
                "multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{_cpp_name(mats[0].dtype)} and tensor {i} {_cpp_name(mats[i].dtype)}"
            )
        if mats[i - 1].shape[-1] != mats[i].shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i - 1} and {i} with shapes {list(tensors[i - 1].shape)} and "
                f"{list(tensors[i].shape)} cannot be multiplied"
            )
    if n == 2:
        product = mats[0].mm(mats[1])
    elif n == 3:
        (a, b), (_, c), (_, d) = (m.shape for m in mats)
        # (AB)C costs a·c·(b + d) multiplications, A(BC) b·d·(a + c)
        if a * c * (b + d) > b * d * (a + c):
            product = mats[0].mm(mats[1].mm(mats[2]))
        else:
            product = mats[0].mm(mats[1]).mm(mats[2])
    else:
        product = _chain(mats, _chain_order([m.shape for m in mats]), 0, n - 1)
    return product.view(out_shape)


def vander(x, N=None):
    """The Vandermonde matrix of `x` along its last dimension: columns x⁰, x¹, …, x^(N-1) (N defaults to
    x's length), built as PyTorch builds it: a row of ones next to the cumulative product."""
    require_tensor(x, "linalg_vander", "x", 1)
    if x.dtype == _core.bool:
        raise NotImplementedError("linalg.vander supports floating point, complex, and integer tensors, but got Bool")
    if x.ndim == 0:
        x = x.reshape(1)
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = x.unsqueeze(-1).expand(*x.shape, n - 1).cumprod(-1)
    return _core.cat([powers.new_ones(*x.shape, 1), powers], -1)


def torch_vander(x, N=None, increasing=False):
    """`torch.vander`: the Vandermonde matrix of the 1-D `x` (N columns, default its length), powers decreasing
    unless `increasing`; integer inputs give int64. Built as PyTorch builds it: ones, then x and its cumulative
    product copied into the columns after the first, in place (so, as in PyTorch, it cannot be differentiated)."""
    require_tensor(x, "vander", "x", 1)
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dtype = x.dtype if x.dtype.is_floating_point else _core.int64
    result = x.new_empty((x.shape[0], n), dtype=dtype)
    if n > 0:
        result.fill_(1)
        if n > 1:
            result[:, 1:].copy_(x.unsqueeze(1))
            result[:, 1:].copy_(result[:, 1:].cumprod(1))
    return result if increasing else result.flip(1)


def matrix_power(A, n, *, out=None):
    """A to the power `n` (an int), for each square matrix of `A`; a negative `n` raises the inverse."""
    if out is not None:
        raise NotImplementedError("linalg.matrix_power(): out= is not supported")
    require_tensor(A, "linalg_matrix_power", "A", 1)
    if not isinstance(n, builtins.int) or isinstance(n, builtins.bool):
        raise TypeError(f"linalg_matrix_power(): argument 'n' (position 2) must be int, not {type_name(n)}")
    return A.matrix_power(n)
