"""DLPack and zero-copy numpy interop: `__dlpack__`, `from_dlpack`, `as_tensor`.

Sharing is checked by writing through one side and reading the other; lifetimes by dropping the
producer before reading the consumer."""

import gc

import ferrograd as fg
import numpy as np
import pytest
from helpers import AGAINST_TORCH, rss_bytes

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def _values(name, n):
    if name == "bool":
        return np.arange(n) % 2 == 0
    return np.arange(n).astype(name)


# ---- export: numpy consumes ferrograd tensors ----


@pytest.mark.parametrize("name", DTYPES)
def test_numpy_from_dlpack_shares_memory(name):
    t = fg.tensor(_values(name, 6).tolist(), dtype=getattr(fg, name))
    a = np.from_dlpack(t)
    assert a.dtype == np.dtype(name)
    np.testing.assert_array_equal(a, _values(name, 6))
    a[1] = 1  # write through numpy ...
    assert t[1].item() == 1  # ... seen by the tensor
    t[2] = 0
    assert a[2] == 0


def test_export_strided_view():
    base = fg.arange(24, dtype=fg.float32).reshape(4, 6)
    v = base.t()[1:, ::2]  # transposed, offset and stepped
    a = np.from_dlpack(v)
    np.testing.assert_array_equal(a, np.arange(24, dtype=np.float32).reshape(4, 6).T[1:, ::2])
    a[0, 0] = -1.0
    assert base[0, 1].item() == -1.0


def test_export_zero_dim_and_empty():
    np.testing.assert_array_equal(np.from_dlpack(fg.tensor(3.5)), np.array(3.5, dtype=np.float32))
    assert np.from_dlpack(fg.zeros(0, 3)).shape == (0, 3)


def test_export_outlives_the_tensor():
    t = fg.arange(5, dtype=fg.float64)
    a = np.from_dlpack(t)
    del t
    gc.collect()
    if not AGAINST_TORCH:
        fg._core._empty_pool()  # the freed storage must not go back to the pool while numpy reads it
    np.testing.assert_array_equal(a, np.arange(5.0))


def test_dlpack_device_and_versions():
    t = fg.ones(3)
    assert t.__dlpack_device__() == (1, 0)
    assert type(t.__dlpack__()).__name__ == "PyCapsule"
    assert "dltensor" in repr(t.__dlpack__())
    assert "dltensor_versioned" in repr(t.__dlpack__(max_version=(1, 0)))
    assert "dltensor_versioned" not in repr(t.__dlpack__(max_version=(0, 8)))


def test_export_with_copy_does_not_share():
    t = fg.zeros(3)
    a = np.from_dlpack(fg.from_dlpack(t.__dlpack__(copy=True)))
    a[0] = 5.0
    assert t[0].item() == 0.0


def test_export_of_a_tensor_that_requires_grad_raises():
    t = fg.ones(2, requires_grad=True)
    with pytest.raises(BufferError, match="Can't export tensors that require gradient, use tensor.detach()"):
        t.__dlpack__()
    np.testing.assert_array_equal(np.from_dlpack(t.detach()), np.ones(2, dtype=np.float32))


def test_unconsumed_capsule_is_freed():
    # Dropping a capsule nobody consumed runs its deleter, which releases the exported storage: 40 exports of
    # 64 MiB each (above the allocator's mmap threshold, so a freed one goes back to the system at once) leave
    # the resident memory where it was; a leaked deleter would keep 2.5 GB.
    elements = 16 * 1024 * 1024
    fg.ones(elements).__dlpack__()
    gc.collect()
    empty_pool = (lambda: None) if AGAINST_TORCH else fg._core._empty_pool  # torch keeps no buffer pool
    empty_pool()
    before = rss_bytes()
    for _ in range(20):
        fg.ones(elements).__dlpack__()
        fg.ones(elements).__dlpack__(max_version=(1, 0))
    gc.collect()
    empty_pool()
    grown = rss_bytes() - before
    assert grown < 3 * 4 * elements, f"resident memory grew by {grown / 1e6:.0f} MB"


# ---- import: ferrograd consumes numpy arrays, capsules and itself ----


