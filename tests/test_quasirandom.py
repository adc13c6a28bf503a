"""`quasirandom.SobolEngine` against torch: every case of tests/quasirandom_cases.py against its recording
(tests/golden/quasirandom.json), compared exactly (points, state integers, errors)."""

import ferrograd as fg
import pytest
import quasirandom_cases
import recorded

EXPECTED = recorded.expected("quasirandom", quasirandom_cases.CASES)
EXACT = (0.0, 0.0)
AGAINST_TORCH = not hasattr(fg, "_core")


@pytest.mark.parametrize("name", sorted(quasirandom_cases.CASES))
def test_sobol_matches_torch_bit_for_bit(name):
    recorded.check(name, quasirandom_cases.CASES[name], EXPECTED[name], tol=EXACT)


def test_draws_agree_with_fast_forward_over_many_points():
    """Drawing point by point and skipping (the Gray-code jump) reach the same integers."""
    a = fg.quasirandom.SobolEngine(5, scramble=True, seed=3)
    b = fg.quasirandom.SobolEngine(5, scramble=True, seed=3)
    a.draw(4097)
    b.fast_forward(4097)
    assert fg.equal(a.quasi, b.quasi)
    assert fg.equal(a.draw(3), b.draw(3))


@pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd carries the direction numbers of a prefix of torch's table")
def test_dimensions_past_the_carried_table_are_refused():
    Sobol = fg.quasirandom.SobolEngine
    assert fg._core._sobol_table_dimensions() == 5715
    with pytest.raises(NotImplementedError, match=r"dimensions \[1, 5715\] of torch's \[1, 21201\]"):
        Sobol(5716)
    assert Sobol(5715).draw(2).shape == (2, 5715)


@pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd's kernels")
def test_kernels_check_their_state():
    core = fg._core
    state = core._sobol_initial_state(3)
    with pytest.raises(RuntimeError, match="quasi needs to be of type Long"):
        core._sobol_draw(fg.zeros(3), 2, state, 0)
    with pytest.raises(RuntimeError, match="sobolstate needs to be of type Long"):
        core._sobol_fast_forward(fg.zeros(3, dtype=fg.long), 2, state.float(), 0)
    with pytest.raises(RuntimeError, match="shift and ltm must be of shapes"):
        core._sobol_scramble(state, fg.zeros(3, 30, dtype=fg.long), fg.zeros(3, 30, dtype=fg.long))
    with pytest.raises(ValueError, match="carries the Joe-Kuo direction numbers"):
        core._sobol_initial_state(0)
