"""Records torch's `quasirandom.SobolEngine` outputs (tests/quasirandom_cases.py) for tests/test_quasirandom.py;
run with torch's Python: `PYTHONPATH=tools/torch_shim /work/torchvenv/bin/python tests/golden/record_quasirandom.py`."""

import _torch_path  # noqa: F401  (first: `import ferrograd` is torch)
import quasirandom_cases
import recorded

if __name__ == "__main__":
    recorded.require_torch()
    recorded.record(quasirandom_cases.CASES, recorded.golden_path("quasirandom"))
