"""`torch.torch_version`: `TorchVersion`, the class of `__version__`, a string that also compares with version
strings and tuples by version order (`ferrograd.__version__ >= (0, 1)`)."""

__all__ = ["TorchVersion", "internal_version"]


class InvalidVersion(ValueError):
    """A version that is no dotted sequence of numbers."""


def _release(value) -> tuple:
    """(1, 10, 0) from '1.10.0a0+git' or (1, 10, 0): the numeric release, trailing zeros dropped."""
    text = ".".join(str(part) for part in value) if isinstance(value, (tuple, list)) else str(value)
    parts = []
    for piece in text.split("."):
        digits = len(piece) - len(piece.lstrip("0123456789"))
        if digits:
            parts.append(int(piece[:digits]))
        if digits < len(piece):
            break  # a suffix ('0a0+git'): the release ends here
    if not parts:
        raise InvalidVersion(f"Invalid version: '{text}'")
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def _comparison(name):
    def compare(self, other):
        try:
            return getattr(_release(self), name)(_release(other))
        except InvalidVersion:
            return getattr(str, name)(self, other)

    compare.__name__ = name
    return compare


class TorchVersion(str):
    """A version string that compares with strings and tuples by version order, then as a string where it
    is no version ('parrot')."""

    __slots__ = ()
    __gt__ = _comparison("__gt__")
    __lt__ = _comparison("__lt__")
    __ge__ = _comparison("__ge__")
    __le__ = _comparison("__le__")
    __eq__ = _comparison("__eq__")
    __hash__ = str.__hash__


def _version():
    from . import version

    return version.__version__


internal_version = TorchVersion(_version())
