"""PyTorch's argument errors, in its words: the one place that phrases "argument 'x' must be T, not U".

torch's argument parser names the offending type by CPython's `tp_name`: a class written in Python by its bare
name (`Fraction`, a user's `Foo`), a type from C by its dotted path (`numpy.ndarray`, `collections.OrderedDict`),
a builtin bare (`list`). The bindings (`rust/python/src/args.rs`, `type_name`) follow the same rule.
"""

_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: the class was made at run time (a `class` statement)


def type_name(value: object) -> str:
    """The name torch's messages give `value`'s type: CPython's `tp_name`."""
    kind = type(value)
    if kind.__flags__ & _HEAP_TYPE or kind.__module__ == "builtins":
        return kind.__name__
    return f"{kind.__module__}.{kind.__qualname__}"


def wrong_type(func: str, argument: str, expected: str, value: object, position: "int | None" = None) -> TypeError:
    """`func(): argument 'argument' (position N) must be expected, not <type>`; keywords have no position."""
    where = "" if position is None else f" (position {position})"
    return TypeError(f"{func}(): argument '{argument}'{where} must be {expected}, not {type_name(value)}")


def require_tensor(value: object, func: str, argument: str, position: "int | None" = None) -> None:
    """Raises torch's TypeError unless `value` is a tensor."""
    from ._core import Tensor

    if not isinstance(value, Tensor):
        raise wrong_type(func, argument, "Tensor", value, position)
