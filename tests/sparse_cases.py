"""Recorded cases for sparse COO tensors: construction, coalescing, conversions, arithmetic, `sparse.sum`,
sparse @ dense with its gradients, printing and torch's validation errors.

Run by tests/golden/record_sparse.py with PyTorch (into sparse.json) and by tests/test_sparse.py.
"""

import warnings

import ferrograd as fg
import numpy as np
from recorded import error

# (0, 2) twice and unsorted: the uncoalesced matrix [[0, 0, 4], [4, 0, 5]]
IDX = [[0, 1, 1, 0], [2, 0, 2, 2]]
VALS = [3.0, 4.0, 5.0, 1.0]


def coo(indices=IDX, values=VALS, size=(2, 3), **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch: "Sparse invariant checks are implicitly disabled"
        return fg.sparse_coo_tensor(fg.tensor(indices), fg.tensor(values), size, **kwargs)


def parts(s):
    """What a sparse tensor is: its entries as stored, its size, nnz and dims, whether coalesced."""
    return {
        "indices": s._indices(),
        "values": s._values(),
        "size": list(s.shape),
        "nnz": s._nnz(),
        "dims": [s.sparse_dim(), s.dense_dim()],
        "coalesced": s.is_coalesced(),
        "is_sparse": s.is_sparse,
        "layout": str(s.layout),
        "dtype": s.dtype,
    }


def grad_parts(s):
    """A sparse gradient's parts but its coalesced flag (torch's depends on the op that made it)."""
    out = parts(s)
    del out["coalesced"]
    return out


def first_line(fn):
    """Type and first line of what `fn` raises (torch's long "invalid combination" messages)."""
    try:
        fn()
    except Exception as e:  # the point is to record any exception
        return [type(e).__name__, str(e).split("\n")[0]]
    return None


def rand(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape)


def construct():
    hybrid = fg.sparse_coo_tensor(fg.tensor(IDX), fg.ones(4, 2), (2, 3, 2))
    empty = fg.sparse_coo_tensor(fg.zeros(2, 0, dtype=fg.int64), fg.zeros(0), (2, 3))
    return {
        "with_size": parts(coo()),
        "without_size": parts(fg.sparse_coo_tensor(fg.tensor(IDX), fg.tensor(VALS))),
        "from_lists": parts(fg.sparse_coo_tensor(IDX, [1, 2, 3, 4], (2, 3))),
        "float_indices": parts(fg.sparse_coo_tensor(fg.tensor(IDX).float(), fg.tensor(VALS), (2, 3))),
        "dtype": parts(coo(dtype=fg.float64)),
        "hybrid": parts(hybrid),
        "hybrid_no_size": parts(fg.sparse_coo_tensor(fg.tensor([[0, 5]]), fg.ones(2, 2))),
        "empty": parts(empty),
        "one_entry_is_coalesced": coo([[0], [2]], [1.0]).is_coalesced(),
        "legacy": parts(fg.sparse.FloatTensor(fg.tensor(IDX), fg.tensor(VALS), fg.Size([2, 3]))),
        "legacy_double": parts(fg.sparse.FloatTensor(fg.tensor(IDX), fg.tensor(VALS).double(), fg.Size([2, 3]))),
        "legacy_empty": parts(fg.sparse.FloatTensor(2, 3)),
        "size_dim": [coo().size(), coo().size(1), coo().size(-2), coo().dim(), coo().ndim, len(coo())],
        "shares_values": _shares_values(),
    }


def _shares_values():
    v = fg.tensor(VALS)
    s = fg.sparse_coo_tensor(fg.tensor(IDX), v, (2, 3))
    v[0] = 10.0
    return s.to_dense()


def construct_errors():
    return {
        "indices_1d": error(fg.sparse_coo_tensor, fg.tensor([0, 1]), fg.tensor([1.0, 2.0]), (2, 3)),
        "indices_3d": error(fg.sparse_coo_tensor, fg.zeros(2, 3, 1, dtype=fg.int64), fg.ones(3), (2, 3)),
        "nnz": error(fg.sparse_coo_tensor, fg.tensor(IDX), fg.tensor(VALS[:3]), (2, 3)),
        "len_size_short": error(fg.sparse_coo_tensor, fg.tensor(IDX), fg.tensor(VALS), (2,)),
        "len_size_long": error(fg.sparse_coo_tensor, fg.tensor(IDX), fg.tensor(VALS), (2, 3, 4)),
        "dense_size": error(fg.sparse_coo_tensor, fg.tensor(IDX), fg.ones(4, 5), (2, 3, 4)),
        "out_of_bounds": error(coo, size=(2, 2), check_invariants=True),
        "negative": error(coo, indices=[[0, -1], [0, 0]], values=[1.0, 2.0], check_invariants=True),
        "negative_no_size": error(fg.sparse_coo_tensor, fg.tensor([[-1, 5]]), fg.ones(2)),
        "unchecked_out_of_bounds_is_kept": list(coo(size=(2, 2)).shape),
        "size_negative": error(coo, size=(2, -3)),
        "size_negatives": error(coo, size=(-2, -2)),
        "size_negative_beside_zero": list(coo(size=(0, -1)).shape),
        "indices_str": error(fg.sparse_coo_tensor, "a", fg.tensor(VALS), (2, 3)),
        "indices_scalar": error(fg.sparse_coo_tensor, 3, fg.tensor(VALS), (2, 3)),
        "values_str": error(fg.sparse_coo_tensor, fg.tensor(IDX), "a", (2, 3)),
        "values_none": error(fg.sparse_coo_tensor, fg.tensor(IDX), None, (2, 3)),
        "scalar_values": error(fg.sparse_coo_tensor, fg.tensor(IDX), 5.0, (2, 3)),
        "checked_context": _checked_context(),
        "size_not_tuple": first_line(lambda: fg.sparse_coo_tensor(fg.tensor(IDX), fg.tensor(VALS), 5)),
        "int_requires_grad": error(coo, values=[1, 2, 3, 4], requires_grad=True),
        "uncoalesced_indices": error(coo().indices),
        "uncoalesced_values": error(coo().values),
        "dense_is_coalesced": error(fg.ones(2).is_coalesced),
    }


def _checked_context():
    with fg.sparse.check_sparse_tensor_invariants():
        return error(coo, size=(2, 2))


def coalesce():
    c = coo().coalesce()
    three = coo([[1, 0, 1, 1], [0, 2, 0, 0], [1, 1, 1, 0]], VALS, (2, 3, 2))
    hybrid = fg.sparse_coo_tensor(fg.tensor([[1, 0, 1]]), fg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), (2, 2))
    return {
        "coalesced": parts(c),
        "indices": c.indices(),
        "values": c.values(),
        "again_is_same": c.coalesce() is c,
        "three_dims": parts(three.coalesce()),
        "hybrid": parts(hybrid.coalesce()),
        "empty": parts(fg.sparse_coo_tensor(fg.zeros(2, 0, dtype=fg.int64), fg.zeros(0), (2, 3)).coalesce()),
        "int_values": parts(coo(values=[1, 2, 3, 4]).coalesce()),
    }


