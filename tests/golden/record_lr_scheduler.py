"""Records torch's learning-rate sequences for test_lr_scheduler.py into lr_scheduler.json.

/work/torchenv/bin/python tests/golden/record_lr_scheduler.py
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import lr_scheduler_cases as cases  # noqa: E402
import torch  # noqa: E402


def main():
    out = {
        "schedules": {name: cases.run(torch, name) for name in cases.cases(torch)},
        "plateau": {name: cases.run_plateau(torch, name) for name in cases.PLATEAU_CASES},
        "closed_form": cases.run_closed_form(torch),
    }
    with open(os.path.join(HERE, "lr_scheduler.json"), "w") as f:
        json.dump(out, f)
        f.write("\n")


if __name__ == "__main__":
    main()
