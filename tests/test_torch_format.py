"""ferrograd.save / ferrograd.load in PyTorch's checkpoint format: the zip layout, round trips of every dtype,
sharing, modules and optimizer states, weights_only and its allowlist API, hostile files, and compatibility
with real torch both ways (files torch wrote, in tests/golden/torch_files/; and torch loading ferrograd's
files, when FG_TORCH_PYTHON names a Python with torch).

Runs both ways: with FG_TEST_AGAINST_TORCH=1 torch itself must pass it (except where noted).
"""

import collections
import io
import json
import os
import pathlib
import pickle
import struct
import subprocess
import zipfile

import ferrograd as fg
import ferrograd.nn as nn
import numpy as np
import pytest
from checkpoints import assert_same, round_trip, values_of
from helpers import AGAINST_TORCH, DTYPE_NAMES

GOLDEN = pathlib.Path(__file__).parent / "golden" / "torch_files"
LOAD_ERRORS = (RuntimeError, ValueError, pickle.UnpicklingError)
FERROGRAD_ONLY = pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd's own behaviour (torch differs here)")


def saved_bytes(obj):
    buf = io.BytesIO()
    fg.save(obj, buf)
    return buf.getvalue()


def load_bytes(data, **kwargs):
    return fg.load(io.BytesIO(data), **kwargs)


# ---- the file ----


def test_the_file_is_torchs_zip_with_aligned_stored_records(tmp_path):
    t = fg.arange(10.0)
    fg.save({"a": t, "b": t[3:], "c": fg.ones(2, dtype=fg.int16)}, tmp_path / "model.pt")
    with zipfile.ZipFile(tmp_path / "model.pt") as zf:
        names = [info.filename for info in zf.infolist()]
        assert names[0] == "model/data.pkl"
        assert {"model/version", "model/byteorder", "model/.format_version", "model/.storage_alignment"} <= set(names)
        assert [n for n in names if "/data/" in n] == ["model/data/0", "model/data/1"]  # one record per storage
        assert zf.read("model/byteorder") == b"little"
        assert zf.read("model/.storage_alignment") == b"64"
        raw = (tmp_path / "model.pt").read_bytes()
        for info in zf.infolist():
            assert info.compress_type == zipfile.ZIP_STORED
            name_len, extra_len = struct.unpack("<HH", raw[info.header_offset + 26 : info.header_offset + 30])
            start = info.header_offset + 30 + name_len + extra_len
            assert start % 64 == 0, info.filename
        assert zf.read("model/data/0") == np.arange(10, dtype=np.float32).tobytes()
    with zipfile.ZipFile(io.BytesIO(saved_bytes([t]))) as zf:
        assert zf.infolist()[0].filename == "archive/data.pkl"


@FERROGRAD_ONLY
def test_zip64_fields_are_written_where_sizes_and_offsets_need_them(tmp_path, monkeypatch):
    # files over 4 GB are too big for a test: lower the threshold past which zip64 fields are used
    from ferrograd import _torch_format

    monkeypatch.setattr(_torch_format, "ZIP64_THRESHOLD", 300)
    obj = {"big": fg.arange(100.0), "small": fg.ones(3, dtype=fg.int8), "more": fg.arange(90.0)}
    fg.save(obj, tmp_path / "z.pt")
    with zipfile.ZipFile(tmp_path / "z.pt") as zf:
        assert zf.testzip() is None
        assert zf.read("z/data/0") == np.arange(100, dtype=np.float32).tobytes()
    assert_same(obj, fg.load(tmp_path / "z.pt"))
    assert_same(obj, fg.load(tmp_path / "z.pt", mmap=True))


@pytest.mark.parametrize("how", ["path", "buffer", "mmap"])
@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_every_dtype_round_trips_bit_for_bit(name, how, tmp_path):
    rng = np.random.default_rng(3)
    t = values_of(name, 24, rng).reshape(2, 3, 4)
    obj = {"t": t, "strided": t[:, ::2, 1:], "scalar": t[1, 2, 3], "empty": t[:0]}
    if how == "mmap":
        fg.save(obj, tmp_path / "x.pt")
        back = fg.load(tmp_path / "x.pt", mmap=True)
    else:
        back = round_trip(obj, tmp_path, how)
    assert_same(obj, back)


