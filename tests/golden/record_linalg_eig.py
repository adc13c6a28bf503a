"""Records tests/golden/linalg_eig.json: the cases of tests/cases_linalg_eig.py evaluated by PyTorch.

PYTHONPATH=tools/torch_shim /work/torchvenv/bin/python tests/golden/record_linalg_eig.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from recorded import golden_path, record, require_torch

require_torch()
from cases_linalg_eig import CASES  # noqa: E402

record(CASES, golden_path("linalg_eig"))
