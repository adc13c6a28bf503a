"""Tensor methods about a tensor's memory rather than its values, composed of what the core has: `dim_order`,
`is_set_to`, `new_empty_strided`, `module_load`, the pinned/distributed queries of a CPU tensor, `resize_as_`
(over the core's `resize_`), the sparse queries and refusals of a dense one, and the Python-callable fills
`apply_`, `map_` and `map2_` (installed on `Tensor` by `_tensor_python`). `data_ptr` is the core's
(`tensor/protocols.rs`); `share_memory_`, `is_shared` and `resize_` are the core's (`tensor/memory.rs`)."""

import builtins
import numbers

from . import _core, _memory_format, _utils
from ._arg_errors import type_name
from ._core import Tensor
from ._misc_functions import empty_strided
from .grad_mode import no_grad

# what a CPU-only torch says when asked to pin memory: there is no accelerator to pin it for
NO_ACCELERATOR = "Cannot access accelerator device when none is available."


def dim_order(self, *, ambiguity_check=False) -> "tuple[builtins.int, ...]":
    """The dims from outermost to innermost in memory, ordered as torch orders an elementwise result's dims."""
    if not isinstance(ambiguity_check, (builtins.bool, list)):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    check = ambiguity_check if isinstance(ambiguity_check, builtins.bool) else True
    if check and _several_orders(self) and builtins.sum(self.is_contiguous(memory_format=f) for f in formats) != 1:
        raise RuntimeError(
            "The tensor does not have unique dim order, or cannot map to exact one of the given memory formats."
        )
    if self.dim() < 2:
        return tuple(builtins.range(self.dim()))
    contiguous = self.is_contiguous()
    channels_last = self.dim() == 4 and self.is_contiguous(memory_format=_memory_format.channels_last)
    if contiguous and not channels_last:
        return tuple(builtins.range(self.dim()))
    if channels_last and not contiguous:
        return (0, 2, 3, 1)
    shape, strides = self.shape, self.stride()
    inner_first = _inner_first_order(shape, strides)
    pairs = zip(inner_first, inner_first[1:])
    if check and builtins.any(_should_swap(a, b, shape, strides) != -1 for a, b in pairs):
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(builtins.reversed(inner_first))


def _several_orders(t):
    # a size-1 dim, or two neighbouring dims with one stride, could sit anywhere in the order
    strides = t.stride()
    return builtins.any(a == b for a, b in zip(strides, strides[1:])) or builtins.any(s == 1 for s in t.shape)


def _at_least(a, b):
    return b == 0 or (a != 0 and (a >= b or a % b == 0))


def _should_swap(a, b, shape, strides):
    """For dim `a` listed inside dim `b`: 1 when `a` belongs outside it, -1 when inside, 0 when it cannot be
    told (a zero stride, or equal strides whose sizes do not decide)."""
    sa, sb = strides[a], strides[b]
    if sa == 0 or sb == 0:
        return 0
    if sa == sb:
        return 0 if _at_least(shape[b], shape[a]) else 1
    if _at_least(sb, sa):
        return -1
    return 1 if _at_least(sa, sb) else 0


def _inner_first_order(shape, strides):
    # insertion sort from the last dim, leaving pairs it cannot order where they are
    order = list(builtins.reversed(builtins.range(len(shape))))
    for i in builtins.range(1, len(shape)):
        moving = i
        for j in builtins.reversed(builtins.range(i)):
            verdict = _should_swap(order[j], order[moving], shape, strides)
            if verdict > 0:
                order[j], order[moving] = order[moving], order[j]
                moving = j
            elif verdict < 0:
                break
    return order


def is_set_to(self, tensor) -> builtins.bool:
    """Whether `tensor` is the same view of the same memory: storage, offset, sizes and strides."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"is_set_to(): argument 'tensor' (position 1) must be Tensor, not {type_name(tensor)}")
    return (
        _core._storage_key(self)[0] == _core._storage_key(tensor)[0]
        and self.storage_offset() == tensor.storage_offset()
        and tuple(self.shape) == tuple(tensor.shape)
        and self.stride() == tensor.stride()
    )


def new_empty_strided(
    self, size, stride, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False
) -> Tensor:
    """An uninitialised tensor of `size` laid out with `stride`, of this tensor's dtype unless given."""
    return empty_strided(
        size,
        stride,
        dtype=self.dtype if dtype is None else dtype,
        device=self.device if device is None else device,
        requires_grad=requires_grad,
        layout=layout,
        pin_memory=pin_memory,
    )


@_utils.tensor_arguments
def module_load(self, other, assign=False) -> Tensor:
    """What `load_state_dict` swaps in for this parameter or buffer: `other` detached if `assign`, else this
    tensor with `other` copied in, detached (torch's default, for `torch.__future__`'s swap mode)."""
    if assign:
        return other.detach()
    with no_grad():
        return self.copy_(other).detach()


