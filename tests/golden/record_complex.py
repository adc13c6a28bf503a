"""Records tests/golden/complex.json: the cases of tests/cases_complex.py evaluated by PyTorch.

PYTHONPATH=tools/torch_shim /work/torchvenv/bin/python tests/golden/record_complex.py
"""

import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from recorded import golden_path, record, require_torch

require_torch()
from cases_complex import CASES  # noqa: E402

# the casts to real warn (tests/test_complex.py checks the warning itself)
warnings.simplefilter("ignore", UserWarning)
record(CASES, golden_path("complex"))
