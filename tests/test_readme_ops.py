"""README.md's "Supported ops" section is generated (tools/op_list.py) and must match the code."""

import importlib.util
from pathlib import Path

import pytest
from helpers import AGAINST_TORCH

ROOT = Path(__file__).resolve().parents[1]


def _op_list():
    spec = importlib.util.spec_from_file_location("op_list", ROOT / "tools" / "op_list.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(AGAINST_TORCH, reason="lists ferrograd's own ops: nothing to compare with torch")
def test_readme_ops_section_is_up_to_date():
    op_list = _op_list()
    current = op_list.readme_section((ROOT / "README.md").read_text(encoding="utf-8"))
    assert current is not None, "README.md has no ops section: run `python tools/op_list.py --write`"
    assert current == op_list.generate(), (
        "README.md's list of supported ops is stale (an op was added, removed or renamed): "
        "run `python tools/op_list.py --write`"
    )


def test_write_only_touches_the_section():
    op_list = _op_list()
    text = "# t\n\nintro\n\n## How the code is laid out\n\nlayout\n"
    section = f"{op_list.START}\nx\n{op_list.END}"
    inserted = op_list.replace_section(text, section)
    assert inserted == f"# t\n\nintro\n\n{section}\n\n## How the code is laid out\n\nlayout\n"
    replaced = op_list.replace_section(inserted, f"{op_list.START}\ny\n{op_list.END}")
    assert replaced == inserted.replace("\nx\n", "\ny\n")
