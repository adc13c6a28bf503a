"""Records what torch's SummaryWriter writes for tests/test_tensorboard.py into tensorboard.json:
`/work/torchenv/bin/python tests/golden/record_tensorboard.py`."""

import json
import os
import tempfile

import _torch_path  # noqa: F401  (first: `import ferrograd` is torch)
import tensorboard_cases as cases
import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    with tempfile.TemporaryDirectory() as log_dir:
        out = {"histograms": cases.histograms(torch, log_dir)}
    with open(os.path.join(HERE, "tensorboard.json"), "w") as f:
        json.dump(out, f)
        f.write("\n")


if __name__ == "__main__":
    main()
