"""Anomaly detection: failing backward nodes name the forward call that made them; NaN gradients raise."""

from .. import _core

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]

is_anomaly_enabled = _core.is_anomaly_enabled
is_anomaly_check_nan_enabled = _core.is_anomaly_check_nan_enabled


class set_detect_anomaly:
    """Sets anomaly detection on or off: at once, and back to the previous state on leaving a `with` block."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._prev = (is_anomaly_enabled(), is_anomaly_check_nan_enabled())
        _core._set_anomaly_enabled(bool(mode), bool(check_nan))

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _core._set_anomaly_enabled(*self._prev)


class detect_anomaly:
    """Context manager (and decorator) enabling anomaly detection inside its block. It slows every op."""

    def __init__(self, check_nan: bool = True) -> None:
        self._check_nan = check_nan

    def __enter__(self) -> None:
        self._prev = (is_anomaly_enabled(), is_anomaly_check_nan_enabled())
        _core._set_anomaly_enabled(True, self._check_nan)

    def __exit__(self, *exc) -> None:
        _core._set_anomaly_enabled(*self._prev)

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self._check_nan):
                return fn(*args, **kwargs)

        return wrapper
