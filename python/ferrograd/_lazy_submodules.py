"""A package's module `__getattr__` (PEP 562) that imports the named submodules on first access, so that
`import ferrograd` does not pay for parts most programs never use; `import package.sub` works as always."""

import importlib


def lazy_submodules(package: str, names: frozenset[str]):
    def __getattr__(name):
        if name in names:
            return importlib.import_module(f".{name}", package)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
