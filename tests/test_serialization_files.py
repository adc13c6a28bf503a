"""ferrograd's safetensors checkpoints (`save_safetensors`, what `ferrograd.save` wrote before it wrote
PyTorch's format; `ferrograd.load` still reads them): the format and other tools, hostile files; and the
crash safety of `ferrograd.save`. PyTorch's format: test_torch_format.py.
"""

import collections
import io
import json
import os
import pickle
import struct

import ferrograd as fg
import numpy as np
import pytest
from checkpoints import header_of, tensor_bits, values_of
from helpers import AGAINST_TORCH, DTYPE_NAMES

pytestmark = pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd's safetensors format and save's temporary files")


def save_safetensors(obj, f):
    from ferrograd.serialization import save_safetensors

    save_safetensors(obj, f)


# ---- the format and other tools ----


def test_a_state_dict_reads_in_safetensors_numpy_with_the_same_names_and_values(tmp_path):
    from safetensors.numpy import load_file

    model = fg.nn.Sequential(fg.nn.Linear(4, 5), fg.nn.ReLU(), fg.nn.Linear(5, 3))
    save_safetensors(model.state_dict(), tmp_path / "model.safetensors")
    arrays = load_file(str(tmp_path / "model.safetensors"))
    assert sorted(arrays) == sorted(model.state_dict())
    for k, t in model.state_dict().items():
        assert arrays[k].shape == tuple(t.shape) and arrays[k].tobytes() == tensor_bits(t)
    meta = header_of((tmp_path / "model.safetensors").read_bytes())["__metadata__"]
    assert meta["format"] == "pt" and json.loads(meta["ferrograd"])["version"] == 1


def test_every_dtype_reads_in_safetensors_numpy(tmp_path):
    from safetensors.numpy import load_file

    rng = np.random.default_rng(4)
    sd = collections.OrderedDict()
    for name in DTYPE_NAMES:
        if name != "bfloat16":  # numpy has no bfloat16
            sd[f"layer.{name}"] = values_of(name, 6, rng).reshape(2, 3)
    sd["tied"] = sd["layer.float32"]
    save_safetensors(sd, tmp_path / "sd.safetensors")
    arrays = load_file(str(tmp_path / "sd.safetensors"))
    assert sorted(arrays) == sorted(k for k in sd if k != "tied")  # the same tensor is stored once
    for k, a in arrays.items():
        assert a.shape == tuple(sd[k].shape)
        assert a.tobytes() == tensor_bits(sd[k])


def test_plain_safetensors_files_load_as_a_dict(tmp_path):
    from safetensors.numpy import save_file

    rng = np.random.default_rng(5)
    arrays = {
        "w": rng.standard_normal((3, 4)).astype(np.float32),
        "b": np.array([True, False, True]),
        "h": rng.standard_normal(5).astype(np.float16),
        "i": np.arange(6, dtype=np.int64).reshape(3, 2),
        "e": np.zeros((0, 2), np.uint8),
        "s": np.array(2.5),
    }
    save_file(arrays, str(tmp_path / "np.safetensors"), metadata={"format": "np"})
    back = fg.load(tmp_path / "np.safetensors")
    assert type(back) is dict and sorted(back) == sorted(arrays)
    for k, a in arrays.items():
        assert back[k].numpy().dtype == a.dtype and back[k].numpy().tobytes() == a.tobytes()
        assert tuple(back[k].shape) == a.shape


def test_each_storage_is_stored_once(tmp_path):
    t = fg.arange(1000.0)
    save_safetensors({"a": t, "b": t[10:], "c": t.reshape(10, 100).T, "d": t}, tmp_path / "x")
    data = (tmp_path / "x").read_bytes()
    entries = {k: v for k, v in header_of(data).items() if k != "__metadata__"}
    assert list(entries) == ["a"] and entries["a"]["shape"] == [1000]
    save_safetensors({"v": t.reshape(10, 100).T}, tmp_path / "y")  # no tensor covers the storage densely
    entries = {k: v for k, v in header_of((tmp_path / "y").read_bytes()).items() if k != "__metadata__"}
    assert entries == {"v.__storage__": {"dtype": "F32", "shape": [1000], "data_offsets": [0, 4000]}}


# ---- hostile files ----


def small_file():
    t = fg.tensor([1.5, -2.0, 3.25])
    buf = io.BytesIO()
    save_safetensors({"t": t, "v": t[1:], "n": 3, "b": fg.tensor([True, False])}, buf)
    return buf.getvalue()


def raw_file(header, data=b"", length=None):
    text = header if isinstance(header, (str, bytes)) else json.dumps(header)
    text = text.encode() if isinstance(text, str) else text
    return struct.pack("<Q", len(text) if length is None else length) + text + data


def with_document(data, edit):
    header = header_of(data)
    doc = json.loads(header["__metadata__"]["ferrograd"])
    edit(doc)
    header["__metadata__"]["ferrograd"] = json.dumps(doc)
    (n,) = struct.unpack("<Q", data[:8])
    return raw_file(header, data[8 + n :])


