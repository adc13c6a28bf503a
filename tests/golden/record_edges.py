"""Records torch's values and gradients at the edge points of tests/edge_cases.py for tests/test_edges.py; run
with torch's Python: `/work/torchenv/bin/python tests/golden/record_edges.py`."""

import json
import os

import _torch_path  # noqa: F401  (first: `import ferrograd` is torch)
import edge_cases as ec


def main():
    out = {case.name: {d: ec.evaluate(case, d) for d in ec.DTYPES} for case in ec.CASES}
    assert len(out) == len(ec.CASES), "case names must be unique"
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "edges.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=None, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
