"""ferrograd.save / ferrograd.load: round trips, sharing, arguments.

These run both ways: torch.save/torch.load must pass them too (except where ferrograd refuses what
torch would pickle). The file format, hostile files and crash safety: test_serialization_files.py.
"""

import collections
import io
import math
import pathlib

import ferrograd as fg
import numpy as np
import pytest
from checkpoints import assert_same, round_trip, values_of
from helpers import AGAINST_TORCH, DTYPE_NAMES

# ferrograd's safetensors writer (`save_safetensors`, what `save` wrote before it wrote torch's format)
SAFETENSORS_ONLY = pytest.mark.skipif(AGAINST_TORCH, reason="ferrograd's safetensors writer; torch pickles any object")


def save_safetensors(obj, f):
    from ferrograd.serialization import save_safetensors

    save_safetensors(obj, f)


@pytest.mark.parametrize("how", ["path", "buffer"])
@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2), (13,), (2, 3, 4)])
def test_every_dtype_and_shape_round_trips_bit_for_bit(name, shape, how, tmp_path):
    rng = np.random.default_rng(len(shape))
    t = values_of(name, int(np.prod(shape)), rng).reshape(shape)
    back = round_trip({"t": t}, tmp_path, how)
    assert_same({"t": t}, back)


def test_requires_grad_round_trips_and_non_leaves_load_as_leaves(tmp_path):
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    ints = fg.tensor([1, 2])
    back = round_trip({"x": x, "y": y, "ints": ints}, tmp_path)
    assert back["x"].requires_grad and back["x"].is_leaf and back["x"].grad_fn is None
    assert back["y"].requires_grad and back["y"].is_leaf and back["y"].grad_fn is None
    assert not back["ints"].requires_grad
    assert back["y"].tolist() == [2.0, 4.0]


def test_nested_containers_keys_and_python_values_keep_their_types(tmp_path):
    obj = {
        "floats": [0.1, -0.0, math.inf, -math.inf, math.nan, 5e-324, 1e300, 1 / 3],
        "ints": (0, -1, 2**62, -(2**63), 2**100, -(3**80)),
        "misc": [None, True, False, "", "naïve ☃ 🎉", [], (), {}, collections.OrderedDict()],
        0: "int key",
        -7: {1: {2: "deep int keys"}},
        (1, "a"): "tuple key",
        None: "None key",
        2.5: "float key",
        "size": fg.Size([2, 3]),
        "dtypes": [fg.float32, fg.bfloat16, fg.bool, fg.int8],
        "nested": [[[[(1, [2, {"x": (3,)}])]]]],
    }
    back = round_trip(obj, tmp_path)
    assert_same(obj, back)
    assert type(back["size"]) is fg.Size


def test_an_optimizer_state_dict_keeps_its_structure(tmp_path):
    rng = np.random.default_rng(1)
    state = {
        "state": {
            i: {
                "step": fg.tensor(3.0),
                "exp_avg": fg.tensor(rng.standard_normal(5)),
                "exp_avg_sq": fg.tensor(rng.random(5)),
            }
            for i in range(2)
        },
        "param_groups": [
            {
                "lr": 0.1,
                "betas": (0.9, 0.999),
                "eps": 1e-08,
                "weight_decay": 0,
                "amsgrad": False,
                "maximize": False,
                "foreach": None,
                "max_grad": math.inf,
                "params": [0, 1],
            }
        ],
    }
    back = round_trip(state, tmp_path)
    assert_same(state, back)


def test_a_state_dict_ordered_dict_keeps_order_and_type(tmp_path):
    rng = np.random.default_rng(2)
    sd = collections.OrderedDict()
    for name, shape in [("fc2.weight", (4, 3)), ("fc2.bias", (4,)), ("bn.running_mean", (4,)), ("fc1.weight", (3, 2))]:
        sd[name] = fg.tensor(rng.standard_normal(shape).astype(np.float32))
    sd["bn.num_batches_tracked"] = fg.tensor(7)
    back = round_trip(sd, tmp_path)
    assert type(back) is collections.OrderedDict
    assert list(back) == list(sd)
    assert_same(sd, back)


