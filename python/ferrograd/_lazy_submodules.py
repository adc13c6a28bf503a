"""A package's module `__getattr__` and `__dir__` (PEP 562) that import the named submodules on first access,
so that `import ferrograd` does not pay for parts a program may not use. `import package.sub`,
`from package import sub` and `package.sub.X` work as always; once imported, `sub` is a plain attribute of
the package (the import system sets it), so the hook runs once per submodule."""

import sys


def install(namespace: dict, names, attributes=None) -> None:
    """Gives the package whose globals are `namespace` a `__getattr__` importing `names` on first access, and a
    `__dir__` that lists them beside what is already there (as `dir(torch)` lists `nn`). `attributes` maps
    other names to the submodule that defines them (`{"autocast": "amp"}`: `package.autocast` is
    `package.amp.autocast`, imported on first access and then kept in the package)."""
    package = namespace["__name__"]
    lazy = frozenset(names)
    lazy_attributes = dict(attributes or {})

    def __getattr__(name):
        if name in lazy:
            __import__(f"{package}.{name}")
            return sys.modules[f"{package}.{name}"]
        if name in lazy_attributes:
            __import__(f"{package}.{lazy_attributes[name]}")
            value = getattr(sys.modules[f"{package}.{lazy_attributes[name]}"], name)
            setattr(sys.modules[package], name, value)
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        # through sys.modules, not `namespace`: no cycle from the package's dict back to itself
        return sorted(lazy.union(lazy_attributes, vars(sys.modules[package])))

    namespace["__getattr__"] = __getattr__
    namespace["__dir__"] = __dir__
