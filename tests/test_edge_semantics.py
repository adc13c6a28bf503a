"""arange, clamp's result dtype and `t[idx] = v`'s graph metadata against torch's recorded answers
(tests/cases_edge_semantics.py, recorded by tests/golden/record_edge_semantics.py)."""

import cases_edge_semantics as ces
import pytest
import recorded

EXPECTED = recorded.expected("edge_semantics", ces.CASES)


@pytest.mark.parametrize("name", sorted(ces.CASES))
def test_matches_torch(name):
    # values exact up to the last bit of the accumulate type (torch's vector lanes add a step to a rounded base)
    wide = (
        name.startswith("arange")
        and not name.startswith("arange-threaded")
        and name.endswith(("None", "float32", "float64"))
    )
    tol = (1e-6, 1e-15) if wide else None
    recorded.check(name, ces.CASES[name], EXPECTED[name], tol=tol)
