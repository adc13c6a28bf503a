"""Cases for the tensor vocabulary of issue 28 (cummax/cummin, take, unique, unique_consecutive, searchsorted,
bucketize, isclose) recorded from torch (tests/golden/record_vocab.py) and checked by tests/test_vocab.py:
ties, NaN, empty and 0-d inputs, integer and bool dtypes, non-contiguous inputs, grad_fn names, gradients and
the errors with their messages."""

import math
import warnings

import ferrograd as fg
from recorded import error

NAN = math.nan
INF = math.inf


def _grad_of(fn, x):
    """The gradient of `fn(x)` weighted by 1, 2, 3, ... (so each picked position's sum shows)."""
    x = x.detach().clone().requires_grad_(True)
    y = fn(x)
    w = fg.arange(1, y.numel() + 1, dtype=x.dtype).reshape(y.shape)
    (y * w).sum().backward()
    return [y.grad_fn.name(), x.grad]


def _cum_extremes():
    out = {}
    x = fg.tensor([1.0, 3.0, 3.0, 2.0, NAN, 5.0, NAN])
    m = fg.tensor([[2.0, 1.0, 2.0], [0.0, 0.0, -1.0], [INF, -INF, INF]])
    for name in ("cummax", "cummin"):
        out[f"{name}_ties_nan"] = list(getattr(fg, name)(x, 0))
        out[f"{name}_rows"] = list(getattr(m, name)(1))
        out[f"{name}_cols"] = list(getattr(m, name)(0))
        out[f"{name}_neg_dim_t"] = list(getattr(m.t(), name)(-1))
        out[f"{name}_int"] = list(getattr(fg.tensor([[3, 1, 3], [-2, 7, 7]]), name)(1))
        out[f"{name}_bool"] = list(getattr(fg.tensor([True, False, True, False]), name)(0))
        out[f"{name}_empty"] = list(getattr(fg.zeros(0, 3), name)(0))
        out[f"{name}_0d"] = list(getattr(fg.tensor(2.5), name)(0))
        out[f"{name}_grad"] = _grad_of(lambda t, n=name: getattr(t, n)(1).values, m.double()[:2])
        out[f"{name}_bad_dim"] = error(lambda n=name: getattr(fg.tensor([1.0]), n)(1))
    out["repr"] = repr(fg.cummax(fg.tensor([1.0, 0.0]), 0))
    return out


def _take():
    a = fg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    return {
        "flat": fg.take(a, fg.tensor([0, 5, -1, -6])),
        "shaped": a.take(fg.tensor([[1, 2], [3, 4]])),
        "transposed": a.t().take(fg.tensor([1, -1])),
        "int": fg.tensor([7, 8, 9]).take(fg.tensor([2, 0])),
        "empty_index": a.take(fg.tensor([], dtype=fg.int64)),
        "0d_index": a.take(fg.tensor(4)),
        "grad": _grad_of(lambda t: t.take(fg.tensor([[0, 0], [5, -1]])), a.double()),
        "too_big": error(lambda: a.take(fg.tensor([6]))),
        "too_small": error(lambda: a.take(fg.tensor([-7]))),
        "int32_index": error(lambda: a.take(fg.tensor([1], dtype=fg.int32))),
        "float_index": error(lambda: a.take(fg.tensor([1.0]))),
        "from_empty": error(lambda: fg.zeros(0).take(fg.tensor([0]))),
    }


def _unique():
    x = fg.tensor([3.0, 1.0, NAN, 1.0, NAN, -0.0, 0.0])
    i = fg.tensor([[5, 2, 5], [2, 2, -1]])
    return {
        "values": fg.unique(x),
        "all": list(fg.unique(x, return_inverse=True, return_counts=True)),
        "inverse_only": list(i.unique(return_inverse=True)),
        "counts_only": list(i.unique(return_counts=True)),
        "unsorted_flag": i.unique(sorted=False),
        "transposed": list(i.t().unique(return_inverse=True)),
        "bool": list(fg.tensor([True, False, True]).unique(return_counts=True)),
        "empty": list(fg.zeros(0).unique(return_inverse=True, return_counts=True)),
        "0d": list(fg.tensor(3.0).unique(return_inverse=True, return_counts=True)),
        "inf": fg.tensor([INF, -INF, INF, 0.0]).unique(),
        "consecutive": list(fg.unique_consecutive(fg.tensor([1, 1, 2, 2, 3, 1, 1]), True, True)),
        "consecutive_nan": list(fg.tensor([1.0, NAN, NAN, 1.0]).unique_consecutive(return_counts=True)),
        "consecutive_2d": list(i.unique_consecutive(return_inverse=True)),
        "consecutive_0d": list(fg.tensor(3).unique_consecutive(return_inverse=True, return_counts=True)),
        "consecutive_empty": fg.zeros(0, dtype=fg.int64).unique_consecutive(),
    }


