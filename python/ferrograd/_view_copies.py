"""The `*_copy` functions (`permute_copy`, `split_copy`, ...): a view op's results as fresh contiguous tensors,
one table over the view ops; and the `unsafe_` splits, whose results share the input's memory without being
tracked as its views (as torch's). Their node runs the view's own rule under torch's name for
the copy (`PermuteBackward0_copy`: `Tensor._copy_views`, rust/core/src/ops/view_copy.rs); the single-tensor ones
take `out=` as torch's do (an out of the result's exact dtype; unlike most out= forms, inputs that require grad
are accepted, the result written without history)."""

from ._arg_errors import require_tensor
from ._write_out import _check_out, _name, write_out

# narrow_copy's out= is its own kernel: it refuses inputs that require grad, and words its dtype check otherwise
_OWN_OUT_KERNEL = {
    "narrow_copy": "Expected self.dtype() == output.dtype() to be true, but got false.  (Could this error message be "
    "improved?  If so, please report an enhancement request to PyTorch.)"
}


def _exact_dtype_rule(op, result, out):
    if result.dtype != out.dtype:
        want, got = _name(result.dtype, True), _name(out.dtype, True)
        raise RuntimeError(
            _OWN_OUT_KERNEL.get(op) or f"Expected out tensor to have dtype {want}, but got {got} instead"
        )


def _squeeze(input, dim=None):
    return input.squeeze() if dim is None else input.squeeze(dim)


def _slice(input, dim=0, start=None, end=None, step=1):
    input.size(dim)  # torch's error for a dim out of range
    return input[(slice(None),) * (dim % input.dim()) + (slice(start, end, step),)]


def _view(input, size):
    return input.reshape(size)  # torch's view_copy reshapes: non-contiguous input is accepted


def _as_strided(input, size, stride, storage_offset=None):
    return input.as_strided(size, stride, storage_offset)


def _expand(input, size, *, implicit=False):
    return input.expand(size)


# name -> (the view op with torch's parameters, grad_fn name when it is not the view rule's name + "_copy").
# The single-tensor ones take `out=`; the ones returning lists do not (torch's take a list, not supported).
_SINGLE = {
    "alias_copy": (lambda input: input.view_as(input), "AliasBackward0_copy"),
    "as_strided_copy": (_as_strided, None),
    "diagonal_copy": (lambda input, offset=0, dim1=0, dim2=1: input.diagonal(offset, dim1, dim2), None),
    "expand_copy": (_expand, None),
    "narrow_copy": (lambda input, dim, start, length: input.narrow(dim, start, length), "NarrowCopyBackward0"),
    "permute_copy": (lambda input, dims: input.permute(dims), None),
    "select_copy": (lambda input, dim, index: input.select(dim, index), None),
    "slice_copy": (_slice, None),
    "squeeze_copy": (_squeeze, None),
    "t_copy": (lambda input: input.t(), None),
    "transpose_copy": (lambda input, dim0, dim1: input.transpose(dim0, dim1), None),
    "unfold_copy": (lambda input, dimension, size, step: input.unfold(dimension, size, step), None),
    "unsqueeze_copy": (lambda input, dim: input.unsqueeze(dim), None),
    "view_copy": (_view, "ViewBackward0_copy"),
}
_SEVERAL = {
    "split_copy": (lambda input, split_size, dim=0: input.split(split_size, dim), None),
    "split_with_sizes_copy": (lambda input, split_sizes, dim=0: input.split(list(split_sizes), dim), None),
    "unbind_copy": (lambda input, dim=0: input.unbind(dim), None),
    "unsafe_chunk": (lambda input, chunks, dim=0: input.chunk(chunks, dim), "UnsafeSplitBackward0"),
    "unsafe_split": (lambda input, split_size, dim=0: input.split(split_size, dim), "UnsafeSplitBackward0"),
    "unsafe_split_with_sizes": (
        lambda input, split_sizes, dim=0: input.split(list(split_sizes), dim),
        "UnsafeSplitWithSizesBackward0",
    ),
}


def _copies(name, view, grad_fn, input, args, kwargs):
    require_tensor(input, name, "input", 1)
    views = view(input, *args, **kwargs)
    views = list(views) if isinstance(views, (tuple, list)) else [views]
    node = views[0].grad_fn if views else None
    if grad_fn is None and node is not None:
        grad_fn = node.name() + "_copy"
    return input._copy_views(views, grad_fn or "", name.startswith("unsafe_"))


def _single(name, view, grad_fn):
    def copy(input, *args, out=None, **kwargs):
        if out is not None and name in _OWN_OUT_KERNEL:
            _check_out(name, out, (input, *args), kwargs)
        elif out is not None:
            require_tensor(out, name, "out")
        (result,) = _copies(name, view, grad_fn, input, args, kwargs)
        return result if out is None else write_out(name, out, result, _exact_dtype_rule)

    copy.__wrapped__ = view  # its parameters are the view's (and `out=`)
    return copy


def _several(name, view, grad_fn):
    def copies(input, *args, **kwargs):
        return _copies(name, view, grad_fn, input, args, kwargs)

    copies.__wrapped__ = view  # its parameters are the view's
    return copies


def detach_copy(input, *, out=None):
    """A contiguous copy of `input` without its history."""
    require_tensor(input, "detach_copy", "input", 1)
    detached = input.detach()
    result = detached.clone() if detached.is_contiguous() else detached.contiguous()
    if out is None:
        return result
    require_tensor(out, "detach_copy", "out")
    return write_out("detach_copy", out, result, _exact_dtype_rule)


def _build():
    made = {}
    for table, factory in ((_SINGLE, _single), (_SEVERAL, _several)):
        for name, (view, grad_fn) in table.items():
            fn = factory(name, view, grad_fn)
            fn.__name__ = fn.__qualname__ = name
            fn.__module__ = __name__
            fn.__doc__ = f"torch.{name}: the view's result as a fresh contiguous tensor."
            made[name] = fn
    return made


globals().update(_build())
__all__ = sorted([*_SINGLE, *_SEVERAL, "detach_copy"])
