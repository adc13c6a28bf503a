"""The small model whose backward graph tests/test_graph_objects.py draws with torchviz (and
tests/golden/record_graph.py records from torch), and a DOT source reduced to what does not depend on
object ids."""

import re

import numpy as np

_NODE = re.compile(r'\t(\d+) \[label=(?:"((?:[^"\\]|\\.)*)"|(\w+))(?: fillcolor=(\w+))?\]\n')
_EDGE = re.compile(r"\t(\d+) -> (\d+)(?: \[([^\]]*)\])?\n")


def model_and_loss(fg):
    """Linear(3, 4) -> ReLU -> Linear(4, 2) -> tanh, mean squared; weights copied from numpy."""
    rng = np.random.default_rng(14)
    model = fg.nn.Sequential(fg.nn.Linear(3, 4), fg.nn.ReLU(), fg.nn.Linear(4, 2))
    with fg.no_grad():
        for p in model.parameters():
            p.copy_(fg.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    x = fg.tensor(rng.standard_normal((5, 3)).astype(np.float32))
    target = fg.tensor(rng.standard_normal((5, 2)).astype(np.float32))
    loss = ((model(x).tanh() - target) ** 2).mean()
    return model, loss


def canonical(dot_source):
    """(sorted (label, fillcolor) of each node, sorted (label, label, attributes) of each edge)."""
    nodes = {m[1]: (m[2] or m[3], m[4] or "") for m in _NODE.finditer(dot_source)}
    edges = [(m[1], m[2], m[3] or "") for m in _EDGE.finditer(dot_source)]
    labelled = [[nodes[a][0], nodes[b][0], attrs] for a, b, attrs in edges]
    return sorted([list(n) for n in nodes.values()]), sorted(labelled)


def saved_cases(fg):
    """{case: (output tensor, {name: tensor}) } for one op each; the named tensors are the inputs."""
    x = fg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    w = fg.tensor([[1.0, 0.5], [0.2, 0.1], [3.0, 1.0]], requires_grad=True)
    b = fg.tensor([0.5, -0.5], requires_grad=True)
    c = fg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    ops = {
        "mul": lambda: x * w.t(),
        "mul_constant": lambda: x * c,
        "add": lambda: x + x,
        "sub": lambda: x - c,
        "div": lambda: x / (c + 1),
        "pow_int": lambda: x**2,
        "pow_float": lambda: x**2.5,
        "sum": lambda: x.sum(),
        "sum_dim": lambda: x.sum(1, keepdim=True),
        "mean": lambda: x.mean(),
        "mean_dim": lambda: x.mean(0),
        "exp": lambda: x.exp(),
        "tanh": lambda: x.tanh(),
        "sigmoid": lambda: x.sigmoid(),
        "relu": lambda: x.relu(),
        "log": lambda: x.log(),
        "sqrt": lambda: x.sqrt(),
        "sin": lambda: x.sin(),
        "mm": lambda: x.mm(w),
        "mm_constant_left": lambda: c.mm(w),
        "mm_constant_right": lambda: x.mm(c.t()),
        "addmm": lambda: fg.addmm(b, x, w),
        "linear_constant_input": lambda: fg.nn.functional.linear(c, w.t(), b),
        "view": lambda: x.view(3, 2),
        "t": lambda: x.t(),
        "transpose": lambda: x.transpose(0, 1),
        "permute": lambda: x.permute(1, 0),
        "unsqueeze": lambda: x.unsqueeze(0),
        "select": lambda: x[1],
    }
    return {name: (f(), {"x": x, "w": w, "b": b, "c": c}) for name, f in ops.items()}


def saved_attributes(fg, out, inputs):
    """(type name of out.grad_fn, {attribute: shown value}) for its `_saved_*` attributes: a tensor shows
    as its shape and which input leaf that requires grad it is (if one). (torch also gives back the very
    object of a saved input that needs no grad; ferrograd a new object over the same data.)"""
    fn = out.grad_fn
    shown = {}
    for attr in dir(fn):
        if not attr.startswith("_saved_"):
            continue
        value = getattr(fn, attr)
        if fg.is_tensor(value):
            same = [name for name, t in inputs.items() if value is t and t.requires_grad]
            value = f"tensor{tuple(value.shape)}" + (f" is {same[0]}" if same else "")
        else:
            value = repr(value)
        shown[attr] = value
    return type(fn).__name__, shown


def tutorial_graph(fg):
    """The autograd tutorial's graph: x (2×2 ones) -> y = x + 2 -> z = y * y * 3 -> out = z.mean()."""
    x = fg.ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y * 3
    return x, z.mean()


def load_viz():
    """ferrograd.viz; against torch (tools/torch_shim) the module file itself, which draws torch graphs too."""
    import importlib.util
    import os

    import ferrograd

    if hasattr(ferrograd, "viz"):
        return ferrograd.viz
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python", "ferrograd", "viz.py")
    spec = importlib.util.spec_from_file_location("ferrograd_viz", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def shape_text(shape):
    return "(" + ", ".join(str(int(s)) for s in shape) + ")"
