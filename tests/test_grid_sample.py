"""grid_sample / grid_sampler* and affine_grid / affine_grid_generator: edges, dtypes, errors, warnings, saved
fields and grad_fn names against PyTorch (tests/golden/grid_sample.json; cases in tests/cases_grid_sample.py),
values against a small numpy reference on random inputs, gradients w.r.t. input, grid and θ (and gradients of
gradients) against finite differences in float64."""

import itertools

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from cases_grid_sample import CASES, MODES, PADDINGS
from helpers import AGAINST_TORCH, gradcheck
from recorded import check, expected

EXPECTED = expected("grid_sample", CASES)
CUBIC_A = -0.75


# torch's half kernels round every step to the half type, ferrograd's compute in float32 and round once
HALF_TOL = (1e-2, 1e-3)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name], tol=HALF_TOL if name == "half" else None)


def _pad(x, size, padding, align_corners):
    """torch's compute_coordinates for finite x: clip to the input, or reflect into it and clip."""
    if padding == "reflection":
        low, span = (0.0, size - 1.0) if align_corners else (-0.5, float(size))
        if span <= 0:
            return 0.0
        d = abs(x - low)
        extra, flips = np.fmod(d, span), np.floor(d / span)
        x = (extra if flips % 2 == 0 else span - extra) + low
    if padding != "zeros":
        x = min(max(x, 0.0), size - 1.0)
    return x


def _cubic(t):
    near = lambda x: ((CUBIC_A + 2) * x - (CUBIC_A + 3)) * x * x + 1
    far = lambda x: ((CUBIC_A * x - 5 * CUBIC_A) * x + 8 * CUBIC_A) * x - 4 * CUBIC_A
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _axis_taps(g, size, mode, padding, align_corners):
    """(position or None outside, weight) pairs along one axis for a grid coordinate g."""
    x = (g + 1) / 2 * (size - 1) if align_corners else ((g + 1) * size - 1) / 2
    inside = lambda i: i if 0 <= i < size else None
    if mode == "bicubic":
        base = np.floor(x)
        taps = [int(_pad(base - 1 + k, size, padding, align_corners)) for k in range(4)]
        return [(inside(i), w) for i, w in zip(taps, _cubic(x - base))]
    x = _pad(x, size, padding, align_corners)
    if mode == "nearest":
        return [(inside(int(np.round(x))), 1.0)]
    base = np.floor(x)
    return [(inside(int(base)), 1 - (x - base)), (inside(int(base) + 1), x - base)]


def reference(x, grid, mode, padding, align_corners):
    """numpy grid_sample: x (N, C, *S), grid (N, *O, len(S)) → (N, C, *O)."""
    n, c, *spatial = x.shape
    dims = len(spatial)
    points = grid.reshape(n, -1, dims)
    out = np.zeros((n, c, points.shape[1]))
    for b, p in itertools.product(range(n), range(points.shape[1])):
        # grid coordinate a indexes the spatial dim counted from the last
        per_axis = [
            _axis_taps(points[b, p, a], spatial[dims - 1 - a], mode, padding, align_corners) for a in range(dims)
        ]
        for combo in itertools.product(*per_axis):
            weight = np.prod([w for _, w in combo])
            if all(i is not None for i, _ in combo):
                out[b, :, p] += weight * x[(b, slice(None), *[i for i, _ in reversed(combo)])]
    return out.reshape(n, c, *grid.shape[1:-1])


FORWARD = [(m, p, ac, dims) for m in MODES for p in PADDINGS for ac in (False, True) for dims in (2, 3)]


@pytest.mark.parametrize("mode,padding,align_corners,dims", FORWARD)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_against_numpy(rng, mode, padding, align_corners, dims, dtype):
    shape, gshape = ((2, 3, 5, 4), (2, 3, 4, 2)) if dims == 2 else ((2, 2, 3, 4, 5), (2, 2, 3, 2, 3))
    x = rng.standard_normal(shape).astype(dtype)
    grid = rng.uniform(-1.3, 1.3, gshape).astype(dtype)
    got = F.grid_sample(fg.tensor(x), fg.tensor(grid), mode=mode, padding_mode=padding, align_corners=align_corners)
    want = reference(x.astype(np.float64), grid.astype(np.float64), mode, padding, align_corners)
    tol = 1e-4 if dtype == "float32" else 1e-10
    assert str(got.dtype).endswith(dtype)
    np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)