def is_pinned(self, device=None) -> builtins.bool:
    """Whether the tensor sits in page-locked memory for an accelerator: never here, there is none."""
    return False


def pin_memory(self, device=None) -> Tensor:
    """Page-locks the memory for an accelerator: torch's CPU-only error, as there is no accelerator."""
    raise RuntimeError(NO_ACCELERATOR)


def resize_as_(self, the_template, memory_format=None) -> Tensor:
    """Resizes in place to `the_template`'s size (`resize_`); `preserve_format` takes the template's memory
    format (channels-last when it is laid out so), as torch's."""
    if not isinstance(the_template, Tensor):
        raise TypeError(
            f"resize_as_(): argument 'the_template' (position 1) must be Tensor, not {type_name(the_template)}"
        )
    if memory_format is _memory_format.preserve_format:
        memory_format = _suggested_format(the_template)
    return self.resize_(the_template.shape, memory_format=memory_format)


def _suggested_format(t):
    for format, rank in ((_memory_format.channels_last, 4), (_memory_format.channels_last_3d, 5)):
        if t.dim() == rank and not t.is_contiguous() and t.is_contiguous(memory_format=format):
            return format
    return _memory_format.contiguous_format


def _not_sparse(name, wanted):
    def refuse(self, *args, **kwargs):
        raise RuntimeError(f"{name} expected {wanted} layout but got Strided")

    refuse.__name__ = name
    refuse.__doc__ = f"Of a sparse tensor only: a dense one is refused, as by torch's `{name}`."
    return refuse


def _check_fill_target(self, name):
    if self.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")


def _check_callable(fn):
    if not builtins.callable(fn):
        raise TypeError(f"'{type_name(fn)}' object is not callable")


def _real(value):
    if not isinstance(value, numbers.Real):
        raise TypeError(f"must be real number, not {type_name(value)}")
    return value


def _fill_from_python(self, values):
    # the callable's results take this tensor's dtype as a number written into it would (1.5 → 1 for ints),
    # straight from the Python numbers: no float64 step that would round int64 values past 2**53
    filled = _core.tensor(values, dtype=self.dtype).reshape(self.shape)
    with no_grad():
        self.copy_(filled)
    return self


def _operand(self, other, name, position, method):
    if not isinstance(other, Tensor):
        raise TypeError(f"{method}(): argument '{name}' (position {position}) must be Tensor, not {type_name(other)}")
    if other.dtype != self.dtype:
        raise TypeError(
            f"{method}: expected torch.{self.dtype._legacy_name} for '{name}' (got torch.{other.dtype._legacy_name})"
        )
    return other.expand(self.shape).flatten().tolist()


def apply_(self, callable) -> Tensor:
    """Replaces each element by `callable(element)` (a Python function per element: slow by nature, as torch's)."""
    _check_fill_target(self, "apply_")
    _check_callable(callable)
    return _fill_from_python(self, [_real(callable(v)) for v in self.flatten().tolist()])


def map_(self, tensor, callable) -> Tensor:
    """Replaces each element `a` by `callable(a, b)`, `b` the matching element of `tensor` broadcast to self."""
    _check_fill_target(self, "map_")
    b = _operand(self, tensor, "other", 1, "map_")
    _check_callable(callable)
    return _fill_from_python(self, [_real(callable(x, y)) for x, y in zip(self.flatten().tolist(), b)])


def map2_(self, x, y, callable) -> Tensor:
    """Replaces each element `a` by `callable(a, b, c)` over `x` and `y` broadcast to self."""
    _check_fill_target(self, "map2_")
    b = _operand(self, x, "x", 1, "map2_")
    c = _operand(self, y, "y", 2, "map2_")
    _check_callable(callable)
    values = [_real(callable(a, p, q)) for a, p, q in zip(self.flatten().tolist(), b, c)]
    return _fill_from_python(self, values)


TENSOR_ATTRIBUTES: dict[str, object] = {
    "dim_order": dim_order,
    "is_set_to": is_set_to,
    "new_empty_strided": new_empty_strided,
    "module_load": module_load,
    "is_pinned": is_pinned,
    "pin_memory": pin_memory,
    "resize_as_": resize_as_,
    "is_distributed": lambda self: False,
    "sparse_dim": lambda self: 0,
    "dense_dim": lambda self: self.dim(),
    "indices": _not_sparse("indices", "sparse coordinate tensor"),
    "values": _not_sparse("values", "sparse tensor"),
    "coalesce": _not_sparse("coalesce", "sparse coordinate tensor"),
    "apply_": apply_,
    "map_": map_,
    "map2_": map2_,
}
