"""`vmap`: maps a function over a dimension of its inputs.

ferrograd has no batching rules: `vmap` runs the function once per batch element (each call a whole-tensor
computation in Rust on one sample's slices) and stacks the results along `out_dims`. That is the fallback torch
itself uses for an operator without a batching rule; the results, the handling of `in_dims`/`out_dims` and
pytrees, and the errors are torch's, the speed is that of a Python loop over samples (see docs/PROGRAMS.md's
per-sample-gradients row for the ratio). `randomness="error"` raises torch's error when the default generator
moved during a call (and puts it back); "same" replays the generator's state for every element, "different"
lets it run on.
"""

from .. import _core, random
from .._core import Tensor
from .._tensor_helpers import _equal
from ..utils._pytree import _broadcast_to_and_flatten, tree_flatten, tree_unflatten

__all__ = ["vmap"]


def _name(func):
    return getattr(func, "__name__", repr(func))


def _flat_in_dims(func, in_dims, args):
    name = _name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a (potentially nested) "
            f"tuple matching the structure of inputs, got: {type(in_dims)}."
        )
    if len(args) == 0:
        raise ValueError(
            f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are trying to vmap over "
            "a function with no inputs. The latter is unsupported."
        )
    flat_args, args_spec = tree_flatten(args)
    flat_dims = _broadcast_to_and_flatten(in_dims, args_spec)
    if flat_dims is None:
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the structure of "
            f"`inputs`. in_dims has structure {tree_flatten(in_dims)[1]} but inputs has structure {args_spec}."
        )
    dims = []
    for arg, d in zip(flat_args, flat_dims):
        if not (d is None or isinstance(d, int)):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but in_dim must be "
                "either an integer dimension or None."
            )
        if isinstance(d, int) and not isinstance(arg, Tensor):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but the input is of "
                f"type {type(arg)}. We cannot vmap over non-Tensor arguments, please use None as the respective "
                "in_dim"
            )
        if d is not None and not -arg.dim() <= d < arg.dim():
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, but that input is a "
                f"Tensor of dimensionality {arg.dim()} so expected in_dim to satisfy -{arg.dim()} <= in_dim < "
                f"{arg.dim()}."
            )
        dims.append(None if d is None else d % arg.dim())
    return flat_args, args_spec, dims


def _batch_size(flat_args, dims):
    sizes = [a.size(d) for a, d in zip(flat_args, dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(
            f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes {sizes} for the "
            "mapped dimension"
        )
    return sizes[0]


def _flat_out_dims(func, out_dims, out_spec):
    if isinstance(out_dims, int) or out_dims is None:
        return [out_dims] * out_spec.num_leaves
    if isinstance(out_dims, tuple):
        flat = _broadcast_to_and_flatten(out_dims, out_spec)
        if flat is None and out_spec.is_leaf() and len(out_dims) == 1:
            flat = [out_dims[0]]
        if flat is None:
            raise ValueError(
                f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
                f"structure of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]} but outputs has "
                f"structure {out_spec}."
            )
        return flat
    raise ValueError(
        f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a python collection of "
        "ints representing where in the outputs the vmapped dimension should appear."
    )


def _same_everywhere(values):
    first = values[0]
    for v in values[1:]:
        if v is first:
            continue
        if isinstance(v, Tensor) and isinstance(first, Tensor):
            if tuple(v.shape) != tuple(first.shape) or not _equal(v, first):
                return False
        elif v != first:
            return False
    return True


def _stack_outputs(func, outputs, out_dims, empty):
    name = _name(func)
    flats = [tree_flatten(o)[0] for o in outputs]
    out_spec = tree_flatten(outputs[0])[1]
    dims = _flat_out_dims(func, out_dims, out_spec)
    result = []
    for k, d in enumerate(dims):
        values = [f[k] for f in flats]
        if d is None:
            if isinstance(values[0], Tensor) and not empty and not _same_everywhere(values):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
            result.append(values[0])
            continue
        if not isinstance(values[0], Tensor):
            raise ValueError(
                f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(values[0])}. Did you mean to "
                "set out_dims= to None for output?"
            )
        stacked = _core.stack(values, d % (values[0].dim() + 1))
        if empty:
            stacked = stacked.narrow(d % stacked.dim(), 0, 0)
        result.append(stacked)
    return tree_unflatten(result, out_spec)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Returns `func` mapped over dim `in_dims` of its inputs (an int, None, or a pytree prefix of the arguments
    with ints and Nones), its outputs stacked along `out_dims`. A loop over the batch: see the module's text."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if chunk_size is not None and chunk_size < 1:
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    def wrapped(*args, **kwargs):
        flat_args, args_spec, dims = _flat_in_dims(func, in_dims, args)
        size = _batch_size(flat_args, dims)
        empty = size == 0
        if empty:
            # the function still runs once, on zeros shaped like one element, to give the outputs' structure
            slices = [None if d is None else [_one(a, d)] for a, d in zip(flat_args, dims)]
            size = 1
        else:
            slices = [None if d is None else a.unbind(d) for a, d in zip(flat_args, dims)]
        state = random.get_rng_state() if randomness != "different" else None
        outputs = []
        for i in range(size):
            if randomness == "same":
                random.set_rng_state(state)
            flat_i = [a if s is None else s[i] for a, s in zip(flat_args, slices)]
            outputs.append(func(*tree_unflatten(flat_i, args_spec), **kwargs))
            if randomness == "error" and not _equal(random.get_rng_state(), state):
                # torch refuses the draw before it happens: put the generator back as it was
                random.set_rng_state(state)
                raise RuntimeError(
                    "vmap: called random operation while in randomness error mode. Please either use the 'same' or "
                    "'different' randomness flags on vmap or perform the randomness operation out of vmap"
                )
        return _stack_outputs(func, outputs, out_dims, empty)

    for attr in ("__name__", "__qualname__", "__doc__"):
        if hasattr(func, attr):
            setattr(wrapped, attr, getattr(func, attr))
    return wrapped


def _one(a, d):
    shape = list(a.shape)
    del shape[d]
    return _core.zeros(tuple(shape), dtype=a.dtype)
