"""Run at start-up by every Python process a `tools/run_as_torch.py` script starts (a `multiprocessing` spawn or
forkserver child, a `python` subprocess: run_as_torch puts this folder on their PYTHONPATH), so that their
`import torch` gets ferrograd as the script's own does."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import run_as_torch  # found through the path just added

run_as_torch.alias_torch()
