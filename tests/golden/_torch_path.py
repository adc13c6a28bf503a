"""Put tools/torch_shim (so `import ferrograd` is torch) and tests/ (layer_cases) first on sys.path: imported
first by the record_*.py scripts, which run with a Python that has torch."""

import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path[:0] = [os.path.join(_ROOT, "tools", "torch_shim"), os.path.join(_ROOT, "tests")]
