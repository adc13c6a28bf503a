"""tools/run_as_torch.py runs a script as `python script.py` would: `import torch` gives ferrograd, the script's
folder comes first on sys.path, `sys.argv` is the script and its arguments, and `__file__` (with the path its
warnings and tracebacks show) is absolute, as Python makes it for `python script.py`."""

import os
import subprocess
import sys
import textwrap

from helpers import AGAINST_TORCH

TOOL = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools", "run_as_torch.py")

SCRIPT = textwrap.dedent(
    """
    import sys
    import warnings

    import torch
    import torch.nn as nn

    print(torch.__name__.split(".")[0], nn.__name__.split(".")[-1])
    print(__file__)
    print(sys.argv)
    warnings.warn("from the script")
    """
)


def test_runs_a_script_as_python_would(tmp_path):
    """Against torch, the script runs as `python program.py` itself: what the tool must reproduce."""
    (tmp_path / "program.py").write_text(SCRIPT)
    runner = [] if AGAINST_TORCH else [TOOL]
    done = subprocess.run(
        [sys.executable, *runner, "program.py", "--steps", "2"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    modules, file, argv = done.stdout.splitlines()
    assert modules == ("torch nn" if AGAINST_TORCH else "ferrograd nn")
    assert file == str(tmp_path / "program.py")
    assert argv == str(["program.py", "--steps", "2"])
    assert f"{tmp_path / 'program.py'}:11: UserWarning: from the script" in done.stderr
