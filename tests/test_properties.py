"""Hypothesis properties over random shapes (0-4 dims, sizes 0-5), broadcasting pairs,
random strides (permuted, stepped with an offset, expanded) and dtypes."""

import operator

import ferrograd as fg
import hypothesis.extra.numpy as hnp
import numpy as np
from helpers import FLOAT_NAMES, NP_DTYPES, assert_tensor, dtype_name, reduce_to, result_dtype, tensor_operand
from hypothesis import given, settings
from hypothesis import strategies as st

ALL_DTYPES = ["float32", "float64", "int64", "bool"]


def _elements(name, positive=False):
    if name == "bool":
        return st.booleans()
    if name == "uint8":
        return st.integers(1 if positive else 0, 5)
    if name.startswith("int"):
        return st.integers(1, 5) if positive else st.integers(-5, 5)
    lo = 0.25 if positive else -4.0
    # exactly representable in the dtype and every wider float
    return st.floats(lo, 4.0, width=16 if name == "float16" else 32)


@st.composite
def strided_tensors(draw, shape, dtype, positive=False):
    """(numpy values, ferrograd tensor) of the given shape with a random layout: storage in
    a permuted order, some dims stepped (every 2nd element, offset 1), some expanded."""
    ndim = len(shape)
    expanded = [draw(st.booleans()) for _ in shape]
    stepped = [draw(st.booleans()) for _ in shape]
    perm = draw(st.permutations(range(ndim))) if ndim >= 2 else list(range(ndim))
    base_shape = [1 if e else n for n, e in zip(shape, expanded)]
    storage_shape = [2 * n + 1 if s else n for n, s in zip(base_shape, stepped)]
    storage = draw(
        hnp.arrays(NP_DTYPES[dtype], tuple(storage_shape[p] for p in perm), elements=_elements(dtype, positive))
    )
    # storage is laid out in `perm` order; permute back to logical order
    inverse = list(np.argsort(perm))
    t = fg.tensor(storage, dtype=getattr(fg, dtype))
    a = storage
    if ndim >= 2:
        t = t.permute(*inverse)
        a = a.transpose(inverse)
    if any(stepped):
        index = tuple(slice(1, None, 2) if s else slice(None) for s in stepped)
        t = t[index]
        a = a[index]
    if any(expanded):
        t = t.expand(*shape)
        a = np.broadcast_to(a, shape)
    assert t.shape == tuple(shape)
    return np.array(a), t


shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)
broadcast_pairs = hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, min_side=0, max_side=5)


def _allowed(op, da, db):
    """Dtype pairs for which torch defines the op (see test_errors for the others)."""
    if op == "-" and "bool" in (da, db):
        return False
    if op == "**":
        return da in FLOAT_NAMES and db in FLOAT_NAMES
    return True


ARITH = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide, "**": np.power}
PY_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "**": operator.pow}
CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal}


def _expected_binary(op, a, b, out_dtype):
    if out_dtype == "bool":  # bool + bool is logical or, bool * bool logical and
        return {"+": np.logical_or, "*": np.logical_and}[op](a, b)
    with np.errstate(all="ignore"):
        exact = ARITH[op](a.astype(np.float64), b.astype(np.float64))
        # rounded to the result's dtype: 1 / 1.03e-41 is inf in float32 (as in torch and numpy), not 9.7e40
        return exact.astype(np.float32) if out_dtype == "float32" else exact


def _tolerance(out_dtype):
    """float32 results are computed in float32: allow a few ulps."""
    return {"rtol": 1e-5, "atol": 1e-6} if out_dtype == "float32" else {}


@settings(max_examples=150)
@given(
    data=st.data(),
    pair=broadcast_pairs,
    op=st.sampled_from(list(ARITH)),
    dtypes=st.tuples(st.sampled_from(ALL_DTYPES), st.sampled_from(ALL_DTYPES)),
)
def test_binary_arith_matches_numpy_with_torch_promotion(data, pair, op, dtypes):
    da, db = dtypes
    if not _allowed(op, da, db):
        da = db = "float64"
    (sa, sb), out_shape = pair.input_shapes, pair.result_shape
    a, x = data.draw(strided_tensors(sa, da, positive=(op == "**")))
    b, y = data.draw(strided_tensors(sb, db))
    out = PY_OPS[op](x, y)
    expected_dtype = result_dtype(tensor_operand(x), tensor_operand(y))
    if op == "/" and expected_dtype in ("int64", "bool"):
        expected_dtype = "float32"
    assert dtype_name(out.dtype) == expected_dtype
    assert_tensor(out, _expected_binary(op, a, b, expected_dtype), dtype=expected_dtype, **_tolerance(expected_dtype))
    assert out.shape == out_shape


