"""nn.Module, nn.Parameter and the basic layers against what PyTorch does (tests/golden/nn_modules.json;
cases in tests/cases_nn_modules.py): traversal order and dotted names, state_dict / load_state_dict and
their messages, attribute errors, hook order and gradients, containers, Linear / Bilinear / Embedding /
Flatten values and gradients, dtype conversion, reprs; plus deepcopy / pickle round trips."""

import copy
import pickle

import ferrograd as fg
import ferrograd.nn as nn
import numpy as np
import pytest
from cases_nn_modules import CASES, Net, copy_in
from recorded import check, expected

EXPECTED = expected("nn_modules", CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    check(name, CASES[name], EXPECTED[name])


def _t(a):
    return fg.tensor(np.asarray(a, dtype=np.float64), dtype=fg.float64)


def _same_state(a, b):
    sa, sb = a.state_dict(), b.state_dict()
    assert list(sa) == list(sb)
    for k in sa:
        assert sa[k].dtype == sb[k].dtype and sa[k].shape == sb[k].shape
        assert sa[k].equal(sb[k]), k


def test_deepcopy_of_a_model_is_independent_and_keeps_types():
    net = copy_in(Net(), seed=2)
    net.block.fc.weight.grad = fg.ones(4, 3)
    clone = copy.deepcopy(net)
    _same_state(net, clone)
    assert type(clone.block.fc.weight) is nn.Parameter and clone.block.fc.weight.requires_grad
    assert clone.block.fc.weight.grad is None  # as PyTorch: Parameter.__deepcopy__ leaves .grad behind
    assert clone.shared is clone.block.fc  # sharing inside the model survives
    with fg.no_grad():
        clone.block.fc.weight.add_(1.0)
    assert not net.block.fc.weight.equal(clone.block.fc.weight)
    assert list(clone.state_dict()) == list(net.state_dict())
    x = fg.ones(2, 3)
    assert clone.eval()(x).shape == net.eval()(x).shape


def test_pickle_round_trip_of_a_model():
    net = copy_in(Net(), seed=3)
    back = pickle.loads(pickle.dumps(net))
    _same_state(net, back)
    assert type(back.extra[0]) is nn.Parameter
    assert back.block._non_persistent_buffers_set == {"scratch"}
    assert back.block.scratch.equal(net.block.scratch)
    x = fg.ones(2, 3)
    assert back.eval()(x).allclose(net.eval()(x))


def test_pickled_rnn_state_carries_torchs_flat_weights():
    """A pickled RNN's state holds `_flat_weights` (the parameters, in `_flat_weights_names` order) as torch's
    does, so either framework's `torch.load` of the other's whole-model file gets an RNN that runs."""
    for rnn in (nn.LSTM(2, 3, num_layers=2, bidirectional=True), nn.GRU(2, 3, bias=False), nn.RNN(2, 3)):
        state = rnn.__getstate__()
        names = state["_flat_weights_names"]
        assert len(state["_flat_weights"]) == len(names) > 0
        assert all(w is getattr(rnn, n) for w, n in zip(state["_flat_weights"], names))
        back = pickle.loads(pickle.dumps(rnn))
        assert all(w is getattr(back, n) for w, n in zip(back._flat_weights, names))
        x = fg.randn(4, 1, 2)
        assert back(x)[0].tolist() == rnn(x)[0].tolist()


def test_pickle_and_deepcopy_of_plain_tensors():
    for dtype in (fg.float32, fg.float64, fg.float16, fg.bfloat16, fg.int64, fg.int8, fg.uint8, fg.bool):
        t = fg.tensor([[1, 0, 3], [2, 5, 1]]).to(dtype)
        for back in (pickle.loads(pickle.dumps(t)), copy.deepcopy(t)):
            assert back.dtype == dtype and back.shape == t.shape and back.equal(t)
    x = _t([1.0, 2.0]).requires_grad_()
    x.grad = _t([0.5, 0.5])
    y = pickle.loads(pickle.dumps(x))
    assert y.requires_grad and y.is_leaf and y.grad is None  # pickle does not carry .grad
    z = copy.deepcopy(x)
    assert z.requires_grad and z.grad.tolist() == [0.5, 0.5]  # deepcopy does
    view = fg.arange(6.0).reshape(2, 3).T  # a strided view: its values, in its shape
    assert pickle.loads(pickle.dumps(view)).tolist() == view.tolist()


def test_deepcopy_keeps_sharing_and_refuses_non_leaves():
    a = fg.ones(3)
    b, c = copy.deepcopy([a, a])
    assert b is c and b is not a
    with pytest.raises(RuntimeError, match="Only Tensors created explicitly by the user"):
        copy.deepcopy(fg.ones(2, requires_grad=True) * 2)
    p = nn.Parameter(fg.ones(2))
    q, r = copy.deepcopy((p, p))
    assert q is r and type(q) is nn.Parameter


def test_pickle_of_a_dtype_gives_the_module_constant():
    assert pickle.loads(pickle.dumps(fg.ones(1).dtype)) is fg.float32
    assert copy.deepcopy(fg.int64) is fg.int64


def test_buffer_round_trips_keep_persistence():
    b = nn.Buffer(fg.ones(2), persistent=False)
    for back in (copy.deepcopy(b), pickle.loads(pickle.dumps(b))):
        assert isinstance(back, nn.Buffer) and back.persistent is False
    m = nn.Module()
    m.b = b
    assert m.b is b and list(m.state_dict()) == []


def test_parameter_shares_the_data_it_is_made_from():
    data = fg.zeros(3)
    p = nn.Parameter(data)
    data[0] = 5.0
    assert p.tolist() == [5.0, 0.0, 0.0]
    assert type(p + 1) is fg.Tensor and type(p.clone()) is fg.Tensor


def test_hooks_do_not_keep_the_module_alive():
    import gc
    import weakref

    m = nn.Linear(2, 2)
    handle = m.register_forward_hook(lambda mod, args, out: None)
    ref = weakref.ref(m)
    del m
    gc.collect()
    assert ref() is None
    handle.remove()  # the dict is gone: a no-op


def test_full_backward_hook_nodes_are_named_as_torch():
    m = nn.Linear(2, 2)
    m.register_full_backward_hook(lambda mod, gi, go: None)
    x = fg.ones(1, 2, requires_grad=True)
    out = m(x)
    assert out.grad_fn.name() == "BackwardHookFunctionBackward"
    assert out.grad_fn.next_functions[0][0].name() == "AddmmBackward0"


def test_backward_hooks_under_no_grad_are_skipped():
    calls = []
    m = nn.Linear(2, 2)
    m.register_full_backward_hook(lambda mod, gi, go: calls.append(1))
    with fg.no_grad():
        out = m(fg.ones(1, 2))
    assert out.grad_fn is None and calls == []


def test_old_style_backward_hook_sees_the_last_node():
    seen = []
    m = nn.Linear(2, 1)
    m.register_backward_hook(lambda mod, gi, go: seen.append(len(go)))
    m(fg.ones(3, 2)).sum().backward()
    assert seen == [1]


def test_global_forward_hooks_run_for_every_module():
    from ferrograd.nn.modules import module as module_mod

    seen = []
    handle = module_mod.register_module_forward_hook(lambda mod, args, out: seen.append(type(mod).__name__))
    try:
        nn.Sequential(nn.Linear(2, 2), nn.ReLU())(fg.ones(1, 2))
    finally:
        handle.remove()
    nn.ReLU()(fg.ones(1))
    assert seen == ["Linear", "ReLU", "Sequential"]


def test_state_dict_hooks_and_extra_state():
    class WithExtra(nn.Linear):
        def get_extra_state(self):
            return {"note": "kept"}

        def set_extra_state(self, state):
            self.note = state["note"]

    m = WithExtra(2, 2)
    sd = m.state_dict()
    assert list(sd) == ["weight", "bias", "_extra_state"]
    other = WithExtra(2, 2)
    other.load_state_dict(sd)
    assert other.note == "kept"
    calls = []
    other.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: calls.append(("pre", prefix)))
    other.register_load_state_dict_post_hook(lambda mod, keys: calls.append(("post", list(keys.missing_keys))))
    nn.Sequential(other).state_dict()
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "_extra_state"'):
        other.load_state_dict({"weight": fg.zeros(2, 2), "bias": fg.zeros(2)})
    assert calls == [("pre", "0."), ("post", ["_extra_state"])]


def test_call_without_hooks_goes_straight_to_forward():
    class Count(nn.Module):
        def __init__(self):
            super().__init__()
            self.n = 0

        def forward(self, x, *, k=1):
            self.n += k
            return x

    m = Count()
    x = fg.ones(1)
    assert m(x, k=2) is x and m.n == 2
