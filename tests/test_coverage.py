"""docs/COVERAGE.md is generated (tools/coverage.py) from torch's recorded names and the package, and must match.

Against torch (FG_TEST_AGAINST_TORCH=1) the record itself is checked instead: every name it holds is one of
torch's, of the recorded kind."""

import importlib.util
import json
from pathlib import Path

import pytest
from helpers import AGAINST_TORCH

ROOT = Path(__file__).resolve().parents[1]


def _coverage():
    spec = importlib.util.spec_from_file_location("coverage_tool", ROOT / "tools" / "coverage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(AGAINST_TORCH, reason="the table describes ferrograd; against torch the record is checked")
def test_coverage_table_is_up_to_date():
    coverage = _coverage()
    assert coverage.TABLE.read_text(encoding="utf-8") == coverage.generate(), (
        "docs/COVERAGE.md is stale (a name was added or a signature changed): run `python tools/coverage.py --write`"
    )


@pytest.mark.skipif(not AGAINST_TORCH, reason="checks the record against torch itself")
def test_record_is_true_of_torch():
    import ferrograd as torch  # torch itself under the shim

    coverage = _coverage()
    data = json.loads(coverage.RECORD.read_text(encoding="utf-8"))
    for label, entries in data["namespaces"].items():
        path, attr = coverage.NAMESPACES[label]
        ns = torch
        for part in filter(None, path.split(".")):
            ns = getattr(ns, part)
        ns = getattr(ns, attr) if attr else ns
        for name, entry in entries.items():
            assert hasattr(ns, name), f"{label}.{name}"
            assert coverage._kind(getattr(ns, name)) == entry["kind"], f"{label}.{name}"


def test_out_of_scope_reasons_match_whole_names():
    coverage = _coverage()
    assert coverage.out_of_scope_reason("cuda") is not None
    assert coverage.out_of_scope_reason("view_as_complex") == "complex dtypes"
    assert coverage.out_of_scope_reason("add") is None
    assert coverage.out_of_scope_reason("addcmul") is None  # no pattern may swallow an ordinary op
    assert coverage.out_of_scope_reason("linalg") is None
