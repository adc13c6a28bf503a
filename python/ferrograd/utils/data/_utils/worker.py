"""Loading in worker processes (`DataLoader(num_workers=N)`): the worker loop and the main-process iterator.

Workers are forked (the default on Linux, as in PyTorch; `multiprocessing_context=` picks another start
method, which then has to pickle the dataset). Each worker receives `(task, indices)` on its own queue,
fetches and collates the batch, and sends it back on a shared queue; tensors travel as numpy arrays and
become tensors again, sharing the received memory. Batches come back in sampler order (`in_order=True`)
or as they are ready. A worker's exception is raised in the main process with the worker's traceback.
`persistent_workers=True` is accepted; the workers are started again for every pass.
"""

import collections
import copy
import itertools
import os
import queue
import random
import traceback
from dataclasses import dataclass

from .... import _core
from ...._core import Tensor
from ...._lazy_numpy import np
from .fetch import _DatasetKind

# seconds between checks that the other side is still alive
MP_STATUS_CHECK_INTERVAL = 5.0

_worker_info = None


@dataclass(frozen=True)
class WorkerInfo:
    """What `get_worker_info()` returns inside a worker: its id, the number of workers, its seed (its
    generators are seeded with it) and its copy of the dataset."""

    id: int
    num_workers: int
    seed: int
    dataset: object


def get_worker_info():
    """The current worker's `WorkerInfo`, or None in the main process."""
    return _worker_info


class _TensorPayload:
    """A tensor on its way from a worker: its values as a numpy array (bfloat16 as float32), dtype and
    requires_grad."""

    __slots__ = ("array", "dtype", "requires_grad")

    def __init__(self, t):
        self.dtype = t.dtype
        self.requires_grad = t.requires_grad
        t = t.detach()
        self.array = (t.float() if t.dtype == _core.bfloat16 else t).numpy()

    def __getstate__(self):
        return (self.array, str(self.dtype).rsplit(".", 1)[-1], self.requires_grad)

    def __setstate__(self, state):
        self.array, name, self.requires_grad = state
        self.dtype = getattr(_core, name)

    def tensor(self):
        t = _core.from_numpy(np.ascontiguousarray(self.array))
        if t.dtype != self.dtype:
            t = t.to(self.dtype)
        return t.requires_grad_() if self.requires_grad else t


def _map_tensors(data, fn):
    """`data` with `fn` applied to every tensor inside mappings, tuples (namedtuples too) and lists."""
    if isinstance(data, (Tensor, _TensorPayload)):
        return fn(data)
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(_map_tensors(d, fn) for d in data))
    if isinstance(data, tuple):
        return tuple(_map_tensors(d, fn) for d in data)
    if isinstance(data, list):
        values = [_map_tensors(d, fn) for d in data]
        return values if type(data) is list else _rebuilt(data, values, list)
    if isinstance(data, collections.abc.Mapping):
        values = {k: _map_tensors(v, fn) for k, v in data.items()}
        return values if type(data) is dict else _rebuilt(data, values, dict)
    return data


def _rebuilt(data, values, plain):
    try:
        clone = copy.copy(data)
        if isinstance(clone, dict):
            clone.update(values)
        else:
            clone[:] = values
        return clone
    except TypeError:
        return plain(values)


def _pack(data):
    return _map_tensors(data, lambda t: _TensorPayload(t) if isinstance(t, Tensor) else t)


def _unpack(data):
    return _map_tensors(data, lambda p: p.tensor() if isinstance(p, _TensorPayload) else p)


class _ExceptionWrapper:
    """An exception raised in a worker, with its traceback as text, re-raised in the main process."""

    def __init__(self, where):
        self.exc_type = type(_current_exception())
        self.exc_msg = "".join(traceback.format_exc())
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyError(msg)  # KeyError quotes its argument; keep the traceback readable
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


def _current_exception():
    import sys

    return sys.exc_info()[1]