def conversions():
    d = fg.tensor([[0.0, 2.0, 0.0], [1.0, 0.0, 0.0]])
    d3 = fg.tensor(rand((2, 3, 2), 1) * (rand((2, 3, 2), 2) > 0))
    return {
        "to_dense": coo().to_dense(),
        "to_dense_coalesced": coo().coalesce().to_dense(),
        "to_dense_hybrid": fg.sparse_coo_tensor(fg.tensor(IDX), fg.tensor(rand((4, 2), 3)), (2, 3, 2)).to_dense(),
        "to_dense_3d": coo([[1, 0, 1, 1], [0, 2, 0, 0], [1, 1, 1, 0]], VALS, (2, 3, 2)).to_dense(),
        "to_sparse": parts(d.to_sparse()),
        "to_sparse_round_trip": d.to_sparse().to_dense(),
        "to_sparse_1": parts(d.to_sparse(1)),
        "to_sparse_3d": parts(d3.to_sparse()),
        "to_sparse_3d_2": parts(d3.to_sparse(2)),
        "to_sparse_3d_round_trip": d3.to_sparse(2).to_dense(),
        "to_sparse_scalar": parts(fg.tensor(5.0).to_sparse()),
        "to_sparse_zeros": parts(fg.zeros(2, 3).to_sparse()),
        "to_sparse_int": parts(fg.tensor([[0, 3], [4, 0]]).to_sparse()),
        "to_sparse_dim_big": error(d.to_sparse, 3),
        "to_sparse_dim_zero": error(d.to_sparse, 0),
        "sparse_to_sparse": parts(coo().to_sparse()),
        "to_sparse_coo": parts(d.to_sparse_coo()),
        "double": parts(coo().double()),
        "dense_layout": str(d.layout),
        "dense_is_sparse": d.is_sparse,
        "strided": str(fg.strided),
        "sparse_coo": str(fg.sparse_coo),
        "layout_eq": [d.layout == fg.strided, coo().layout == fg.sparse_coo, d.layout == fg.sparse_coo],
    }


