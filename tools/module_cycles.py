"""Lists pairs of modules that import each other, in the Rust crates and the Python package.

A module here is a file: `rust/core/src/autograd/node.rs` is `autograd::node`, a `mod.rs` is its
folder's module, `python/ferrograd/autograd/__init__.py` is `ferrograd.autograd`. Rust modules depend
on the modules their `crate::`/`super::` paths name (tests excluded); Python modules on what their
relative imports name (a name that is not a submodule is the package's own). A module's use of its own
parent or children is not counted.

    python tools/module_cycles.py      # prints the pairs; exit 1 if there are any
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CRATES = [ROOT / "rust" / "core" / "src", ROOT / "rust" / "python" / "src"]
PACKAGE = ROOT / "python" / "ferrograd"

Module = tuple[str, ...]


def _rust_module(src: Path, f: Path) -> Module:
    parts = f.relative_to(src).with_suffix("").parts
    return parts[:-1] if parts[-1] in ("mod", "lib") else parts


def rust_graph(src: Path) -> dict[Module, set[Module]]:
    files = sorted(src.rglob("*.rs"))
    modules = {_rust_module(src, f): f for f in files}
    graph: dict[Module, set[Module]] = {}
    for module, f in modules.items():
        text = re.sub(r"(?s)#\[cfg\(test\)\]\s*mod tests \{.*", "", f.read_text(encoding="utf-8"))
        deps = set()
        for kind, path in re.findall(r"\b(crate|super)((?:::\w+)+)", text):
            names = tuple(path.split("::")[1:])
            target = names if kind == "crate" else module[:-1] + names
            for n in range(len(target), 0, -1):
                if target[:n] in modules:
                    deps.add(target[:n])
                    break
        graph[module] = {d for d in deps if d[: len(module)] != module and module[: len(d)] != d}
    return graph


def python_graph(package: Path) -> dict[Module, set[Module]]:
    root = package.parent

    def exists(module: Module) -> bool:
        base = root.joinpath(*module)
        # a compiled extension counts by its stub
        return any(base.with_suffix(s).exists() for s in (".py", ".pyi")) or (base / "__init__.py").exists()

    graph: dict[Module, set[Module]] = {}
    for f in sorted(package.rglob("*.py")):
        parts = f.relative_to(root).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        module = parts[:-1] if is_package else parts
        here = module if is_package else module[:-1]
        deps = set()
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or not node.level:
                continue
            base = here[: len(here) - (node.level - 1)] + tuple((node.module or "").split(".") if node.module else ())
            for alias in node.names:
                deps.add(base + (alias.name,) if exists(base + (alias.name,)) else base)
        graph[module] = {d for d in deps if d != module and exists(d)}
    return graph


def mutual_imports(graph: dict[Module, set[Module]]) -> list[tuple[Module, Module]]:
    pairs = []
    for a, deps in graph.items():
        for b in deps:
            if a in graph.get(b, ()) and (b, a) not in pairs:
                pairs.append((a, b))
    return pairs


def all_pairs() -> list[str]:
    out = []
    for src in CRATES:
        pairs = mutual_imports(rust_graph(src))
        out += [f"{src.relative_to(ROOT)}: {'::'.join(a)} <-> {'::'.join(b)}" for a, b in pairs]
    out += [f"python: {'.'.join(a)} <-> {'.'.join(b)}" for a, b in mutual_imports(python_graph(PACKAGE))]
    return out


def main() -> int:
    pairs = all_pairs()
    for p in pairs:
        print(p)
    return 1 if pairs else 0


if __name__ == "__main__":
    sys.exit(main())
