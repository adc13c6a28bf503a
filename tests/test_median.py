"""median: the lower median, (values, indices) along a dim as torch.return_types.median, gradients (ties and
indices are in tests/test_edges.py, recorded from torch)."""

import math

import ferrograd as fg
import numpy as np
import pytest
from helpers import MODULE_PREFIX, assert_tensor, gradcheck


def test_median_without_dim_is_the_lower_median(rng):
    a = rng.standard_normal((4, 5))
    assert_tensor(fg.tensor(a).median(), np.sort(a.reshape(-1))[(a.size - 1) // 2])
    assert_tensor(fg.median(fg.tensor(a).t()), np.sort(a.reshape(-1))[(a.size - 1) // 2])
    assert_tensor(fg.tensor([1, 2, 3, 4]).median(), np.array(2), dtype="int64")
    assert math.isnan(fg.tensor([1.0, math.nan, 3.0]).median().item())
    assert math.isnan(fg.zeros(0).median().item())
    assert fg.tensor(3.0).median().item() == 3.0


def test_median_with_dim_returns_values_and_indices(rng):
    a = rng.standard_normal((3, 4, 5))
    x = fg.tensor(a)
    for dim in (0, 1, -1):
        out = x.median(dim)
        assert type(out).__name__ == "median" and out.values is out[0] and out.indices is out[1]
        n = a.shape[dim]
        expected = np.sort(a, axis=dim).take((n - 1) // 2, axis=dim)
        assert_tensor(out.values, expected)
        assert_tensor(out.indices, np.argsort(a, axis=dim, kind="stable").take((n - 1) // 2, axis=dim), dtype="int64")
    out = fg.median(x.transpose(0, 2), 1, keepdim=True)
    assert out.values.shape == (5, 1, 3) and out.indices.shape == (5, 1, 3)
    values, indices = fg.tensor([[1, 5, 3], [2, 2, 7]]).median(1)
    assert values.tolist() == [3, 2] and indices.tolist() == [2, 1]
    assert fg.tensor([math.nan, 1.0, math.nan]).median(0).indices.item() == 0  # the first NaN
    assert fg.zeros(0, 2).median(1).values.shape == (0,)
    assert fg.tensor(3.0).median(0).indices.item() == 0


def test_median_repr_and_grad_fn_names():
    out = fg.tensor([1.0, 2.0]).median(0)
    assert repr(out) == f"{MODULE_PREFIX}return_types.median(\nvalues=tensor(1.),\nindices=tensor(0))"
    x = fg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    assert x.median().grad_fn.name() == "MedianBackward0"
    assert x.median(0).values.grad_fn.name() == "MedianBackward1"


def test_median_gradcheck(rng):
    a = rng.standard_normal((3, 5))  # distinct values: the median is differentiable there
    gradcheck(lambda x: x.median(), [a])
    gradcheck(lambda x: x.median(1).values, [a])
    gradcheck(lambda x: x.median(0, keepdim=True).values, [a])


@pytest.mark.parametrize(
    "call,exc,phrase",
    [
        (lambda: fg.zeros(0).median(0), IndexError, r"median\(\): Expected reduction dim 0 to have non-zero size."),
        (lambda: fg.zeros(2, 0).median(1), IndexError, "Expected reduction dim 1 to have non-zero size"),
        (lambda: fg.tensor([True]).median(), NotImplementedError, "\"median_cpu\" not implemented for 'Bool'"),
        (lambda: fg.ones(2).median(1), IndexError, "Dimension out of range"),
    ],
)
def test_median_errors(call, exc, phrase):
    with pytest.raises(exc, match=phrase):
        call()