def _away_from_cells(rng, shape, sizes, align_corners, margin=0.05):
    """Grid coordinates whose input positions sit at least `margin` from a whole number (where the weights'
    derivatives jump) and from the clipping and reflection turning points."""
    grid = rng.uniform(-1.2, 1.2, shape)
    for a in range(shape[-1]):
        size = sizes[len(sizes) - 1 - a]
        scale = (size - 1) / 2 if align_corners else size / 2
        x = (grid[..., a] + 1) * scale - (0 if align_corners else 0.5)
        frac = x - np.floor(x)
        x = np.floor(x) + np.clip(frac, margin, 1 - margin)
        # halves are turning points of the reflection without align_corners
        frac2 = (x + 0.5) - np.floor(x + 0.5)
        x = np.where(np.abs(frac2 - 0.5) > 0.5 - margin, x + 2 * margin, x)
        grid[..., a] = (x + (0 if align_corners else 0.5)) / scale - 1
    return grid


GRADS = [(m, p, ac) for m in MODES for p in PADDINGS for ac in (False, True)]


@pytest.mark.parametrize("mode,padding,align_corners", GRADS)
@pytest.mark.parametrize("dims", [2, 3])
def test_gradcheck(rng, mode, padding, align_corners, dims):
    shape, gshape = ((2, 2, 4, 5), (2, 3, 2, 2)) if dims == 2 else ((1, 2, 3, 4, 3), (1, 2, 2, 1, 3))
    x = rng.standard_normal(shape)
    grid = _away_from_cells(rng, gshape, shape[2:], align_corners)
    gradcheck(lambda x, g: F.grid_sample(x, g, mode, padding, align_corners), [x, grid])


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("dims", [2, 3])
def test_gradient_of_gradient(rng, mode, dims):
    """The backward is differentiable (create_graph=True), as torch's GridSampler*BackwardBackward0."""
    shape, gshape = ((1, 2, 4, 5), (1, 2, 2, 2)) if dims == 2 else ((1, 1, 3, 3, 3), (1, 1, 2, 1, 3))
    x = rng.standard_normal(shape)
    grid = _away_from_cells(rng, gshape, shape[2:], False)
    w = fg.tensor(rng.standard_normal((shape[0], shape[1], *gshape[1:-1])))

    def first_gradients(x, g):
        create_graph = x.requires_grad or g.requires_grad
        x, g = (t if t.requires_grad else t.detach().requires_grad_() for t in (x, g))
        y = F.grid_sample(x, g, mode, "border", False)
        gx, gg = fg.autograd.grad((y * w).sum(), [x, g], create_graph=create_graph)
        return gx.sum() * 0.5 + (gg * gg).sum() + 0 * (x.sum() + g.sum())

    gradcheck(first_gradients, [x, grid])


@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_gradcheck(rng, align_corners):
    gradcheck(lambda t: F.affine_grid(t, [2, 1, 3, 4], align_corners), [rng.standard_normal((2, 2, 3))])
    gradcheck(lambda t: F.affine_grid(t, (1, 2, 2, 3, 2), align_corners), [rng.standard_normal((1, 3, 4))])


def test_affine_grid_against_numpy(rng):
    theta = rng.standard_normal((2, 2, 3))
    got = F.affine_grid(fg.tensor(theta), [2, 1, 3, 4], align_corners=False).numpy()
    ys = (np.arange(3) * 2 + 1) / 3 - 1
    xs = (np.arange(4) * 2 + 1) / 4 - 1
    base = np.stack(np.broadcast_arrays(xs[None, :], ys[:, None], 1.0), -1)  # (3, 4, 3)
    np.testing.assert_allclose(got, np.einsum("hwk,nck->nhwc", base, theta), rtol=1e-12, atol=1e-12)


@pytest.mark.skipif(AGAINST_TORCH, reason="torch's kernel reads uninitialized memory for these codes")
@pytest.mark.parametrize("mode,padding", [(3, 0), (-1, 0), (0, 3), (0, -1)])
def test_bad_mode_codes_raise(mode, padding):
    with pytest.raises(RuntimeError, match="expected (interpolation|padding)_mode to be 0, 1 or 2"):
        fg.grid_sampler(fg.zeros(1, 1, 2, 2), fg.zeros(1, 1, 1, 2), mode, padding, False)


def test_large_input_runs_in_parts(rng):
    """Enough planes to be split over the thread pool give the values of the numpy reference."""
    x = rng.standard_normal((2, 64, 9, 11)).astype(np.float32)
    grid = rng.uniform(-1, 1, (2, 30, 40, 2)).astype(np.float32)
    got = F.grid_sample(fg.tensor(x), fg.tensor(grid), align_corners=True)
    want = reference(x[:, :2].astype(np.float64), grid.astype(np.float64), "bilinear", "zeros", True)
    np.testing.assert_allclose(got.numpy()[:, :2], want, rtol=1e-4, atol=1e-5)
    want_last = reference(x[:, -1:].astype(np.float64), grid.astype(np.float64), "bilinear", "zeros", True)
    np.testing.assert_allclose(got.numpy()[:, -1:], want_last, rtol=1e-4, atol=1e-5)
