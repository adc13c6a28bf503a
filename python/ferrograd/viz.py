"""`ferrograd.viz`: a picture of the backward graph of a tensor.

`graph(t, params=dict(model.named_parameters()))` gives DOT source (Graphviz's language): one box per
backward node with the shapes of the tensors it saved, one box per leaf (named from `params=`) and for
`t`, and on each edge the shape and dtype of the gradient that flows along it. `render()` and `source()`
turn it into SVG/PNG through the `graphviz` package (`pip install ferrograd[viz]`, and Graphviz's `dot`
program). A tool, not a hot path: it walks `grad_fn.next_functions` in Python.
"""

__all__ = ["graph", "source", "render"]

_SAVED = "_saved_"


def _is_tensor(value):
    return hasattr(value, "grad_fn") and hasattr(value, "shape")


def _edges(fn):
    """(next node, (shape, dtype name) of the gradient it receives or None) for each input of `fn`."""
    nexts = fn.next_functions
    if hasattr(fn, "_next_metadata"):
        return [(n, meta) for (n, _), meta in zip(nexts, fn._next_metadata)]
    # PyTorch's nodes (so this also draws torch graphs): the receiving node's `_input_metadata`
    return [(n, None if n is None else _torch_meta(n._input_metadata[nr])) for n, nr in nexts]


def _torch_meta(meta):
    return tuple(meta.shape), _dtype_name(meta.dtype)


def _dtype_name(dtype):
    return str(dtype).removeprefix("ferrograd.").removeprefix("torch.")


def _quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\l") + '\\l"'


def _shape(shape):
    return "(" + ", ".join(str(int(s)) for s in shape) + ")"


def _dtype(t):
    return _dtype_name(t.dtype)


def _tensor_label(name, t):
    head = f"{name}\n" if name else ""
    return f"{head}{_shape(t.shape)} {_dtype(t)}"


def _saved_lines(fn):
    """One line per saved tensor (its shape) and per saved argument of `fn`."""
    lines = []
    for attr in dir(fn):
        if not attr.startswith(_SAVED):
            continue
        try:
            value = getattr(fn, attr)
        except RuntimeError:  # freed by a backward without retain_graph
            lines.append(f"{attr[len(_SAVED) :]}: [freed]")
            continue
        name = attr[len(_SAVED) :]
        if _is_tensor(value):
            lines.append(f"{name}: {_shape(value.shape)}")
        elif isinstance(value, tuple) and any(_is_tensor(v) for v in value):
            lines.append(f"{name}: " + ", ".join(_shape(v.shape) for v in value if _is_tensor(v)))
        else:
            lines.append(f"{name}: {value}")
    return lines


def graph(tensor, params=None):
    """DOT source of the backward graph that ends in `tensor` (a tensor or a tuple of tensors).

    `params`: a dict name -> tensor (e.g. `dict(model.named_parameters())`) naming the leaves.
    """
    roots = tensor if isinstance(tensor, (tuple, list)) else (tensor,)
    names = {id(t): name for name, t in (params or {}).items()}
    ids = {}  # node object -> DOT id (objects are kept alive by `ids` while the graph is drawn)
    lines = [
        "digraph {",
        "\tnode [shape=box style=filled fillcolor=lightgray fontname=monospace fontsize=10 height=0.2]",
    ]

    def node_id(obj):
        if id(obj) not in ids:
            ids[id(obj)] = (f"n{len(ids)}", obj)
        return ids[id(obj)][0]

    def edge_label(meta):
        return "" if meta is None else f' [label="{_shape(meta[0])} {meta[1]}" fontsize=9]'

    todo = []
    for t in roots:
        out = node_id(t)
        lines.append(
            f"\t{out} [label={_quote(_tensor_label(names.get(id(t), 'output'), t))} fillcolor=darkolivegreen1]"
        )
        if t.grad_fn is not None:
            lines.append(f'\t{node_id(t.grad_fn)} -> {out} [label="{_shape(t.shape)} {_dtype(t)}" fontsize=9]')
            todo.append(t.grad_fn)
    seen = set()
    while todo:
        fn = todo.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        me = node_id(fn)
        label = "\n".join([type(fn).__name__, *_saved_lines(fn)])
        lines.append(f"\t{me} [label={_quote(label)}]")
        if type(fn).__name__ == "AccumulateGrad":
            leaf = getattr(fn, "variable", None)
            if leaf is not None:
                name = names.get(id(leaf), "")
                lines.append(f"\t{node_id(leaf)} [label={_quote(_tensor_label(name, leaf))} fillcolor=lightblue]")
                lines.append(f"\t{node_id(leaf)} -> {me} [style=dashed arrowhead=none]")
        for nxt, meta in _edges(fn):
            if nxt is None:
                continue
            lines.append(f"\t{node_id(nxt)} -> {me}{edge_label(meta)}")
            todo.append(nxt)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _graphviz():
    try:
        import graphviz  # type: ignore[import-untyped]
    except ImportError as e:
        raise ImportError(
            "ferrograd.viz needs the graphviz package for SVG/PNG: pip install ferrograd[viz] "
            "(and Graphviz's dot program: apt install graphviz / brew install graphviz)"
        ) from e
    return graphviz


def source(tensor, params=None):
    """The graph as a `graphviz.Source` (shows itself in Jupyter; `.render()`, `.pipe(format='png')`)."""
    return _graphviz().Source(graph(tensor, params))


def render(tensor, path, format="svg", params=None):
    """Writes the graph to `path` (without extension) as `format` (svg, png, pdf); returns the file's name."""
    return source(tensor, params).render(path, format=format, cleanup=True)
