"""Operations in flight: `Work` handles, the communication thread that runs the collectives, and the errors.

Every collective of a process group runs, in the order it was called, on one thread of its own that makes the
blocking call (MPI's, or the gloo backend's socket transfers); both release the GIL while they wait, so the
caller (and the autograd engine, which releases the GIL too) keeps computing meanwhile: `async_op=True` returns
at once, and DistributedDataParallel's gradient reductions overlap with the rest of backward. One thread keeps
the order of collectives the same on every rank, which both backends require. MPI's point-to-point operations
are started at once by the caller (MPI matches them by source and tag) and completed by `wait()`; gloo's run on
a sending and a receiving thread of their own.
"""

import queue
import threading
import time

from ..grad_mode import no_grad


class DistError(RuntimeError):
    """An error of `ferrograd.distributed` (PyTorch's `torch.distributed.DistError`)."""


class DistBackendError(DistError):
    """The communication backend failed or timed out (PyTorch's `torch.distributed.DistBackendError`)."""


class DistNetworkError(DistError):
    """A connection could not be made or was lost (PyTorch's `torch.distributed.DistNetworkError`)."""


class DistStoreError(DistError):
    """A store operation failed or timed out (PyTorch's `torch.distributed.DistStoreError`)."""


class Work:
    """The handle of an operation started with `async_op=True`: `wait()` blocks until it is done (and raises
    what it raised), `is_completed()` asks without blocking, `result()` is its output tensors."""

    def __init__(self, name, rank, timeout, outputs):
        self._name = name
        self._rank = rank
        self._timeout = timeout
        self._outputs = outputs
        self._done = threading.Event()
        self._exception = None
        # perf_counter() when the operation started and ended (DistributedDataParallel's overlap figures)
        self._started = self._ended = None
        self._source = None  # the sender's rank, once a receive is done

    def _timed_out(self, seconds):
        return DistBackendError(
            f"ferrograd.distributed: {self._name} on rank {self._rank} did not complete within {seconds:g} s "
            "(the process group's timeout): another rank has failed, or has not called it"
        )

    def wait(self, timeout=None):
        """Blocks until the operation is done; returns True. `timeout` (a timedelta or seconds) defaults to the
        process group's; past it, raises DistBackendError."""
        seconds = self._timeout if timeout is None else _seconds(timeout)
        if not self._done.wait(seconds):
            raise self._timed_out(seconds)
        if self._exception is not None:
            raise self._exception
        return True

    def is_completed(self):
        return self._done.is_set()

    def is_success(self):
        return self._done.is_set() and self._exception is None

    def exception(self):
        return self._exception

    def result(self):
        return list(self._outputs)

    def _source_rank(self):
        return self._source

    def _finish(self, exception=None):
        self._ended = time.perf_counter()
        self._exception = exception
        self._done.set()


class RequestWork(Work):
    """A point-to-point operation: an MPI request, completed by whoever waits on it."""

    def __init__(self, name, rank, timeout, outputs, request, status, on_done):
        super().__init__(name, rank, timeout, outputs)
        self._request = request
        self._status = status
        self._on_done = on_done
        self._lock = threading.Lock()
        self._started = time.perf_counter()

    def _poll(self):
        with self._lock:
            if not self._done.is_set() and self._request.Test(self._status):
                try:
                    self._on_done()
                except BaseException as e:  # re-raised by wait()
                    self._finish(e)
                else:
                    self._finish()
            return self._done.is_set()

    def wait(self, timeout=None):
        seconds = self._timeout if timeout is None else _seconds(timeout)
        deadline = time.monotonic() + seconds
        pause = 1e-6
        while not self._poll():
            if time.monotonic() > deadline:
                raise self._timed_out(seconds)
            time.sleep(pause)  # MPI progresses inside Test(); sleeping in between leaves the core to others
            pause = min(pause * 2, 1e-3)
        return super().wait(0)

    def is_completed(self):
        return self._poll()

    def _source_rank(self):
        return self._status.Get_source()


class CommThread:
    """The thread that runs a process group's collectives, one after the other."""

    def __init__(self, name="ferrograd-mpi"):
        self._queue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, run, work):
        self._queue.put((run, work))

    def _run(self):
        with no_grad():  # grad mode is per thread: the writes into tensors here are not recorded
            while True:
                item = self._queue.get()
                if item is None:
                    return
                run, work = item
                work._started = time.perf_counter()
                try:
                    run()
                except BaseException as e:  # re-raised by wait()
                    work._finish(e)
                else:
                    work._finish()

    def close(self, timeout):
        """Lets the queued collectives finish (within `timeout` seconds), then ends the thread."""
        self._queue.put(None)
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise DistBackendError(
                f"ferrograd.distributed: collectives still running after {timeout:g} s at destroy_process_group"
            )


def _seconds(timeout):
    return timeout.total_seconds() if hasattr(timeout, "total_seconds") else float(timeout)


# shown in tracebacks as PyTorch shows its own (torch.distributed.DistBackendError)
for _error in (DistError, DistBackendError, DistNetworkError, DistStoreError):
    _error.__module__ = "ferrograd.distributed"
