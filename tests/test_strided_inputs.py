"""Joins and reductions over views that are not contiguous: one of `unbind`'s views (rows apart), a slice with a step,
a permutation and a broadcast. `cat`/`stack` write such inputs into their place row by row, and the sums, extremes,
products and norms read a row-major copy; each must give what numpy gives for the same values (ties and NaN
included), and the joins' gradients must land where the views read. Small shapes and shapes above the threading size
(2**15 elements)."""

import ferrograd as fg
import numpy as np
import pytest
from helpers import AGAINST_TORCH

SHAPES = [(3, 4, 5), (64, 16, 128)]


def data(shape, seed):
    """Values rounded to tenths (so rows hold ties), as float32."""
    return np.round(np.random.default_rng(seed).standard_normal(shape) * 3, 1).astype(np.float32)


def views(shape, seed=0):
    """(name, ferrograd view, the same values as a numpy array) for each kind of layout."""
    a, b, c = shape
    packed = data((a, b, 3 * c), seed)
    stepped = data((a, b, 2 * c), seed + 1)
    permuted = data((c, b, a), seed + 2)
    row = data((a, 1, c), seed + 3)
    return [
        ("unbind", fg.tensor(packed).unflatten(-1, (3, c)).unbind(-2)[1], packed.reshape(a, b, 3, c)[:, :, 1]),
        ("step", fg.tensor(stepped)[:, :, ::2], stepped[:, :, ::2]),
        ("permuted", fg.tensor(permuted).permute(2, 1, 0), permuted.transpose(2, 1, 0)),
        ("broadcast", fg.tensor(row).expand(a, b, c), np.broadcast_to(row, (a, b, c))),
    ]


def ids(shape):
    return "x".join(map(str, shape))


@pytest.mark.parametrize("shape", SHAPES, ids=ids)
def test_stack_and_cat_of_views(shape):
    vs = views(shape)
    for dim in range(4):
        got = fg.stack([v for _, v, _ in vs], dim).numpy()
        np.testing.assert_array_equal(got, np.stack([n for _, _, n in vs], dim))
    for dim in range(3):
        mixed = [vs[0][1], fg.tensor(np.ascontiguousarray(vs[1][2])), vs[2][1], vs[3][1]]
        want = np.concatenate([vs[0][2], vs[1][2], vs[2][2], vs[3][2]], dim)
        np.testing.assert_array_equal(fg.cat(mixed, dim).numpy(), want)
    # a strided float64 view promoted with a float32 one
    wide = fg.tensor(vs[1][2].astype(np.float64).transpose(1, 0, 2).copy()).transpose(0, 1)
    out = fg.cat([wide, vs[0][1]], -1)
    assert out.dtype == fg.float64
    np.testing.assert_array_equal(out.numpy(), np.concatenate([vs[1][2], vs[0][2]], -1).astype(np.float64))


@pytest.mark.parametrize("shape", SHAPES, ids=ids)
def test_stack_gradients_reach_the_unbind_views(shape):
    a, b, c = shape
    x = fg.tensor(data((a, b, 3, c), 5), requires_grad=True)
    q, k, v = x.unbind(2)
    # gradients of every layout: transposed, broadcast and plain
    gq = fg.tensor(data((b, a, c), 6)).transpose(0, 1)
    gk = fg.tensor(data((1, 1, c), 7)).expand(a, b, c)
    gv = fg.tensor(data((a, b, c), 8))
    fg.autograd.backward([q, k, v], [gq, gk, gv])
    want = np.stack([gq.numpy(), gk.numpy(), gv.numpy()], 2)
    np.testing.assert_array_equal(x.grad.numpy(), want)


@pytest.mark.parametrize("shape", SHAPES, ids=ids)
def test_index_select_of_views(shape):
    for kind, view, values in views(shape):
        for dim in range(3):
            picks = np.array([shape[dim] - 1, 0, 1, shape[dim] - 1, 2])
            got = view.index_select(dim, fg.tensor(picks)).numpy()
            np.testing.assert_array_equal(got, np.take(values, picks, axis=dim), err_msg=f"{kind} {dim}")
        empty = view.index_select(1, fg.tensor(np.zeros(0, dtype=np.int64)))
        assert empty.shape == (shape[0], 0, shape[2])


