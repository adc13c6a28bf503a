"""The unary registry ops' in-place forms, aliases and `out=` against PyTorch (tests/golden/inplace_out.json;
cases in tests/cases_inplace_out.py). Their values and gradients over every op are tested from
tests/test_ops.py's UNARY_OPS rows."""

import pytest
from cases_inplace_out import CASES
from recorded import check, expected

EXPECTED = expected("inplace_out", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded(name):
    check(name, CASES[name], EXPECTED[name])
