"""A stand-in package named `ferrograd` that is PyTorch itself, to run the test suite against torch.

`make test-torch` puts this folder first on PYTHONPATH with FG_TEST_AGAINST_TORCH=1, so every
`import ferrograd...` in tests/ gets torch (`ferrograd.nn.functional` is `torch.nn.functional`, the
very same module objects). A test that passes both ways checks ferrograd against torch; values the
tests hold as constants were recorded from torch this way.
"""

import importlib
import importlib.abc
import importlib.util
import sys

import torch


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname.startswith("ferrograd."):
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return importlib.import_module("torch" + spec.name[len("ferrograd") :])

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _Alias())
sys.modules[__name__] = torch

# torch's submodules that are already loaded get their ferrograd names now: loading one through _Alias
# would make the import system bind it on its parent, over a function of the same name
# (`torch.autograd.gradcheck`, the function, would become the module).
for _name, _module in list(sys.modules.items()):
    if _name.startswith("torch."):
        sys.modules.setdefault("ferrograd" + _name[len("torch") :], _module)
