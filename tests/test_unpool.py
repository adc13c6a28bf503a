"""max_unpool1d/2d/3d, MaxUnpool1d/2d/3d and the max pools' `_with_indices` forms: edges, errors, saved fields
and grad_fn names against PyTorch (tests/golden/unpool.json; cases in tests/cases_unpool.py), values against
numpy, gradients (and gradients of gradients) against finite differences in float64."""

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from cases_unpool import CASES
from helpers import first_gradient, gradcheck
from recorded import check, expected

EXPECTED = expected("unpool", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])


def _numpy_unpool(values, indices, spatial_out):
    """Each value written at its flat index in its plane of zeros (the later of equal indices wins)."""
    n = len(spatial_out)
    lead = values.shape[:-n]
    planes = values.reshape(-1, int(np.prod(values.shape[-n:])))
    at = indices.reshape(planes.shape)
    out = np.zeros((planes.shape[0], int(np.prod(spatial_out))), dtype=values.dtype)
    for p in range(planes.shape[0]):
        for v, i in zip(planes[p], at[p]):
            out[p, i] = v
    return out.reshape(*lead, *spatial_out)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unpool2d_against_numpy(rng, dtype):
    x = rng.standard_normal((2, 3, 7, 8)).astype(dtype)
    values, indices = F.max_pool2d_with_indices(fg.tensor(x), 3, 2, 1)
    got = F.max_unpool2d(values, indices, 3, 2, 1, output_size=(7, 8))
    np.testing.assert_array_equal(got.numpy(), _numpy_unpool(values.numpy(), indices.numpy(), (7, 8)))
    # every kept value is the input's at its index
    flat = x.reshape(2, 3, -1)
    np.testing.assert_array_equal(
        np.take_along_axis(flat, indices.numpy().reshape(2, 3, -1), -1).reshape(values.shape), values.numpy()
    )


def test_unpool1d_and_3d_against_numpy(rng):
    x = rng.standard_normal((4, 11))
    values, indices = F.max_pool1d_with_indices(fg.tensor(x), 2, 3)
    got = F.max_unpool1d(values, indices, 2, 3)
    np.testing.assert_array_equal(got.numpy(), _numpy_unpool(values.numpy(), indices.numpy(), (got.shape[-1],)))
    v = rng.standard_normal((2, 2, 2, 3, 2))
    i = rng.integers(0, 4 * 6 * 4, size=v.shape)
    got = F.max_unpool3d(fg.tensor(v), fg.tensor(i), 2)
    np.testing.assert_array_equal(got.numpy(), _numpy_unpool(v, i, (4, 6, 4)))


# distinct indices: where two values share one, torch's gradient (a gather) is not the derivative of the
# write that keeps the later (the recorded cases cover that)
INDEXED = [
    pytest.param(lambda t: F.max_unpool2d(t, fg.tensor([[[[0, 3], [5, 15]]]]), 2), (1, 1, 2, 2), id="unpool2d"),
    pytest.param(lambda t: F.max_unpool1d(t, fg.tensor([[0, 3, 4]]), 2), (1, 3), id="unpool1d"),
    pytest.param(
        lambda t: F.max_unpool3d(t, fg.tensor([0, 9, 10, 63]).reshape(1, 1, 1, 2, 2), (4, 2, 2)),
        (1, 1, 1, 2, 2),
        id="unpool3d",
    ),
    pytest.param(lambda t: F.max_unpool2d(*F.max_pool2d_with_indices(t, 2), 2), (2, 5, 4), id="pool_unpool2d"),
    pytest.param(lambda t: F.max_pool1d_with_indices(t, 3, 2, 1)[0], (2, 3, 7), id="pool1d_with_indices"),
]


@pytest.mark.parametrize("f, shape", INDEXED)
def test_gradcheck(rng, f, shape):
    gradcheck(f, [rng.standard_normal(shape)])


@pytest.mark.parametrize("f, shape", INDEXED)
def test_gradient_of_gradient(rng, f, shape):
    gradcheck(first_gradient(f), [rng.standard_normal(shape)])