class _IterableDatasetStopIteration:
    """A worker's iterable dataset has run out."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


def _worker_loop(kind, dataset, index_queue, data_queue, done, auto_collation, collate_fn, drop_last, base_seed,
                 init_fn, worker_id, num_workers):  # fmt: skip
    global _worker_info
    # the process that started this one, watched as PyTorch's ManagerWatchdog does: the main process, or with
    # `forkserver` the server, which exits with the main process (the main process's pid would never match)
    manager_pid = os.getppid()
    seed = base_seed + worker_id
    random.seed(seed)
    _core.manual_seed(seed)
    np.random.seed(seed % 2**32)
    _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
    where = f"in DataLoader worker process {worker_id}"
    init_error = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = _DatasetKind.create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last)
    except Exception:
        init_error = _ExceptionWrapper(where)
    ended = False
    while os.getppid() == manager_pid:
        try:
            task = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
        except queue.Empty:
            continue
        if task is None:
            break
        if done.value or ended:
            continue  # nobody waits for it: the main process is shutting down, or skips our tasks once told we ended
        idx, index = task
        if init_error is not None:
            data, init_error = init_error, None
        else:
            try:
                data = _pack(fetcher.fetch(index))
            except StopIteration:
                ended = kind == _DatasetKind.Iterable
                data = _IterableDatasetStopIteration(worker_id) if ended else _ExceptionWrapper(where)
            except Exception:
                data = _ExceptionWrapper(where)
        data_queue.put((idx, data))
    # The queue's feeder thread sends the results under a write lock that every worker shares, and a process
    # that exits mid-send keeps it. When this worker leaves because its iterable ended, the main process and
    # the other workers go on, so the feeder must finish first (the default join at exit), or the others'
    # results would never arrive. Only when nobody reads any more (shutdown, or the main process died) may
    # unsent results be dropped: then the feeder could block forever on a full pipe.
    if done.value or os.getppid() != manager_pid:
        data_queue.cancel_join_thread()


class _MultiProcessingDataLoaderIter:
    """One pass over a DataLoader with its batches loaded by worker processes."""

    def __init__(self, loader, common):
        import multiprocessing

        self._common = common
        self._num_workers = loader.num_workers
        self._timeout = loader.timeout
        self._in_order = loader.in_order
        self._sampler_iter = iter(loader._index_sampler)
        self._index_sampler = loader._index_sampler
        context = loader.multiprocessing_context
        if context is None:
            context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
        elif isinstance(context, str):
            context = multiprocessing.get_context(context)
        self._pid = os.getpid()
        self._result_queue = context.Queue()
        # set once the main process stops reading results: workers then skip their tasks and exit
        # without flushing what they had not sent (`_worker_loop`). Shared memory without a lock, so that
        # a worker killed at any moment cannot leave it unusable.
        self._done = context.RawValue("b", 0)
        self._index_queues, self._workers = [], []
        for worker_id in range(self._num_workers):
            index_queue = context.Queue()
            index_queue.cancel_join_thread()
            args = (loader._dataset_kind, loader.dataset, index_queue, self._result_queue, self._done,
                    loader._auto_collation, loader.collate_fn, loader.drop_last, common._base_seed,
                    loader.worker_init_fn, worker_id, self._num_workers)  # fmt: skip
            worker = context.Process(target=_worker_loop, args=args, daemon=True)
            worker.start()
            self._index_queues.append(index_queue)
            self._workers.append(worker)
        self._alive = [True] * self._num_workers
        self._next_worker = itertools.cycle(range(self._num_workers))
        self._send_idx = 0
        self._rcvd_idx = 0
        # task index -> the worker doing it, and the batch once it came back early
        self._tasks = {}
        self._shut = False
        for _ in range(loader.prefetch_factor * self._num_workers):
            self._put_task()

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._index_sampler)

    def _put_task(self):
        for _ in range(self._num_workers):
            worker = next(self._next_worker)
            if self._alive[worker]:
                break
        else:
            return
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        self._index_queues[worker].put((self._send_idx, index))
        self._tasks[self._send_idx] = [worker]
        self._send_idx += 1

    def _get(self):
        if self._timeout > 0:
            try:
                return self._result_queue.get(timeout=self._timeout)
            except queue.Empty:
                self._shutdown(stuck=True)
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds") from None
        while True:
            try:
                return self._result_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                # a worker that had work left, or one that died badly after its iterable ended: killed while
                # sending, it keeps the queue's write lock that the other workers send under
                dead = [
                    str(w.pid)
                    for w, alive in zip(self._workers, self._alive)
                    if (alive and not w.is_alive()) or w.exitcode not in (None, 0)
                ]
                if dead:
                    self._shutdown(stuck=True)
                    raise RuntimeError(f"DataLoader worker (pid(s) {', '.join(dead)}) exited unexpectedly") from None

    def __next__(self):
        while True:
            # skip tasks that went to workers whose iterable dataset ended
            while self._rcvd_idx < self._send_idx:
                task = self._tasks.get(self._rcvd_idx)
                if task is not None and (len(task) == 2 or self._alive[task[0]]):
                    break
                self._tasks.pop(self._rcvd_idx, None)
                self._rcvd_idx += 1
            else:
                self._shutdown()
                raise StopIteration
            task = self._tasks[self._rcvd_idx]
            if len(task) == 2:
                del self._tasks[self._rcvd_idx]
                self._rcvd_idx += 1
                return self._process(task[1])
            idx, data = self._get()
            if isinstance(data, _IterableDatasetStopIteration):
                self._alive[data.worker_id] = False
                self._index_queues[data.worker_id].put(None)
                self._tasks.pop(idx, None)
                continue
            if idx != self._rcvd_idx and self._in_order:
                self._tasks[idx].append(data)
                continue
            self._tasks.pop(idx, None)
            if idx == self._rcvd_idx:
                self._rcvd_idx += 1
            return self._process(data)

    def _process(self, data):
        self._put_task()
        if isinstance(data, _ExceptionWrapper):
            self._shutdown()
            data.reraise()
        return self._common._count(_unpack(data))

    def _shutdown(self, stuck=False):
        """Stops the workers: asks them to finish, or, when they are `stuck`, terminates them."""
        # a forked worker holds a copy of any iterator alive at the fork; its workers are not its to stop
        if self._shut or os.getpid() != self._pid:
            return
        self._shut = True
        self._done.value = 1
        for q in self._index_queues:
            q.put(None)
        for w in self._workers:
            if not stuck:
                w.join(timeout=MP_STATUS_CHECK_INTERVAL)
            if w.is_alive():
                w.terminate()
                w.join()
        for q in self._index_queues:
            q.close()
        self._result_queue.cancel_join_thread()
        self._result_queue.close()

    def __del__(self):
        try:
            self._shutdown()
        except Exception:
            pass
