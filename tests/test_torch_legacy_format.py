"""ferrograd.load reading PyTorch's legacy checkpoint format (`torch.save(..., _use_new_zipfile_serialization=False)`,
and every PyTorch before 1.6): files real torch wrote (tests/golden/torch_files/legacy/, with what torch loads from
them in tests/golden/legacy_format.json, both from tests/golden/record_legacy_format.py), sharing, map_location,
weights_only, and hostile files made by mutating those files or assembling streams here.

Runs both ways: with FG_TEST_AGAINST_TORCH=1 torch itself must pass it (except where noted).
"""

import collections
import io
import json
import pathlib
import pickle
import pickletools
import struct
import tarfile

import ferrograd as fg
import ferrograd.nn as nn
import pytest
from checkpoints import describe
from helpers import AGAINST_TORCH

GOLDEN = pathlib.Path(__file__).parent / "golden"
FILES = GOLDEN / "torch_files" / "legacy"
EXPECTED = json.loads((GOLDEN / "legacy_format.json").read_text())
LOAD_ERRORS = (RuntimeError, ValueError, pickle.UnpicklingError)
FERROGRAD_ONLY = pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd's own behaviour (torch differs here)")
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C


def raw(name):
    return (FILES / f"{name}.pt").read_bytes()


def load_bytes(data, **kwargs):
    return fg.load(io.BytesIO(data), **kwargs)


def pickle_ends(data):
    """Where each of the stream's five pickles (magic, version, sys_info, object, keys) ends, read statically."""
    f = io.BytesIO(data)
    ends = []
    for _ in range(5):
        for _op in pickletools.genops(f):
            pass
        ends.append(f.tell())
    return ends


# ---- files torch wrote ----


@pytest.mark.parametrize("name", sorted(n for n in EXPECTED if n != "module"))
@pytest.mark.parametrize("how", ["path", "str", "buffer", "full"])
def test_torch_written_legacy_files_load_as_torch_loads_them(name, how):
    path = FILES / f"{name}.pt"
    if how == "full":  # weights_only=False: the plain unpickler, the same result
        back = fg.load(path, weights_only=False)
    else:
        back = fg.load({"path": path, "str": str(path), "buffer": io.BytesIO(path.read_bytes())}[how])
    assert describe(back) == EXPECTED[name]


def test_the_fixtures_are_in_the_legacy_format():
    for path in FILES.glob("*.pt"):
        data = path.read_bytes()
        assert not data.startswith(b"PK"), path.name
        assert pickle.loads(data[: pickle_ends(data)[0]]) == MAGIC_NUMBER, path.name


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 2)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc(fg.relu(self.conv(x)).flatten(1))


def test_a_legacy_state_dict_loads_into_a_model_that_computes_the_same():
    sd = fg.load(FILES / "state_dict.pt")
    assert type(sd) is collections.OrderedDict
    assert list(sd) == ["conv.weight", "conv.bias", "fc.weight", "fc.bias"]
    assert sd._metadata[""]["version"] == 1 and "conv" in sd._metadata
    net = Net()
    net.load_state_dict(sd)
    io_values = fg.load(FILES / "io.pt")
    with fg.no_grad():
        assert fg.allclose(net(io_values["x"]), io_values["y"], atol=1e-6)


def test_views_of_one_storage_keep_sharing_it():
    back = fg.load(FILES / "views.pt")
    assert back["tail"].storage_offset() == 5 and back["column"].stride() == (4,)
    back["base"][5] = -1.0
    assert back["tail"][0].item() == -1.0 and back["column"][1].item() == -1.0
    assert back["transposed"][1, 1].item() == -1.0
    back["other"][3] = 99
    assert back["other_odd"][1].item() == 99
    assert back["base"].tolist()[:5] == [0.0, 1.0, 2.0, 3.0, 4.0]  # separate storages stay separate


@FERROGRAD_ONLY
def test_views_of_one_storage_are_one_ferrograd_storage():
    from ferrograd import _core

    back = fg.load(FILES / "views.pt")
    keys = {name: _core._storage_key(t)[0] for name, t in back.items()}
    assert keys["base"] == keys["tail"] == keys["column"] == keys["transposed"]
    assert keys["other"] == keys["other_odd"] != keys["base"]


def test_parameters_keep_their_type_and_requires_grad():
    back = fg.load(FILES / "params.pt")
    assert type(back["w"]) is nn.Parameter and back["w"].requires_grad and back["w"].tolist() == [1.5, -2.0]
    assert type(back["frozen"]) is nn.Parameter and not back["frozen"].requires_grad


