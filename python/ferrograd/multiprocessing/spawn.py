"""`spawn` / `start_processes`: run `fn(i, *args)` in `nprocs` new processes, and if one fails, stop the others
and raise in the parent what it raised (`ProcessRaisedException`, with its traceback) or how it died
(`ProcessExitedException`), as torch's do."""

import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import time
import traceback
import warnings

# torch reads it to start the processes in parallel; here they are always started one after another
ENV_VAR_PARALLEL_START = "TORCH_MP_PARALLEL_START"


class ProcessException(Exception):
    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg: str, error_index: int, error_pid: int):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """Exception raised when a process failed due to an exception raised by the code."""


class ProcessExitedException(ProcessException):
    """Exception raised when a process failed due to signal or exited with a specific code."""

    __slots__ = ["exit_code"]

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int, signal_name: str | None = None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _wrap(fn, i, args, error_file):
    """A child's entry point: `fn(i, *args)`; an exception's traceback goes to `error_file` for the parent."""
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent is stopping the processes
    except Exception:
        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    """The processes `start_processes` started; `join` waits for them and raises when one fails."""

    def __init__(self, processes, error_files):
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {process.sentinel: index for index, process in enumerate(processes)}

    def pids(self):
        return [int(process.pid) for process in self.processes]

    def _stop_all(self, grace_period):
        for process in self.processes:
            if process.is_alive():
                process.terminate()  # SIGTERM
        deadline = time.monotonic() + (grace_period or 0)
        for process in self.processes:
            process.join(max(0.0, deadline - time.monotonic()) if grace_period else None)
            if process.is_alive():
                process.kill()
                process.join()

    def join(self, timeout=None, grace_period=None):
        """Waits up to `timeout` seconds for the processes: True once all have exited successfully, False while
        some still run; when one has failed, stops the others (SIGTERM, then SIGKILL after `grace_period`) and
        raises the failure."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        error_index = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                error_index = index
                break
        if error_index is None:
            return not self.sentinels
        self._stop_all(grace_period)
        failed = self.processes[error_index]
        error_file = self.error_files[error_index]
        if not os.path.exists(error_file) or os.path.getsize(error_file) == 0:
            exitcode = failed.exitcode
            if exitcode < 0:
                try:
                    name = signal.Signals(-exitcode).name
                except ValueError:
                    name = f"<Unknown signal {-exitcode}>"
                raise ProcessExitedException(
                    f"process {error_index:d} terminated with signal {name}",
                    error_index=error_index,
                    error_pid=failed.pid,
                    exit_code=exitcode,
                    signal_name=name,
                )
            raise ProcessExitedException(
                f"process {error_index:d} terminated with exit code {exitcode:d}",
                error_index=error_index,
                error_pid=failed.pid,
                exit_code=exitcode,
            )
        with open(error_file, "rb") as fh:
            original_trace = pickle.load(fh)
        msg = f"\n\n-- Process {error_index:d} terminated with the following error:\n" + original_trace
        raise ProcessRaisedException(msg, error_index, failed.pid)


class SpawnContext(ProcessContext):
    def __init__(self, processes, error_files):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.", stacklevel=2)
        super().__init__(processes, error_files)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Starts `nprocs` processes running `fn(i, *args)` by `start_method`; with `join`, waits for all of them
    (raising when one fails), else returns their `ProcessContext`."""
    context = multiprocessing.get_context(start_method)
    error_files = []
    processes = []
    for i in range(nprocs):
        # the child writes its traceback here; empty means it exited without raising
        fd, error_file = tempfile.mkstemp(prefix="ferrograd-mp-", suffix=".pickle")
        os.close(fd)
        error_files.append(error_file)
        process = context.Process(target=_wrap, args=(fn, i, args, error_file), daemon=daemon)
        process.start()
        processes.append(process)
    process_context = ProcessContext(processes, error_files)
    if not join:
        return process_context
    try:
        while not process_context.join():
            pass
    finally:
        for error_file in error_files:
            try:
                os.remove(error_file)
            except OSError:
                pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """`start_processes` with the spawn start method (another `start_method` warns, and spawn is used)."""
    if start_method != "spawn":
        msg = (
            f"This method only supports start_method=spawn (got: {start_method}).\n"
            "To use a different start_method use:\n\t\t"
            " torch.multiprocessing.start_processes(...)"
        )
        warnings.warn(msg, FutureWarning, stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
