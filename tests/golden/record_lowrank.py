"""Records torch's `svd_lowrank`, `pca_lowrank` and `lobpcg` results (tests/lowrank_cases.py) for
tests/test_lowrank.py; run with torch's Python:
`PYTHONPATH=tools/torch_shim /work/torchvenv/bin/python tests/golden/record_lowrank.py`."""

import _torch_path  # noqa: F401  (first: `import ferrograd` is torch)
import lowrank_cases
import recorded

if __name__ == "__main__":
    recorded.require_torch()
    recorded.record(lowrank_cases.CASES, recorded.golden_path("lowrank"))
