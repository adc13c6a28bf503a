"""PyTorch's small names composed of ferrograd's ops (constants, finfo/iinfo, is_signed, is_nonzero,
is_same_size, ravel, reshape_as, select, msort, rot90, the splits, the torch.* forms of nn.functional) against
PyTorch (tests/golden/torch_aliases.json; cases in tests/cases_torch_aliases.py)."""

import pytest
from cases_torch_aliases import CASES
from recorded import check, expected

EXPECTED = expected("torch_aliases", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])
