"""`out=` on the function forms that take it in torch: the result written into `out` (returned), cast to its
dtype where torch allows, `out` resized (with torch's warning if it held elements), torch's errors."""

import warnings

import ferrograd as fg
import numpy as np
import pytest
from helpers import assert_tensor


def _inputs(rng):
    a, b = rng.standard_normal((2, 3)), rng.uniform(0.5, 2.0, (2, 3))
    return a, b, fg.tensor(a, dtype=fg.float32), fg.tensor(b, dtype=fg.float32)


CALLS = [
    ("add", lambda x, y, out: fg.add(x, y, out=out), lambda a, b: a + b),
    ("add-alpha", lambda x, y, out: fg.add(x, y, alpha=2, out=out), lambda a, b: a + 2 * b),
    ("sub", lambda x, y, out: fg.sub(x, y, out=out), lambda a, b: a - b),
    ("mul", lambda x, y, out: fg.mul(x, y, out=out), lambda a, b: a * b),
    ("div", lambda x, y, out: fg.div(x, y, out=out), lambda a, b: a / b),
    ("exp", lambda x, y, out: fg.exp(x, out=out), lambda a, b: np.exp(a)),
    ("log", lambda x, y, out: fg.log(y, out=out), lambda a, b: np.log(b)),
    ("clamp", lambda x, y, out: fg.clamp(x, -0.5, 0.5, out=out), lambda a, b: np.clip(a, -0.5, 0.5)),
    ("pow", lambda x, y, out: fg.pow(y, 2, out=out), lambda a, b: b**2),
    ("where", lambda x, y, out: fg.where(x > 0, x, y, out=out), lambda a, b: np.where(a > 0, a, b)),
    ("matmul", lambda x, y, out: fg.matmul(x, y.t(), out=out), lambda a, b: a @ b.T),
    ("mm", lambda x, y, out: fg.mm(x, y.t(), out=out), lambda a, b: a @ b.T),
    ("sum", lambda x, y, out: fg.sum(x, 1, out=out), lambda a, b: a.sum(1)),
    ("sum-keepdim", lambda x, y, out: fg.sum(x, 0, keepdim=True, out=out), lambda a, b: a.sum(0, keepdims=True)),
    ("cat", lambda x, y, out: fg.cat([x, y], out=out), lambda a, b: np.concatenate([a, b])),
    ("stack", lambda x, y, out: fg.stack([x, y], 1, out=out), lambda a, b: np.stack([a, b], 1)),
]


@pytest.mark.parametrize("name,call,ref", CALLS, ids=[c[0] for c in CALLS])
def test_out_receives_the_result(name, call, ref, rng):
    a, b, x, y = _inputs(rng)
    expected = ref(a, b).astype(np.float32)
    out = fg.zeros(expected.shape)
    assert call(x, y, out) is out
    assert_tensor(out, expected, dtype="float32", rtol=1e-5)
    empty = fg.zeros(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning for an empty out
        assert call(x, y, empty) is empty
    assert_tensor(empty, expected, dtype="float32", rtol=1e-5)
    wrong = fg.zeros(7)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized since it had shape \\[7\\]"):
        call(x, y, wrong)
    assert_tensor(wrong, expected, rtol=1e-5)


def test_out_casts_where_torch_casts():
    out = fg.zeros(3, dtype=fg.float64)
    fg.add(fg.ones(3), 1.5, out=out)
    assert_tensor(out, np.full(3, 2.5), dtype="float64")
    out = fg.zeros(2, dtype=fg.int64)
    fg.sum(fg.tensor([[1.5, 1.0], [2.0, 2.0]]), 1, out=out)  # the sum is taken in out's dtype
    assert out.dtype == fg.int64 and out.tolist() == [2, 4]


def test_out_may_be_an_input_or_a_view():
    x = fg.tensor([1.0, 2.0])
    fg.mul(x, 3, out=x)
    assert x.tolist() == [3.0, 6.0]
    base = fg.zeros(6)
    fg.add(fg.ones(3), fg.ones(3), out=base[:3])
    assert base.tolist() == [2.0, 2.0, 2.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize(
    "call,exc,phrase",
    [
        (lambda: fg.add(fg.ones(2), 1, out=fg.zeros(2, dtype=fg.int64)), RuntimeError,
         "result type Float can't be cast to the desired output type Long"),
        (lambda: fg.exp(fg.ones(2), out=fg.zeros(2, dtype=fg.bool)), RuntimeError,
         "result type Float can't be cast to the desired output type Bool"),
        (lambda: fg.cat([fg.ones(2)], out=fg.zeros(2, dtype=fg.int64)), TypeError,
         "input types can't be cast to the desired output type Long"),
        (lambda: fg.mm(fg.ones(2, 2), fg.ones(2, 2), out=fg.zeros(2, 2, dtype=fg.float64)), RuntimeError,
         "Expected out tensor to have dtype float, but got double instead"),
        (lambda: fg.where(fg.ones(2) > 0, fg.ones(2), fg.ones(2), out=fg.zeros(2, dtype=fg.bool)), RuntimeError,
         "Expected out type to be Float but got Bool"),
        (lambda: fg.exp(fg.ones(2, requires_grad=True), out=fg.zeros(2)), RuntimeError,
         r"exp\(\): functions with out=... arguments don't support automatic differentiation, but one of the "
         "arguments requires grad."),
        (lambda: fg.add(fg.ones(2), 1, out=fg.zeros(2, requires_grad=True)), RuntimeError,
         "don't support automatic differentiation"),
        (lambda: fg.add(fg.ones(2), 1, out=[1.0]), TypeError, "out"),
    ],
)  # fmt: skip
def test_out_errors(call, exc, phrase):
    with pytest.raises(exc, match=phrase):
        call()


def test_out_without_grad_mode_takes_inputs_that_require_grad():
    x = fg.ones(2, requires_grad=True)
    out = fg.zeros(2)
    with fg.no_grad():
        fg.exp(x, out=out)
    assert_tensor(out, np.full(2, np.e), rtol=1e-6)
    assert not out.requires_grad