@settings(max_examples=60)
@given(
    data=st.data(),
    shape=shapes,
    op=st.sampled_from(["+", "-", "*", "/"]),
    dtype=st.sampled_from(ALL_DTYPES),
    scalar=st.one_of(st.integers(-3, 3), st.sampled_from([0.5, -1.5, 2.0]), st.booleans()),
    reflected=st.booleans(),
)
def test_tensor_scalar_arith_matches_numpy(data, shape, op, dtype, scalar, reflected):
    if op == "-" and (dtype == "bool" or isinstance(scalar, bool)):
        scalar = 2
        dtype = "int64" if dtype == "bool" else dtype
    a, x = data.draw(strided_tensors(shape, dtype))
    out = PY_OPS[op](scalar, x) if reflected else PY_OPS[op](x, scalar)
    expected_dtype = result_dtype(tensor_operand(x), ("scalar", scalar))
    if op == "/" and expected_dtype in ("int64", "bool"):
        expected_dtype = "float32"
    assert dtype_name(out.dtype) == expected_dtype
    s = np.array(scalar)
    if reflected and op == "/":
        # PyTorch computes `n / x` as `x.reciprocal() * n` (so 0 / 1e-45 is nan in float32, as in torch)
        with np.errstate(all="ignore"):
            recip = (1.0 / a.astype(np.float64)).astype(np.float32 if expected_dtype == "float32" else np.float64)
            expected = recip.astype(np.float64) * s
    else:
        expected = (
            _expected_binary(op, s, a, expected_dtype) if reflected else _expected_binary(op, a, s, expected_dtype)
        )
    assert_tensor(out, np.broadcast_to(expected, shape), dtype=expected_dtype, **_tolerance(expected_dtype))


@settings(max_examples=80)
@given(
    data=st.data(),
    pair=broadcast_pairs,
    op=st.sampled_from(list(CMP)),
    dtypes=st.tuples(st.sampled_from(ALL_DTYPES), st.sampled_from(ALL_DTYPES)),
)
def test_comparisons_match_numpy(data, pair, op, dtypes):
    (sa, sb) = pair.input_shapes
    a, x = data.draw(strided_tensors(sa, dtypes[0]))
    b, y = data.draw(strided_tensors(sb, dtypes[1]))
    out = getattr(x, op)(y)
    assert_tensor(out, CMP[op](a.astype(np.float64), b.astype(np.float64)), dtype="bool")


@st.composite
def reduction_dims(draw, ndim):
    """None, one dim (maybe negative) or a tuple of distinct dims."""
    if ndim == 0:
        return None
    kind = draw(st.sampled_from(["none", "one", "tuple"]))
    if kind == "none":
        return None
    if kind == "one":
        return draw(st.integers(-ndim, ndim - 1))
    dims = draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
    return tuple(d - ndim if draw(st.booleans()) else d for d in dims)


@settings(max_examples=120)
@given(data=st.data(), shape=shapes, dtype=st.sampled_from(ALL_DTYPES), keepdim=st.booleans())
def test_sum_matches_numpy(data, shape, dtype, keepdim):
    a, x = data.draw(strided_tensors(shape, dtype))
    dim = data.draw(reduction_dims(len(shape)))
    out = x.sum() if dim is None and not keepdim else x.sum(dim=dim, keepdim=keepdim)
    expected_dtype = dtype if dtype in FLOAT_NAMES else "int64"
    expected = a.astype(np.float64).sum(axis=dim, keepdims=keepdim)
    # float32 sums: the error grows with the magnitude of what is summed
    atol = 1e-5 * (1 + np.abs(a.astype(np.float64)).sum(axis=dim, keepdims=keepdim))
    assert_tensor(
        out,
        expected,
        dtype=expected_dtype,
        rtol=1e-5 if dtype == "float32" else None,
        atol=atol if dtype == "float32" else None,
    )


@settings(max_examples=80)
@given(data=st.data(), shape=shapes, dtype=st.sampled_from(FLOAT_NAMES), keepdim=st.booleans())
def test_mean_matches_numpy(data, shape, dtype, keepdim):
    a, x = data.draw(strided_tensors(shape, dtype))
    dim = data.draw(reduction_dims(len(shape)))
    out = x.mean() if dim is None and not keepdim else x.mean(dim=dim, keepdim=keepdim)
    with np.errstate(all="ignore"):
        total = a.astype(np.float64).sum(axis=dim, keepdims=keepdim)
        count = a.size if dim is None else int(np.prod([shape[d] for d in np.atleast_1d(dim)]))
        expected = total / count if count else np.full(np.shape(total), np.nan)
    assert_tensor(
        out, expected, dtype=dtype, rtol=1e-5 if dtype == "float32" else None, atol=1e-5 if dtype == "float32" else None
    )


@settings(max_examples=60)
@given(data=st.data(), shape=shapes, dtype=st.sampled_from(ALL_DTYPES))
def test_norm_all_any_match_numpy(data, shape, dtype):
    a, x = data.draw(strided_tensors(shape, dtype))
    assert_tensor(x.all(), np.array(np.all(a)), dtype="bool")
    assert_tensor(x.any(), np.array(np.any(a)), dtype="bool")
    if dtype in FLOAT_NAMES:
        expected = np.sqrt((a.astype(np.float64) ** 2).sum())
        assert_tensor(x.norm(), np.array(expected), dtype=dtype, rtol=1e-5 if dtype == "float32" else None)


