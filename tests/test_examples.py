"""examples/train_digits.py trains, checkpoints and plots as its docstring says (it needs the `examples` extra:
scikit-learn, matplotlib and tqdm, which the dev requirements install)."""

import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
NEEDS = ("sklearn", "matplotlib", "tqdm")


@pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in NEEDS), reason="needs the examples extra (scikit-learn etc.)"
)
def test_train_digits_learns_saves_reloads_and_draws(tmp_path):
    env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}  # see test_nn_tutorial_output
    command = [sys.executable, "examples/train_digits.py", "--epochs", "8", "--quiet", "--out", str(tmp_path)]
    run = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=600, env=env)
    assert run.returncode == 0, run.stderr
    accuracy = {m.group(1): float(m.group(2)) for m in re.finditer(r"(CNN|MLP) test accuracy: ([\d.]+)%", run.stdout)}
    assert set(accuracy) == {"CNN", "MLP"}, run.stdout
    # 8 epochs reach 97-99% on both frameworks; a broken layer, loss or optimizer lands far below
    assert accuracy["CNN"] >= 95.0 and accuracy["MLP"] >= 95.0, run.stdout
    assert "1437 training and 360 test images" in run.stdout
    for name in ("digits_loss.png", "digits_misclassified.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    checkpoints = [p for p in tmp_path.iterdir() if p.name.startswith("digits_cnn.")]
    assert len(checkpoints) == 1 and checkpoints[0].stat().st_size > 1000
