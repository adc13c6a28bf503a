"""The same seed gives PyTorch's numbers bit for bit: every case of tests/random_cases.py against its recording
(tests/golden/random.json, from tests/golden/record_random.py), compared exactly (no tolerance)."""

import pytest
import random_cases
import recorded

EXPECTED = recorded.expected("random", random_cases.CASES)
EXACT = (0.0, 0.0)


@pytest.mark.parametrize("name", sorted(random_cases.CASES))
def test_draws_match_torch_bit_for_bit(name):
    recorded.check(name, random_cases.CASES[name], EXPECTED[name], tol=EXACT)
