"""Records torch's seeded random draws (tests/random_cases.py) for tests/test_random_torch.py; run with torch's
Python: `/work/torchenv/bin/python tests/golden/record_random.py`."""

import _torch_path  # noqa: F401  (first: `import ferrograd` is torch)
import random_cases
import recorded

if __name__ == "__main__":
    recorded.require_torch()
    recorded.record(random_cases.CASES, recorded.golden_path("random"))