GRAD_RULES = {
    # op: (d out / d a, d out / d b) as functions of broadcast a, b
    "+": (lambda a, b: np.ones_like(a * b), lambda a, b: np.ones_like(a * b)),
    "-": (lambda a, b: np.ones_like(a * b), lambda a, b: -np.ones_like(a * b)),
    "*": (lambda a, b: b + 0 * a, lambda a, b: a + 0 * b),
    "/": (lambda a, b: 1 / b + 0 * a, lambda a, b: -a / (b * b)),
}


@settings(max_examples=100)
@given(
    data=st.data(),
    pair=broadcast_pairs,
    op=st.sampled_from(list(GRAD_RULES)),
    dtypes=st.tuples(st.sampled_from(FLOAT_NAMES), st.sampled_from(FLOAT_NAMES)),
)
def test_grad_of_sum_of_broadcast_binary_op(data, pair, op, dtypes):
    (sa, sb) = pair.input_shapes
    a, x = data.draw(strided_tensors(sa, dtypes[0]))
    b, y = data.draw(strided_tensors(sb, dtypes[1], positive=(op == "/")))
    # leaves with the drawn (possibly non-contiguous) layouts
    x = x.detach().requires_grad_()
    y = y.detach().requires_grad_()
    out = PY_OPS[op](x, y).sum()
    out.backward()
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ga, gb = (rule(a64, b64) for rule in GRAD_RULES[op])
    for leaf, g, shape, name in ((x, ga, sa, dtypes[0]), (y, gb, sb, dtypes[1])):
        expected = reduce_to(g, shape)
        # float32 error grows with the number and size of the summed terms
        tol = {"rtol": 1e-5, "atol": 1e-5 * (1 + reduce_to(np.abs(g), shape))} if "float32" in dtypes else {}
        # the gradient keeps the input's dtype, whatever the output's
        assert_tensor(leaf.grad, expected, dtype=name, **tol)


@settings(max_examples=60)
@given(data=st.data(), shape=shapes, dtype=st.sampled_from(ALL_DTYPES))
def test_reshape_and_contiguous_roundtrip(data, shape, dtype):
    a, x = data.draw(strided_tensors(shape, dtype))
    flat = x.reshape(-1)
    assert_tensor(flat, a.reshape(-1), dtype=dtype)
    assert_tensor(flat.reshape(shape), a, dtype=dtype)
    assert x.tolist() == a.tolist()
    np.testing.assert_array_equal(np.asarray(x), a)


@settings(max_examples=50)
@given(
    data=st.data(),
    batch=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, min_side=1, max_side=3),
    nkm=st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(0, 4)),
    dtype=st.sampled_from(FLOAT_NAMES),
)
def test_matmul_matches_numpy(data, batch, nkm, dtype):
    n, k, m = nkm
    (ba, bb) = batch.input_shapes
    sa, sb = ba + (n, k), bb + (k, m)
    a, x = data.draw(strided_tensors(sa, dtype))
    b, y = data.draw(strided_tensors(sb, dtype))
    expected = np.matmul(a.astype(np.float64), b.astype(np.float64))
    atol = 1e-5 * (1 + np.matmul(np.abs(a).astype(np.float64), np.abs(b).astype(np.float64)))
    assert_tensor(
        x @ y,
        expected,
        dtype=dtype,
        rtol=1e-5 if dtype == "float32" else None,
        atol=atol if dtype == "float32" else None,
    )


NARROW_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32"]


@settings(max_examples=150)
@given(
    data=st.data(),
    pair=broadcast_pairs,
    op=st.sampled_from(["+", "-", "*"]),
    dtypes=st.tuples(st.sampled_from(NARROW_DTYPES), st.sampled_from(NARROW_DTYPES)),
)
def test_narrow_dtype_arith_matches_numpy_in_the_result_dtype(data, pair, op, dtypes):
    """Mixed narrow dtypes, strided and broadcast: torch's result dtype, and the values numpy gets
    computing in that dtype (ints wrap, float16 rounds each result)."""
    da, db = dtypes
    if op == "-" and "bool" in dtypes:
        op = "+"
    (sa, sb), out_shape = pair.input_shapes, pair.result_shape
    a, x = data.draw(strided_tensors(sa, da))
    b, y = data.draw(strided_tensors(sb, db))
    out = PY_OPS[op](x, y)
    expected_dtype = result_dtype(tensor_operand(x), tensor_operand(y))
    assert dtype_name(out.dtype) == expected_dtype
    np_dtype = NP_DTYPES[expected_dtype]
    with np.errstate(all="ignore"):
        expected = (
            ARITH[op](a.astype(np_dtype), b.astype(np_dtype))
            if expected_dtype != "bool"
            else _expected_binary(op, a, b, "bool")
        )
    np.testing.assert_array_equal(out.numpy(), expected)
    assert out.shape == out_shape