def arithmetic():
    s, c = coo(), coo().coalesce()
    other = coo([[0, 1], [0, 1]], [7.0, 8.0])
    return {
        "times_two": parts(s * 2),
        "two_times": parts(2 * s),
        "coalesced_times": parts(c * 0.5),
        "div": parts(s / 2),
        "neg": parts(-s),
        "self_plus_self": parts(s + s),
        # torch merges uncoalesced operands entry by entry in an order of its own: compared coalesced
        "plus_clone": parts((s + s.clone()).coalesce()),
        "plus_other": parts((s + other).coalesce()),
        "plus_other_is_coalesced": (s + other).is_coalesced(),
        "coalesced_plus_coalesced": parts(c + other.coalesce()),
        "minus": parts(c - other.coalesce()),
        "add_alpha": parts(c.add(other.coalesce(), alpha=2)),
        "size_mismatch": error(lambda: s + coo(size=(3, 3))),
        "t": parts(s.t()),
        "t_coalesced": parts(c.t()),
        "transpose": parts(s.transpose(0, 1)),
        "sum_method": s.sum(),
    }


def dense_and_sparse():
    """`dense + sparse` and `dense - sparse` give dense tensors of the promoted dtype, with gradients to both;
    the sparse tensor on the left, or a size that needs broadcasting, is refused."""
    s, ints = coo(), coo(values=[3, 4, 5, 1])
    d = fg.tensor(rand((2, 3), 9), dtype=fg.float32)
    v = fg.tensor(VALS, dtype=fg.float64, requires_grad=True)
    x = fg.tensor(rand((2, 3), 10), requires_grad=True)
    out = x - fg.sparse_coo_tensor(fg.tensor(IDX), v, (2, 3))
    (out * fg.arange(6.0, dtype=fg.float64).reshape(2, 3)).sum().backward()
    return {
        "dense_plus_sparse": d + s,
        "dense_minus_sparse": d - s,
        "layout": str((d + s).layout),
        "float_plus_int_sparse": fg.eye(2, 3) + ints,
        "int32_plus_int64_sparse": fg.ones(2, 3, dtype=fg.int32) + ints,
        "bool_plus_int_sparse": fg.ones(2, 3, dtype=fg.bool) + ints,
        "plus_grad_fn": (x + s.double()).grad_fn.name(),
        "minus_grad_fn": out.grad_fn.name(),
        "dense_grad": x.grad,
        "values_grad": v.grad,
        "size_mismatch": error(lambda: fg.ones(3) + s),
        "minus_size_mismatch": error(lambda: fg.ones(3, 2) - s),
        "sparse_plus_dense": error(lambda: s + d),
        "sparse_minus_dense": error(lambda: s - d),
        "number_plus_sparse": error(lambda: 1 + s),
        "sparse_add_dense": error(lambda: s.add(d)),
    }


def sums():
    s = coo()
    hybrid = fg.sparse_coo_tensor(fg.tensor(IDX), fg.tensor(rand((4, 2), 5)), (2, 3, 2))
    return {
        "all": fg.sparse.sum(s),
        "dim0": parts(fg.sparse.sum(s, dim=0)),
        "dim1": parts(fg.sparse.sum(s, dim=1)),
        "dim_neg": parts(fg.sparse.sum(s, dim=-1)),
        "dims_all": fg.sparse.sum(s, dim=(0, 1)),
        "hybrid_dense_dim": parts(fg.sparse.sum(hybrid, dim=2)),
        "hybrid_sparse_dim": parts(fg.sparse.sum(hybrid, dim=0)),
        "hybrid_all_sparse": fg.sparse.sum(hybrid, dim=(0, 1)),
        "out_of_range": error(fg.sparse.sum, s, 2),
    }


def products():
    s = coo()
    d = fg.tensor(rand((3, 2), 6), dtype=fg.float32)
    return {
        "sparse_mm": fg.sparse.mm(s, d),
        "spmm": fg.spmm(s, d),
        "mm": fg.mm(s, d),
        "method": s.mm(d),
        "matmul": s @ d,
        "matmul_vector": s @ fg.ones(3),
        "dense_at_sparse": d.t() @ s.t(),
        "coalesced": fg.sparse.mm(s.coalesce(), d),
        "transposed": fg.sparse.mm(s.t(), fg.ones(2, 2)),
        "dense_dense": fg.sparse.mm(fg.ones(2, 3), fg.ones(3, 2)),
        "int": fg.sparse.mm(coo(values=[3, 4, 5, 1]).to(fg.int32), fg.ones(3, 1, dtype=fg.int32)),
        "float64": fg.sparse.mm(s.double(), d.double()),
        "dtype_mismatch": error(fg.sparse.mm, s, d.double()),
        "size_mismatch": error(fg.sparse.mm, s, fg.ones(4, 2)),
        "mm_size_mismatch": error(fg.mm, s, fg.ones(4, 2)),
        "vector": error(fg.sparse.mm, s, fg.ones(3)),
        "mm_vector": error(fg.mm, s, fg.ones(3)),
    }


