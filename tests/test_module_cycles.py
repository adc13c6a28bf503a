"""No two modules import each other, in the Rust crates or the Python package (tools/module_cycles.py)."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _tool():
    spec = importlib.util.spec_from_file_location("module_cycles", ROOT / "tools" / "module_cycles.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_two_modules_import_each_other():
    assert _tool().all_pairs() == []


def test_the_checker_sees_a_mutual_import(tmp_path):
    tool = _tool()
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .a import f\n")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def g():\n    from .a import f\n")
    assert tool.mutual_imports(tool.python_graph(pkg)) == [(("pkg", "a"), ("pkg", "b"))]
    src = tmp_path / "src"
    src.mkdir()
    (src / "lib.rs").write_text("mod x;\nmod y;\n")
    (src / "x.rs").write_text("use crate::y::Y;\n")
    (src / "y.rs").write_text("pub struct Y;\nfn f() { let _ = super::x::X; }\n")
    assert tool.mutual_imports(tool.rust_graph(src)) == [(("x",), ("y",))]
