"""Records torch's interpolate and upsampling modules (tests/interpolate_cases.py) for tests/test_interpolate.py;
run with torch's Python: `/work/torchenv/bin/python tests/golden/record_interpolate.py`."""

import _torch_path  # noqa: F401  (first: `import ferrograd` is torch)
import interpolate_cases
from recorded import golden_path, record, require_torch

if __name__ == "__main__":
    require_torch()
    record(interpolate_cases.CASES, golden_path("interpolate"))
