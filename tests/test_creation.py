"""Creation functions: *_like, empty, linspace/logspace, eye, and the seeded random ones."""

import ferrograd as fg
import numpy as np
import pytest
from helpers import assert_tensor


@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "empty_like", "rand_like", "randn_like"])
@pytest.mark.parametrize("dtype", [fg.float32, fg.float64])
def test_like_functions_keep_shape_and_dtype(name, dtype):
    x = fg.zeros(2, 0, 3, dtype=dtype).transpose(0, 2)
    out = getattr(fg, name)(x)
    assert out.shape == x.shape and out.dtype == dtype and not out.requires_grad
    out = getattr(fg, name)(x, dtype=fg.float64, requires_grad=True)
    assert out.dtype == fg.float64 and out.requires_grad and out.is_leaf


def test_like_values_and_full_like():
    x = fg.tensor([[1, 2], [3, 4]])
    assert fg.zeros_like(x).tolist() == [[0, 0], [0, 0]] and fg.zeros_like(x).dtype == fg.int64
    assert fg.ones_like(x, dtype=fg.float32).tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert fg.full_like(x, 7).tolist() == [[7, 7], [7, 7]]
    assert fg.full_like(fg.zeros(2, dtype=fg.float64), 0.5).dtype == fg.float64
    assert fg.empty(2, 3).shape == (2, 3) and fg.empty((4,), dtype=fg.int64).dtype == fg.int64


@pytest.mark.parametrize("start,end,steps", [(0, 1, 5), (-2.5, 3, 7), (1, 1, 1), (3, -3, 4), (0, 1, 0)])
def test_linspace_logspace(start, end, steps):
    assert_tensor(fg.linspace(start, end, steps), np.linspace(start, end, steps), dtype="float32")
    assert_tensor(fg.linspace(start, end, steps, dtype=fg.float64), np.linspace(start, end, steps), dtype="float64")
    assert_tensor(fg.logspace(start, end, steps, dtype=fg.float64), np.logspace(start, end, steps), dtype="float64")
    assert_tensor(
        fg.logspace(start, end, steps, base=2, dtype=fg.float64),
        np.logspace(start, end, steps, base=2),
        dtype="float64",
    )


def test_linspace_errors():
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        fg.linspace(0, 1, -1)


@pytest.mark.parametrize("n,m", [(3, None), (2, 4), (4, 2), (0, 3)])
def test_eye(n, m):
    args = (n,) if m is None else (n, m)  # torch takes no m=None: test_eye_takes_no_none
    assert_tensor(fg.eye(*args), np.eye(n, m), dtype="float32")
    assert fg.eye(*args, dtype=fg.int64).dtype == fg.int64


def test_eye_takes_no_none():
    for call in (lambda: fg.eye(3, None), lambda: fg.eye(3, m=None)):
        with pytest.raises(TypeError, match=r"eye\(\) received an invalid combination of arguments"):
            call()
    with pytest.raises(TypeError, match=r"eye\(\): argument 'n' \(position 1\) must be int, not NoneType"):
        fg.eye(None)


def test_random_functions_repeat_under_manual_seed():
    def draw():
        return [
            fg.randint(3, 9, (20,)).tolist(),
            fg.randint(5, size=(2, 3)).tolist(),
            fg.randperm(10).tolist(),
            fg.normal(1.0, 2.0, (4,)).tolist(),
            fg.normal(fg.zeros(3), fg.ones(3)).tolist(),
            fg.bernoulli(fg.full((8,), 0.5)).tolist(),
            fg.multinomial(fg.tensor([0.2, 0.3, 0.5]), 3).tolist(),
            fg.zeros(3).uniform_(-1, 1).tolist(),
            fg.zeros(3).normal_(0, 3).tolist(),
        ]

    fg.manual_seed(123)
    a = draw()
    fg.manual_seed(123)
    assert draw() == a


def test_random_function_values():
    fg.manual_seed(0)
    r = fg.randint(3, 9, (1000,))
    assert r.dtype == fg.int64 and r.min().item() == 3 and r.max().item() == 8
    assert sorted(fg.randperm(50).tolist()) == list(range(50))
    assert fg.randperm(0).shape == (0,)
    n = fg.normal(3.0, 0.5, (20000,), dtype=fg.float64)
    assert abs(n.mean().item() - 3.0) < 0.02 and abs(n.std().item() - 0.5) < 0.02
    b = fg.bernoulli(fg.tensor([0.0, 1.0, 0.0, 1.0]))
    assert b.tolist() == [0.0, 1.0, 0.0, 1.0]
    s = fg.multinomial(fg.tensor([[0.0, 1.0, 2.0], [1.0, 0.0, 1.0]]), 2, replacement=False)
    assert sorted(s[0].tolist()) == [1, 2] and sorted(s[1].tolist()) == [0, 2]
    # without replacement, categories of weight 0 come once the others are drawn (torch leaves their order open)
    s = fg.multinomial(fg.tensor([0.0, 1.0, 0.0]), 2)
    assert s[0].item() == 1 and s[1].item() in (0, 2)
    assert sorted(fg.multinomial(fg.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 4.0]]), 3).tolist()[1]) == [0, 1, 2]
    with pytest.raises(RuntimeError, match=r"invalid multinomial distribution \(sum of probabilities <= 0\)"):
        fg.multinomial(fg.tensor([0.0, 0.0]), 1, replacement=False)
    u = fg.zeros(1000, dtype=fg.float64).uniform_(2, 5)
    assert u.min().item() >= 2 and u.max().item() < 5
    counts = np.bincount(fg.multinomial(fg.tensor([1.0, 3.0]), 4000, replacement=True).numpy(), minlength=2)
    assert abs(counts[1] / 4000 - 0.75) < 0.03
    # the method forms, and bernoulli with a probability for every element
    assert fg.tensor([1.0, 0.0, 1.0]).bernoulli().tolist() == [1.0, 0.0, 1.0]
    assert fg.zeros(5, dtype=fg.float64).bernoulli(1.0).tolist() == [1.0] * 5
    assert fg.zeros(3, dtype=fg.int64).bernoulli(0.0).dtype == fg.int64
    assert fg.tensor([0.0, 0.0, 5.0]).multinomial(2, replacement=True).tolist() == [2, 2]
    assert fg.tensor([[0.0, 1.0], [1.0, 0.0]]).multinomial(1).tolist() == [[1], [0]]


def test_random_errors():
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size"):
        fg.multinomial(fg.tensor([1.0, 1.0]), 3)
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
        fg.randint(5, 5, (2,))
    with pytest.raises(RuntimeError, match="Expected p_in >= 0 && p_in <= 1"):
        fg.bernoulli(fg.tensor([1.5]))
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        fg.zeros(2, requires_grad=True).uniform_()
    w = fg.zeros(2, requires_grad=True)
    with fg.no_grad():
        w.normal_()
    assert w.requires_grad and w.is_leaf


def test_result_type_and_type_as():
    assert fg.result_type(fg.tensor([1, 2]), 1.0) == fg.float32
    assert fg.result_type(fg.tensor([1.0]), fg.tensor([1.0], dtype=fg.float64)) == fg.float64
    assert fg.result_type(fg.tensor([1.0]), fg.tensor(1, dtype=fg.int64)) == fg.float32
    assert fg.result_type(1, 2) == fg.int64
    assert fg.result_type(2, fg.tensor([True])) == fg.int64
    assert fg.tensor([1.5]).type_as(fg.tensor([1])).dtype == fg.int64
