"""`torch.compiler`: the queries programs make around `torch.compile` (nothing is ever being compiled: ferrograd
runs compiled models eagerly)."""

from ._compile import compile

__all__ = ["compile", "disable", "is_compiling", "is_dynamo_compiling", "is_exporting", "reset"]


def reset():
    """Forgets compiled code: there is none."""


def is_compiling():
    return False


def is_dynamo_compiling():
    return False


def is_exporting():
    return False


def disable(fn=None, recursive=True, *, reason=None):
    """Marks `fn` as not to be compiled: it is returned as it is (everything runs eagerly); usable as
    `@disable` and `@disable(...)`."""
    if fn is None:
        return lambda f: f
    return fn