@pytest.mark.parametrize(
    "location",
    [None, "cpu", "device", {"cpu": "cpu"}, "callable"],
    ids=["none", "str", "device", "dict", "callable"],
)
def test_map_location(location):
    if location == "device":
        location = fg.device("cpu")
    elif location == "callable":
        location = lambda storage, loc: storage
    assert describe(fg.load(FILES / "dtypes.pt", map_location=location)) == EXPECTED["dtypes"]


@FERROGRAD_ONLY
def test_a_map_location_callable_is_asked_per_storage_with_its_location():
    seen = []

    def where(storage, location):
        seen.append((tuple(storage.shape), location))
        return storage

    back = fg.load(FILES / "views.pt", map_location=where)
    assert sorted(seen) == [((6,), "cpu"), ((12,), "cpu")]
    assert back["tail"].tolist() == [float(i) for i in range(5, 12)]


def test_whole_modules_need_weights_only_false():
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL torch.nn.modules.linear.Linear was not an allowed"):
        fg.load(FILES / "module.pt")
    model = fg.load(FILES / "module.pt", weights_only=False)
    assert type(model) is nn.Linear and model.weight.requires_grad
    expected = EXPECTED["module"]["dict"]
    x = fg.arange(6.0).reshape(2, 3) - 2
    assert describe(x) == expected[0][1]
    y = expected[1][1]
    with fg.no_grad():
        assert fg.allclose(model(x), fg.tensor(y["values"]).reshape(y["shape"]), atol=1e-6)
    # torch's weights_only unpickler takes no persistent id but a storage's, so allowing the class is not enough
    with fg.serialization.safe_globals([nn.Linear]):
        with pytest.raises(pickle.UnpicklingError, match="Only persistent_load of storage is allowed"):
            fg.load(FILES / "module.pt")


def test_mmap_is_refused_with_torchs_message(tmp_path):
    path = FILES / "int.pt"
    with pytest.raises(RuntimeError, match=r"torch.save\(_use_new_zipfile_serialization=True\), please"):
        fg.load(path, mmap=True)  # a pathlib.Path: torch names only str paths
    with pytest.raises(RuntimeError, match="mmap can only be used with files saved with"):
        fg.load(str(path), mmap=True)
    with pytest.raises(RuntimeError, match=r"torch.save\(_use_new_zipfile_serialization=True\)"):
        fg.load(io.BytesIO(path.read_bytes()), mmap=True)


def test_the_mmap_message_names_a_str_path():
    path = str(FILES / "int.pt")
    with pytest.raises(RuntimeError) as info:
        fg.load(path, mmap=True)
    assert f"`torch.save({path}, _use_new_zipfile_serialization=True), please" in str(info.value)


def test_a_file_object_is_read_from_its_position():
    buf = io.BytesIO(b"junk" + raw("int"))
    buf.seek(4)
    assert fg.load(buf) == 42


# ---- hostile files ----


def test_bad_magic_and_wrong_protocol_version_are_refused_with_torchs_messages():
    data = raw("views")
    ends = pickle_ends(data)
    with pytest.raises(RuntimeError, match=r"^Invalid magic number; corrupt file\?$"):
        load_bytes(pickle.dumps(123, 2) + data[ends[0] :])
    with pytest.raises(RuntimeError, match="^Invalid protocol version: 1000$"):
        load_bytes(data[: ends[0]] + pickle.dumps(1000, 2) + data[ends[1] :])


def test_a_storage_count_other_than_the_pickles_is_refused_with_torchs_message():
    data = raw("views")
    at = pickle_ends(data)[4]  # the first storage's element count
    for count in (2**40, 3, -1):
        mutated = data[:at] + struct.pack("<q", count) + data[at + 8 :]
        with pytest.raises(RuntimeError, match="storage has wrong byte size: expected"):
            load_bytes(mutated)


def test_a_missing_storage_record_is_refused_with_torchs_message():
    data = raw("views")
    first = pickle_ends(data)[4] + 8 + 48  # views.pt's two storages are 48 bytes each
    with pytest.raises(RuntimeError, match="^unexpected EOF, expected 8 more bytes. The file might be corrupted.$"):
        load_bytes(data[:first])
    with pytest.raises(RuntimeError, match="^unexpected EOF, expected 1 more bytes. The file might be corrupted.$"):
        load_bytes(data[:-1])