def gradients():
    d_np = rand((3, 2), 7)
    w = fg.tensor(rand((2, 2), 8))
    # a leaf COO tensor: torch.sparse.mm gives it a sparse gradient at its coalesced indices
    leaf = coo(values=VALS, dtype=fg.float64).requires_grad_()
    dense = fg.tensor(d_np, requires_grad=True)
    out = fg.sparse.mm(leaf, dense)
    (out * w).sum().backward()
    # values that require grad: each stored entry gets its gradient, duplicates too
    v = fg.tensor(VALS, dtype=fg.float64, requires_grad=True)
    out2 = fg.spmm(fg.sparse_coo_tensor(fg.tensor(IDX), v, (2, 3)), fg.tensor(d_np))
    (out2 * w).sum().backward()
    # through to_dense, coalesce, t, scaling and sums
    v3 = fg.tensor(VALS, dtype=fg.float64, requires_grad=True)
    s3 = fg.sparse_coo_tensor(fg.tensor(IDX), v3, (2, 3))
    weights = fg.arange(6.0, dtype=fg.float64).reshape(2, 3)
    ((s3 * 2).coalesce().to_dense() * weights).sum().backward()
    v4 = fg.tensor(VALS, dtype=fg.float64, requires_grad=True)
    s4 = fg.sparse_coo_tensor(fg.tensor(IDX), v4, (2, 3))
    (
        fg.mm(s4.t(), fg.ones(2, 1, dtype=fg.float64)) * fg.tensor([[1.0], [2.0], [3.0]], dtype=fg.float64)
    ).sum().backward()
    v5 = fg.tensor(VALS, dtype=fg.float64, requires_grad=True)
    (
        fg.sparse.sum(fg.sparse_coo_tensor(fg.tensor(IDX), v5, (2, 3)), dim=0).to_dense()
        * fg.tensor([1.0, 2.0, 3.0], dtype=fg.float64)
    ).sum().backward()
    x = fg.tensor([[0.0, 2.0, 0.0], [1.0, 0.0, 3.0]], requires_grad=True)
    fg.sparse.mm(x.to_sparse(), fg.tensor([[1.0], [2.0], [3.0]])).sum().backward()
    leaf_sum = coo().requires_grad_()
    fg.sparse.sum(leaf_sum).backward()
    coalesced_leaf = coo(values=VALS, dtype=fg.float64).coalesce().requires_grad_()
    fg.sparse.mm(coalesced_leaf, fg.tensor(d_np)).sum().backward()
    return {
        "leaf_flags": [leaf.is_leaf, leaf.requires_grad, leaf.grad_fn is None],
        "out_grad_fn": out.grad_fn.name(),
        "mm_grad_fn": fg.mm(coo(values=VALS, dtype=fg.float64), dense).grad_fn.name(),
        "leaf_grad": grad_parts(leaf.grad),
        "dense_grad": dense.grad,
        "values_grad": v.grad,
        "nonleaf_flags": [fg.sparse_coo_tensor(fg.tensor(IDX), v, (2, 3)).is_leaf, out2.requires_grad],
        "through_to_dense": v3.grad,
        "through_t": v4.grad,
        "through_sum": v5.grad,
        "to_sparse_grad": x.grad,
        "leaf_sum_grad": grad_parts(leaf_sum.grad),
        "coalesced_leaf_grad": grad_parts(coalesced_leaf.grad),
        "no_grad_yet": coo().requires_grad_().grad is None,
    }


def reprs():
    hybrid = fg.sparse_coo_tensor(fg.tensor(IDX), fg.ones(4, 5), (2, 3, 5))
    return {
        "uncoalesced": repr(coo()),
        "str": str(coo()),
        "coalesced": repr(coo().coalesce()),
        "float64": repr(coo(dtype=fg.float64)),
        "int32": repr(coo(values=[3, 4, 5, 1]).to(fg.int32)),
        "int64": repr(coo(values=[3, 4, 5, 1])),
        "bool": repr(coo(values=[True, False, True, True])),
        "hybrid": repr(hybrid),
        "empty": repr(fg.sparse_coo_tensor(fg.zeros(2, 0, dtype=fg.int64), fg.zeros(0), (2, 3))),
        "empty_1d": repr(fg.sparse_coo_tensor(fg.zeros(1, 0, dtype=fg.int64), fg.ones(0))),
        "scalar": repr(fg.tensor(5.0).to_sparse()),
        "requires_grad": repr(coo().requires_grad_()),
        "to_sparse_1": repr(fg.tensor([[0.0, 2.0, 0.0], [1.0, 0.0, 0.0]]).to_sparse(1)),
        "big": repr(fg.eye(40).to_sparse()),
    }


CASES = {
    "construct": construct,
    "construct_errors": construct_errors,
    "coalesce": coalesce,
    "conversions": conversions,
    "arithmetic": arithmetic,
    "dense_and_sparse": dense_and_sparse,
    "sums": sums,
    "products": products,
    "gradients": gradients,
    "reprs": reprs,
}
