"""ferrograd.viz: DOT source of a backward graph (compared with the same drawing of torch's graph, recorded
by tests/golden/record_graph.py), and SVG through the graphviz package."""

import importlib.util
import shutil

import ferrograd as fg
import graph_cases
import pytest
from helpers import golden

viz = graph_cases.load_viz()


def test_the_tutorial_graph_is_drawn_as_from_torchs_graph():
    x, out = graph_cases.tutorial_graph(fg)
    assert viz.graph(out, params={"x": x}) == golden("graph")["viz_tutorial"]


def test_leaves_are_named_from_params_and_edges_carry_shape_and_dtype():
    model, loss = graph_cases.model_and_loss(fg)
    dot = viz.graph(loss, params=dict(model.named_parameters()))
    for name, p in model.named_parameters():
        assert f'label="{name}\\l{graph_cases.shape_text(p.shape)} float32\\l" fillcolor=lightblue' in dot
    assert 'label="(5, 4) float32"' in dot, "the gradient into the ReLU's output"
    assert "AddmmBackward0\\lalpha: 1\\lbeta: 1\\lmat1: (5, 4)" in dot
    assert dot.count("AccumulateGrad") == 4
    assert dot.startswith("digraph {") and dot.endswith("}\n")


def test_several_outputs_and_a_tensor_without_history():
    a = fg.ones(3, dtype=fg.float64, requires_grad=True)
    dot = viz.graph((a * 2, a.sum()), params={"a": a})
    assert dot.count("darkolivegreen1") == 2 and dot.count("fillcolor=lightblue") == 1, "one leaf node for a"
    plain = viz.graph(fg.zeros(2))
    assert plain.count("->") == 0 and "(2) float32" in plain


def test_a_freed_graph_still_draws():
    a = fg.ones(2, requires_grad=True)
    y = (a * a).sum()
    y.backward()
    assert "self: [freed]" in viz.graph(y)


@pytest.mark.skipif(importlib.util.find_spec("graphviz") is None, reason="needs the graphviz package")
def test_source_is_a_graphviz_object_over_the_same_dot():
    x, out = graph_cases.tutorial_graph(fg)
    src = viz.source(out, params={"x": x})
    assert src.source == viz.graph(out, params={"x": x})


@pytest.mark.skipif(shutil.which("dot") is None or importlib.util.find_spec("graphviz") is None, reason="needs dot")
def test_render_writes_an_svg(tmp_path):
    x, out = graph_cases.tutorial_graph(fg)
    path = viz.render(out, str(tmp_path / "g"), params={"x": x})
    assert open(path).read().lstrip().startswith(("<?xml", "<svg"))


def test_without_the_graphviz_package_the_error_says_how_to_install(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_graphviz(name, *args, **kwargs):
        if name == "graphviz":
            raise ImportError("No module named 'graphviz'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_graphviz)
    x, out = graph_cases.tutorial_graph(fg)
    with pytest.raises(ImportError, match=r"pip install ferrograd\[viz\]"):
        viz.source(out)
