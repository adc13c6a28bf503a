"""Tensor.share_memory_ / is_shared, Module.share_memory, and ferrograd.multiprocessing: a shared tensor is the
same memory in every process that has it (forked, or sent over a Queue or to a spawned child).

Every child is bounded by a join timeout; a child that hangs is killed and the test fails.
"""

import gc
import os
from multiprocessing.reduction import ForkingPickler

import ferrograd as fg
import ferrograd.multiprocessing as mp
import numpy as np
import pytest
from ferrograd import nn
from helpers import AGAINST_TORCH

TIMEOUT = 120  # seconds a child may take (a spawned child imports the framework first)


def _run(ctx, target, *args):
    p = ctx.Process(target=target, args=args)
    p.start()
    p.join(TIMEOUT)
    if p.is_alive():
        p.kill()
        p.join()
        raise AssertionError("the child did not finish")
    assert p.exitcode == 0


# ---- share_memory_ / is_shared -------------------------------------------------------------------------------


def test_share_memory_moves_the_storage_in_place():
    t = fg.arange(6.0)
    v = t[2:]
    assert not t.is_shared() and not v.is_shared()
    assert t.share_memory_() is t
    assert t.is_shared() and v.is_shared()  # a view reads the same storage
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    v[0] = 9.0
    assert t[2].item() == 9.0
    assert t._version == 1  # only the write counted: sharing is not an in-place write
    t.share_memory_()  # a no-op once shared
    assert t.is_shared()


def test_share_memory_is_not_a_write_for_autograd():
    x = fg.tensor([0.5, 1.0], requires_grad=True)
    y = x.exp()  # saves its output; x's version must stay
    x.share_memory_()
    y.sum().backward()
    assert np.allclose(x.grad.numpy(), np.exp([0.5, 1.0]))
    assert x.requires_grad and x.is_leaf and x.is_shared()


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "uint8", "float16", "bfloat16"])
def test_share_memory_keeps_values_of_every_dtype(dtype):
    t = fg.tensor([1, 0, 1]).to(getattr(fg, dtype))
    t.share_memory_()
    assert t.is_shared() and t.dtype == getattr(fg, dtype)
    assert t.tolist() == fg.tensor([1, 0, 1]).to(getattr(fg, dtype)).tolist()


def test_share_memory_of_empty_and_complex_tensors():
    e = fg.empty(0).share_memory_()
    assert e.is_shared() and e.shape == (0,)
    c = fg.tensor([1 + 2j, 3 - 1j]).share_memory_()
    assert c.is_shared() and c.tolist() == [1 + 2j, 3 - 1j]


def test_share_memory_of_a_numpy_tensor_copies():
    a = np.ones(3, dtype=np.float32)
    t = fg.from_numpy(a)
    t.share_memory_()
    assert t.is_shared()
    t[0] = 5.0
    assert a.tolist() == [1.0, 1.0, 1.0]  # torch too: the elements moved to shared memory


@pytest.mark.skipif(AGAINST_TORCH, reason="torch frees the old memory under the array (undefined behaviour)")
def test_an_exported_array_keeps_its_memory_after_share_memory():
    t = fg.arange(4.0)
    a = t.numpy()
    t.share_memory_()
    gc.collect()
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0]  # the old buffer is kept while the array may read it


def test_meta_tensors_are_refused():
    m = fg.ones(2, device="meta")
    assert not m.is_shared()
    with pytest.raises(RuntimeError, match="_share_fd_: only available on CPU"):
        m.share_memory_()


def test_module_share_memory_shares_parameters_grads_and_buffers():
    model = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    model[0].weight.grad = fg.zeros(2, 3)
    assert model.share_memory() is model
    assert all(p.is_shared() for p in model.parameters())
    assert all(b.is_shared() for b in model.buffers())
    assert model[0].weight.grad.is_shared()
    assert model[0].bias.grad is None
    assert isinstance(model[0].weight, nn.Parameter) and model[0].weight.requires_grad


# ---- across processes ------------------------------------------------------------------------------------------


def _add_ones(model):
    with fg.no_grad():
        for p in model.parameters():
            p.add_(1.0)


def test_a_forked_child_writes_into_shared_parameters():
    ctx = mp.get_context("fork")
    model = nn.Linear(2, 2)
    with fg.no_grad():
        model.weight.zero_()
        model.bias.zero_()
    model.share_memory()
    _run(ctx, _add_ones, model)
    assert model.weight.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert model.bias.tolist() == [1.0, 1.0]


