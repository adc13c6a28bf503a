"""Generates README.md's list of supported ops, so that it cannot drift from the code.

The list is built by introspection of the built package (`ferrograd`, `ferrograd.nn.functional`, `Tensor`)
and from the Rust op table (the `grad_fn` names matched in `BackwardOp::name`, following delegations such as
`Unary(op) => op.name()` into the enum that names them).

    python tools/op_list.py            # print the generated section
    python tools/op_list.py --write    # replace the section in README.md (inserted if missing)
    python tools/op_list.py --check    # exit 1 if README.md's section is stale

The section sits between `<!-- ops:start -->` and `<!-- ops:end -->`; it is inserted before the
"## How the code is laid out" heading when README.md has none yet. Nothing else in README.md is touched.
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
FORMULAS = ROOT / "rust" / "core" / "src" / "autograd" / "formulas.rs"
RUST_SRC = ROOT / "rust" / "core" / "src"

START = "<!-- ops:start -->"
END = "<!-- ops:end -->"
INSERT_BEFORE = "## How the code is laid out"

# Python operators, listed when Tensor defines the dunder.
OPERATORS = [
    ("__add__", "+"),
    ("__sub__", "-"),
    ("__mul__", "*"),
    ("__truediv__", "/"),
    ("__mod__", "%"),
    ("__pow__", "**"),
    ("__matmul__", "@"),
    ("__neg__", "-x"),
    ("__pos__", "+x"),
    ("__eq__", "=="),
    ("__ne__", "!="),
    ("__lt__", "<"),
    ("__le__", "<="),
    ("__gt__", ">"),
    ("__ge__", ">="),
    ("__iadd__", "+="),
    ("__isub__", "-="),
    ("__imul__", "*="),
    ("__itruediv__", "/="),
    ("__getitem__", "x[...]"),
    ("__setitem__", "x[...] ="),
]


def _public(names):
    return sorted(n for n in names if not n.startswith("_"))


def _import_package():
    # Prefer the checkout's package over any installed copy.
    sys.path.insert(0, str(ROOT / "python"))
    import ferrograd
    import ferrograd.nn.functional

    return ferrograd


def python_groups(fg) -> list[tuple[str, list[str]]]:
    """(title, names) for the Python-visible API."""
    mod_items = [(n, getattr(fg, n)) for n in _public(dir(fg))]
    functions = [n for n, v in mod_items if inspect.isroutine(v)]
    classes = [n for n, v in mod_items if inspect.isclass(v)]
    dtypes = [n for n, v in mod_items if isinstance(v, fg.dtype)]

    tensor_vars = {}
    for klass in reversed(fg.Tensor.__mro__[:-1]):  # not `object`
        tensor_vars.update(vars(klass))
    properties = [n for n in _public(tensor_vars) if inspect.isdatadescriptor(tensor_vars[n])]
    methods = [n for n in _public(tensor_vars) if n not in properties and callable(tensor_vars[n])]
    operators = [sym for dunder, sym in OPERATORS if dunder in tensor_vars]

    F = fg.nn.functional
    functional = [n for n in _public(dir(F)) if inspect.isroutine(getattr(F, n))]

    return [
        ("`ferrograd.*` functions", functions),
        ("`ferrograd.*` classes and context managers", classes),
        ("dtypes", dtypes),
        ("`Tensor` methods", methods),
        ("`Tensor` properties", properties),
        ("`Tensor` operators", operators),
        ("`ferrograd.nn.functional`", functional),
    ]


def _block_after(text: str, pos: int) -> str:
    """The `{ ... }` block starting at the first brace at or after `pos`."""
    start = text.index("{", pos)
    depth = 0
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[start : i + 1]
    raise ValueError("unbalanced braces")


def _name_fn_body(text: str, impl: str) -> str | None:
    """The body of `fn name(&self)` (or `fn name(self)`) inside `impl <impl> { ... }`, or None."""
    m = re.search(rf"^impl\s+{re.escape(impl)}\s*\{{", text, re.M)
    if not m:
        return None
    impl_body = _block_after(text, m.start())
    f = re.search(r"fn\s+name\s*\(\s*&?\s*self\s*\)[^{]*", impl_body)
    return _block_after(impl_body, f.end()) if f else None


def _find_name_fn(impl: str) -> str:
    for path in sorted(RUST_SRC.rglob("*.rs")):
        body = _name_fn_body(path.read_text(encoding="utf-8"), impl)
        if body is not None:
            return body
    raise ValueError(f"no `impl {impl}` with `fn name(&self)` under {RUST_SRC}")


def backward_names() -> list[str]:
    """grad_fn names from `BackwardOp::name` (formulas.rs), following `Variant(x) => x.name()` arms."""
    body = _name_fn_body(FORMULAS.read_text(encoding="utf-8"), "BackwardOp")
    if body is None:
        raise ValueError(f"`impl BackwardOp {{ fn name(&self) ... }}` not found in {FORMULAS}")
    names = set(re.findall(r'"(\w*Backward\w*)"', body))
    # `Unary(op) => op.name()`: the variant's payload type is named like the variant.
    for variant, _ in re.findall(r"(\w+)\s*\(\s*(\w+)\s*\)\s*=>\s*\2\s*\.\s*name\s*\(\s*\)", body):
        if variant == "Custom":  # user-defined autograd Functions name themselves
            continue
        names |= set(re.findall(r'"(\w*Backward\w*)"', _find_name_fn(variant)))
    return sorted(names)


def generate() -> str:
    fg = _import_package()
    groups = python_groups(fg) + [("`grad_fn` names (Rust op table)", backward_names())]
    lines = [
        START,
        "<!-- Generated by `python tools/op_list.py --write` from the built package and the Rust op table; "
        "do not edit by hand. -->",
        "## Supported ops",
        "",
    ]
    for title, names in groups:
        lines.append(f"- **{title}** ({len(names)}): " + ", ".join(f"`{n}`" for n in names))
    lines.append(END)
    return "\n".join(lines)


def readme_section(text: str) -> str | None:
    """The generated section of README text (markers included), or None if absent."""
    i = text.find(START)
    j = text.find(END, i)
    if i < 0 or j < 0:
        return None
    return text[i : j + len(END)]


def replace_section(text: str, section: str) -> str:
    old = readme_section(text)
    if old is not None:
        return text.replace(old, section, 1)
    k = text.find("\n" + INSERT_BEFORE)
    if k < 0:
        return text.rstrip("\n") + "\n\n" + section + "\n"
    return text[: k + 1] + section + "\n\n" + text[k + 1 :]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = p.add_mutually_exclusive_group()
    g.add_argument("--write", action="store_true", help="replace the section in README.md")
    g.add_argument("--check", action="store_true", help="exit 1 if README.md's section is stale")
    args = p.parse_args(argv)
    section = generate()
    if args.write:
        text = README.read_text(encoding="utf-8")
        new = replace_section(text, section)
        if new != text:
            README.write_text(new, encoding="utf-8")
        print(f"{README.relative_to(ROOT)}: ops section {'updated' if new != text else 'already up to date'}")
    elif args.check:
        if readme_section(README.read_text(encoding="utf-8")) != section:
            print("README.md's ops section is stale: run `python tools/op_list.py --write`", file=sys.stderr)
            return 1
    else:
        print(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
