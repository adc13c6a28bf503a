"""`functional_call` and `stack_module_state`: calling a module with other parameters and buffers, swapped in for
the call and put back afterwards (also `torch.nn.utils.stateless.functional_call`)."""

import contextlib
from collections.abc import Sequence

from .. import _core
from .._core import Tensor

__all__ = ["functional_call", "stack_module_state"]

_MISSING = object()


def _named_tensors(module):
    """Every parameter and buffer by dotted name, shared ones under each of their names (one walk of the tree)."""
    named = {}
    for prefix, sub in module.named_modules(remove_duplicate=False):
        dot = prefix + "." if prefix else ""
        for store in (sub._parameters, sub._buffers):
            for name, t in store.items():
                if t is not None:
                    named[dot + name] = t
    return named


def _untie(module, tensors):
    """`tensors` with every name tied to a given name (the same tensor under two names in `module`) given too."""
    names_of = {}
    for name, t in _named_tensors(module).items():
        names_of.setdefault(id(t), set()).add(name)
    tied = {n: names for names in names_of.values() if len(names) > 1 for n in names}
    given_tied = [n for n in tensors if n in tied]
    if not given_tied:
        return tensors
    for name in given_tied:
        names = tied[name]
        if len(names.intersection(given_tied)) > 1 and len({id(tensors[n]) for n in names if n in tensors}) != 1:
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(names)}, which are tied. "
                "Consider using tie_weights=False"
            )
    untied = dict(tensors)
    for name in given_tied:
        for other in tied[name]:
            untied[other] = tensors[name]
    return untied


def _owner(module, name):
    *path, attr = name.split(".")
    for part in path:
        # the submodule dict first: Module.__getattr__ is the slow way to the same object
        module = module._modules[part] if part in module._modules else getattr(module, part)
    return module, attr


def _swap(module, name, value):
    """Puts `value` at `name` (a dotted path) and returns what was there (`_MISSING` if nothing)."""
    owner, attr = _owner(module, name)
    if value is not _MISSING and value is not None and not isinstance(value, Tensor):
        raise TypeError(f"{value} is not an instance of torch.Tensor")
    for store in (owner._parameters, owner._buffers):
        if attr in store:
            old = store[attr]
            if value is _MISSING:
                del store[attr]
            else:
                store[attr] = value
            return old
    old = getattr(owner, attr, _MISSING)
    if value is _MISSING:
        if old is not _MISSING:
            delattr(owner, attr)
    else:
        # a plain attribute, not registered: what the module's forward reads is all that matters here
        setattr(owner, attr, value)
    return old


@contextlib.contextmanager
def _reparametrize(module, tensors, tie_weights, strict):
    if tie_weights:
        tensors = _untie(module, tensors)
    if strict:
        valid = set(_named_tensors(module))
        missing, unexpected = sorted(valid - set(tensors)), sorted(set(tensors) - valid)
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            details = "\n\t".join(msgs)
            raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t{details}")
    originals = {}
    try:
        for name, value in tensors.items():
            originals[name] = _swap(module, name, value)
        yield
    finally:
        for name, old in reversed(list(originals.items())):
            _swap(module, name, old)


def _call(module, tensors, args, kwargs, tie_weights, strict):
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize(module, tensors, tie_weights, strict):
        return module(*args, **kwargs)


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """Calls `module(*args, **kwargs)` with its parameters and buffers replaced by the given ones (a dict, or a
    tuple or list of dicts, keyed by `named_parameters`' names); the module is unchanged afterwards."""
    if isinstance(parameter_and_buffer_dicts, dict):
        tensors = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        counts = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        tensors = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, "
            f"but got {type(parameter_and_buffer_dicts)}"
        )
    return _call(module, tensors, args, kwargs, tie_weights, strict)


def _stacked_leaf(tensors, name):
    grads = [t.requires_grad for t in tensors]
    if any(grads) and not all(grads):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = _core.stack(list(tensors))
    if all(grads):
        result = result.detach().requires_grad_()
    return result


def stack_module_state(models):
    """`(params, buffers)`: each parameter and buffer of the same-class `models`, stacked along a new dim 0 (the
    stacked parameters are new leaves), ready for `vmap(functional_call ...)` over an ensemble."""
    models = list(models)
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: _stacked_leaf([p[k] for p in all_params], k) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: _stacked_leaf([b[k] for b in all_buffers], k) for k in all_buffers[0]}
    return params, buffers