def test_without_share_memory_a_forked_child_writes_its_own_copy():
    ctx = mp.get_context("fork")
    model = nn.Linear(2, 2)
    with fg.no_grad():
        model.weight.zero_()
    _run(ctx, _add_ones, model)
    assert model.weight.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def _write_received(q, done):
    t = q.get(timeout=TIMEOUT)
    assert t.is_shared()
    t.fill_(7.0)
    done.put((tuple(t.shape), t.stride(), t.storage_offset()))


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_a_queue_round_trip_shares_memory(method):
    ctx = mp.get_context(method)
    q, done = ctx.Queue(), ctx.Queue()
    base = fg.zeros(4, 3)
    view = base[1:3, ::2]  # sent as the whole storage plus the view's geometry
    assert not base.is_shared()
    p = ctx.Process(target=_write_received, args=(q, done))
    p.start()
    q.put(view)
    geometry = done.get(timeout=TIMEOUT)
    p.join(TIMEOUT)
    assert p.exitcode == 0
    assert geometry == ((2, 2), (3, 2), 3)
    assert base.is_shared()  # moved to shared memory when sent, as torch does
    assert base.tolist() == [[0, 0, 0], [7, 0, 7], [7, 0, 7], [0, 0, 0]]


def test_a_tensor_received_in_its_own_process_is_the_same_memory():
    q = mp.Queue()
    t = fg.zeros(3)
    q.put((t, t[1:]))
    a, b = q.get(timeout=TIMEOUT)
    a[1] = 4.0
    assert t.tolist() == [0.0, 4.0, 0.0] and b.tolist() == [4.0, 0.0]
    assert a.data_ptr() + 4 == b.data_ptr()


def test_parameters_and_requires_grad_cross_the_boundary():
    q = mp.Queue()
    p = nn.Parameter(fg.ones(2))
    leaf = fg.ones(2, requires_grad=True)
    q.put((p, leaf))
    p2, leaf2 = q.get(timeout=TIMEOUT)
    assert type(p2) is nn.Parameter and p2.requires_grad and p2.grad is None
    assert leaf2.requires_grad and leaf2.is_leaf


def test_a_non_leaf_that_requires_grad_is_refused():
    y = fg.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor which requires_grad"):
        ForkingPickler.dumps(y)


def _hogwild_worker(model, feature, target, steps, lock):
    # each process fits its own weight element; the lock orders the steps so that no update is lost to a race
    x = fg.zeros(1, 2)
    x[0, feature] = 1.0
    opt = fg.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        with lock:
            opt.zero_grad()
            loss = ((model(x) - target) ** 2).sum()
            loss.backward()
            opt.step()


