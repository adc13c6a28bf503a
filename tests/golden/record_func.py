"""Records tests/golden/func.json: the cases of tests/cases_func.py (torch.func and torch.autograd.forward_ad)
evaluated by PyTorch.

PYTHONPATH=tools/torch_shim /work/torchvenv/bin/python tests/golden/record_func.py
"""

import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from recorded import golden_path, record, require_torch

require_torch()
warnings.simplefilter("ignore")  # torch's jit-deprecation warnings on first use of torch.func
from cases_func import CASES  # noqa: E402

record(CASES, golden_path("func"))
