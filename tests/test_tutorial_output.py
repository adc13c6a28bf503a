"""examples/autograd_tutorial.py must print what PyTorch prints for the same code.

The golden file is PyTorch's own output (``python examples/autograd_tutorial.py --torch``).
Lines are compared exactly, except that
  * object addresses (``0x7fd3...``) are masked,
  * ``torch.`` is read as ``ferrograd.``.
The sections whose values come from ``randn`` are compared exactly too: after ``manual_seed(0)`` ferrograd's
generator gives PyTorch's numbers.
"""

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "autograd_tutorial.py"
GOLDEN = ROOT / "tests" / "golden" / "autograd_tutorial.torch.txt"

_HEADER = re.compile(r"^# --- (.*) ---$")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
# A number that is not part of a name such as MulBackward0 (test_nn_tutorial_output compares them with a tolerance).
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*(?:e[-+]?\d+)?|nan|inf)(?![\w])")


def normalize(text):
    """The comparable form of the example's output: one string per line."""
    return [_ADDRESS.sub("0x?", line).replace("torch.", "ferrograd.") for line in text.splitlines()]


def mismatches(expected_text, actual_text):
    """Human-readable differences between two outputs after normalization (empty if none)."""
    exp, act = normalize(expected_text), normalize(actual_text)
    out = []
    for i in range(max(len(exp), len(act))):
        e = exp[i] if i < len(exp) else "<missing>"
        a = act[i] if i < len(act) else "<missing>"
        if e != a:
            out.append(f"line {i + 1}:\n  expected: {e}\n  actual:   {a}")
    return out


# --- the comparison logic itself, checked on PyTorch's output ------------------------


def golden():
    return GOLDEN.read_text()


def test_golden_matches_itself():
    assert golden().count("# --- ") >= 10
    assert mismatches(golden(), golden()) == []


def test_addresses_and_torch_prefix_are_ignored():
    other = _ADDRESS.sub("0xdeadbeef", golden())
    assert other != golden()
    assert mismatches(golden(), other) == []
    assert mismatches("dtype=torch.float64", "dtype=ferrograd.float64") == []


def test_random_sections_are_compared_exactly():
    text = "# --- Vector-Jacobian product ---\ntensor([-736.5198, -413.0238, -610.9546], grad_fn=<MulBackward0>)\n"
    other_values = text.replace("-413.0238", "-413.0239")
    assert mismatches(text, text) == []
    assert len(mismatches(text, other_values)) == 1


def test_other_lines_are_compared_exactly():
    broken = golden().replace("tensor([  24.,  320., 4000.])", "tensor([24., 320., 4000.])")
    assert broken != golden()
    assert len(mismatches(golden(), broken)) == 1
    shorter = "\n".join(golden().splitlines()[:-1])
    diff = mismatches(golden(), shorter)
    assert len(diff) == 1 and diff[0].startswith(f"line {len(golden().splitlines())}:")
    assert diff[0].endswith("actual:   <missing>")


# --- the real check: ferrograd prints what PyTorch prints ----------------------------
# (The golden file is `python examples/autograd_tutorial.py --torch` run with PyTorch installed.)


def test_ferrograd_output_matches_torch():
    run = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    diff = mismatches(golden(), run.stdout)
    assert diff == [], "\n".join(diff)