def _searchsorted():
    seq = fg.tensor([1, 3, 5, 7])
    fseq = fg.tensor([1.0, 3.0, 3.0, NAN])
    rows = fg.tensor([[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]])
    v = fg.tensor([[3, 6, 9], [0, 7, 5]])
    return {
        "left": fg.searchsorted(seq, v),
        "right": fg.searchsorted(seq, v, right=True),
        "side_right": fg.searchsorted(seq, v, side="right"),
        "side_left": fg.searchsorted(seq, v, side="left"),
        "int32": fg.searchsorted(seq, v, out_int32=True),
        "scalar": fg.searchsorted(seq, 5),
        "scalar_right": fg.searchsorted(seq, 5, right=True),
        "float_ties_nan": fg.searchsorted(fseq, fg.tensor([3.0, NAN, 100.0, -INF])),
        "float_ties_nan_right": fg.searchsorted(fseq, fg.tensor([3.0, NAN, 100.0, -INF]), right=True),
        "rows": fg.searchsorted(rows, fg.tensor([[3.0, 0.0], [4.0, 7.0]])),
        "rows_right": fg.searchsorted(rows, fg.tensor([[3.0, 0.0], [4.0, 7.0]]), right=True),
        "mixed_dtypes": fg.searchsorted(fg.tensor([1.0, 2.5]), fg.tensor([2, 3])),
        "sorter": fg.searchsorted(fg.tensor([5.0, 1.0, 3.0]), fg.tensor([2.0, 3.0]), sorter=fg.tensor([1, 2, 0])),
        "empty_seq": fg.searchsorted(fg.zeros(0), fg.tensor([1.0, 2.0])),
        "empty_values": fg.searchsorted(seq, fg.tensor([], dtype=fg.int64)),
        "bucketize": fg.bucketize(fg.tensor([[3, 6, 9]]), seq),
        "bucketize_right_int32": fg.bucketize(fg.tensor([[3, 6, 9]]), seq, right=True, out_int32=True),
        "bucketize_scalar": fg.bucketize(3, seq),
        "err_shapes": error(lambda: fg.searchsorted(fg.tensor([[1, 3], [2, 4]]), fg.tensor([[1, 2, 3]]))),
        "err_scalar_nd": error(lambda: fg.searchsorted(fg.tensor([[1, 3], [2, 4]]), 2)),
        "err_side_right": error(lambda: fg.searchsorted(seq, v, side="left", right=True)),
        "err_side": error(lambda: fg.searchsorted(seq, v, side="middle")),
        "err_sorter_range": error(lambda: fg.searchsorted(fg.tensor([3.0, 1.0]), fg.tensor([1.0]), sorter=seq[:2])),
        "err_sorter_size": error(lambda: fg.searchsorted(seq, v, sorter=fg.tensor([1]))),
        "err_0d_seq": error(lambda: fg.searchsorted(fg.tensor(1.0), fg.tensor([1.0]))),
        "err_bucketize_2d": error(lambda: fg.bucketize(fg.tensor([1.0]), fg.tensor([[1.0, 2.0]]))),
    }


