"""Grad-mode switches: `no_grad`, `enable_grad`, `set_grad_enabled`, each a context manager and a decorator.

The mode itself lives in Rust, per thread; these classes only set and restore it.
"""

from ._core import _set_grad_enabled, _set_inference_mode, is_grad_enabled, is_inference_mode_enabled

__all__ = [
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "inference_mode",
    "is_inference_mode_enabled",
]


class _GradModeContext:
    _mode: bool

    def __new__(cls, *args, **kwargs):
        # `@no_grad` without parentheses: decorate the function straight away
        if cls is not set_grad_enabled and len(args) == 1 and callable(args[0]) and not kwargs:
            return cls()(args[0])
        return super().__new__(cls)

    def __enter__(self) -> None:
        self._prev = _set_grad_enabled(self._mode)

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _set_grad_enabled(self._prev)

    def __call__(self, fn):
        import functools  # here, not at `import ferrograd`: it brings `collections` (a third of the import)

        mode = self._mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            prev = _set_grad_enabled(mode)
            try:
                return fn(*args, **kwargs)
            finally:
                _set_grad_enabled(prev)

        return wrapper

    def _with_mode(self, mode: bool):
        self._mode = mode
        return self


class _NoParamContext(_GradModeContext):
    """A mode without arguments, set by the class (no `__init__`: `with no_grad():` is on every inference
    step's path)."""

    def __new__(cls, orig_func=None):
        if orig_func is not None and callable(orig_func):
            return cls()(orig_func)
        return object.__new__(cls)


class no_grad(_NoParamContext):
    """Disables gradient tracking inside a `with` block or a decorated function."""

    _mode = False


class enable_grad(_NoParamContext):
    """Enables gradient tracking inside a `with` block or a decorated function."""

    _mode = True


class set_grad_enabled(_GradModeContext):
    """Sets grad mode: takes effect at once (as a plain call), and is undone on leaving a `with` block."""

    def __init__(self, mode: bool) -> None:
        self._mode = bool(mode)
        self._prev = _set_grad_enabled(self._mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _set_grad_enabled(self._prev)

    def __call__(self, fn):
        # `@set_grad_enabled(mode)`: __init__ already switched the mode; a decorator must not
        _set_grad_enabled(self._prev)
        return super().__call__(fn)


class inference_mode(_GradModeContext):
    """No recording, and tensors made inside are inference tensors (`t.is_inference()`)."""

    def __new__(cls, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not isinstance(args[0], bool) and not kwargs:
            return cls()(args[0])
        return object.__new__(cls)

    def __init__(self, mode=True) -> None:
        self._mode = not bool(mode)
        self._inference = bool(mode)

    def __enter__(self) -> None:
        self._prev = _set_grad_enabled(self._mode)
        self._prev_inference = _set_inference_mode(self._inference)

    def __exit__(self, *exc) -> None:
        _set_inference_mode(self._prev_inference)
        _set_grad_enabled(self._prev)

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(self._inference):
                return fn(*args, **kwargs)

        return wrapper