def test_truncated_files_raise_clear_errors():
    data = raw("views")
    ends = pickle_ends(data)
    # torch's own unpickler runs out of data with EOFError, or IndexError or struct.error inside a pickle
    expected = LOAD_ERRORS + (EOFError, IndexError, struct.error) if AGAINST_TORCH else LOAD_ERRORS
    for cut in sorted(set(range(0, len(data) - 1, 5)) | {e - 1 for e in ends} | set(ends[:4]) | {len(data) - 1}):
        with pytest.raises(expected):
            load_bytes(data[:cut])


def _unicode(s):
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def _int(i):
    if 0 <= i < 2**31:
        return b"J" + struct.pack("<i", i)
    encoded = i.to_bytes((i.bit_length() + 8) // 8, "little", signed=True)
    return b"\x8a" + bytes([len(encoded)]) + encoded


def legacy_tensor_pickle(numel, key="0", storage="FloatStorage", size=None, view=b"N", location="cpu"):
    """An object pickle holding one tensor of a storage, with torch's opcodes assembled by hand so fields can lie."""
    size = (numel,) if size is None else size
    pid = b"(" + _unicode("storage") + f"ctorch\n{storage}\n".encode() + _unicode(key) + _unicode(location)
    pid += _int(numel) + view + b"tQ"
    shape = b"(" + b"".join(_int(s) for s in size) + b"t"
    args = pid + _int(0) + shape + b"(" + _int(1) + b"t\x89ccollections\nOrderedDict\n)R"
    return b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n(" + args + b"tR."


SYS_INFO = {"protocol_version": 1001, "little_endian": True, "type_sizes": {"short": 2, "int": 4, "long": 4}}


def legacy_stream(obj_pickle, keys, records, magic=MAGIC_NUMBER):
    head = pickle.dumps(magic, 2) + pickle.dumps(1001, 2) + pickle.dumps(SYS_INFO, 2)
    body = b"".join(struct.pack("<q", numel) + data for numel, data in records)
    return head + obj_pickle + pickle.dumps(keys, 2) + body


def test_a_hand_built_stream_loads():
    data = legacy_stream(legacy_tensor_pickle(2), ["0"], [(2, struct.pack("<2f", 1.5, -2.0))])
    assert load_bytes(data).tolist() == [1.5, -2.0]


def test_a_cuda_storage_needs_a_map_location():
    data = legacy_stream(legacy_tensor_pickle(2, location="cuda:0"), ["0"], [(2, struct.pack("<2f", 1.0, 2.0))])
    with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
        load_bytes(data)
    for location in ("cpu", {"cuda:0": "cpu"}, fg.device("cpu")):
        assert load_bytes(data, map_location=location).tolist() == [1.0, 2.0]


def test_storage_views_of_older_files_load_as_slices_of_their_storage():
    # (view_key, offset, numel): older PyTorch saved a storage that was a slice of another this way
    view = _unicode("v") + _int(2) + _int(3) + b"\x87"
    data = legacy_stream(legacy_tensor_pickle(5, size=(3,), view=view), ["0"], [(5, struct.pack("<5f", 0, 1, 2, 3, 4))])
    t = load_bytes(data)
    assert t.tolist() == [2.0, 3.0, 4.0]


@FERROGRAD_ONLY  # torch tries to allocate the claimed size
@pytest.mark.parametrize("numel", [2**60, 2**62 - 1, 1000])  # 1000: more than the 8 bytes that follow
def test_a_huge_storage_is_refused_before_allocating(numel):
    data = legacy_stream(legacy_tensor_pickle(numel), ["0"], [(numel, b"\0" * 8)])
    with pytest.raises(RuntimeError, match="invalid checkpoint: the storage 0 needs"):
        load_bytes(data)


@FERROGRAD_ONLY  # torch loads the storage uninitialized, or raises AssertionError
def test_keys_the_pickle_and_the_key_list_disagree_on_are_refused():
    records = [(2, b"\0" * 8)]
    with pytest.raises(RuntimeError, match="the pickle names the storage 0, which the file's list of storages lacks"):
        load_bytes(legacy_stream(legacy_tensor_pickle(2), [], records))
    with pytest.raises(RuntimeError, match="list of storage keys holds 1, which the pickle does not name"):
        load_bytes(legacy_stream(legacy_tensor_pickle(2), ["0", "1"], records * 2))
    with pytest.raises(RuntimeError, match="holds 0 twice"):
        load_bytes(legacy_stream(legacy_tensor_pickle(2), ["0", "0"], records * 2))
    with pytest.raises(RuntimeError, match="is a dict, not a list"):
        load_bytes(legacy_stream(legacy_tensor_pickle(2), {"0": 1}, records))


@FERROGRAD_ONLY  # torch reinterprets the storage, or gives the second tensor an empty one
def test_a_storage_named_with_two_dtypes_or_lengths_is_refused():
    one = legacy_tensor_pickle(2)[2:-1]  # a tensor, without PROTO and STOP
    records = [(2, struct.pack("<2f", 1.0, 2.0))]
    for other in (legacy_tensor_pickle(2, storage="IntStorage")[2:-1], legacy_tensor_pickle(1)[2:-1]):
        with pytest.raises(RuntimeError, match="invalid checkpoint: the storage 0 is named as 2"):
            load_bytes(legacy_stream(b"\x80\x02](" + one + other + b"e.", ["0"], records))
    a, b = load_bytes(legacy_stream(b"\x80\x02](" + one + one + b"e.", ["0"], records))  # twice the same: shared
    a[0] = 5.0
    assert b.tolist() == [5.0, 2.0]


@FERROGRAD_ONLY
def test_other_lies_are_refused():
    with pytest.raises(RuntimeError, match="invalid checkpoint: .*holds the byte 7"):  # bool bytes not 0 or 1
        load_bytes(legacy_stream(legacy_tensor_pickle(2, storage="BoolStorage"), ["0"], [(2, b"\x01\x07")]))
    with pytest.raises(RuntimeError, match="invalid checkpoint"):  # a tensor larger than its storage
        load_bytes(legacy_stream(legacy_tensor_pickle(2, size=(3,)), ["0"], [(2, b"\0" * 8)]))
    for offset, numel, size in ((1, 2, 2), (0, 1, 2), (-1, 1, 1)):  # a view past its root, a tensor past its view
        view = _unicode("v") + _int(offset) + _int(numel) + b"\x87"
        with pytest.raises(RuntimeError, match="invalid checkpoint: .*(storage view|elements)"):
            load_bytes(legacy_stream(legacy_tensor_pickle(2, size=(size,), view=view), ["0"], [(2, b"\0" * 8)]))
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):  # an int as persistent id
        load_bytes(legacy_stream(b"\x80\x02K\x05Q.", [], []))


def test_the_header_pickles_go_through_the_weights_only_unpickler(tmp_path):
    marker = tmp_path / "code-ran"
    opener = b"\x80\x02cio\nopen\n" + _unicode(str(marker)) + _unicode("w") + b"\x86R."
    data = raw("int")
    ends = pickle_ends(data)
    for i in range(3):  # in place of the magic number, the version, the machine's description
        mutated = data[: ends[i - 1] if i else 0] + opener + data[ends[i] :]
        with pytest.raises(pickle.UnpicklingError, match="GLOBAL io.open was not an allowed global"):
            load_bytes(mutated)
    # and in place of the list of keys
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL io.open was not an allowed global"):
        load_bytes(data[: ends[3]] + opener + data[ends[4] :])
    with pytest.raises(pickle.UnpicklingError, match="whose module os is blocked"):
        load_bytes(data[: ends[2]] + b"\x80\x02cos\nsystem\nX\x04\x00\x00\x00trueq\x00\x85R." + data[ends[3] :])
    assert not marker.exists()


def test_a_long_string_in_a_header_is_refused_without_reading_it(tmp_path):
    data = raw("int")
    ends = pickle_ends(data)
    path = tmp_path / "long.pt"
    path.write_bytes(data[: ends[1]] + b"\x80\x02X\xff\xff\xff\x7fabc." + data[ends[2] :])
    expected = LOAD_ERRORS + (EOFError,) if AGAINST_TORCH else LOAD_ERRORS
    for weights_only in (True, False):
        with pytest.raises(expected):
            fg.load(path, weights_only=weights_only)


def test_the_tar_format_gets_a_clear_error(tmp_path):
    path = tmp_path / "old.tar"
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as tar:
        for name in ("storages", "tensors", "pickle"):
            payload = pickle.dumps(0, 2)
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
    with pytest.raises(RuntimeError, match=r"Cannot use ``weights_only=True`` with files saved in the legacy \.tar"):
        fg.load(path)


@FERROGRAD_ONLY
def test_the_tar_format_is_refused_also_without_weights_only(tmp_path):
    path = tmp_path / "old.tar"
    with tarfile.open(path, "w") as tar:
        info = tarfile.TarInfo("storages")
        tar.addfile(info, io.BytesIO(b""))
    with pytest.raises(RuntimeError, match="PyTorch's oldest format"):
        fg.load(path, weights_only=False)
