"""Runs a PyTorch script unchanged on ferrograd: its `import torch` (and `torch.nn`, `torch.optim`, `from torch
import ...`) get ferrograd's modules, as if the script said `import ferrograd as torch`; `import functorch`
(which torch's wheel ships) gets ferrograd's functorch names.

    python tools/run_as_torch.py script.py [its arguments...]

The script runs as `__main__` with its own folder first on sys.path, as `python script.py` would run it; Python
processes it starts (multiprocessing's spawn children) alias torch as well (`run_as_torch_children/`). This
is how docs/PROGRAMS.md's public programs were run; the reverse, the test suite on torch, is tools/torch_shim.
"""

import builtins
import importlib
import importlib.abc
import importlib.util
import os
import sys
import types

ALIASED = "torch"


class _TorchIsFerrograd(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname == ALIASED or fullname.startswith(ALIASED + ".") or fullname == "functorch":
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        if spec.name == "functorch":  # shipped in torch's wheel: its deprecated names of torch.func
            return importlib.import_module("ferrograd._functorch_api")
        return importlib.import_module("ferrograd" + spec.name[len(ALIASED) :])

    def exec_module(self, module):
        pass


def alias_torch() -> None:
    """Makes `import torch` give ferrograd in this process."""
    if not any(isinstance(f, _TorchIsFerrograd) for f in sys.meta_path):
        sys.meta_path.insert(0, _TorchIsFerrograd())


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    path = os.path.abspath(script)
    sys.path.insert(0, os.path.dirname(path))
    alias_torch()
    # the processes the script starts (multiprocessing's spawn children) alias torch too, from start-up
    children = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run_as_torch_children")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [children, os.environ.get("PYTHONPATH")]))
    # as `python script.py`: `__file__` (and the path its warnings and tracebacks show) is absolute while
    # `sys.argv[0]` stays as typed (runpy.run_path would make both the path it is given)
    main_module = types.ModuleType("__main__")
    main_module.__dict__.update(__file__=path, __builtins__=builtins, __loader__=None, __spec__=None, __cached__=None)
    sys.modules["__main__"] = main_module
    with open(path, "rb") as source:
        code = compile(source.read(), path, "exec")
    exec(code, main_module.__dict__)


if __name__ == "__main__":
    main()