def test_hogwild_sgd_in_two_processes_updates_the_shared_weights():
    ctx = mp.get_context("fork")
    model = nn.Linear(2, 1, bias=False)
    with fg.no_grad():
        model.weight.zero_()
    model.share_memory()
    lock = ctx.Lock()
    procs = [ctx.Process(target=_hogwild_worker, args=(model, i, 3.0 + i, 20, lock)) for i in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(TIMEOUT)
        assert p.exitcode == 0
    # d/dw (w - t)^2 = 2 (w - t): each step shrinks the distance to t by (1 - 2 * 0.1)
    expected = [t - t * 0.8**20 for t in (3.0, 4.0)]
    assert np.allclose(model.weight.detach().numpy()[0], expected, rtol=1e-5)


def _fill_shared(i, t):
    t[i] = float(i + 1)


def test_spawn_runs_each_process_over_the_shared_tensor():
    t = fg.zeros(2).share_memory_()
    assert mp.spawn(_fill_shared, args=(t,), nprocs=2) is None
    assert t.tolist() == [1.0, 2.0]


def _fail(i):
    if i == 1:
        raise ValueError("bad worker")


def test_spawn_raises_what_a_process_raised():
    with pytest.raises(mp.ProcessRaisedException, match="ValueError: bad worker") as info:
        mp.start_processes(_fail, nprocs=2, start_method="fork")
    assert info.value.error_index == 1
    assert "-- Process 1 terminated with the following error:" in str(info.value)


def _exit_3(i):
    os._exit(3)


def test_spawn_reports_an_exit_code():
    with pytest.raises(mp.ProcessExitedException, match="process 0 terminated with exit code 3") as info:
        mp.start_processes(_exit_3, nprocs=1, start_method="fork")
    assert info.value.exit_code == 3


def test_the_module_re_exports_multiprocessing():
    import multiprocessing

    for name in ["Process", "Queue", "SimpleQueue", "Pool", "Event", "Lock", "Manager", "cpu_count"]:
        assert name in mp.__all__ and hasattr(mp, name)
    assert mp.Process is multiprocessing.Process
    assert mp.get_start_method() == multiprocessing.get_start_method()
    assert mp.get_sharing_strategy() == "file_descriptor"
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    with pytest.raises(AssertionError, match="invalid sharing strategy 'bogus'"):
        mp.set_sharing_strategy("bogus")
    assert issubclass(mp.ProcessRaisedException, Exception) and mp.ProcessContext is not None


# ---- no leak ---------------------------------------------------------------------------------------------------


def _open_fds():
    return len(os.listdir("/proc/self/fd"))


def _deleted_mappings(name=""):
    # shared memory whose file is gone: ferrograd's memfds ("/memfd:ferrograd-shm (deleted)"), torch's unlinked
    # /dev/shm files, and multiprocessing's semaphores
    with open("/proc/self/maps") as f:
        return sum("(deleted)" in line and name in line for line in f)


def test_mappings_and_descriptors_are_freed_with_the_last_tensor():
    gc.collect()
    fds, maps = _open_fds(), _deleted_mappings()
    tensors = [fg.ones(1000).share_memory_() for _ in range(20)]
    views = [t[1:] for t in tensors]
    assert _open_fds() >= fds + 20
    del tensors
    gc.collect()
    assert _open_fds() >= fds + 20  # the views keep their storages
    del views
    gc.collect()
    assert _open_fds() == fds and _deleted_mappings() == maps


@pytest.mark.skipif(AGAINST_TORCH, reason="torch's cache of received storages keeps them mapped until it is swept")
def test_received_storages_are_freed_with_the_last_tensor():
    gc.collect()
    maps = _deleted_mappings("ferrograd-shm")
    q = mp.Queue()
    for _ in range(5):  # received in this process: the same storage, and nothing left once both sides drop
        t = fg.ones(100)
        q.put(t)
        r = q.get(timeout=TIMEOUT)
        assert r.data_ptr() == t.data_ptr()
        del t, r
    q.close()
    q.join_thread()
    gc.collect()
    assert _deleted_mappings("ferrograd-shm") == maps


# ---- resize_ ---------------------------------------------------------------------------------------------------


def test_resize_keeps_the_first_elements():
    t = fg.arange(6.0)
    assert t.resize_(2, 2) is t
    assert t.tolist() == [[0.0, 1.0], [2.0, 3.0]]
    t.resize_((8,))
    assert t.shape == (8,) and t[:6].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    t.resize_([0])
    t.resize_(size=(3,))
    assert t.tolist() == [0.0, 1.0, 2.0]  # the storage never shrinks


def test_resize_of_a_view_grows_the_shared_storage():
    t = fg.arange(6.0)
    v = t.view(2, 3)
    v.resize_(3, 3)
    assert v[:2].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert t.shape == (6,) and v.data_ptr() == t.data_ptr()
    v[0, 0] = 10.0
    assert t[0].item() == 10.0
    s = fg.ones(4)
    w = s[2:]
    w.resize_(1)
    assert w.storage_offset() == 2 and w.tolist() == [1.0]
    w.fill_(5.0)
    assert s.tolist() == [1.0, 1.0, 5.0, 1.0]


def test_resize_strides_and_version():
    t = fg.ones(2, 3)
    t.resize_(2, 3)
    assert t._version == 0
    t.resize_(3, 2)
    assert t._version == 1 and t.stride() == (2, 1)
    tt = fg.ones(2, 3).t()
    tt.resize_(3, 2)
    assert tt.stride() == (1, 3) and tt._version == 0  # same sizes: untouched
    tt.resize_(3, 2, memory_format=fg.contiguous_format)
    assert tt.stride() == (2, 1) and tt._version == 0
    c = fg.ones(2)
    c.resize_(1, 2, 2, 3, memory_format=fg.channels_last)
    assert c.stride() == (12, 1, 6, 2)
    d = fg.ones(2)
    d.resize_(2, 3, 4, 5, 6, memory_format=fg.channels_last_3d)
    assert d.stride() == (360, 1, 90, 18, 3)
    e = fg.ones(6)[::2]
    e.resize_(3)
    assert e.stride() == (2,)
    e.resize_(4)
    assert e.stride() == (1,)


def test_resize_as():
    t = fg.ones(2)
    assert t.resize_as_(fg.ones(3, 4, dtype=fg.int64)) is t
    assert t.shape == (3, 4) and t.dtype == fg.float32
    u = fg.ones(2)
    template = fg.ones(1, 2, 2, 2).to(memory_format=fg.channels_last)
    u.resize_as_(template)
    assert u.stride() == (8, 4, 2, 1)
    u.resize_as_(template, memory_format=fg.channels_last)
    assert u.stride() == (8, 1, 4, 2)
    with pytest.raises(TypeError, match="must be Tensor, not list"):
        u.resize_as_([1])


def test_resize_refusals():
    for t in [fg.ones(2, requires_grad=True), fg.ones(2, requires_grad=True) * 2, nn.Parameter(fg.ones(2))]:
        with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
            t.resize_(2)
    with fg.no_grad():
        with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
            fg.ones(2, requires_grad=True).resize_(3)
    # (torch leaves such a tensor with the sizes it refused)
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        fg.ones(2).resize_(-1)
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        fg.ones(2).resize_(3, 2**62)
    t = fg.ones(2)
    with pytest.raises(TypeError):
        t.resize_()
    with pytest.raises(TypeError):
        t.resize_(2.0)
    with pytest.raises(TypeError, match="got multiple values for argument 'size'"):
        t.resize_(2, size=(3,))
    with pytest.raises(TypeError, match="argument 'size' must be tuple of ints, not int"):
        t.resize_(size=3)
    assert t.shape == (2,)
    # torch checks the memory format once the sizes are changed
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        t.resize_(3, 2, memory_format=fg.channels_last)
    assert t.shape == (3, 2)
    with pytest.raises(RuntimeError, match="Unsupported memory formatPreserve"):
        t.resize_(3, memory_format=fg.preserve_format)
    assert t.shape == (3,)


def test_resize_of_memory_it_does_not_own():
    a = np.ones(3, dtype=np.float32)
    t = fg.from_numpy(a)
    t.resize_(2)
    assert t.tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        t.resize_(5)
    s = fg.ones(2).share_memory_()
    s.resize_(1)
    assert s.tolist() == [1.0] and s.is_shared()
    s.resize_(2)


@pytest.mark.skipif(AGAINST_TORCH, reason="torch 2.15 crashes (SIGSEGV) growing a shared tensor")
def test_resize_refuses_to_grow_shared_memory():
    s = fg.ones(2).share_memory_()
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        s.resize_(4)
    assert s.tolist() == [1.0, 1.0]


def test_resize_of_a_saved_tensor_fails_its_backward():
    x = fg.ones(3, requires_grad=True)
    w = fg.ones(3)
    y = (x * w).sum()
    w.resize_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_resize_of_complex_meta_and_empty_tensors():
    c = fg.ones(2, dtype=fg.complex64)
    c.resize_(3)
    assert c[:2].tolist() == [1 + 0j, 1 + 0j]
    m = fg.ones(2, device="meta")
    m.resize_(5)
    assert m.shape == (5,) and m.is_meta
    e = fg.ones(2)
    e.resize_(0)
    assert e.shape == (0,)
    e.resize_(2)
    assert e.tolist() == [1.0, 1.0]


@pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd's own binding: every size from a pickle checked before mapping")
def test_a_received_descriptor_is_checked_before_it_is_mapped():
    from ferrograd import _core

    t = fg.arange(6.0).share_memory_()
    fd, nbytes = _core._shared_fd(t)
    assert nbytes == 24
    r = _core._from_shared_fd(fd, 24, fg.float32, [2, 2], [2, 1], 2)
    assert r.tolist() == [[2.0, 3.0], [4.0, 5.0]] and r.is_shared()
    with pytest.raises(ValueError, match="48 bytes asked of a shared file of 24 bytes"):
        _core._from_shared_fd(fd, 48, fg.float32, [12], [1], 0)
    with pytest.raises(ValueError, match="not a whole number"):
        _core._from_shared_fd(fd, 22, fg.float32, [1], [1], 0)
    with pytest.raises(ValueError, match="reaches past the end"):
        _core._from_shared_fd(fd, 24, fg.float32, [2, 2], [2, 1], 3)
    with pytest.raises(ValueError, match="reaches past the end"):
        _core._from_shared_fd(fd, 24, fg.float32, [2], [2**62], 0)
    with pytest.raises(ValueError, match="differ in length"):
        _core._from_shared_fd(fd, 24, fg.float32, [2], [], 0)
    read, write = os.pipe()
    try:
        with pytest.raises(ValueError, match="not a regular"):
            _core._from_shared_fd(read, 4, fg.float32, [1], [1], 0)
    finally:
        os.close(read)
        os.close(write)
    with pytest.raises(OSError):
        _core._from_shared_fd(-1, 4, fg.float32, [1], [1], 0)
    b = fg.tensor([True, False]).share_memory_()
    bfd, _ = _core._shared_fd(b)
    assert _core._from_shared_fd(bfd, 2, fg.bool, [2], [1], 0).tolist() == [True, False]
