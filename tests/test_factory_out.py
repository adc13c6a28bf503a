"""torch's `out=` on the factories (pytorch/tutorials' tensors_deeper: `torch.rand(2, 2, out=c)` fills `c` and
returns it): the values in out's dtype, written into out, resized with torch's warning. Runs against torch too
(FG_TEST_AGAINST_TORCH=1)."""

import warnings

import ferrograd as fg
import pytest

FACTORIES = {
    "rand": lambda out: fg.rand(2, 2, out=out),
    "randn": lambda out: fg.randn(2, 2, out=out),
    "zeros": lambda out: fg.zeros(2, 2, out=out),
    "ones": lambda out: fg.ones((2, 2), out=out),
    "full": lambda out: fg.full((2, 2), 3.0, out=out),
    "empty": lambda out: fg.empty(2, 2, out=out),
    "eye": lambda out: fg.eye(2, out=out),
    "arange": lambda out: fg.arange(0.5, 2.5, 0.5, out=out) if out is not None else fg.arange(0.5, 2.5, 0.5).view(2, 2),
    "randint": lambda out: fg.randint(0, 5, (2, 2), out=out),
    "normal": lambda out: fg.normal(1.0, 2.0, (2, 2), out=out),
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_a_factory_fills_out_and_returns_it_with_the_values_it_would_make(name):
    made = FACTORIES[name]
    fg.manual_seed(0)
    want = made(None)
    out = fg.full((2, 2), -7.0)
    fg.manual_seed(0)
    got = made(out)
    assert got is out and out.shape == (2, 2)  # arange's four values keep the 2x2 out's shape
    assert out.dtype == fg.float32
    if name != "empty":  # torch's leaves out's memory as it was; ferrograd's zero-fills
        assert fg.equal(out.reshape(2, 2), want.to(fg.float32))


def test_outs_dtype_is_the_factorys_dtype_unless_another_is_named():
    out = fg.zeros(5, dtype=fg.float64)
    assert fg.arange(5, out=out) is out and out.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0] and out.dtype == fg.float64
    ints = fg.zeros(3, dtype=fg.int64)
    assert fg.randperm(3, out=ints) is ints and sorted(ints.tolist()) == [0, 1, 2]
    with pytest.raises(RuntimeError, match=r"dtype Long does not match dtype of out parameter \(Float\)"):
        fg.zeros(3, out=fg.zeros(3), dtype=fg.int64)
    with pytest.raises(RuntimeError, match=r"dtype Double does not match dtype of out parameter \(Float\)"):
        fg.full((3,), 2.0, out=fg.zeros(3), dtype=fg.float64)
    grads = fg.zeros(3)
    assert fg.ones(3, out=grads, requires_grad=True) is grads and grads.requires_grad  # out takes the flag


def test_arange_warns_when_its_count_differs_from_outs_and_other_factories_resize_quietly():
    out = fg.ones(2, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fg.arange(5, out=out)
    assert out.shape == (5,) and out.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    (warning,) = [str(w.message) for w in caught]
    assert warning.startswith(
        "The number of elements in the out tensor of shape [2, 2] is 4 which does not match the computed number of "
        "elements 5. Note that this may occur as a result of rounding error. The out tensor will be resized to a "
        "tensor of shape (5,)."
    )


def test_a_differently_shaped_out_is_resized_quietly_and_linspace_keeps_its_shape():
    for make in (lambda o: fg.zeros(5, out=o), lambda o: fg.rand(5, out=o), lambda o: fg.randint(0, 3, (5,), out=o)):
        out = fg.ones(2, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert make(out) is out
        assert out.shape == (5,)
    row = fg.zeros(1, 3)
    assert fg.linspace(0, 1, 3, out=row) is row and row.shape == (1, 3) and row.tolist() == [[0.0, 0.5, 1.0]]
    powers = fg.zeros(1, 3)
    assert fg.logspace(0, 2, 3, out=powers) is powers and powers.tolist() == [[1.0, 10.0, 100.0]]


def test_bernoulli_and_multinomial_write_their_draws_into_out():
    fg.manual_seed(1)
    want = fg.bernoulli(fg.full((4,), 0.5))
    out = fg.zeros(4)
    fg.manual_seed(1)
    assert fg.bernoulli(fg.full((4,), 0.5), out=out) is out and fg.equal(out, want)
    fg.manual_seed(2)
    want = fg.multinomial(fg.ones(5), 3)
    picks = fg.zeros(3, dtype=fg.int64)
    fg.manual_seed(2)
    assert fg.multinomial(fg.ones(5), 3, out=picks) is picks and fg.equal(picks, want)