REDUCTIONS = {
    "sum": (lambda t: t.sum(), lambda n: n.sum(dtype=np.float64)),
    "sum(-1)": (lambda t: t.sum(-1), lambda n: n.sum(-1, dtype=np.float64)),
    "sum(0, 2)": (lambda t: t.sum((0, 2)), lambda n: n.sum((0, 2), dtype=np.float64)),
    "mean(-1)": (lambda t: t.mean(-1), lambda n: n.mean(-1, dtype=np.float64)),
    "amax(-1)": (lambda t: t.amax(-1), lambda n: n.max(-1)),
    "amin(0)": (lambda t: t.amin(0), lambda n: n.min(0)),
    "max()": (lambda t: t.max(), lambda n: n.max()),
    "max(-1) values": (lambda t: t.max(-1).values, lambda n: n.max(-1)),
    "max(-1) indices": (lambda t: t.max(-1).indices, lambda n: n.argmax(-1)),
    "min(1) indices": (lambda t: t.min(1).indices, lambda n: n.argmin(1)),
    "argmax(-1)": (lambda t: t.argmax(-1), lambda n: n.argmax(-1)),
    "argmin()": (lambda t: t.argmin(), lambda n: n.argmin()),
    "prod(-1)": (lambda t: (t * 0.1 + 1).prod(-1), lambda n: (n.astype(np.float64) * 0.1 + 1).prod(-1)),
    "norm()": (lambda t: t.norm(), lambda n: np.sqrt((n.astype(np.float64) ** 2).sum())),
    "norm(dim=-1)": (lambda t: t.norm(dim=-1), lambda n: np.sqrt((n.astype(np.float64) ** 2).sum(-1))),
    "norm(1, dim=0)": (lambda t: t.norm(1, dim=0), lambda n: np.abs(n.astype(np.float64)).sum(0)),
    # dims that a permutation holds out of order: read in memory order, the results put back in order
    "sum(0)": (lambda t: t.sum(0), lambda n: n.sum(0, dtype=np.float64)),
    "sum(1, 2)": (lambda t: t.sum((1, 2)), lambda n: n.sum((1, 2), dtype=np.float64)),
    "mean(1)": (lambda t: t.mean(1), lambda n: n.mean(1, dtype=np.float64)),
    "amax(0, 1)": (lambda t: t.amax((0, 1)), lambda n: n.max((0, 1))),
    "amin()": (lambda t: t.amin(), lambda n: n.min()),
    "max(0) indices": (lambda t: t.max(0).indices, lambda n: n.argmax(0)),
    "min(2) values": (lambda t: t.min(2).values, lambda n: n.min(2)),
    "argmin(1)": (lambda t: t.argmin(1), lambda n: n.argmin(1)),
    "prod(0)": (lambda t: (t * 0.1 + 1).prod(0), lambda n: (n.astype(np.float64) * 0.1 + 1).prod(0)),
    "prod(1) int": (lambda t: (t > 0).long().add(1).prod(1), lambda n: ((n > 0).astype(np.int64) + 1).prod(1)),
    "any(0)": (lambda t: (t > 4).any(0), lambda n: (n > 4).any(0)),
    "all(-1)": (lambda t: (t > -6).all(-1), lambda n: (n > -6).all(-1)),
    "any()": (lambda t: (t > 9).any(), lambda n: (n > 9).any()),
    "count_nonzero(0)": (lambda t: fg.count_nonzero(t.round(), 0), lambda n: np.count_nonzero(n.round(), 0)),
    "count_nonzero()": (lambda t: fg.count_nonzero(t.round()), lambda n: np.count_nonzero(n.round())),
    "norm(dim=(0, 1))": (lambda t: t.norm(dim=(0, 1)), lambda n: np.sqrt((n.astype(np.float64) ** 2).sum((0, 1)))),
}


@pytest.mark.parametrize("shape", SHAPES, ids=ids)
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions_of_views_match_numpy(name, shape):
    op, reference = REDUCTIONS[name]
    for kind, view, values in views(shape):
        got, want = op(view).numpy(), reference(values)
        if got.dtype in (np.int64, np.bool_):
            np.testing.assert_array_equal(got, want, err_msg=kind)  # the first of tied extremes
        else:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4, err_msg=kind)  # torch adds float32 in float32


