"""A short run of the hostile-input fuzz (tools/fuzz.py; `make fuzz` runs 100,000 calls): every public
entry point gets wrong types, huge and negative sizes, NaN, empty and non-contiguous tensors, bad DLPack
capsules and damaged checkpoints. No call may crash the process, hang, panic, raise anything but a
standard exception, or change a tensor it was given when it fails."""

import os
import sys

import pytest
from helpers import AGAINST_TORCH

TOOLS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools")
sys.path.insert(0, TOOLS)

CALLS = 3000


@pytest.mark.skipif(AGAINST_TORCH, reason="the fuzz's targets are ferrograd's entry points")
def test_hostile_calls_only_raise_standard_exceptions():
    import fuzz

    counts, findings = fuzz.run(CALLS, seed=14, verbose=False)
    assert counts["targets"] > 1000
    report = "\n".join(f"{kind}: call {i}: {desc}\n    {detail}" for kind, i, desc, detail in findings[:20])
    assert not findings, f"{len(findings)} findings in {CALLS} calls (seed 14):\n{report}"
