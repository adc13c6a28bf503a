"""`ferrograd.compile` (`torch.compile`): here so that `import ferrograd` does not load `nn`; the work is in
`_dynamo.eval_frame`."""


def compile(  # torch's name
    model=None,
    *,
    fullgraph=False,
    dynamic=None,
    backend="inductor",
    mode=None,
    options=None,
    name=None,
    disable=False,
    recompile_limit=None,
    isolate_recompiles=False,
    dynamic_shapes=None,
):
    """torch's `compile`: a model (`nn.Module` or function), or a decorator when called without one. Checks
    torch's arguments, then returns a wrapper (`OptimizedModule` for a module) that captures the model's graph
    on its first call for each guard set and replays it in Rust; what cannot be captured runs eagerly."""
    from ._dynamo.eval_frame import compile as compile_eagerly

    return compile_eagerly(
        model,
        fullgraph=fullgraph,
        dynamic=dynamic,
        backend=backend,
        mode=mode,
        options=options,
        name=name,
        disable=disable,
        recompile_limit=recompile_limit,
        isolate_recompiles=isolate_recompiles,
        dynamic_shapes=dynamic_shapes,
    )
