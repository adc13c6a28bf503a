"""`fg.Generator` and `generator=`: independent, reproducible streams; the default generator."""

import os
import subprocess
import sys

import ferrograd as fg
import numpy as np
import pytest
from helpers import to_numpy

SAMPLERS = {
    "rand": lambda g: fg.rand(4, 3, generator=g),
    "randn": lambda g: fg.randn(5, generator=g, dtype=fg.float64),
    "randint": lambda g: fg.randint(0, 100, (6,), generator=g),
    "randperm": lambda g: fg.randperm(10, generator=g),
    "normal": lambda g: fg.normal(2.0, 3.0, (4,), generator=g),
    "normal_tensor": lambda g: fg.normal(fg.zeros(3), fg.ones(3), generator=g),
    "bernoulli": lambda g: fg.bernoulli(fg.full((20,), 0.5), generator=g),
    "multinomial": lambda g: fg.multinomial(fg.tensor([0.2, 0.3, 0.5]), 8, replacement=True, generator=g),
    "uniform_": lambda g: fg.zeros(5).uniform_(-1, 1, generator=g),
    "normal_": lambda g: fg.zeros(5).normal_(1.0, 2.0, generator=g),
}


@pytest.mark.parametrize("name", SAMPLERS)
def test_same_seed_same_stream_and_independent_of_default(name):
    draw = SAMPLERS[name]
    g1, g2 = fg.Generator().manual_seed(42), fg.Generator()
    assert g2.manual_seed(42) is g2
    fg.manual_seed(0)
    a = to_numpy(draw(g1))
    fg.rand(100)  # draws from the default generator do not disturb g2
    b = to_numpy(draw(g2))
    np.testing.assert_array_equal(a, b)
    # and the next draws still agree (the streams advance the same way)
    np.testing.assert_array_equal(to_numpy(draw(g1)), to_numpy(draw(g2)))


def test_generator_draws_do_not_advance_the_default():
    fg.manual_seed(7)
    a = to_numpy(fg.rand(5))
    fg.manual_seed(7)
    fg.rand(50, generator=fg.Generator().manual_seed(1))
    np.testing.assert_array_equal(to_numpy(fg.rand(5)), a)


def test_different_seeds_differ():
    a = fg.rand(8, generator=fg.Generator().manual_seed(1))
    b = fg.rand(8, generator=fg.Generator().manual_seed(2))
    assert not np.array_equal(to_numpy(a), to_numpy(b))


def test_manual_seed_returns_the_default_generator():
    g = fg.manual_seed(5)
    assert isinstance(g, fg.Generator)
    assert g.initial_seed() == 5 and fg.initial_seed() == 5
    a = to_numpy(fg.rand(3))
    g.manual_seed(5)
    np.testing.assert_array_equal(to_numpy(fg.rand(3, generator=fg.default_generator)), a)


def test_initial_seed_seed_and_state():
    g = fg.Generator()
    assert g.initial_seed() == 67280421310721  # PyTorch's default seed
    s = g.seed()
    assert isinstance(s, int) and g.initial_seed() == s
    g.manual_seed(-1)
    assert g.initial_seed() == 2**64 - 1
    state = g.get_state()
    assert state.dtype == fg.uint8 and state.ndim == 1  # a ByteTensor, as torch's
    a = to_numpy(fg.randn(4, generator=g))
    assert g.set_state(state) is g
    np.testing.assert_array_equal(to_numpy(fg.randn(4, generator=g)), a)
    assert str(g.device) == "cpu"


def test_generator_errors():
    with pytest.raises(
        TypeError, match="generator"
    ):  # ours: "argument 'generator' must be ferrograd.Generator, not int"
        fg.rand(2, generator=3)
    with pytest.raises(RuntimeError, match="manual_seed expected a long, but got float"):
        fg.Generator().manual_seed(1.5)
    with pytest.raises(RuntimeError, match="manual_seed expected a long, but got bool"):
        fg.Generator().manual_seed(True)
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        fg.manual_seed(2**64)
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        fg.Generator().manual_seed(-(2**63) - 1)
    assert fg.manual_seed(3.7).initial_seed() == 3  # int(seed), as PyTorch
    with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
        fg.Generator().set_state(fg.zeros(5))
    with pytest.raises(
        RuntimeError, match="Expected a CPUGeneratorImplState of size .* but found the input RNG state size to be 5"
    ):
        fg.Generator().set_state(fg.zeros(5, dtype=fg.uint8))


def test_state_has_torchs_layout():
    """get_state is PyTorch's CPUGeneratorImplState: seed, left, seeded, next, 624 words (8 bytes each), the
    float64 normal cache, the float32 one; set_state refuses what PyTorch's validity check refuses."""
    g = fg.Generator().manual_seed(3)
    s = g.get_state()
    assert tuple(s.shape) == (5056,) and s.dtype == fg.uint8
    b = to_numpy(s).tobytes()
    assert int.from_bytes(b[0:8], "little") == 3 and int.from_bytes(b[8:12], "little") == 1  # seed, left
    assert int.from_bytes(b[12:16], "little") == 1 and int.from_bytes(b[16:24], "little") == 0  # seeded, next
    assert int.from_bytes(b[24:32], "little") == 3  # the first word is the seed's low 32 bits
    fg.randn(3, generator=g)  # three scalar normals: the second of a pair is left in the float64 cache
    b = to_numpy(g.get_state()).tobytes()
    assert int.from_bytes(b[5040:5044], "little") == 1 and int.from_bytes(b[16:24], "little") == 8
    unseeded = bytearray(b)
    unseeded[12:16] = bytes(4)
    with pytest.raises(RuntimeError, match="Invalid mt19937 state"):
        g.set_state(fg.tensor(list(unseeded), dtype=fg.uint8))
    after = fg.Generator().set_state(g.get_state())
    np.testing.assert_array_equal(to_numpy(fg.randn(5, generator=after)), to_numpy(fg.randn(5, generator=g)))


def test_default_generator_state_functions():
    fg.manual_seed(8)
    state = fg.get_rng_state()
    a = to_numpy(fg.randn(20))
    fg.set_rng_state(state)
    np.testing.assert_array_equal(to_numpy(fg.randn(20)), a)


def test_the_default_generator_starts_from_a_new_seed_in_every_process():
    # PyTorch 2.15 seeds its default generator nondeterministically at start; a new Generator() does not
    code = "import ferrograd as fg; print(fg.initial_seed(), fg.Generator().initial_seed())"
    runs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ)
        for _ in range(2)
    ]
    (default_a, fresh_a), (default_b, fresh_b) = (map(int, r.stdout.split()) for r in runs)
    assert default_a != default_b
    assert fresh_a == fresh_b == 67280421310721