def load_bytes(data, tmp_path, how):
    if how == "buffer":
        return fg.load(io.BytesIO(data))
    path = tmp_path / "hostile"
    path.write_bytes(data)
    return fg.load(path, mmap=how == "mmap")


HOW = ["buffer", "path", "mmap"]


@pytest.mark.parametrize("how", HOW)
def test_every_truncation_is_refused(how, tmp_path):
    data = small_file()
    for end in range(len(data)):
        with pytest.raises(RuntimeError, match="invalid safetensors file"):
            load_bytes(data[:end], tmp_path, how)
    assert load_bytes(data, tmp_path, how)["n"] == 3


def test_flipped_bytes_raise_clear_errors_or_load(tmp_path):
    data = small_file()
    (n,) = struct.unpack("<Q", data[:8])
    refused = 0
    for i in range(8 + n):
        for mask in (0x01, 0x20, 0xFF):
            bad = bytearray(data)
            bad[i] ^= mask
            try:
                fg.load(io.BytesIO(bytes(bad)))
            except (RuntimeError, ValueError) as e:
                refused += 1
                assert "invalid" in str(e), str(e)
    assert refused > 2 * (8 + n)  # most flips break the header; the rest still describe a valid file


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize(
    ("data", "phrase"),
    [
        (b"", "too short"),
        (b"\x01\x02", "too short"),
        (raw_file("{}", length=2**63), "the header length field says 9223372036854775808 bytes"),
        (raw_file("{}", length=2**64 - 1), "only 2 follow it"),
        (raw_file("not json"), "header"),
        (
            raw_file('{"a": {"dtype": "F32", "shape": [4294967296, 4294967296, 1024], "data_offsets": [0, 0]}}'),
            "overflow",
        ),
        (raw_file({"a": {"dtype": "F32", "shape": [2**40], "data_offsets": [0, 2**42]}}, b"\0" * 16), "describes"),
        (raw_file({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 12]}}, b"\0" * 16), "file holds 16 after"),
        (raw_file({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, b"\0" * 8), "header"),
        (
            raw_file(
                {
                    "a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 12]},
                    "b": {"dtype": "F32", "shape": [3], "data_offsets": [0, 12]},
                },
                b"\0" * 12,
            ),
            "invalid offset",
        ),
        (
            raw_file(
                {
                    "a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                    "b": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]},
                },
                b"\0" * 12,
            ),
            "invalid offset",
        ),
        (raw_file({"a": {"dtype": "BOOL", "shape": [3], "data_offsets": [0, 3]}}, b"\x00\x01\x02"), "holds the byte 2"),
        (raw_file({"a": {"dtype": "U16", "shape": [1], "data_offsets": [0, 2]}}, b"\0\0"), "dtype U16"),
        (raw_file({"a": {"dtype": "Q8", "shape": [1], "data_offsets": [0, 1]}}, b"\0"), "header"),
        (raw_file({"a": {"dtype": "U8", "shape": [1] * 65, "data_offsets": [0, 1]}}, b"\0"), "65 dimensions"),
        (raw_file('{"a":' * 100_000 + "1" + "}" * 100_000), "recursion limit"),
    ],
    ids=[
        *("empty", "2 bytes", "length 2^63", "length 2^64-1", "not json", "shape overflows"),
        *("lying shape", "trailing bytes", "short range", "overlap", "gap", "bool byte 2", "uint16", "unknown dtype"),
        *("65 dims", "json bomb"),
    ],
)
def test_hostile_headers_raise_clear_errors(data, phrase, how, tmp_path):
    with pytest.raises(RuntimeError, match="invalid safetensors file") as info:
        load_bytes(data, tmp_path, how)
    assert phrase in str(info.value), str(info.value)


def test_a_header_length_that_starts_like_a_pickle_is_still_safetensors():
    header = json.dumps({"a": {"dtype": "U8", "shape": [2], "data_offsets": [0, 2]}})
    data = raw_file(header.ljust(0x280), b"\x05\x06")  # the length's bytes are 0x80 0x02, a pickle's first two
    assert data[:2] == b"\x80\x02"
    assert fg.load(io.BytesIO(data))["a"].tolist() == [5, 6]


