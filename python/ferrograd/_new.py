"""`Tensor.new_ones/new_zeros/new_full/new_empty/new_tensor`: a new tensor of this one's dtype (unless given)."""

from . import _core, _device, _utils


def _made(t, requires_grad):
    return t.requires_grad_() if requires_grad else t


def new_ones(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    return _made(
        _core.ones(*_sizes(size), dtype=dtype or self.dtype, device=_device.of_like(self, device)), requires_grad
    )


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    return _made(
        _core.zeros(*_sizes(size), dtype=dtype or self.dtype, device=_device.of_like(self, device)), requires_grad
    )


def new_empty(self, *args, size=None, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    return _made(
        _core.zeros(
            *_sizes(_utils.size_given(args, size, "new_empty")),
            dtype=dtype or self.dtype,
            device=_device.of_like(self, device),
        ),
        requires_grad,
    )


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    return _made(
        _core.full(size, fill_value, dtype=dtype or self.dtype, device=_device.of_like(self, device)), requires_grad
    )


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    if isinstance(data, _core.Tensor):
        import warnings

        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
        t = data.detach().clone().to(dtype or self.dtype)
    else:
        t = _core.tensor(data, dtype=dtype or self.dtype, device=_device.of_like(self, device))
    return _made(t, requires_grad)


def _sizes(size):
    """`new_ones(2, 3)`, `new_ones((2, 3))`, `new_ones([2, 3])` and `new_ones(torch.Size(...))` alike."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return size


# installed on `Tensor` by `_tensor_python`
TENSOR_ATTRIBUTES = {f.__name__: f for f in (new_ones, new_zeros, new_empty, new_full, new_tensor)}