def test_views_keep_sharing_one_storage(tmp_path):
    base = fg.arange(12.0)
    obj = {"base": base, "tail": base[5:], "grid_t": base.view(3, 4).t(), "again": base}
    back = round_trip(obj, tmp_path)
    assert back["again"] is back["base"]
    assert back["tail"].storage_offset() == 5 and back["grid_t"].stride() == (1, 4)
    back["base"][6] = 100.0
    assert back["tail"][1].item() == 100.0 and back["grid_t"][2, 1].item() == 100.0


def test_non_contiguous_parameters_and_requires_grad(tmp_path):
    w = nn.Parameter(fg.arange(6.0).reshape(2, 3))
    frozen = nn.Parameter(fg.ones(2), requires_grad=False)
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    obj = {"w": w, "frozen": frozen, "wt": w.detach().t(), "x": x, "y": x * 2}
    back = round_trip(obj, tmp_path)
    assert type(back["w"]) is nn.Parameter and back["w"].requires_grad
    assert type(back["frozen"]) is nn.Parameter and not back["frozen"].requires_grad
    assert back["wt"].stride() == (1, 3) and back["wt"].tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert back["y"].requires_grad and back["y"].is_leaf and back["y"].tolist() == [2.0, 4.0]


def test_nested_containers_and_python_values(tmp_path):
    obj = {
        "list": [1, -(2**70), 2.5, float("inf"), "naïve ☃", None, True, b"raw", bytearray(b"ba")],
        "tuple": (fg.tensor([1]), {"deep": [fg.tensor([2.0])]}),
        "set": {1, 2},
        "complex": 1 + 2j,
        "size": fg.Size([2, 3]),
        "dtypes": [fg.float32, fg.bfloat16, fg.bool],
        "device": fg.device("cpu"),
        7: "int key",
        "counter": collections.Counter("aab"),
    }
    back = round_trip(obj, tmp_path)
    assert back["list"] == obj["list"] and back["set"] == {1, 2} and back["complex"] == 1 + 2j
    assert type(back["size"]) is fg.Size and back["size"] == fg.Size([2, 3])
    assert back["dtypes"] == obj["dtypes"] and back["device"] == fg.device("cpu") and back[7] == "int key"
    assert back["tuple"][1]["deep"][0].tolist() == [2.0] and back["counter"] == collections.Counter("aab")


def test_state_dict_keeps_order_type_and_metadata(tmp_path):
    model = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1))
    sd = model.state_dict()
    back = round_trip(sd, tmp_path)
    assert type(back) is collections.OrderedDict and list(back) == list(sd)
    assert back._metadata == sd._metadata
    fresh = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1))
    fresh.load_state_dict(back)
    x = fg.randn(4, 3)
    assert fresh(x).tolist() == model(x).tolist()


def test_optimizer_state_dict_round_trips(tmp_path):
    model = nn.Linear(3, 2)
    opt = fg.optim.Adam(model.parameters(), lr=0.1)
    model(fg.randn(4, 3)).sum().backward()
    opt.step()
    sd = opt.state_dict()
    back = round_trip(sd, tmp_path)
    assert back["param_groups"] == sd["param_groups"]
    for i, state in sd["state"].items():
        for key, value in state.items():
            assert fg.equal(back["state"][i][key], value), key
    opt2 = fg.optim.Adam(model.parameters(), lr=0.1)
    opt2.load_state_dict(back)


def test_whole_modules_need_weights_only_false(tmp_path):
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.LayerNorm(4), nn.MultiheadAttention(4, 2))
    fg.save(model, tmp_path / "m.pt")
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL torch.nn.modules.container.Sequential was not an allowed"):
        fg.load(tmp_path / "m.pt")
    back = fg.load(tmp_path / "m.pt", weights_only=False)
    assert type(back) is nn.Sequential and type(back[3]) is nn.MultiheadAttention
    x = fg.randn(2, 3)
    assert back[:3](x).tolist() == model[:3](x).tolist()
    q = fg.randn(3, 1, 4)
    assert back[3](q, q, q)[0].tolist() == model[3](q, q, q)[0].tolist()


def test_weights_only_false_loads_numpy_arrays_and_user_objects(tmp_path):
    arr = np.arange(5, dtype=np.int16)
    back = round_trip(
        {"arr": arr, "point": collections.namedtuple("P", "x y")(1, 2)._asdict()}, tmp_path, weights_only=False
    )
    assert back["arr"].dtype == np.int16 and back["arr"].tolist() == [0, 1, 2, 3, 4]
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global: GLOBAL numpy"):
        round_trip({"arr": arr}, tmp_path)