@pytest.mark.parametrize("shape", SHAPES, ids=ids)
def test_extremes_of_views_with_nan(shape):
    for kind, view, values in views(shape):
        if kind == "broadcast":
            continue  # a broadcast cannot hold one NaN
        spoiled = values.copy()
        spoiled[1, 2, 3] = np.nan
        # the same view over data holding a NaN: a copy with the view's strides
        strided = fg.empty_strided(view.shape, view.stride())
        strided.copy_(fg.tensor(spoiled))
        np.testing.assert_array_equal(strided.amax(-1).numpy(), np.max(spoiled, -1), err_msg=kind)
        np.testing.assert_array_equal(strided.argmax(-1).numpy(), np.argmax(spoiled, -1), err_msg=kind)
        assert np.isnan(strided.max().item()), kind


TORCH_ORDER = "torch sums strided data in another order than its row-major copy: equal bits are ferrograd's own"


@pytest.mark.skipif(AGAINST_TORCH, reason=TORCH_ORDER)
@pytest.mark.parametrize("shape", SHAPES, ids=ids)
def test_strided_views_sum_as_their_row_major_copies(shape):
    # (a permutation is summed in memory order, a broadcast dim by a product: those read no copy)
    for kind, view, _ in views(shape)[:2]:
        dense = view.contiguous()
        for dims in [None, -1, 0, (0, 2)]:
            got = view.sum() if dims is None else view.sum(dims)
            want = dense.sum() if dims is None else dense.sum(dims)
            np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=f"{kind} {dims}")


LAYOUT_KEEPING = {
    "clamp": lambda t: t.clamp(-1, 1),
    "clamp(min)": lambda t: t.clamp(min=0.5),
    "isnan": lambda t: t.isnan(),
    "isfinite": lambda t: t.isfinite(),
    "signbit": lambda t: t.signbit(),
    "where": lambda t: fg.where(t > 0, t, 0.0),
    "where(x, 1, x)": lambda t: fg.where(t > 0, 1.0, t),
    "flip(0)": lambda t: t.flip(0),
    "flip(-1)": lambda t: t.flip(-1),
    "flip(0, 2)": lambda t: t.flip((0, 2)),
}


@pytest.mark.parametrize("shape", SHAPES, ids=ids)
@pytest.mark.parametrize("name", sorted(LAYOUT_KEEPING))
def test_results_keep_a_permuted_inputs_layout(name, shape):
    # torch lays an elementwise result out as its (first dense) operand: a permutation comes back permuted
    op = LAYOUT_KEEPING[name]
    _, view, values = views(shape)[2]
    got = op(view)
    assert got.stride() == view.stride()
    want = op(fg.tensor(np.ascontiguousarray(values)))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    # a view with gaps comes back row-major
    _, rows, _ = views(shape)[0]
    assert op(rows).is_contiguous()


@pytest.mark.parametrize("shape", SHAPES, ids=ids)
def test_flip_and_roll_of_views(shape):
    for kind, view, values in views(shape):
        for dims in [(0,), (1,), (2,), (0, 2), (0, 1, 2)]:
            np.testing.assert_array_equal(view.flip(dims).numpy(), np.flip(values, dims), err_msg=f"{kind} {dims}")
        for shift, dim in [(1, 0), (-3, 2), (5, 1)]:
            np.testing.assert_array_equal(view.roll(shift, dim).numpy(), np.roll(values, shift, dim), err_msg=kind)


@pytest.mark.parametrize("shape", SHAPES, ids=ids)
def test_gather_of_views(shape):
    # read through the view's strides: an index smaller than the input in the other dims reads their first rows
    rng = np.random.default_rng(3)
    for kind, view, values in views(shape):
        for dim in range(3):
            index_shape = [max(1, n // 2) for n in shape]
            index_shape[dim] = 7
            index = rng.integers(0, shape[dim], size=index_shape)
            cut = values[tuple(slice(0, n) if d != dim else slice(None) for d, n in enumerate(index_shape))]
            got = view.gather(dim, fg.tensor(index)).numpy()
            np.testing.assert_array_equal(got, np.take_along_axis(cut, index, dim), err_msg=f"{kind} {dim}")
        bad = np.zeros((1, 1, 1), dtype=np.int64)
        bad[0, 0, 0] = shape[2]
        with pytest.raises(RuntimeError, match=f"index {shape[2]} is out of bounds for dimension 2 with size"):
            view.gather(2, fg.tensor(bad))
