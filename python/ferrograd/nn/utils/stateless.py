"""`ferrograd.nn.utils.stateless`: the pre-2.0 home of `functional_call`, deprecated in favour of
`ferrograd.func.functional_call` (whose defaults it shares, but for `tie_weights`, True in both)."""

import warnings

__all__ = ["functional_call"]


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """Calls `module(*args, **kwargs)` with its parameters and buffers replaced by `parameters_and_buffers`."""
    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed in a future "
        "version of PyTorch. Please use `torch.func.functional_call` instead which is a drop-in replacement.",
        FutureWarning,
        stacklevel=2,
    )
    from ...func._functional_call import _call  # on first use: `import ferrograd.nn` does not load torch.func

    return _call(module, parameters_and_buffers, args, kwargs, tie_weights, strict)
