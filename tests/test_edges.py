"""Values and gradients at ties, zeros, bounds and infinities (tests/edge_cases.py) against torch's, recorded by
tests/golden/record_edges.py: the same element of a tie gets the gradient, and 0 * inf gives what torch gives."""

import edge_cases as ec
import numpy as np
import pytest
from helpers import golden

RECORDED = golden("edges")
# The same formulas in another order: values may differ in the last bits, never more (atol: a sum that cancels
# to 0 in torch may leave a rounding error of that size).
TOL = {"float32": {"rtol": 2e-6, "atol": 1e-6}, "float64": {"rtol": 1e-13, "atol": 1e-15}}


def _check(actual, expected, what, tol):
    if expected is None:
        assert actual is None, f"{what}: a gradient where torch has none"
        return
    assert actual is not None, f"{what}: no gradient where torch has one"
    assert actual["dtype"] == expected["dtype"], f"{what}: dtype {actual['dtype']} != torch's {expected['dtype']}"
    assert actual["shape"] == expected["shape"], f"{what}: shape {actual['shape']} != torch's {expected['shape']}"
    a, e = np.array(actual["data"], dtype=np.float64), np.array(expected["data"], dtype=np.float64)
    ok = np.isclose(a, e, equal_nan=True, **tol)
    assert ok.all(), f"{what}: {a.tolist()} != torch's {e.tolist()}"


@pytest.mark.parametrize("dtype", ec.DTYPES)
@pytest.mark.parametrize("case", ec.CASES, ids=str)
def test_value_and_gradient_match_torch(case, dtype):
    expected = RECORDED[case.name][dtype]
    actual = ec.evaluate(case, dtype)
    tol = dict(TOL[dtype], **({"rtol": case.rtol} if case.rtol else {}))
    assert len(actual["values"]) == len(expected["values"]), "number of outputs"
    for i, (a, e) in enumerate(zip(actual["values"], expected["values"])):
        _check(a, e, f"output {i}", tol)
    for i, (a, e) in enumerate(zip(actual["grads"], expected["grads"])):
        _check(a, e, f"gradient of input {i}", tol)


def test_every_case_is_recorded():
    assert sorted(RECORDED) == sorted(case.name for case in ec.CASES)
