"""hypot, copysign, fmax/fmin, logaddexp/logaddexp2, nextafter, ldexp, heaviside, gcd/lcm, float_power: edges,
dtypes, errors and grad_fn names against PyTorch (tests/golden/pointwise_vocab.json; cases in
tests/cases_pointwise_vocab.py), values against numpy on random inputs, gradients (and gradients of gradients)
against finite differences in float64."""

import ferrograd as fg
import numpy as np
import pytest
from cases_pointwise_vocab import CASES
from helpers import gradcheck
from recorded import check, expected

EXPECTED = expected("pointwise_vocab", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])


# name, numpy reference, domain of the second operand ("any" or "int" exponents)
AGAINST_NUMPY = [
    ("hypot", np.hypot),
    ("copysign", np.copysign),
    ("fmax", np.fmax),
    ("fmin", np.fmin),
    ("logaddexp", np.logaddexp),
    ("logaddexp2", np.logaddexp2),
    ("nextafter", np.nextafter),
    ("ldexp", lambda a, b: a * np.exp2(b)),
    ("float_power", np.float_power),
]


def _operands(rng, name, shape=(4, 5)):
    a, b = rng.standard_normal(shape) * 3, rng.standard_normal(shape) * 3
    if name == "float_power":
        a = np.abs(a) + 0.1
    return a, b


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,ref", AGAINST_NUMPY)
def test_against_numpy(rng, name, ref, dtype):
    a, b = (x.astype(dtype) for x in _operands(rng, name))
    got = getattr(fg, name)(fg.tensor(a), fg.tensor(b))
    want = ref(a, b)
    assert got.dtype == (fg.float64 if name == "float_power" else getattr(fg, dtype))
    np.testing.assert_allclose(got.numpy(), want, rtol=2e-6 if dtype == "float32" else 1e-13)
    # non-contiguous operands give the same values
    got_t = getattr(fg, name)(fg.tensor(a.T.copy()).t(), fg.tensor(b[:, ::-1].copy()).flip(1))
    np.testing.assert_allclose(got_t.numpy(), want, rtol=2e-6 if dtype == "float32" else 1e-13)


def test_nextafter_steps_one_ulp(rng):
    a = rng.standard_normal(50)
    np.testing.assert_array_equal(fg.nextafter(fg.tensor(a), fg.tensor(a + 1)).numpy(), np.nextafter(a, a + 1))
    f = a.astype(np.float32)
    np.testing.assert_array_equal(fg.nextafter(fg.tensor(f), fg.tensor(-f)).numpy(), np.nextafter(f, -f))
    h = a.astype(np.float16)
    np.testing.assert_array_equal(
        fg.nextafter(fg.tensor(h.astype(np.float32)).half(), fg.zeros(50).half()).float().numpy(),
        np.nextafter(h, np.float16(0)).astype(np.float32),
    )


def test_gcd_lcm_against_numpy(rng):
    a, b = rng.integers(-1000, 1000, (6, 7)), rng.integers(-1000, 1000, (6, 7))
    np.testing.assert_array_equal(fg.gcd(fg.tensor(a), fg.tensor(b)).numpy(), np.gcd(a, b))
    np.testing.assert_array_equal(fg.lcm(fg.tensor(a), fg.tensor(b)).numpy(), np.lcm(a, b))


DIFFERENTIABLE = [
    pytest.param(lambda x, y: fg.hypot(x, y), id="hypot"),
    pytest.param(lambda x, y: x.copysign(y), id="copysign"),
    pytest.param(lambda x, y: x.copysign(-2.0) + 0 * y, id="copysign(number)"),
    pytest.param(lambda x, y: fg.fmax(x, y), id="fmax"),
    pytest.param(lambda x, y: fg.fmin(x, y), id="fmin"),
    pytest.param(lambda x, y: fg.logaddexp(x, y), id="logaddexp"),
    pytest.param(lambda x, y: x.logaddexp2(y), id="logaddexp2"),
    pytest.param(lambda x, y: fg.nextafter(x, y), id="nextafter"),
    pytest.param(lambda x, y: fg.ldexp(x, y), id="ldexp"),
    pytest.param(lambda x, y: fg.float_power(x.abs() + 0.5, y), id="float_power"),
    pytest.param(lambda x, y: x.float_power(3) + 0 * y, id="float_power(number)"),
]
SHAPES = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1), (1, 3)), ((), (2,))]


@pytest.mark.parametrize("shape_a,shape_b", SHAPES)
@pytest.mark.parametrize("f", DIFFERENTIABLE)
def test_gradcheck(rng, f, shape_a, shape_b):
    # away from the kinks (ties, zeros), where the one-sided derivatives differ
    a = rng.uniform(0.5, 2.0, shape_a) * rng.choice([-1, 1], shape_a)
    b = rng.uniform(2.5, 4.0, shape_b) * rng.choice([-1, 1], shape_b)
    gradcheck(f, [a, b])


@pytest.mark.parametrize("f", DIFFERENTIABLE)
def test_gradient_of_gradient(rng, f):
    """The backward rules are differentiable (create_graph=True): their gradient against finite differences."""
    a = rng.uniform(0.5, 2.0, (2, 3)) * rng.choice([-1, 1], (2, 3))
    b = rng.uniform(2.5, 4.0, (2, 3)) * rng.choice([-1, 1], (2, 3))

    def first_gradients(x, y):
        # recorded when gradcheck differentiates it, plain values on its finite-difference side
        create_graph = x.requires_grad
        x, y = (t if t.requires_grad else t.detach().requires_grad_() for t in (x, y))
        gx, gy = fg.autograd.grad(f(x, y).sum(), [x, y], create_graph=create_graph, allow_unused=True)
        # x and y reach the result even where the gradients do not depend on them (piecewise-linear ops)
        total = gx * 1.5 + 0 * (x + y)
        return total if gy is None else total + gy * 0.5

    gradcheck(first_gradients, [a, b])


def test_float_power_keeps_numbers_as_numbers():
    x = fg.tensor([1.5, 2.0], requires_grad=True)
    assert x.float_power(2).grad_fn.name() == "PowBackward0"
    assert fg.float_power(2, x).grad_fn.name() == "PowBackward2"
    assert fg.float_power(x, x).grad_fn.name() == "PowBackward1"
    assert fg.float_power(x, 2).dtype == fg.float64
