"""Deep comparison of recorded nn.utils results (nested lists of floats, strings, None)."""

import numpy as np


def same(got, want, path="", rtol=1e-9, atol=1e-10):
    if (
        isinstance(want, list)
        and want
        and all(isinstance(w, (int, float)) and not isinstance(w, bool) for w in np.ravel(np.array(want, dtype=object)))
    ):
        np.testing.assert_allclose(
            np.array(got, dtype=float), np.array(want, dtype=float), rtol=rtol, atol=atol, err_msg=path
        )
    elif isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), f"{path}: {got!r} != {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            same(g, w, f"{path}[{i}]", rtol, atol)
    elif isinstance(want, dict):
        assert set(got) == set(want), path
        for k in want:
            same(got[k], want[k], f"{path}.{k}", rtol, atol)
    elif isinstance(want, float):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=path)
    else:
        assert got == want, f"{path}: {got!r} != {want!r}"