def _isclose():
    a = fg.tensor([1.0, NAN, INF, -INF, 1.0, 0.0, 1e-9])
    b = fg.tensor([1.00001, NAN, INF, INF, 1.0 + 1e-6, 1e-8, 0.0])
    return {
        "default": fg.isclose(a, b),
        "equal_nan": a.isclose(b, equal_nan=True),
        "tols": fg.isclose(a, b, rtol=0.0, atol=1e-7),
        "double": fg.isclose(a.double(), b.double()),
        "broadcast": fg.isclose(fg.tensor([[1.0], [2.0]]), fg.tensor([1.0, 2.0, 3.0])),
        "int": fg.isclose(fg.tensor([1, 2, 5]), fg.tensor([2, 3, 5]), rtol=0.0, atol=1.0),
        "int_default": fg.isclose(fg.tensor([1, 2]), fg.tensor([1, 3])),
        "bool": fg.isclose(fg.tensor([True, False]), fg.tensor([True, True])),
        "empty": fg.isclose(fg.zeros(0), fg.zeros(0)),
        "err_dtypes": error(lambda: fg.isclose(fg.tensor([1.0]), fg.tensor([1]))),
        "err_rtol": error(lambda: fg.isclose(fg.tensor([1.0]), fg.tensor([1.0]), rtol=-1.0)),
        "err_atol": error(lambda: fg.isclose(fg.tensor([1.0]), fg.tensor([1.0]), atol=-1.5)),
    }


def _stacking():
    s, v, m, b = fg.tensor(1.0), fg.tensor([1.0, 2.0, 3.0]), fg.tensor([[1.0, 2.0], [3.0, 4.0]]), fg.ones(2, 2, 2)
    out = {}
    for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
        f = getattr(fg, name)
        out[name] = [f(t) for t in (s, v, m, b)]
        out[f"{name}_many"] = list(f(s, v))
        out[f"{name}_list"] = list(f([s, m]))
        out[f"{name}_grad_fns"] = [
            None if f(t.requires_grad_()).grad_fn is None else f(t).grad_fn.name()
            for t in (s.clone(), v.clone(), m.clone())
        ]
    for name in ("hstack", "vstack", "dstack", "column_stack"):
        f = getattr(fg, name)
        out[f"{name}_1d"] = f([v, v * 2])
        out[f"{name}_2d"] = f([m, m.t()])
        out[f"{name}_empty"] = error(lambda f=f: f([]))
    out["hstack_str"] = error(lambda: fg.hstack("ab")).type
    out["hstack_int_element"] = error(lambda: fg.hstack([v, 3]))
    out["atleast_1d_int"] = error(lambda: fg.atleast_1d(3)).type
    out["hstack_0d"] = fg.hstack([s, v])
    out["column_stack_0d"] = fg.column_stack([s, s])
    out["column_stack_mixed"] = fg.column_stack([v[:2], m])
    out["vstack_mismatch"] = error(lambda: fg.vstack([v, m]))
    out["hstack_grad"] = _grad_of(lambda t: fg.hstack([t, t[:1]]), v.double())
    return out


