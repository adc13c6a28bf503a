"""cummax/cummin, take, unique, unique_consecutive, searchsorted, bucketize, isclose: edges, dtypes, errors and
grad_fn names against PyTorch (tests/golden/vocab.json; cases in tests/cases_vocab.py), values against numpy
on random inputs, gradients against finite differences in float64."""

import ferrograd as fg
import numpy as np
import pytest
from cases_vocab import CASES
from helpers import gradcheck
from recorded import check, expected

EXPECTED = expected("vocab", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])


@pytest.mark.parametrize("is_max", [True, False])
def test_cummax_cummin_against_numpy(rng, is_max):
    a = rng.integers(-3, 4, (4, 6, 5)).astype(np.float64)  # small integers: many ties
    accumulate = np.maximum.accumulate if is_max else np.minimum.accumulate
    for dim in (0, 1, 2, -1):
        out = getattr(fg.tensor(a), "cummax" if is_max else "cummin")(dim)
        np.testing.assert_array_equal(out.values.numpy(), accumulate(a, axis=dim))
        # the index points at an element equal to the running extreme, the last such one so far
        picked = np.take_along_axis(a, out.indices.numpy(), axis=dim)
        np.testing.assert_array_equal(picked, out.values.numpy())


def test_cummax_cummin_gradcheck(rng):
    a = rng.standard_normal((3, 5))
    gradcheck(lambda x: x.cummax(1).values, [a])
    gradcheck(lambda x: x.cummin(0).values, [a])
    gradcheck(lambda x: fg.cummax(x.t(), 0).values, [a])


def test_take_against_numpy_and_gradcheck(rng):
    a = rng.standard_normal((4, 5))
    idx = rng.integers(-20, 20, (3, 7))
    np.testing.assert_array_equal(fg.tensor(a).take(fg.tensor(idx)).numpy(), np.take(a, idx))
    np.testing.assert_array_equal(fg.tensor(a).t().take(fg.tensor(idx)).numpy(), np.take(a.T, idx))
    gradcheck(lambda x: x.take(fg.tensor(idx)), [a])


def test_unique_against_numpy(rng):
    a = rng.integers(-5, 5, (6, 7))
    values, inverse, counts = fg.unique(fg.tensor(a), return_inverse=True, return_counts=True)
    want, want_inverse, want_counts = np.unique(a, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(values.numpy(), want)
    np.testing.assert_array_equal(inverse.numpy(), want_inverse.reshape(a.shape))
    np.testing.assert_array_equal(counts.numpy(), want_counts)
    f = rng.standard_normal(50).astype(np.float32)
    np.testing.assert_array_equal(fg.tensor(f).unique().numpy(), np.unique(f))


def test_unique_consecutive_against_numpy(rng):
    a = rng.integers(0, 3, 40)
    values, inverse, counts = fg.tensor(a).unique_consecutive(return_inverse=True, return_counts=True)
    starts = np.flatnonzero(np.r_[True, a[1:] != a[:-1]])
    np.testing.assert_array_equal(values.numpy(), a[starts])
    np.testing.assert_array_equal(counts.numpy(), np.diff(np.r_[starts, a.size]))
    np.testing.assert_array_equal(inverse.numpy(), np.cumsum(np.r_[True, a[1:] != a[:-1]]) - 1)


@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_bucketize_against_numpy(rng, right):
    seq = np.sort(rng.integers(0, 10, 12)).astype(np.float64)
    v = rng.integers(-2, 12, (5, 4)).astype(np.float64)
    side = "right" if right else "left"
    want = np.searchsorted(seq, v, side=side)
    np.testing.assert_array_equal(fg.searchsorted(fg.tensor(seq), fg.tensor(v), right=right).numpy(), want)
    np.testing.assert_array_equal(fg.bucketize(fg.tensor(v), fg.tensor(seq), right=right).numpy(), want)
    rows = np.sort(rng.standard_normal((3, 8)), axis=1)
    vals = rng.standard_normal((3, 5))
    got = fg.searchsorted(fg.tensor(rows), fg.tensor(vals), side=side).numpy()
    np.testing.assert_array_equal(got, np.stack([np.searchsorted(r, x, side=side) for r, x in zip(rows, vals)]))
    perm = rng.permutation(seq.size)
    shuffled, sorter = seq[perm], np.argsort(seq[perm], kind="stable")
    got = fg.searchsorted(fg.tensor(shuffled), fg.tensor(v), right=right, sorter=fg.tensor(sorter)).numpy()
    np.testing.assert_array_equal(got, want)


def test_isclose_against_numpy(rng):
    a = rng.standard_normal((4, 5))
    b = a + rng.choice([0.0, 1e-9, 1e-6, 1e-3], a.shape)
    got = fg.isclose(fg.tensor(a), fg.tensor(b)).numpy()
    np.testing.assert_array_equal(got, np.isclose(a, b, rtol=1e-5, atol=1e-8))
    assert fg.tensor(a).allclose(fg.tensor(a + 1e-12))


def test_stacking_against_numpy_and_gradcheck(rng):
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    for name in ("hstack", "vstack", "dstack", "column_stack"):
        got = getattr(fg, name)([fg.tensor(a), fg.tensor(b)]).numpy()
        np.testing.assert_array_equal(got, getattr(np, name)([a, b]))
        gradcheck(lambda x, y, n=name: getattr(fg, n)([x, y]), [a, b])
    for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
        for shape in ((), (3,), (2, 3)):
            x = rng.standard_normal(shape)
            assert getattr(fg, name)(fg.tensor(x)).shape == getattr(np, name)(x).shape


def test_tensor_split_against_numpy_and_gradcheck(rng):
    a = rng.standard_normal((5, 7))
    for how in (3, 7, [2, 4], [4, 2, -1]):
        for dim in (0, 1):
            got = [t.numpy() for t in fg.tensor_split(fg.tensor(a), how, dim=dim)]
            want = np.array_split(a, how, axis=dim)
            assert len(got) == len(want) and all(np.array_equal(g, w) for g, w in zip(got, want))
    gradcheck(lambda x: fg.cat([t * (i + 1) for i, t in enumerate(fg.tensor_split(x, 3, dim=1))], 1), [a])
