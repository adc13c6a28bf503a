"""`arange`, `linspace` and `pow` by 2, 3, -2, 1 and -1 (and the gradient of `x ** 2`) give torch's float values
bit for bit (recorded from torch 2.15's CPU build: each value list's SHA-256, first 16 hex digits).
pytorch/tutorials' polynomial programs start from `linspace(-pi, pi, 2000)`; their next numbers depend on every
last bit of it. Runs against torch too (FG_TEST_AGAINST_TORCH=1)."""

import hashlib
import math

import ferrograd as fg
import pytest

RECORDED = {
    "linspace(-pi, pi, 2000)": "3afec187909626ed",
    "linspace(-3.3, 7.9, 777, float64)": "b4fb676e4a950886",
    "linspace(-3.3, 17.9, 77, int64)": "d66a6264adea9f2c",
    "arange(-5, 5, 0.1)": "4c34e79cca868a34",
    "arange(-pi, pi, 0.01, float64)": "53fe82384a634d2f",
    "arange(0.5, 30.25, 0.37, float16)": "507a9743a8ca39b9",
    "arange(-5, 5, 0.1, bfloat16)": "b105737cd60c123f",
    "linspace(-4, 4, 3001) ** 2": "2111b087079ffb48",
    "linspace(-4, 4, 3001) ** 3": "3dc0ac07d6de839a",
    "linspace(-4, 4, 3001) ** -2": "c4c4ada7275cca51",
    "linspace(-4, 4, 3001) ** -1": "37c41157bbf204db",
    "linspace(-4, 4, 3001) ** 1": "7dbb4edaebc35840",
    "linspace(-4, 4, 3001, float64) ** -1": "ac9a2a54da786703",
    "the gradient of (linspace(-4, 4, 3001) ** 2).sum()": "b9e098bb82c7eab3",
    "the gradient of linspace(0.01, 4, 3001) ** 3": "6c936606bf393e15",
    "the gradient of linspace(0.01, 4, 3001) ** 0.5": "c4114eeb2b902f08",
    "the gradient of linspace(0.01, 4, 3001) ** -1": "10a0a5ab664b5ee6",
    "the gradient of linspace(0.01, 4, 3001) ** 0": "7d9091ab1379b4a4",
}

MADE = {
    "linspace(-pi, pi, 2000)": lambda: fg.linspace(-math.pi, math.pi, 2000),
    "linspace(-3.3, 7.9, 777, float64)": lambda: fg.linspace(-3.3, 7.9, 777, dtype=fg.float64),
    "linspace(-3.3, 17.9, 77, int64)": lambda: fg.linspace(-3.3, 17.9, 77, dtype=fg.int64),
    "arange(-5, 5, 0.1)": lambda: fg.arange(-5, 5, 0.1),
    "arange(-pi, pi, 0.01, float64)": lambda: fg.arange(-math.pi, math.pi, 0.01, dtype=fg.float64),
    "arange(0.5, 30.25, 0.37, float16)": lambda: fg.arange(0.5, 30.25, 0.37, dtype=fg.float16),
    "arange(-5, 5, 0.1, bfloat16)": lambda: fg.arange(-5, 5, 0.1, dtype=fg.bfloat16),
    "linspace(-4, 4, 3001) ** 2": lambda: fg.linspace(-4, 4, 3001) ** 2,
    "linspace(-4, 4, 3001) ** 3": lambda: fg.linspace(-4, 4, 3001) ** 3,
    "linspace(-4, 4, 3001) ** -2": lambda: fg.linspace(-4, 4, 3001) ** -2,
    "linspace(-4, 4, 3001) ** -1": lambda: fg.linspace(-4, 4, 3001) ** -1,
    "linspace(-4, 4, 3001) ** 1": lambda: fg.linspace(-4, 4, 3001) ** 1,
    "linspace(-4, 4, 3001, float64) ** -1": lambda: fg.linspace(-4, 4, 3001, dtype=fg.float64) ** -1,
    "the gradient of (linspace(-4, 4, 3001) ** 2).sum()": lambda: _square_gradient(),
    **{f"the gradient of linspace(0.01, 4, 3001) ** {e}": (lambda e=e: _power_gradient(e)) for e in (3, 0.5, -1, 0)},
}


def _power_gradient(e):
    """The gradient of `x ** e` for an upstream gradient that is not all ones (the one-pass rule for 3, 0.5, -1). Not
    1.5, whose gradient takes `x ** 0.5`: torch's float32 sqrt (Sleef's, 0.5001 ulp) rounds 11 of these 3001 square
    roots the other way from the correctly rounded one, which ferrograd and numpy give; nor 2.5, whose `x ** 1.5` is
    powf here and torch's vectorized pow there."""
    x = fg.linspace(0.01, 4, 3001).requires_grad_()
    (x**e).backward(fg.linspace(-1, 1, 3001))
    return x.grad


def _square_gradient():
    x = fg.linspace(-4, 4, 3001).requires_grad_()
    (x**2).sum().backward()
    return x.grad


def _digest(t):
    return hashlib.sha256(repr(t.tolist()).encode()).hexdigest()[:16]


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_values_are_torchs_bit_for_bit(name):
    assert _digest(MADE[name]()) == RECORDED[name]


@pytest.fixture
def threads():
    before = fg.get_num_threads()
    yield fg.set_num_threads
    fg.set_num_threads(before)


@pytest.mark.parametrize(("n_threads", "recorded"), [(1, "4546f1db25ffe0ab"), (2, "ee79d27eefe424ea")])
def test_a_long_arange_rounds_as_torchs_in_one_piece_a_thread(threads, n_threads, recorded):
    """Past 32768 values torch writes the range in one piece a thread, each piece in its own vector runs, so
    its values depend on the thread count; ferrograd's follow."""
    threads(n_threads)
    assert _digest(fg.arange(0.5, 3000.25, 0.037)) == recorded


def test_spot_values_the_tutorials_reach():
    x = fg.linspace(-math.pi, math.pi, 2000)
    assert (
        x[1].item() == -3.1384496688842773 and x[0].item() == -3.1415927410125732 and x[-1].item() == x[0].item() * -1
    )
    assert fg.arange(-5, 5, 0.1)[10].item() == -3.999999761581421
    assert fg.linspace(0, 1, 1).tolist() == [0.0] and fg.linspace(0, 1, 0).shape == (0,)
    t = fg.tensor([-3.1258769035339355])
    assert (t**3).item() == -30.543277740478516 and fg.pow(t, 3).item() == -30.543277740478516


@pytest.mark.parametrize("dtype", [fg.float32, fg.complex64])
def test_the_gradient_of_a_zeroth_power_is_zeros_even_for_negative_and_nan_gradients(dtype):
    x = fg.tensor([1.0, 2.0, 3.0], dtype=dtype).requires_grad_()
    (x**0).backward(fg.tensor([-1.0, float("nan"), 2.0], dtype=dtype))
    parts = (x.grad,) if dtype == fg.float32 else (x.grad.real, x.grad.imag)
    for part in parts:  # +0 everywhere, as torch's zeros_like (not upstream * 0: -0 and NaN)
        assert part.tolist() == [0.0, 0.0, 0.0] and not bool(fg.signbit(part).any())
