"""`torch._dynamo.explain(f)(*args)`: runs `f` once under a fresh capture and reports what `compile` makes of it,
in torch's `ExplainOutput` (its fields and its printout). ferrograd captures a function whole or not at all: a
break makes the call eager (torch instead runs the graphs around it), so a function reports one graph and no
break, or no graph and the one break that stopped it."""

import dataclasses
import time
import warnings

from .capture import _EAGER, CompiledFunction


@dataclasses.dataclass
class GraphCompileReason:
    """Why a capture stopped (torch's fields; `user_stack` stays empty: the core does not keep Python frames)."""

    reason: str
    user_stack: list = dataclasses.field(default_factory=list)
    graph_break: bool = True


@dataclasses.dataclass
class ExplainOutput:
    """What `explain` found: the captured graphs (`CompiledGraph`s, whose `describe()` lists the nodes), their
    count, the breaks and their reasons, the ops in each graph."""

    graphs: list
    graph_count: int
    graph_break_count: int
    break_reasons: list
    op_count: int
    ops_per_graph: list | None = None
    out_guards: list | None = None
    compile_times: str | None = None

    def __str__(self):
        lines = [
            f"Graph Count: {self.graph_count}",
            f"Graph Break Count: {self.graph_break_count}",
            f"Op Count: {self.op_count}",
            "Break Reasons:",
        ]
        for i, reason in enumerate(self.break_reasons, 1):
            lines += [f"  Break Reason {i}:", f"    Reason: {reason.reason}", "    User Stack:"]
            lines += [f"      {frame}" for frame in reason.user_stack]
        if self.ops_per_graph is not None:
            lines.append("Ops per Graph:")
            for i, ops in enumerate(self.ops_per_graph, 1):
                lines.append(f"  Ops {i}:")
                lines += [f"    {op}" for op in ops]
        if self.compile_times is not None:
            lines.append(f"Compile Times: {self.compile_times}")
        return "\n".join(lines) + "\n"


def explain(f, *extra_args, **extra_kwargs):
    """torch's `explain`: `explain(f)(*args, **kwargs)` (the older `explain(f, *args)` form is accepted too)."""

    def inner(*args, **kwargs):
        module = f if hasattr(f, "_parameters") and hasattr(f, "_call_impl") else None
        compiled = CompiledFunction(f._call_impl if module is not None else f, False, None, module)
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the break is reported here, not warned
            compiled(*args, **kwargs)
        seconds = time.perf_counter() - start
        graphs = [entry[0] for entry in compiled.cache.values() if entry is not _EAGER]
        reasons = [GraphCompileReason(compiled.break_reason)] if compiled.break_reason is not None else []
        ops = [g.ops for g in graphs]
        return ExplainOutput(
            graphs=graphs,
            graph_count=len(graphs),
            graph_break_count=len(reasons),
            break_reasons=reasons,
            op_count=sum(len(o) for o in ops),
            ops_per_graph=ops,
            compile_times=f"capture and first run: {seconds:.6f} s",
        )

    if extra_args or extra_kwargs:
        warnings.warn(
            "explain(f, *args, **kwargs) is deprecated, use explain(f)(*args, **kwargs) instead.",
            FutureWarning,
            stacklevel=2,
        )
        return inner(*extra_args, **extra_kwargs)
    return inner
