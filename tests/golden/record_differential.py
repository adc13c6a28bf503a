"""Records tests/golden/differential.json: PyTorch's outcomes of the random calls of tests/differential_calls.py
(`SEED`, `CALLS` of them), which tests/test_differential.py replays in ferrograd. Run with torch's Python:
`/work/torchenv/bin/python tests/golden/record_differential.py`."""

import json
import sys
import warnings

import _torch_path  # noqa: F401  (first: `import ferrograd` is torch)
import differential_calls as dc
import ferrograd
from recorded import golden_path, require_torch

SEED = 28
CALLS = 2000

require_torch()
warnings.simplefilter("ignore")  # the calls warn about target sizes, degrees of freedom, ...
calls = dc.generate(SEED, CALLS)
out = {
    "seed": SEED,
    "calls": CALLS,
    "torch": ferrograd.__version__,
    "inputs": dc.inputs_digest(calls),
    "outcomes": [dc.run(ferrograd, c) for c in calls],
}
path = golden_path("differential")
with open(path, "w") as f:
    json.dump(out, f, separators=(",", ":"))
    f.write("\n")
print(f"wrote {CALLS} calls ({len(dc.ops_of(calls))} ops) to {path}", file=sys.stderr)