def mlp_with_weights(seed):
    rng = np.random.default_rng(seed)
    model = fg.nn.Sequential(fg.nn.Linear(4, 5), fg.nn.ReLU(), fg.nn.Linear(5, 3))
    with fg.no_grad():
        for p in model.parameters():
            p.copy_(fg.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    return model


def test_a_module_state_dict_round_trips_into_a_fresh_module(tmp_path):
    model = mlp_with_weights(6)
    fg.save(model.state_dict(), tmp_path / "model.ckpt")  # torch.load reads *.safetensors as safetensors
    sd = fg.load(tmp_path / "model.ckpt")
    assert type(sd) is collections.OrderedDict and list(sd) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    fresh = mlp_with_weights(7)
    fresh.load_state_dict(sd)
    x = fg.tensor(np.random.default_rng(8).standard_normal((2, 4)).astype(np.float32))
    assert fresh(x).tolist() == model(x).tolist()


# ---- sharing ----


def test_one_tensor_saved_twice_loads_as_one_object(tmp_path):
    t = fg.tensor([1.0, 2.0, 3.0])
    back = round_trip({"a": t, "b": t, "c": [t, {"d": t}]}, tmp_path)
    assert back["a"] is back["b"] is back["c"][0] is back["c"][1]["d"]


def test_tied_weights_as_two_objects_load_sharing_storage(tmp_path):
    w = fg.tensor([[1.0, 2.0], [3.0, 4.0]])
    sd = collections.OrderedDict([("encoder.weight", w), ("decoder.weight", w.detach())])
    back = round_trip(sd, tmp_path)
    enc, dec = back["encoder.weight"], back["decoder.weight"]
    assert enc is not dec
    enc[0, 1] = 20.0
    assert dec.tolist() == [[1.0, 20.0], [3.0, 4.0]]


def test_views_of_one_storage_load_as_views_of_one_storage(tmp_path):
    t = fg.arange(12.0).reshape(3, 4)
    views = [t, t[1:], t.T, t[:, 1], t[::2, 1::2], t.reshape(12)[3:9].reshape(2, 3)]
    back = round_trip(views, tmp_path)
    assert_same(views, back)
    back[0][2, 1] = -5.0  # element 9 of the storage
    assert back[1][1, 1].item() == -5.0
    assert back[2][1, 2].item() == -5.0
    assert back[3][2].item() == -5.0
    assert back[4].tolist() == [[1.0, 3.0], [-5.0, 11.0]]
    assert back[5].tolist() == [[3.0, 4.0, 5.0], [6.0, 7.0, 8.0]]


def test_a_view_saved_without_its_base_keeps_storage_offset_and_strides(tmp_path):
    t = fg.arange(20.0).reshape(4, 5)
    for view in [t[1:], t.T, t[1:3, 2:], t[:, 3]]:
        back = round_trip({"v": view}, tmp_path)["v"]
        assert back.stride() == view.stride()
        assert back.storage_offset() == view.storage_offset()
        assert back.tolist() == view.tolist()


def test_expanded_and_empty_views_round_trip(tmp_path):
    e = fg.tensor([[1.0], [2.0], [3.0]]).expand(3, 4)
    z = fg.zeros(0, 3)
    back = round_trip([e, z, z[:, 1:]], tmp_path)
    assert back[0].stride() == (1, 0) and back[0].tolist() == e.tolist()
    assert tuple(back[1].shape) == (0, 3) and tuple(back[2].shape) == (0, 2)


def test_saved_tensors_are_not_aliased_to_the_originals(tmp_path):
    t = fg.tensor([1.0, 2.0])
    back = round_trip({"t": t}, tmp_path)["t"]
    back[0] = 9.0
    assert t.tolist() == [1.0, 2.0]


def test_parameters_load_as_parameters(tmp_path):
    if not hasattr(fg.nn, "Parameter"):
        pytest.skip("ferrograd.nn.Parameter is not in this build yet")
    p = fg.nn.Parameter(fg.tensor([1.0, 2.0]))
    frozen = fg.nn.Parameter(fg.tensor([3.0]), requires_grad=False)
    back = round_trip({"p": p, "frozen": frozen}, tmp_path)
    assert type(back["p"]) is type(p) and back["p"].requires_grad
    assert type(back["frozen"]) is type(p) and not back["frozen"].requires_grad


# ---- arguments ----


def test_paths_file_objects_and_bytes_io(tmp_path):
    t = {"t": fg.tensor([1.0, 2.0])}
    fg.save(t, str(tmp_path / "a"))
    fg.save(t, pathlib.Path(tmp_path / "b"))
    with open(tmp_path / "c", "wb") as f:
        fg.save(t, f)
    for name in "abc":
        assert fg.load(str(tmp_path / name))["t"].tolist() == [1.0, 2.0]
        assert fg.load(tmp_path / name)["t"].tolist() == [1.0, 2.0]
        with open(tmp_path / name, "rb") as f:
            assert fg.load(f)["t"].tolist() == [1.0, 2.0]
    buf = io.BytesIO()
    fg.save(t, buf)
    assert fg.load(io.BytesIO(buf.getvalue()))["t"].tolist() == [1.0, 2.0]


@pytest.mark.parametrize(
    "location",
    # a dict moving another device's storages moves none of a CPU checkpoint's (pytorch/examples' DDP demo)
    [None, "cpu", {"cpu": "cpu"}, lambda storage, loc: storage, {"cuda:0": "cuda:1"}, {"cuda:0": "cuda:0"}],
)
def test_map_location_that_means_the_cpu(location, tmp_path):
    back = round_trip({"t": fg.tensor([1.0, 2.0])}, tmp_path, map_location=location)
    assert back["t"].tolist() == [1.0, 2.0]


def test_map_location_to_cuda_is_refused(tmp_path):
    fg.save({"t": fg.tensor([1.0])}, tmp_path / "x")
    with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
        fg.load(tmp_path / "x", map_location="cuda")
    with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
        fg.load(tmp_path / "x", map_location={"cpu": "cuda:0"})


def test_weights_only_false_loads_the_same(tmp_path):
    obj = {"t": fg.tensor([1.0, 2.0]), "n": 3}
    assert_same(obj, round_trip(obj, tmp_path, weights_only=False))


def test_mmap(tmp_path):
    rng = np.random.default_rng(3)
    obj = {"a": fg.tensor(rng.standard_normal((64, 64))), "b": fg.tensor([1, 2, 3], dtype=fg.int8)}
    path = tmp_path / "m"
    fg.save(obj, path)
    before = path.read_bytes()
    back = fg.load(path, mmap=True)
    assert_same(obj, back)
    back["a"][0, 0] = 123.0  # a private mapping: the file is untouched
    assert path.read_bytes() == before
    with pytest.raises(ValueError, match="f must be a file path in order to use the mmap argument"):
        fg.load(io.BytesIO(before), mmap=True)


def test_missing_files_and_directories(tmp_path):
    with pytest.raises(FileNotFoundError):
        fg.load(tmp_path / "nothing")
    with pytest.raises(RuntimeError, match="Parent directory .* does not exist"):
        fg.save({}, tmp_path / "no" / "such" / "dir")
    with pytest.raises((IsADirectoryError, RuntimeError), match="Is a directory"):
        fg.save({}, tmp_path)
    with pytest.raises(IsADirectoryError):
        fg.load(tmp_path)


# ---- ferrograd's refusals on save ----


@SAFETENSORS_ONLY
def test_objects_that_cannot_be_saved_raise_type_error_naming_where(tmp_path):
    class Thing:
        pass

    with pytest.raises(TypeError, match=r"cannot save an object of type Thing \(at obj\['a'\]\[1\]\)"):
        save_safetensors({"a": [1, Thing()]}, tmp_path / "x")
    point = collections.namedtuple("point", "x y")
    with pytest.raises(TypeError, match="tuple subclass"):
        save_safetensors([point(1, 2)], tmp_path / "x")

    class ListKey(list):
        __hash__ = object.__hash__

    with pytest.raises(TypeError, match="cannot save a dict key of type ListKey"):
        save_safetensors({ListKey(): 1}, tmp_path / "x")
    assert not (tmp_path / "x").exists()


@SAFETENSORS_ONLY
def test_numpy_scalars_load_as_python_numbers(tmp_path):
    save_safetensors(
        {"i": np.int64(3), "f": np.float32(0.5), "b": np.bool_(True), "d": np.float64(0.1)}, tmp_path / "x"
    )
    back = fg.load(tmp_path / "x")
    assert back == {"i": 3, "f": 0.5, "b": True, "d": 0.1}
    assert [type(v) for v in back.values()] == [int, float, bool, float]


@SAFETENSORS_ONLY
def test_nesting_and_self_reference_are_refused_on_save(tmp_path):
    deep = None
    for _ in range(50):
        deep = [deep]
    save_safetensors(deep, tmp_path / "deep")
    assert_same(deep, fg.load(tmp_path / "deep"))
    with pytest.raises(ValueError, match="nested more than 50 levels"):
        save_safetensors([deep], tmp_path / "x")
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match=r"obj\[0\] contains itself"):
        save_safetensors(loop, tmp_path / "x")


def test_pickle_module_is_checked(tmp_path):
    """An explicit pickle_module refuses weights_only=True, as torch; one without an Unpickler (the fuzz passed
    True) is a TypeError naming the argument here, where torch fails inside with an AttributeError."""
    path = tmp_path / "ckpt.pt"
    fg.save({"a": fg.ones(2)}, path)
    with pytest.raises(RuntimeError, match="Can not safely load weights when explicit pickle_module is specified"):
        fg.load(path, "cpu", True, weights_only=True)
    expected = AttributeError if AGAINST_TORCH else TypeError
    with pytest.raises(expected, match="pickle_module must be a module" if not AGAINST_TORCH else "bool"):
        fg.load(path, "cpu", True, weights_only=False)
    import pickle

    assert fg.load(path, "cpu", pickle, weights_only=False)["a"].tolist() == [1.0, 1.0]
