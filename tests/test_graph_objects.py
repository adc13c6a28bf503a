"""Graph objects as tools see them: one class per node name (subclasses of autograd.graph.Node), one object
per node and per `.grad`, AccumulateGrad.variable, `_saved_*` attributes (recorded from torch by
tests/golden/record_graph.py), metadata, views' `_base`, and torchviz drawing the graph as it draws torch's."""

import importlib
import importlib.util
import sys
import warnings

import ferrograd as fg
import graph_cases
import pytest
from helpers import golden


def leaf(values):
    return fg.tensor(values, dtype=fg.float64, requires_grad=True)


def test_each_node_name_has_its_own_class_made_once():
    x = leaf([1.0, 2.0])
    y = (x * 2 + 1).sum()
    fn = y.grad_fn
    assert type(fn).__name__ == "SumBackward0" and fn.name() == "SumBackward0"
    assert isinstance(fn, fg.autograd.graph.Node)
    add = fn.next_functions[0][0]
    mul = add.next_functions[0][0]
    assert type(add).__name__ == "AddBackward0" and type(mul).__name__ == "MulBackward0"
    assert type((x + 3).grad_fn) is type(add), "one class per name"
    acc = mul.next_functions[0][0]
    assert type(acc).__name__ == "AccumulateGrad" and isinstance(acc, fg.autograd.graph.Node)
    assert repr(fn).startswith("<SumBackward0 object at 0x")


def test_a_custom_function_node_is_named_after_the_class():
    class Cube(fg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x * x * g

    x = leaf([1.0, 2.0])
    y = Cube.apply(x)
    assert type(y.grad_fn).__name__ == "CubeBackward" and y.grad_fn.name() == "CubeBackward"
    assert isinstance(y.grad_fn, fg.autograd.graph.Node)
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 12.0]


def test_one_node_is_one_object_while_it_lives():
    x = leaf([1.0, 2.0])
    a = x * 2
    b = a.exp()
    assert b.grad_fn is b.grad_fn
    assert b.grad_fn.next_functions[0][0] is a.grad_fn
    acc = a.grad_fn.next_functions[0][0]
    assert (x * 5).grad_fn.next_functions[0][0] is acc, "a leaf has one AccumulateGrad while a graph uses it"
    assert len({id(b.grad_fn) for _ in range(5)}) == 1


def test_node_objects_can_be_dropped_and_the_graph_still_runs():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    for _ in range(3):
        fn = y.grad_fn
        fn.metadata["seen"] = True
        del fn
    y.backward()
    assert x.grad.tolist() == [2.0, 4.0]


def test_metadata_is_one_dict_per_node_object():
    x = leaf([1.0])
    fn = (x * 2).grad_fn
    assert fn.metadata == {}
    fn.metadata["k"] = 1
    assert fn.metadata is fn.metadata and fn.metadata == {"k": 1}


def test_accumulate_grad_variable_is_the_leaf():
    w = leaf([1.0, 2.0])
    acc = (w * 3).grad_fn.next_functions[0][0]
    assert acc.variable is w
    p = fg.nn.Parameter(fg.ones(2))
    assert (p * 3).grad_fn.next_functions[0][0].variable is p
    assert not hasattr((w * 3).grad_fn, "variable")


def test_saved_attributes_are_torchs():
    expected = golden("graph")["saved"]
    cases = graph_cases.saved_cases(fg)
    assert sorted(cases) == sorted(expected)
    for name, (out, inputs) in cases.items():
        assert list(graph_cases.saved_attributes(fg, out, inputs)) == expected[name], name


def test_a_saved_output_has_the_node_as_grad_fn_and_values_of_the_output():
    x = leaf([0.0, 1.0])
    y = x.exp()
    saved = y.grad_fn._saved_result
    assert saved.tolist() == y.tolist()
    assert saved.grad_fn is y.grad_fn


def test_saved_tensors_are_gone_after_backward():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    mul = y.grad_fn.next_functions[0][0]
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        _ = mul._saved_self
    with pytest.raises(AttributeError, match="'MulBackward0' object has no attribute '_saved_nothing'"):
        _ = mul._saved_nothing


def test_grad_is_one_object_while_it_is_the_gradient():
    x = leaf([1.0, 2.0])
    (x * 2).sum().backward()
    g = x.grad
    assert x.grad is g
    g.add_(1)
    assert x.grad.tolist() == [3.0, 3.0]
    x.grad.data = fg.zeros(2, dtype=fg.float64)
    assert x.grad is g and x.grad.tolist() == [0.0, 0.0]
    (x * 3).sum().backward()
    assert x.grad is g and g.tolist() == [3.0, 3.0], "accumulates into the object's new data"
    other = fg.ones(2, dtype=fg.float64)
    x.grad = other
    assert x.grad is other
    x.grad = None
    assert x.grad is None


def test_views_know_their_base():
    x = fg.arange(6.0).reshape(2, 3)
    base = x._base
    row = x[1]
    assert row._is_view() and row._base is base
    assert not fg.ones(2)._is_view() and fg.ones(2)._base is None
    assert row.clone()._base is None


def test_every_tensor_is_a_variable_and_the_version_is_a_string():
    t = fg.ones(2)
    assert isinstance(t, fg.autograd.Variable)
    assert not isinstance([1.0], fg.autograd.Variable)
    assert isinstance(fg.autograd.Variable(t), fg.Tensor) and fg.autograd.Variable(t).tolist() == [1.0, 1.0]
    assert isinstance(fg.__version__, str) and fg.__version__[0].isdigit()


@pytest.fixture
def torchviz_on_ferrograd():
    """torchviz imported with `torch` being ferrograd, both restored afterwards."""
    for package in ("graphviz", "torchviz"):
        if importlib.util.find_spec(package) is None:
            pytest.skip(f"{package} is not installed (pip install -r requirements-dev.txt)")
    aliases = {"torch": fg, "torch.autograd": fg.autograd}
    saved = {name: sys.modules.get(name) for name in aliases}
    viz = {name: sys.modules.pop(name) for name in list(sys.modules) if name.split(".")[0] == "torchviz"}
    sys.modules.update(aliases)
    try:
        yield importlib.import_module("torchviz")
    finally:
        for name in [n for n in sys.modules if n.split(".")[0] == "torchviz"]:
            del sys.modules[name]
        sys.modules.update(viz)
        for name, module in saved.items():
            if module is None:
                del sys.modules[name]
            else:
                sys.modules[name] = module


def test_torchviz_draws_the_graph_as_it_draws_torchs(torchviz_on_ferrograd):
    model, loss = graph_cases.model_and_loss(fg)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torchviz compares __version__ with torch's (1.9) and may warn
        dot = torchviz_on_ferrograd.make_dot(
            loss, params=dict(model.named_parameters()), show_attrs=True, show_saved=True
        )
    nodes, edges = graph_cases.canonical(dot.source)
    expected = golden("graph")["torchviz"]
    assert nodes == expected["nodes"]
    assert edges == expected["edges"]
