"""Records torch's LBFGS results for test_lbfgs.py into lbfgs.json.

/work/torchenv/bin/python tests/golden/record_lbfgs.py
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import lbfgs_cases as cases  # noqa: E402
import torch  # noqa: E402


def main():
    out = {
        "trajectories": {case: {"float64": cases.trajectory(torch, case, "float64")} for case in cases.CASES},
        "float32": {case: {"float32": cases.trajectory(torch, case, "float32")} for case in cases.FLOAT32_CASES},
        "state_dicts": {case: cases.state_dict_format(torch, case) for case in ("rosenbrock_wolfe", "logistic_plain")},
        "repr": cases.optimizer_repr(torch),
        "errors": cases.errors(torch),
    }
    with open(os.path.join(HERE, "lbfgs.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