@pytest.mark.parametrize("name", DTYPES)
def test_from_dlpack_numpy_shares_memory(name):
    a = _values(name, 6)
    t = fg.from_dlpack(a)
    assert str(t.dtype).endswith("." + name)
    np.testing.assert_array_equal(t.numpy(), a)
    t[1] = 0
    assert a[1] == 0
    a[2] = 1
    assert t[2].item() == 1


def test_from_dlpack_strided_numpy():
    a = np.arange(24.0).reshape(4, 6)
    v = a.T[1:, ::2]
    t = fg.from_dlpack(v)
    assert tuple(t.shape) == v.shape
    np.testing.assert_array_equal(t.numpy(), v)
    t[0, 0] = -7.0
    assert a[0, 1] == -7.0


def test_from_dlpack_keeps_the_producer_alive():
    a = np.arange(1000, dtype=np.float32) * 2
    t = fg.from_dlpack(a)
    del a
    gc.collect()
    np.testing.assert_array_equal(t.numpy(), np.arange(1000, dtype=np.float32) * 2)
    assert (t * 1).sum().item() == 999000.0


def test_from_dlpack_capsule_is_consumed_once():
    a = np.arange(3.0)
    capsule = a.__dlpack__()
    t = fg.from_dlpack(capsule)
    np.testing.assert_array_equal(t.numpy(), a)
    assert "used_dltensor" in repr(capsule)
    with pytest.raises(RuntimeError, match="consumed only once"):
        fg.from_dlpack(capsule)


def test_from_dlpack_roundtrip_through_ferrograd():
    t = fg.arange(6, dtype=fg.float32).reshape(2, 3)
    u = fg.from_dlpack(t)
    u[0, 0] = 9.0
    assert t[0, 0].item() == 9.0
    assert u.stride() == t.stride()


def test_from_dlpack_rejects_other_objects():
    with pytest.raises(RuntimeError):
        fg.from_dlpack([1, 2, 3])


@pytest.mark.skipif(
    AGAINST_TORCH, reason="torch shares read-only memory; ferrograd copies it so writes cannot reach it"
)
def test_from_dlpack_read_only_numpy_copies():
    a = np.arange(3.0)
    a.flags.writeable = False
    t = fg.from_dlpack(a)  # numpy marks the export read-only: ferrograd takes a copy
    t[0] = 5.0
    assert a[0] == 0.0


def test_bfloat16_export_import():
    t = fg.tensor([1.5, -2.0], dtype=fg.bfloat16)
    u = fg.from_dlpack(t)
    assert u.dtype == fg.bfloat16
    u[0] = 3.0
    assert t[0].item() == 3.0


# ---- as_tensor ----


def test_as_tensor_shares_numpy_memory():
    for name in ["uint8", "int8", "int32", "int64", "float16", "float32", "float64", "bool"]:
        a = _values(name, 4)
        t = fg.as_tensor(a)
        assert str(t.dtype).endswith("." + name)
        t[0] = 0
        a[1] = 0
        assert a[0] == 0 and t[1].item() == 0


def test_as_tensor_copies_when_the_dtype_changes():
    a = np.arange(3, dtype=np.int64)
    t = fg.as_tensor(a, dtype=fg.float32)
    assert t.dtype == fg.float32
    t[0] = 5.0
    assert a[0] == 0


def test_as_tensor_of_a_tensor_is_the_tensor():
    t = fg.ones(2)
    assert fg.as_tensor(t) is t
    assert fg.as_tensor(t, dtype=fg.float32) is t
    assert fg.as_tensor(t, dtype=fg.float64).dtype == fg.float64


def test_as_tensor_of_data():
    t = fg.as_tensor([1, 2, 3], dtype=fg.int8)
    assert t.dtype == fg.int8 and t.tolist() == [1, 2, 3]
    assert fg.as_tensor([1.5]).dtype == fg.float32


def test_as_tensor_negative_strides_raise():
    with pytest.raises(ValueError, match="negative"):
        fg.as_tensor(np.arange(5)[::-1])


@pytest.mark.skipif(AGAINST_TORCH, reason="torch accepts uint16 arrays")
def test_as_tensor_unsupported_numpy_dtype_copies():
    a = np.arange(3, dtype=np.uint16)
    t = fg.as_tensor(a)
    assert t.tolist() == [0, 1, 2]
