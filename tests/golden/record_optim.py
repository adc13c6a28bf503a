"""Records torch's optimizer results for test_optim.py into optim.json.

/work/torchenv/bin/python tests/golden/record_optim.py
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import optim_cases as cases  # noqa: E402
import torch  # noqa: E402


def main():
    out = {
        "trajectories": {
            case: {dtype: cases.trajectory(torch, case, dtype) for dtype in ("float32", "float64")}
            for case in cases.CASES
        },
        "half": {
            case: {dtype: cases.trajectory(torch, case, dtype) for dtype in ("float16", "bfloat16")}
            for case in cases.HALF_CASES
        },
        "groups": {dtype: cases.groups_trajectory(torch, dtype) for dtype in ("float32", "float64")},
        "adam_groups": {dtype: cases.adam_groups_trajectory(torch, dtype) for dtype in ("float32", "float64")},
        "state_dicts": {case: cases.state_dict_format(torch, case) for case in cases.STATE_CASES},
        "reprs": {case: cases.optimizer_repr(torch, case) for case in cases.REPR_CASES},
        "exact": {case: cases.exact_trajectory(torch, case) for case in cases.EXACT_CASES},
    }
    with open(os.path.join(HERE, "optim.json"), "w") as f:
        json.dump(out, f)
        f.write("\n")


if __name__ == "__main__":
    main()
