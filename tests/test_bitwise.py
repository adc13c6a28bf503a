"""`& | ^ ~ << >>` and their method, function and in-place forms: values against numpy (shifts against
torch's rule written in numpy) over dtypes, broadcasting and strided layouts; promotion, shift edges, errors
and in-place casts against PyTorch (tests/golden/bitwise.json; cases in tests/cases_bitwise.py)."""

import operator

import ferrograd as fg
import numpy as np
import pytest
from cases_bitwise import CASES, INTS
from recorded import check, expected

EXPECTED = expected("bitwise", CASES)
BITS = {"uint8": 8, "int8": 8, "int16": 16, "int32": 32, "int64": 64}


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])


def shift_np(x, by, left):
    """torch's shifts: 0 (left) or the sign fill (right) once the count is negative or reaches the width."""
    bits = x.dtype.itemsize * 8
    out_of_range = (by < 0) | (by >= bits)
    safe = np.where(out_of_range, 0, by).astype(x.dtype)
    if left:
        return np.where(out_of_range, 0, np.left_shift(x, safe)).astype(x.dtype)
    signed = np.issubdtype(x.dtype, np.signedinteger)
    fill = np.right_shift(x, np.array(bits - 1, dtype=x.dtype)) if signed else np.zeros_like(x)
    return np.where(out_of_range, fill, np.right_shift(x, safe)).astype(x.dtype)


OPS = {
    "and": (operator.and_, np.bitwise_and),
    "or": (operator.or_, np.bitwise_or),
    "xor": (operator.xor, np.bitwise_xor),
    "lshift": (operator.lshift, lambda x, y: shift_np(x, y, True)),
    "rshift": (operator.rshift, lambda x, y: shift_np(x, y, False)),
}


def ints(rng, shape, dtype, low=None, high=None):
    info = np.iinfo(dtype)
    low = info.min if low is None else low
    high = info.max if high is None else high
    return rng.integers(low, high, shape, endpoint=True).astype(dtype)


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("dtype", INTS)
def test_against_numpy_over_layouts(op, dtype, rng):
    fg_op, np_op = OPS[op]
    bits = BITS[dtype]
    a = ints(rng, (3, 4, 5), dtype)
    # shift counts over the whole interesting range, negative ones included where the dtype has them
    b = ints(rng, (4, 5), dtype, *((None, None) if "shift" not in op else (-3 if dtype != "uint8" else 0, bits + 3)))
    want = np_op(a, b[None])
    x, y = fg.tensor(a), fg.tensor(b)
    got = fg_op(x, y)
    assert got.dtype == getattr(fg, dtype)
    np.testing.assert_array_equal(got.numpy(), want)
    # the same values read through a transpose and a step (not contiguous)
    xt = fg.tensor(np.ascontiguousarray(a.transpose(2, 1, 0))).permute(2, 1, 0)
    yt = fg.tensor(np.repeat(b, 2, axis=1))[:, ::2]
    assert not xt.is_contiguous() and not yt.is_contiguous()
    np.testing.assert_array_equal(fg_op(xt, yt).numpy(), want)
    # broadcasting a column, and a Python number on either side
    col = b[:, :1]
    np.testing.assert_array_equal(fg_op(x, fg.tensor(col)).numpy(), np_op(a, col[None]))
    n = 2 if "shift" in op else 0x5A
    np.testing.assert_array_equal(fg_op(x, n).numpy(), np_op(a, np.array(n, dtype=a.dtype)))
    np.testing.assert_array_equal(fg_op(n, x).numpy(), np_op(np.array(n, dtype=a.dtype), a))


@pytest.mark.parametrize("op", ["and", "or", "xor"])
def test_bool_masks(op, rng):
    fg_op, np_op = OPS[op]
    a, b = rng.uniform(size=(6, 7)) > 0.5, rng.uniform(size=(6, 7)) > 0.5
    got = fg_op(fg.tensor(a), fg.tensor(b))
    assert got.dtype == fg.bool
    np.testing.assert_array_equal(got.numpy(), np_op(a, b))
    np.testing.assert_array_equal(fg_op(fg.tensor(a).t(), fg.tensor(b).t()).numpy(), np_op(a.T, b.T))
    np.testing.assert_array_equal((~fg.tensor(a)).numpy(), ~a)


@pytest.mark.parametrize("dtype", INTS)
def test_invert_and_function_forms(dtype, rng):
    a = ints(rng, (4, 6), dtype)
    x = fg.tensor(a)
    np.testing.assert_array_equal((~x).numpy(), ~a)
    np.testing.assert_array_equal(fg.bitwise_not(x.t()).numpy(), ~a.T)
    b = ints(rng, (6,), dtype)
    for name, (_, np_op) in zip(
        ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"], OPS.values()
    ):
        count = b % BITS[dtype] if "shift" in name else b
        want = np_op(a, count)
        np.testing.assert_array_equal(getattr(fg, name)(x, fg.tensor(count)).numpy(), want)
        np.testing.assert_array_equal(getattr(x, name)(fg.tensor(count)).numpy(), want)
        y = x.clone()
        assert getattr(y, name + "_")(fg.tensor(count)) is y
        np.testing.assert_array_equal(y.numpy(), want)


def test_inplace_operators_keep_identity_and_write_through_views():
    x = fg.tensor([[1, 2, 3], [4, 5, 6]], dtype=fg.int32)
    same = x
    x &= 6
    x |= fg.tensor([8, 0, 0], dtype=fg.int32)
    x ^= 1
    x <<= 1
    x >>= 2
    assert x is same
    want = ((((np.array([[1, 2, 3], [4, 5, 6]]) & 6) | [8, 0, 0]) ^ 1) << 1) >> 2
    np.testing.assert_array_equal(x.numpy(), want)
    base = fg.zeros(2, 4, dtype=fg.int64)
    column = base[:, 1]
    column |= 5
    np.testing.assert_array_equal(base.numpy(), [[0, 5, 0, 0], [0, 5, 0, 0]])


def test_mask_combinations_in_expressions():
    x = fg.arange(10)
    mask = (x > 2) & (x < 7) | (x == 9)
    assert mask.dtype == fg.bool
    np.testing.assert_array_equal(mask.numpy(), [(2 < v < 7) or v == 9 for v in range(10)])
    np.testing.assert_array_equal(x[~mask].numpy(), [0, 1, 2, 7, 8])


def test_large_contiguous_inputs_match_numpy(rng):
    """Inputs past the size at which the kernels split the work over threads."""
    a, b = ints(rng, (1 << 18,), "int32"), ints(rng, (1 << 18,), "int32")
    np.testing.assert_array_equal((fg.tensor(a) & fg.tensor(b)).numpy(), a & b)
    m, n = rng.uniform(size=1 << 18) > 0.5, rng.uniform(size=1 << 18) > 0.5
    np.testing.assert_array_equal((fg.tensor(m) ^ fg.tensor(n)).numpy(), m ^ n)
