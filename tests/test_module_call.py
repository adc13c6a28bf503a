"""Calling a module: hooks run however they were added (register_*, the global registries, the hook dicts
themselves, copies and pickles of hooked modules) and stop once removed, also for the children of a
Sequential (whose chain skips the per-child call while no module has hooks); a Sequential with its forward
replaced, keyword input, a None child or a non-tensor input behaves as PyTorch's."""

import copy
import pickle
from collections import OrderedDict

import ferrograd as fg
import ferrograd.nn as nn
import pytest
from ferrograd.nn.modules import module as module_mod

LOG = []


class Record:
    """A picklable forward hook that logs its name."""

    def __init__(self, name):
        self.name = name

    def __call__(self, module, args, output):
        LOG.append(self.name)


def model():
    return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Sequential(nn.Linear(4, 2), nn.Tanh()))


@pytest.fixture(autouse=True)
def clear_log():
    LOG.clear()
    yield
    LOG.clear()


def test_hooks_on_nested_children_come_and_go():
    m = model()
    x = fg.ones(1, 3)
    inner_linear = m[2][0]
    h1 = inner_linear.register_forward_hook(Record("inner"))
    h2 = m[1].register_forward_pre_hook(lambda mod, args: LOG.append("pre-relu"))
    out = m(x)
    assert LOG == ["pre-relu", "inner"]
    h1.remove()
    h2.remove()
    LOG.clear()
    assert fg.equal(m(x), out) and LOG == []
    m[2].register_forward_hook(Record("inner-seq"))
    m(x)
    assert LOG == ["inner-seq"]


def test_global_hooks_see_every_module_then_stop():
    m = model()
    pre = module_mod.register_module_forward_pre_hook(lambda mod, args: LOG.append("pre:" + type(mod).__name__))
    try:
        m(fg.ones(1, 3))
    finally:
        pre.remove()
    assert LOG == ["pre:" + n for n in ("Sequential", "Linear", "ReLU", "Sequential", "Linear", "Tanh")]
    LOG.clear()
    m(fg.ones(1, 3))
    assert LOG == []


ADD = {
    "set": lambda d, hook: d.__setitem__(10**9, hook),
    "update": lambda d, hook: d.update({10**9: hook}),
    "setdefault": lambda d, hook: d.setdefault(10**9, hook),
    "or": lambda d, hook: d.__ior__({10**9: hook}),
}
REMOVE = {
    "del": lambda d: d.__delitem__(10**9),
    "pop": lambda d: d.pop(10**9),
    "popitem": lambda d: d.popitem(),
    "clear": lambda d: d.clear(),
}


@pytest.mark.parametrize("add", sorted(ADD))
@pytest.mark.parametrize("remove", sorted(REMOVE))
def test_hooks_put_into_the_dicts_directly(add, remove):
    m = model()
    x = fg.ones(1, 3)
    hooks = m[2][1]._forward_hooks
    ADD[add](hooks, Record(add))
    m(x)
    assert LOG == [add]
    REMOVE[remove](hooks)
    LOG.clear()
    m(x)
    assert LOG == []


def test_a_hook_dict_replaced_by_a_plain_one():
    m = model()
    m[1]._forward_hooks = OrderedDict({1: Record("replaced dict")})
    m(fg.ones(1, 3))
    assert LOG == ["replaced dict"]


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_copies_of_hooked_modules_keep_their_hooks(how):
    m = model()
    handle = m[1].register_forward_hook(Record("hook"))
    twin = copy.deepcopy(m) if how == "deepcopy" else pickle.loads(pickle.dumps(m))
    handle.remove()  # the original's hook; the copy has its own
    x = fg.ones(1, 3)
    m(x)
    assert LOG == []
    twin(x)
    assert LOG == ["hook"]
    twin[1]._forward_hooks.clear()
    LOG.clear()
    twin(x)
    assert LOG == []


def test_a_dead_hooked_module_leaves_calls_as_they_were():
    m = model()
    hooked = nn.ReLU()
    hooked.register_forward_hook(Record("gone"))
    del hooked
    out = m(fg.ones(1, 3))
    assert LOG == [] and tuple(out.shape) == (1, 2)


def test_sequential_forward_replaced_or_overridden_and_keyword_input():
    x = fg.ones(1, 3)
    m = model()
    expected = m(x)
    assert fg.equal(m(input=x), expected)
    m.forward = lambda input: input * 2
    assert fg.equal(m(x), x * 2)

    class Twice(nn.Sequential):
        def forward(self, input):
            return super().forward(input) * 2

    t = Twice(nn.ReLU())
    assert fg.equal(t(x), x * 2)


def test_a_child_with_its_own_call_is_called():
    class Shout(nn.Module):
        def __call__(self, input):
            LOG.append("own call")
            return input + 1

    x = fg.zeros(1)
    assert fg.equal(nn.Sequential(nn.ReLU(), Shout(), nn.ReLU())(x), fg.ones(1))
    assert LOG == ["own call"]


def test_a_none_child_and_non_tensor_inputs_raise_as_torch():
    m = nn.Sequential(nn.ReLU())
    m.add_module("1", None)
    with pytest.raises(TypeError, match="'NoneType' object is not callable"):
        m(fg.ones(1))
    for bad in ([1.0, 2.0], None, "ab"):
        with pytest.raises(
            TypeError, match=f"argument 'input' \\(position 1\\) must be Tensor, not {type(bad).__name__}"
        ):
            nn.Sequential(nn.ReLU(), nn.Linear(2, 2))(bad)
        with pytest.raises(
            TypeError, match=f"argument 'input' \\(position 1\\) must be Tensor, not {type(bad).__name__}"
        ):
            nn.Sequential(nn.Linear(2, 2), nn.ReLU())(bad)
