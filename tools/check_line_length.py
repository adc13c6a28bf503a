"""Fails (exit 1) when a Rust or Python source line is longer than 120 characters.

rustfmt leaves long string literals alone and ruff does not look at the stub file, so `make lint`
runs this as well. Long messages split with a `\\` continuation (Rust) or implicit concatenation.

    python tools/check_line_length.py [PATH ...]     # default: the repository's sources
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 120
SUFFIXES = {".rs", ".py", ".pyi"}
FOLDERS = ["rust", "python", "tests", "tools", "benches", "examples"]
SKIP = {"target", ".venv", "__pycache__", ".git"}


def sources(paths: list[Path]) -> list[Path]:
    out = []
    for p in paths:
        if p.is_file():
            out.append(p)
            continue
        for f in sorted(p.rglob("*")):
            if f.suffix in SUFFIXES and f.is_file() and not SKIP.intersection(f.relative_to(p).parts):
                out.append(f)
    return out


def long_lines(path: Path) -> list[tuple[int, int]]:
    text = path.read_text(encoding="utf-8")
    return [(i, len(line)) for i, line in enumerate(text.splitlines(), 1) if len(line) > LIMIT]


def main(argv: list[str]) -> int:
    roots = [Path(a) for a in argv] or [ROOT / f for f in FOLDERS if (ROOT / f).exists()]
    bad = 0
    for f in sources(roots):
        for line, n in long_lines(f):
            print(f"{f.relative_to(ROOT) if f.is_relative_to(ROOT) else f}:{line}: {n} characters (limit {LIMIT})")
            bad += 1
    if bad:
        print(f"{bad} line(s) over {LIMIT} characters", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
