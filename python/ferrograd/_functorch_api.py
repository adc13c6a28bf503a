"""What `import functorch` gives a program run through tools/run_as_torch.py: torch.func's transforms under their
pre-2.0 names, each warning as functorch does that it moved to `torch.func`, and `make_functional` /
`make_functional_with_buffers` (a module turned into a function of its parameters, through `functional_call`)."""

import copy
import functools
import warnings

from . import func as _func

__all__ = [
    "vmap",
    "grad",
    "grad_and_value",
    "vjp",
    "jvp",
    "jacrev",
    "jacfwd",
    "hessian",
    "make_functional",
    "make_functional_with_buffers",
    "combine_state_for_ensemble",
    "FunctionalModule",
    "FunctionalModuleWithBuffers",
]


def _warn(api, new_api=None):
    new_api = new_api or f"torch.func.{api}"
    warnings.warn(
        f"We've integrated functorch into PyTorch. As the final step of the integration, `functorch.{api}` is "
        f"deprecated as of PyTorch 2.0 and will be deleted in a future version of PyTorch >= 2.3. Please use "
        f"`{new_api}` instead; see the PyTorch 2.0 release notes and/or the `torch.func` migration guide for more "
        "details https://pytorch.org/docs/main/func.migrating.html",
        FutureWarning,
        stacklevel=3,
    )


def _deprecated(name, target, new_api=None):
    @functools.wraps(target)
    def wrapper(*args, **kwargs):
        _warn(name, new_api)
        return target(*args, **kwargs)

    return wrapper


vmap = _deprecated("vmap", _func.vmap, "torch.vmap")
grad = _deprecated("grad", _func.grad)
grad_and_value = _deprecated("grad_and_value", _func.grad_and_value)
vjp = _deprecated("vjp", _func.vjp)
jvp = _deprecated("jvp", _func.jvp)
jacrev = _deprecated("jacrev", _func.jacrev)
jacfwd = _deprecated("jacfwd", _func.jacfwd)
hessian = _deprecated("hessian", _func.hessian)


class FunctionalModule:
    """`fmodel(params, *args)`: a stateless copy of a module called with the given parameters."""

    def __init__(self, stateless_model, param_names):
        self.stateless_model = stateless_model
        self.param_names = param_names

    def __call__(self, params, *args, **kwargs):
        return _func.functional_call(self.stateless_model, dict(zip(self.param_names, params)), args, kwargs)


class FunctionalModuleWithBuffers(FunctionalModule):
    """`fmodel(params, buffers, *args)`."""

    def __init__(self, stateless_model, param_names, buffer_names):
        super().__init__(stateless_model, param_names)
        self.buffer_names = buffer_names

    def __call__(self, params, buffers, *args, **kwargs):
        tensors = dict(zip(self.param_names, params))
        tensors.update(zip(self.buffer_names, buffers))
        return _func.functional_call(self.stateless_model, tensors, args, kwargs)


def _state(model, disable_autograd_tracking):
    names, params = zip(*model.named_parameters()) if list(model.parameters()) else ((), ())
    if disable_autograd_tracking:
        params = tuple(p.detach() for p in params)
    return copy.deepcopy(model), tuple(names), tuple(params)


def make_functional(model, disable_autograd_tracking=False):
    """`(fmodel, params)`: `fmodel(params, *args)` runs `model` with `params` in place of its parameters."""
    _warn("make_functional", "torch.func.functional_call")
    stateless, names, params = _state(model, disable_autograd_tracking)
    return FunctionalModule(stateless, names), params


def make_functional_with_buffers(model, disable_autograd_tracking=False):
    """`(fmodel, params, buffers)`: `fmodel(params, buffers, *args)` runs `model` with those tensors."""
    _warn("make_functional_with_buffers", "torch.func.functional_call")
    stateless, names, params = _state(model, disable_autograd_tracking)
    named_buffers = list(model.named_buffers())
    buffer_names = tuple(n for n, _ in named_buffers)
    buffers = tuple(b for _, b in named_buffers)
    return FunctionalModuleWithBuffers(stateless, names, buffer_names), params, buffers


def combine_state_for_ensemble(models):
    """`(fmodel, params, buffers)` with every parameter and buffer stacked over `models` (dim 0)."""
    _warn("combine_state_for_ensemble", "torch.func.stack_module_state")
    params, buffers = _func.stack_module_state(models)
    model = copy.deepcopy(models[0])
    names = tuple(n for n, _ in model.named_parameters())
    buffer_names = tuple(n for n, _ in model.named_buffers())
    return (
        FunctionalModuleWithBuffers(model, names, buffer_names),
        tuple(params[n] for n in names),
        tuple(buffers[n] for n in buffer_names),
    )