def _combine():
    a, b, c = fg.tensor([1.0, 2.0]), fg.tensor([3.0, 4.0, 5.0]), fg.tensor([6.0, 7.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        default = list(fg.meshgrid(a, b))
    return {
        "meshgrid_ij": list(fg.meshgrid(a, b, c, indexing="ij")),
        "meshgrid_xy": list(fg.meshgrid(a, b, c, indexing="xy")),
        "meshgrid_list": list(fg.meshgrid([a, b], indexing="xy")),
        "meshgrid_default": default,
        "meshgrid_0d": list(fg.meshgrid(fg.tensor(2.0), b, indexing="ij")),
        "meshgrid_one": list(fg.meshgrid(b, indexing="xy")),
        "meshgrid_grad_fn": fg.meshgrid(a.requires_grad_(), b, indexing="xy")[0].grad_fn.name(),
        "meshgrid_bad_indexing": error(lambda: fg.meshgrid(a, b, indexing="foo")),
        "meshgrid_dtypes": error(lambda: fg.meshgrid(a, fg.tensor([1]), indexing="ij")),
        "meshgrid_empty": error(lambda: fg.meshgrid(indexing="ij")),
        "meshgrid_2d": error(lambda: fg.meshgrid(fg.ones(2, 2), indexing="ij")).type,
        "cartesian_prod": fg.cartesian_prod(a, b, c),
        "cartesian_prod_one": fg.cartesian_prod(b),
        "cartesian_prod_grad": _grad_of(lambda t: fg.cartesian_prod(t, b.double()), a.double()),
        "broadcast_shapes": [list(fg.broadcast_shapes((2, 1), (3,))), list(fg.broadcast_shapes(3, [2, 1], ()))],
        "broadcast_shapes_zero": list(fg.broadcast_shapes(fg.Size([0, 1]), (1, 3))),
        "broadcast_shapes_none": list(fg.broadcast_shapes()),
        "broadcast_shapes_mismatch": error(lambda: fg.broadcast_shapes((2, 1), (3, 2))),
        "broadcast_shapes_negative": error(lambda: fg.broadcast_shapes((2, -1), (3,))),
        "broadcast_shapes_float": error(lambda: fg.broadcast_shapes((2, 1), 2.0)),
        "broadcast_tensors": list(fg.broadcast_tensors(a.reshape(2, 1), b, fg.tensor(1.0))),
        "broadcast_tensors_three": [list(t.shape) for t in fg.broadcast_tensors(fg.ones(2, 1), b, fg.ones(4, 1, 1))],
        "broadcast_tensors_none": list(fg.broadcast_tensors()),
        "broadcast_tensors_grad": _grad_of(lambda t: fg.broadcast_tensors(t.reshape(2, 1), b.double())[0], a.double()),
        "broadcast_tensors_mismatch": error(lambda: fg.broadcast_tensors(fg.ones(2, 1), b, fg.ones(2))),
        "broadcast_tensors_list": error(lambda: fg.broadcast_tensors([a, b])),
    }


def _splitting():
    x, m, b = fg.arange(7.0), fg.arange(10.0).reshape(2, 5), fg.arange(24.0).reshape(2, 3, 4)
    return {
        "sections": list(fg.tensor_split(x, 3)),
        "more_sections_than_elements": list(fg.tensor_split(fg.arange(2.0), 4)),
        "indices": list(fg.tensor_split(x, [1, 5])),
        "indices_unsorted_negative": list(fg.tensor_split(x, (5, 2, -1, 100))),
        "tensor_sections": list(fg.tensor_split(x, fg.tensor(2))),
        "tensor_indices": list(fg.tensor_split(m, fg.tensor([1, 3]), dim=-1)),
        "dim1": list(fg.tensor_split(m, 2, dim=1)),
        "grad_fns": [t.grad_fn.name() for t in fg.tensor_split(x.requires_grad_() * 1, 2)],
        "grad": _grad_of(lambda t: fg.tensor_split(t, [2, 3])[1] * 1, x.double()),
        "hsplit": list(fg.hsplit(m, [2])),
        "hsplit_1d": list(fg.hsplit(fg.arange(6.0), 3)),
        "vsplit": list(fg.vsplit(m, 2)),
        "dsplit": list(fg.dsplit(b, [1, 3])),
        "err_2d_tensor": error(lambda: fg.tensor_split(x, fg.tensor([[1]]))),
        "err_not_tensor": error(lambda: fg.tensor_split([1.0, 2.0], 2)).type,
        "err_bad_sections": error(lambda: fg.tensor_split(x, 2.5)).type,
        "err_zero_sections": error(lambda: fg.tensor_split(x, 0)),
        "err_0d": error(lambda: fg.tensor_split(fg.tensor(1.0), 2)),
        "err_float_tensor": error(lambda: fg.tensor_split(x, fg.tensor([1.0]))),
        "err_hsplit_divisible": error(lambda: fg.hsplit(m, 2)),
        "err_hsplit_0d": error(lambda: fg.hsplit(fg.tensor(1.0), 2)),
        "err_vsplit_1d": error(lambda: fg.vsplit(x, 7)),
        "err_dsplit_2d": error(lambda: fg.dsplit(m, 1)),
        "err_dsplit_divisible": error(lambda: fg.dsplit(b, 3)),
    }


CASES = {
    "splitting": _splitting,
    "combine": _combine,
    "stacking": _stacking,
    "cum_extremes": _cum_extremes,
    "take": _take,
    "unique": _unique,
    "searchsorted": _searchsorted,
    "isclose": _isclose,
}