def _set(path, value):
    def edit(doc):
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize(
    ("edit", "phrase"),
    [
        (_set(["tensors", 1, "strides"], [-1]), "not a non-negative integer"),
        (_set(["tensors", 1, "strides"], [2**62]), "reaches past the end"),
        (_set(["tensors", 1, "strides"], [2**64 - 1]), "reaches past the end"),
        (_set(["tensors", 1, "shape"], [2**40]), "reaches past the end"),
        (_set(["tensors", 1], {"storage": "t", "shape": [2**32] * 3, "strides": [1] * 3, "offset": 0}), "reaches past"),
        (_set(["tensors", 1, "offset"], 2), "reaches past the end"),
        (_set(["tensors", 1, "offset"], 2**64 - 1), "reaches past the end"),
        (_set(["tensors", 1, "storage"], "nowhere"), "'nowhere', which the file does not have"),
        (_set(["tensors", 2, "requires_grad"], True), "requires grad but is bool"),
        (_set(["tensors", 0, "shape"], [3, 1]), "2 sizes but 1 strides"),
        (_set(["root"], {"tensor": 7}), "names no tensor"),
        (_set(["root"], {"pickle": "cos\nsystem\n"}), "unknown kind 'pickle'"),
        (_set(["root"], {"list": [1], "tuple": [2]}), "exactly one key"),
        (_set(["root"], {"dict": [{"list": []}, 1]}), "cannot be hashed"),
        (_set(["root"], {"int": "1" * 5000}), "not a decimal integer"),
        (_set(["root"], 1.5), "bare number"),
        (_set(["root"], {"list": [None] * 3 + [{"list": [{"list": [{"list": [{"float": "x"}]}]}]}]}), "not a float"),
        (_set(["version"], 2), "format version 2"),
        (_set(["extra"], 1), "unknown field 'extra'"),
    ],
    ids=[
        *("negative stride", "huge stride", "stride 2^64-1", "huge size", "sizes overflow", "offset past end"),
        *("offset 2^64-1", "missing entry", "bool requires grad", "ndim mismatch", "dangling reference"),
        *("unknown kind", "two kinds", "list as key", "5000 digits", "bare float", "bad float", "version 2"),
        "unknown field",
    ],
)
def test_hostile_documents_raise_clear_errors(edit, phrase, how, tmp_path):
    data = with_document(small_file(), edit)
    with pytest.raises(RuntimeError, match="invalid") as info:
        load_bytes(data, tmp_path, how)
    assert phrase in str(info.value), str(info.value)


def test_a_deeply_nested_document_is_refused(tmp_path):
    data = small_file()
    header = header_of(data)
    depth = 100_000
    header["__metadata__"]["ferrograd"] = (
        '{"version": 1, "tensors": [], "root": ' + '{"list": [' * depth + "null" + "]}" * depth + "}"
    )
    (n,) = struct.unpack("<Q", data[:8])
    with pytest.raises(RuntimeError, match="recursion limit"):
        fg.load(io.BytesIO(raw_file(header, data[8 + n :])))
    header["__metadata__"]["ferrograd"] = "not json"
    with pytest.raises(RuntimeError, match="invalid checkpoint metadata"):
        fg.load(io.BytesIO(raw_file(header, data[8 + n :])))


# ---- atomic replacement ----


def temp_files(d):
    return sorted(f for f in os.listdir(d) if f.endswith(".ferrograd-tmp"))


def test_saves_killed_at_random_moments_never_break_the_file(tmp_path):
    import kill_save

    path = str(tmp_path / "ckpt")
    r = kill_save.run("ferrograd", path, kills=12, mb=8, seed=1)
    assert r["bad"] == []
    assert r["max_temps"] <= 1  # a killed save leaves its temporary file; the next save removes it
    assert r["mid_save"] >= 1, "no kill landed while a save was writing: the test tested nothing"
    fg.save({"version": 0}, path)
    assert temp_files(tmp_path) == [] and os.listdir(tmp_path) == ["ckpt"]


def test_stale_temporary_files_are_removed_and_live_ones_kept(tmp_path):
    import fcntl

    stale = tmp_path / ".ckpt.123-4.ferrograd-tmp"
    live = tmp_path / ".ckpt.123-5.ferrograd-tmp"
    other = tmp_path / ".other.123-4.ferrograd-tmp"
    mine = tmp_path / ".ckpt.tmp"  # not our naming: never touched
    for p in (stale, live, other, mine):
        p.write_bytes(b"partial")
    with open(live, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # as a save in progress holds it
        fg.save({"a": 1}, tmp_path / "ckpt")
        assert sorted(os.listdir(tmp_path)) == sorted(["ckpt", live.name, other.name, mine.name])
    assert fg.load(tmp_path / "ckpt") == {"a": 1}


def test_a_failed_save_keeps_the_old_file(tmp_path):
    path = tmp_path / "ckpt"
    fg.save({"v": 1}, path)
    with pytest.raises(pickle.PicklingError):
        fg.save({"v": lambda: 0}, path)
    assert fg.load(path) == {"v": 1} and os.listdir(tmp_path) == ["ckpt"]


def test_saving_keeps_the_mode_and_writes_through_symlinks(tmp_path):
    real = tmp_path / "real"
    fg.save({"v": 1}, real)
    os.chmod(real, 0o600)
    link = tmp_path / "link"
    link.symlink_to(real)
    fg.save({"v": 2}, link)
    assert link.is_symlink() and fg.load(real) == {"v": 2}
    assert os.stat(real).st_mode & 0o777 == 0o600
