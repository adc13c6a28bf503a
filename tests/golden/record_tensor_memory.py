"""Records tests/golden/tensor_memory.json: the cases of tests/cases_tensor_memory.py evaluated by PyTorch.

PYTHONPATH=tools/torch_shim /work/torchvenv/bin/python tests/golden/record_tensor_memory.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from recorded import golden_path, record, require_torch

require_torch()
from cases_tensor_memory import CASES  # noqa: E402

record(CASES, golden_path("tensor_memory"))
