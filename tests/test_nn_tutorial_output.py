"""examples/nn_tutorial.py must print what PyTorch prints for the same code (tests/golden/nn_tutorial.torch.txt,
from ``python examples/nn_tutorial.py --torch``).

Object addresses are masked and ``torch.`` reads as ``ferrograd.``. In the "(random)" sections the numbers come
from the random generator (ferrograd's is not PyTorch's), so only the text around them is compared; in the
"(deterministic)" sections every number must agree with PyTorch's to 1e-4 relative (float32 training runs
of 500-2000 steps round differently in the last digits).
"""

import math
import os
import pathlib
import re
import subprocess
import sys

from test_tutorial_output import _ADDRESS, _HEADER, _NUMBER

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "nn_tutorial.py"
GOLDEN = ROOT / "tests" / "golden" / "nn_tutorial.torch.txt"


def _split(line):
    """(the line with addresses masked and each number as N, the numbers)."""
    line = _ADDRESS.sub("0x?", line).replace("torch.", "ferrograd.")
    numbers = [float(m.group(0)) for m in _NUMBER.finditer(line)]
    return _NUMBER.sub("N", line), numbers


def _layout(text):
    return re.sub(r"([\[(]) ", r"\1", re.sub(r" +", " ", text))


def mismatches(expected_text, actual_text):
    """Human-readable differences between two outputs (empty if none)."""
    exp, act = expected_text.splitlines(), actual_text.splitlines()
    out = []
    section = ""
    for i in range(max(len(exp), len(act))):
        e = exp[i] if i < len(exp) else "<missing>"
        a = act[i] if i < len(act) else "<missing>"
        header = _HEADER.match(e)
        if header:
            section = header.group(1)
        e_text, e_nums = _split(e)
        a_text, a_nums = _split(a)
        if "(random)" in section:
            # the widths of printed tensors depend on the values too
            same = _layout(e_text) == _layout(a_text)
        else:
            same = e_text == a_text and all(
                math.isclose(x, y, rel_tol=1e-4, abs_tol=1e-6) for x, y in zip(e_nums, a_nums)
            )
        if not same:
            out.append(f"line {i + 1} ({section}):\n  expected: {e}\n  actual:   {a}")
    return out


def _golden():
    return GOLDEN.read_text()


def test_golden_is_complete():
    text = _golden()
    assert "Traceback" not in text
    assert text.count("# --- ") == 19
    assert text.rstrip().endswith("'decoupled_weight_decay': False, 'params': [0, 1, 2, 3]}]")


def test_comparison_masks_random_sections_only():
    text = _golden()
    assert mismatches(text, text) == []
    lines = text.splitlines()
    det = lines.index("# --- Polynomial fit with nn.Sequential (deterministic) ---") + 1
    rnd = lines.index("# --- Polynomial fit with nn.Sequential: training (random) ---") + 5
    assert re.match(r"^\d+ [\d.]+$", lines[det]) and re.match(r"^\d+ [\d.]+$", lines[rnd])
    changed = list(lines)
    changed[det] = lines[det].split()[0] + " " + str(float(lines[det].split()[1]) * 1.01)
    changed[rnd] = lines[rnd].split()[0] + " " + str(float(lines[rnd].split()[1]) * 1.5)
    diff = mismatches(text, "\n".join(changed))
    assert len(diff) == 1 and diff[0].startswith(f"line {det + 1} ")
    assert len(mismatches(text, text.replace("Linear(in_features=3,", "Linear(in_features=4,"))) == 1
    assert len(mismatches(text, text.replace("MseLossBackward0 object", "MSELossBackward0 object"))) == 1


def test_ferrograd_output_matches_torch():
    # one intra-op thread for PyTorch when the suite runs against it: on a busy 2-core machine its spinning
    # pool turns this 5-second program into minutes (ferrograd does not read the variable)
    env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    run = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, cwd=ROOT, timeout=600, env=env)
    assert run.returncode == 0, run.stderr
    diff = mismatches(_golden(), run.stdout)
    assert diff == [], "\n".join(diff)
