"""Records torchviz's drawing of torch's backward graph of tests/graph_cases.py for
tests/test_graph_objects.py; run with torch's Python: `/work/torchenv/bin/python tests/golden/record_graph.py`."""

import json
import os

import _torch_path  # noqa: F401  (first: `import ferrograd` is torch)
import graph_cases
import torch
import torchviz

model, loss = graph_cases.model_and_loss(torch)
dot = torchviz.make_dot(loss, params=dict(model.named_parameters()), show_attrs=True, show_saved=True)
nodes, edges = graph_cases.canonical(dot.source)
cases = graph_cases.saved_cases(torch)
saved = {name: graph_cases.saved_attributes(torch, out, inputs) for name, (out, inputs) in cases.items()}
x, tutorial = graph_cases.tutorial_graph(torch)
viz = graph_cases.load_viz().graph(tutorial, params={"x": x})
out = {"torchviz": {"nodes": nodes, "edges": edges}, "saved": saved, "viz_tutorial": viz}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "graph.json"), "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
