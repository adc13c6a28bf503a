"""Records torch's answers to tests/cases_edge_semantics.py for tests/test_edge_semantics.py:
`/work/torchenv/bin/python tests/golden/record_edge_semantics.py`."""

import _torch_path  # noqa: F401  (first: `import ferrograd` is torch)
import cases_edge_semantics as ces
import recorded

if __name__ == "__main__":
    recorded.require_torch()
    recorded.record(ces.CASES, recorded.golden_path("edge_semantics"))
