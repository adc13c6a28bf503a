"""Records tests/golden/grid_sample.json: the cases of tests/cases_grid_sample.py evaluated by PyTorch.

PYTHONPATH=tools/torch_shim /work/torchenv/bin/python tests/golden/record_grid_sample.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from recorded import golden_path, record, require_torch

require_torch()
from cases_grid_sample import CASES  # noqa: E402

record(CASES, golden_path("grid_sample"))
