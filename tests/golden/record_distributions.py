"""Records tests/golden/distributions.json: the cases of tests/cases_distributions.py evaluated by PyTorch.

PYTHONPATH=tools/torch_shim /work/torchvenv/bin/python tests/golden/record_distributions.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from recorded import golden_path, record, require_torch

require_torch()
from cases_distributions import CASES  # noqa: E402

record(CASES, golden_path("distributions"))