# ---- weights_only and the allowlist ----


class Safe:
    def __init__(self, value):
        self.value = value


Safe.__module__ = __name__  # pickled as test_torch_format.Safe


class Hostile:
    """Its unpickling would create `marker`: proof that code ran."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_weights_only_refuses_other_globals_with_torchs_message_and_runs_nothing(tmp_path):
    marker = tmp_path / "code-ran"
    fg.save({"x": Hostile(str(marker))}, tmp_path / "h.pt")
    with pytest.raises(pickle.UnpicklingError) as info:
        fg.load(tmp_path / "h.pt")
    message = str(info.value)
    assert message.startswith("Weights only load failed.")
    assert "Unsupported global: GLOBAL io.open was not an allowed global by default" in message
    assert "torch.serialization.add_safe_globals([io.open])" in message
    assert not marker.exists()
    with pytest.raises(pickle.UnpicklingError, match="whose module os is blocked"):
        load_bytes(zip_of(b"\x80\x02cos\nsystem\nX\x04\x00\x00\x00trueq\x00\x85R."))


def test_safe_globals_api(tmp_path):
    fg.serialization.clear_safe_globals()
    fg.save({"s": Safe(3)}, tmp_path / "s.pt")
    assert fg.serialization.get_unsafe_globals_in_checkpoint(tmp_path / "s.pt") == [f"{__name__}.Safe"]
    with pytest.raises(pickle.UnpicklingError, match=f"GLOBAL {__name__}.Safe was not an allowed global"):
        fg.load(tmp_path / "s.pt")
    with fg.serialization.safe_globals([Safe]):
        assert fg.serialization.get_safe_globals() == [Safe]
        assert fg.serialization.get_unsafe_globals_in_checkpoint(tmp_path / "s.pt") == []
        assert fg.load(tmp_path / "s.pt")["s"].value == 3
    assert fg.serialization.get_safe_globals() == []
    fg.serialization.add_safe_globals([(Safe, f"{__name__}.Safe")])
    try:
        assert fg.load(tmp_path / "s.pt")["s"].value == 3
    finally:
        fg.serialization.clear_safe_globals()
    assert fg.serialization.get_safe_globals() == []


def test_allowlisted_module_classes_load_under_weights_only(tmp_path):
    model = nn.Linear(2, 3)
    fg.save(model, tmp_path / "m.pt")
    unsafe = fg.serialization.get_unsafe_globals_in_checkpoint(tmp_path / "m.pt")
    assert unsafe == ["torch.nn.modules.linear.Linear"]
    with fg.serialization.safe_globals([nn.Linear]):
        back = fg.load(tmp_path / "m.pt")
    assert type(back) is nn.Linear and fg.equal(back.weight, model.weight)


# ---- files torch wrote ----


def test_torch_written_tensors_load():
    back = fg.load(GOLDEN / "tensors.pt")
    base = fg.arange(6) % 3 - 1
    for name in DTYPE_NAMES:
        t = back["dtypes"][name]
        assert t.dtype == getattr(fg, name)
        expected = base != 0 if name == "bool" else base.to(getattr(fg, name))
        assert fg.equal(t, expected), name
    grid = fg.arange(12.0).reshape(3, 4)
    assert fg.equal(back["grid"], grid) and fg.equal(back["transposed"], grid.t())
    assert back["column"].storage_offset() == 1 and back["column"].stride() == (4,)
    assert back["tail"].storage_offset() == 5 and back["tail"].tolist() == list(range(5, 12))
    back["grid"][0, 1] = -1.0  # views of one storage stay views of it
    assert back["column"][0].item() == -1.0
    assert type(back["param"]) is nn.Parameter and back["param"].requires_grad
    assert not back["frozen"].requires_grad
    assert back["nested"][:5] == [1, 2.5, "x", None, True] and back["nested"][5][1]["deep"].tolist() == [7]
    assert type(back["nested"][6]) is fg.Size and back["dtype"] == fg.float16
    assert tuple(back["empty"].shape) == (0, 3)


def test_torch_written_modules_and_states_load_and_compute_the_same():
    io_values = fg.load(GOLDEN / "io.pt")
    model = fg.load(GOLDEN / "module.pt", weights_only=False)
    assert type(model) is nn.Sequential and type(model[0]) is nn.Linear and type(model[2]) is nn.LayerNorm
    assert fg.allclose(model(io_values["x"]), io_values["y"], atol=1e-6)
    fresh = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.LayerNorm(4))
    fresh.load_state_dict(fg.load(GOLDEN / "state_dict.pt"))
    assert fg.allclose(fresh(io_values["x"]), io_values["y"], atol=1e-6)
    mha = fg.load(GOLDEN / "mha.pt", weights_only=False)
    assert type(mha) is nn.MultiheadAttention
    q = io_values["q"]
    assert fg.allclose(mha(q, q, q)[0], io_values["attn"], atol=1e-6)
    adam = fg.load(GOLDEN / "adam.pt")
    assert adam["param_groups"][0]["lr"] == 0.01 and sorted(adam["state"][0]) == ["exp_avg", "exp_avg_sq", "step"]
    opt = fg.optim.Adam(fresh.parameters(), lr=0.01)
    opt.load_state_dict(adam)


def test_torchs_legacy_format_loads():
    # (the legacy format's own tests are in test_torch_legacy_format.py)
    back = fg.load(GOLDEN / "legacy.pt")
    assert type(back) is collections.OrderedDict and back["a"].tolist() == [1.0, 2.0]


@FERROGRAD_ONLY
def test_older_safetensors_checkpoints_still_load(tmp_path):
    from ferrograd.serialization import save_safetensors

    obj = {"w": fg.arange(4.0), "n": 3}
    save_safetensors(obj, tmp_path / "old.ckpt")
    assert (tmp_path / "old.ckpt").read_bytes()[8:9] == b"{"
    back = fg.load(tmp_path / "old.ckpt")
    assert back["n"] == 3 and back["w"].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert fg.load(tmp_path / "old.ckpt", mmap=True)["w"].tolist() == [0.0, 1.0, 2.0, 3.0]


def test_map_location():
    for location in (None, "cpu", fg.device("cpu"), {"cpu": "cpu"}, lambda storage, loc: storage):
        assert fg.load(GOLDEN / "state_dict.pt", map_location=location)["0.bias"].shape == (4,)


@FERROGRAD_ONLY
def test_map_location_to_a_device_ferrograd_lacks():
    data = zip_of(tensor_pickle(2, location="cuda:0"), {"0": b"\0" * 8})
    with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
        load_bytes(data)
    assert load_bytes(data, map_location="cpu").tolist() == [0.0, 0.0]
    assert load_bytes(data, map_location={"cuda:0": "cpu"}).tolist() == [0.0, 0.0]


def test_mmap_needs_a_path():
    with pytest.raises(ValueError, match="f must be a file path in order to use the mmap argument"):
        fg.load(io.BytesIO((GOLDEN / "state_dict.pt").read_bytes()), mmap=True)


# ---- hostile files, built here ----


def _unicode(s):
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def _int(i):
    if 0 <= i < 2**31:
        return b"J" + struct.pack("<i", i)
    raw = i.to_bytes((i.bit_length() + 8) // 8, "little", signed=True)
    return b"\x8a" + bytes([len(raw)]) + raw


def _tuple(items):
    return b"(" + b"".join(_int(i) for i in items) + b"t"


def tensor_pickle(numel, offset=0, size=None, stride=(1,), storage="FloatStorage", location="cpu"):
    """A data.pkl holding one tensor (torch's opcodes, assembled by hand so that any field can lie)."""
    size = (numel,) if size is None else size
    pid = b"(" + _unicode("storage") + f"ctorch\n{storage}\n".encode() + _unicode("0") + _unicode(location)
    pid += _int(numel) + b"tQ"
    args = pid + _int(offset) + _tuple(size) + _tuple(stride) + b"\x89ccollections\nOrderedDict\n)R"
    return b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n(" + args + b"tR."


def zip_of(pkl, records=None, compress=zipfile.ZIP_STORED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compress) as zf:
        zf.writestr("archive/data.pkl", pkl)
        for key, data in (records or {}).items():
            zf.writestr(f"archive/data/{key}", data)
        zf.writestr("archive/version", b"3\n")
    return buf.getvalue()


def test_a_hand_built_file_loads():
    assert load_bytes(zip_of(tensor_pickle(2), {"0": struct.pack("<2f", 1.5, -2)})).tolist() == [1.5, -2.0]


@FERROGRAD_ONLY  # torch reads past the record, or allocates the claimed size
@pytest.mark.parametrize(
    ("numel", "offset", "size", "stride", "record"),
    [
        (2**60, 0, (2**60,), (1,), 8),  # a storage far larger than the file: refused before any allocation
        (4, 0, (4,), (1,), 8),  # a storage past the end of its record
        (2, 3, (1,), (1,), 8),  # an offset past the storage
        (2, 0, (2, 2), (1, 1), 8),  # strides reaching past the storage
        (2, 0, (2**62, 2**62), (1, 1), 8),  # sizes whose product overflows
        (2, 0, (2,), (2**63 - 1,), 8),  # a stride whose extent overflows
        (2, 0, (-1,), (1,), 8),  # a negative size
        (2, -1, (1,), (1,), 8),  # a negative offset
    ],
)
def test_lying_sizes_offsets_and_strides_are_refused(numel, offset, size, stride, record):
    data = zip_of(tensor_pickle(numel, offset, size, stride), {"0": b"\0" * record})
    with pytest.raises(RuntimeError, match="invalid checkpoint"):
        load_bytes(data)


@FERROGRAD_ONLY
def test_a_missing_record_and_bool_bytes_other_than_0_and_1_are_refused():
    with pytest.raises(RuntimeError, match="failed locating file data/0"):
        load_bytes(zip_of(tensor_pickle(2)))
    with pytest.raises(RuntimeError, match="holds the byte 2"):
        load_bytes(zip_of(tensor_pickle(2, storage="BoolStorage"), {"0": b"\x01\x02"}))
    with pytest.raises(RuntimeError, match="does not support torch.ComplexFloatStorage"):
        load_bytes(zip_of(tensor_pickle(2, storage="ComplexFloatStorage"), {"0": b"\0" * 16}))


def test_deflated_records_load_and_zip_bombs_are_refused():
    good = zip_of(tensor_pickle(2), {"0": struct.pack("<2f", 1.0, 2.0)}, compress=zipfile.ZIP_DEFLATED)
    assert load_bytes(good).tolist() == [1.0, 2.0]
    # the central directory claims the pickle inflates to 3 GB
    bomb = bytearray(good)
    at = bomb.index(b"PK\x01\x02")  # the first central directory entry (data.pkl)
    bomb[at + 24 : at + 28] = struct.pack("<I", 3 * 2**30)
    with pytest.raises(LOAD_ERRORS):
        load_bytes(bytes(bomb))


def test_truncated_files_raise_clear_errors():
    data = saved_bytes({"w": fg.arange(6.0), "b": fg.tensor([True])})
    # torch reads an empty or cut pickle stream to EOFError
    expected = LOAD_ERRORS + (EOFError,) if AGAINST_TORCH else LOAD_ERRORS
    for cut in range(0, len(data) - 1, 7):
        with pytest.raises(expected):
            load_bytes(data[:cut])


@pytest.mark.parametrize(
    "pkl",
    [
        b"\x80\x02.",  # STOP with nothing on the stack
        b"\x80\x02h\x05.",  # a memo entry never stored
        b"\x80\x02(t",  # no STOP
        b"\x80\x02X\xff\xff\xff\x7fabc.",  # a string longer than the data
        b"\x80\x02cbuiltins\neval\nX\x01\x00\x00\x001\x85R.",  # a global not on the allowlist
        b"\x80\x02cbuiltins\nbytearray\nJ\x00\x00\x00\x40\x85R.",  # an allocation sized by the file
        # the same through a tensor subclass's rebuild: torch.Tensor(2**30) called by _rebuild_from_type_v2
        b"\x80\x02ctorch._tensor\n_rebuild_from_type_v2\n(ctorch\nTensor\nctorch\nTensor\nJ\x00\x00\x00\x40\x85}tR.",
        b"\x80\x02ctorch\nFloatStorage\n)R.",  # calling something that is not callable
    ],
    ids=["empty stack", "missing memo", "no stop", "long string", "eval", "bytearray(size)", "Tensor(size)", "call"],
)
@FERROGRAD_ONLY  # torch's unpickler leaks IndexError/KeyError here, and makes the bytearray
def test_malformed_pickles_raise_unpickling_errors(pkl):
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        load_bytes(zip_of(pkl))


def test_self_referencing_pickles_load_without_recursing():
    # a list that contains itself, and a dict holding it, built through the memo
    pkl = b"\x80\x02]q\x00h\x00a}q\x01X\x01\x00\x00\x00lh\x00s."
    back = load_bytes(zip_of(pkl))
    assert back["l"][0] is back["l"]


# ---- real torch loads ferrograd's files ----

TORCH_PYTHON = os.environ.get("FG_TORCH_PYTHON")

_TORCH_READER = r"""
import json, sys, torch
out = {}
sd = torch.load(sys.argv[1], weights_only=True)
out["keys"] = list(sd)
out["values"] = {k: v.float().tolist() if isinstance(v, torch.Tensor) else repr(v) for k, v in sd.items()}
out["dtypes"] = {k: str(v.dtype) for k, v in sd.items() if isinstance(v, torch.Tensor)}
out["shares"] = sd["view"].untyped_storage().data_ptr() == sd["base"].untyped_storage().data_ptr()
out["view"] = [sd["view"].storage_offset(), list(sd["view"].stride())]
out["param"] = [type(sd["param"]).__name__, sd["param"].requires_grad]
mmapped = torch.load(sys.argv[1], weights_only=True, mmap=True)
out["mmap_equal"] = all(torch.equal(mmapped[k], sd[k]) for k in sd if isinstance(sd[k], torch.Tensor))
model = torch.load(sys.argv[2], weights_only=False)
x = torch.ones(2, 3)
out["model"] = [type(model).__name__, type(model[3]).__name__, type(model[3].out_proj).__name__, model[:3](x).tolist()]
print(json.dumps(out))
"""


@pytest.mark.skipif(
    not TORCH_PYTHON, reason="set FG_TORCH_PYTHON to a Python with torch to check that torch loads ferrograd's files"
)
def test_real_torch_loads_ferrograds_files(tmp_path):
    base = fg.arange(12.0)
    sd = {name: values_of(name, 5, np.random.default_rng(1)) for name in DTYPE_NAMES}
    sd.update({"base": base, "view": base.view(3, 4).t()[1:], "param": nn.Parameter(fg.ones(2)), "n": 3})
    fg.save(sd, tmp_path / "sd.pt")
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.LayerNorm(4), nn.MultiheadAttention(4, 2))
    fg.save(model, tmp_path / "model.pt")
    run = subprocess.run(
        [TORCH_PYTHON, "-c", _TORCH_READER, str(tmp_path / "sd.pt"), str(tmp_path / "model.pt")],
        capture_output=True,
        text=True,
        timeout=300,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["keys"] == list(sd)
    for name in DTYPE_NAMES:
        assert out["dtypes"][name] == f"torch.{name}"
        assert out["values"][name] == sd[name].float().tolist(), name
    assert out["shares"] and out["view"] == [1, [1, 4]] and out["param"] == ["Parameter", True]
    assert out["mmap_equal"] and out["values"]["n"] == "3"
    name, attention, out_proj, y = out["model"]
    assert (name, attention, out_proj) == ("Sequential", "MultiheadAttention", "NonDynamicallyQuantizableLinear")
    assert np.allclose(y, model[:3](fg.ones(2, 3)).tolist(), atol=1e-6)


def test_weights_only_default_and_torchs_environment_overrides(tmp_path, monkeypatch):
    # a numpy array needs the full unpickler: the default refuses it, as torch 2.15 does
    path = tmp_path / "array.pt"
    fg.save(np.arange(3.0), path)
    for name in ("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        fg.load(path)
    np.testing.assert_array_equal(fg.load(path, weights_only=False), np.arange(3.0))
    np.testing.assert_array_equal(fg.load(path, pickle_module=pickle), np.arange(3.0))  # then False by default

    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    with pytest.warns(UserWarning, match="forcing weights_only=False"):
        np.testing.assert_array_equal(fg.load(path), np.arange(3.0))
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        fg.load(path, weights_only=True)  # an explicit True is kept

    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "yes")
    with pytest.raises(RuntimeError, match="Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD`"):
        fg.load(path)
    monkeypatch.delenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD")
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        fg.load(path, weights_only=False)  # forced, whatever the call says
