"""Records tests/golden/ctc.json: the cases of tests/cases_ctc.py evaluated by PyTorch.

PYTHONPATH=tools/torch_shim /work/torchvenv/bin/python tests/golden/record_ctc.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from recorded import golden_path, record, require_torch

require_torch()
from cases_ctc import CASES  # noqa: E402

record(CASES, golden_path("ctc"))
