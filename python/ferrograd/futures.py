"""`torch.futures`: a `Future` holding one result (or one exception), completed once. ferrograd runs
`jit.fork` eagerly, so the futures it returns are complete on arrival; `Future`s made by hand complete when
`set_result` or `set_exception` is called."""

import threading

__all__ = ["Future", "collect_all", "wait_all"]


class Future:
    """torch's `Future`: `wait`/`value` return the result or raise the stored exception; `then` and
    `add_done_callback` run their callback once the future completes (at once if it already has)."""

    def __init__(self, *, devices=None):
        self._completed = threading.Event()
        self._result = None
        self._exception = None
        self._callbacks = []
        self._lock = threading.Lock()

    def done(self):
        return self._completed.is_set()

    def wait(self):
        self._completed.wait()
        return self.value()

    def value(self):
        if not self.done():
            raise RuntimeError("Future.value() called before the Future completed; call wait() to block for it")
        if self._exception is not None:
            raise self._exception
        return self._result

    def set_result(self, result):
        self._complete(result, None)

    def set_exception(self, result):
        if not isinstance(result, BaseException):
            raise TypeError(f"set_exception expects an exception, got {type(result).__name__}")
        self._complete(None, result)

    def then(self, callback):
        """A new future completed with `callback(self)` once this one completes (or with its exception)."""
        chained = Future()

        def run(finished):
            try:
                chained.set_result(callback(finished))
            except Exception as error:
                chained.set_exception(error)

        self.add_done_callback(run)
        return chained

    def add_done_callback(self, callback):
        with self._lock:
            if not self.done():
                self._callbacks.append(callback)
                return
        callback(self)

    def _complete(self, result, exception):
        with self._lock:
            if self.done():
                raise RuntimeError(
                    "Attempting to mark a completed Future as complete again. Note that a Future can only be "
                    "marked completed once."
                )
            self._result, self._exception = result, exception
            self._completed.set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(self)

    def __repr__(self):
        return f"<ferrograd.Future object at {id(self):#x}>"


def collect_all(futures):
    """A future completed with the list of `futures` once all of them have completed."""
    futures = list(futures)
    combined = Future()
    remaining = [len(futures)]
    lock = threading.Lock()

    def one_done(_):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            combined.set_result(futures)

    if not futures:
        combined.set_result([])
    for future in futures:
        future.add_done_callback(one_done)
    return combined


def wait_all(futures):
    """The results of `futures`, waiting for each; the first stored exception is raised."""
    return [future.wait() for future in futures]
