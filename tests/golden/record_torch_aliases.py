"""Records tests/golden/torch_aliases.json: the cases of tests/cases_torch_aliases.py evaluated by PyTorch.

PYTHONPATH=tools/torch_shim /work/torchenv/bin/python tests/golden/record_torch_aliases.py
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from recorded import golden_path, record, require_torch

require_torch()
from cases_torch_aliases import CASES  # noqa: E402

record(CASES, golden_path("torch_aliases"))
