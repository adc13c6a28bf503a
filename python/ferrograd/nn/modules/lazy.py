"""Lazy modules: layers whose input size is read from the first input (`LazyLinear(10)` learns `in_features` on
its first call). Until then their parameters are `UninitializedParameter`s; the first forward (or loading a state
dict) gives them their shapes, initialises them as the plain layer would, and turns the module into that layer
(`LazyLinear` becomes `Linear`), as torch's `LazyModuleMixin` does."""

import itertools

from ... import _core
from ..._arg_errors import require_tensor
from ...grad_mode import no_grad
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, _NormBase
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .linear import Linear

__all__ = [
    "LazyModuleMixin",
    "LazyLinear",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "LazyInstanceNorm1d",
    "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
]


class LazyModuleMixin:
    """A module whose parameters get their shapes from its first input (`initialize_parameters`), then becomes
    `cls_to_become`."""

    cls_to_become: "type | None" = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._register_lazy_hooks()

    def _register_lazy_hooks(self):
        self._load_hook = self.register_load_state_dict_pre_hook(LazyModuleMixin._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(LazyModuleMixin._infer_parameters, with_kwargs=True)

    def __call__(self, *args, **kwargs):
        # a first call whose forward fails after the hook gave the parameters their shapes (an input of the wrong
        # dtype) leaves the module as it was, uninitialized, as a failing call leaves every tensor
        if not self.has_uninitialized_params():
            return super().__call__(*args, **kwargs)
        before = _Uninitialized(self)
        try:
            return super().__call__(*args, **kwargs)
        except BaseException:
            before.restore(self)
            raise

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # an uninitialized parameter is saved as it is (detach() would need its data)
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if is_lazy(param) or keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        """Loading initialised values gives the uninitialized parameters their shapes first."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param) and not is_lazy(state_dict[key]):
                with no_grad():
                    self._materialize(name, state_dict[key].shape)

    def _uninitialized_weight_and_bias(self, bias, device, dtype):
        """`weight` (and `bias`) as uninitialized parameters, in place of the plain layer's empty ones."""
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def _materialize(self, name, shape):
        """Gives the parameter or buffer `name` its shape. A buffer becomes a plain tensor, as torch's does (a
        tensor object cannot become the core's `Tensor` class in place)."""
        if name in self._buffers:
            lazy = self._buffers[name]
            self._buffers[name] = _core.zeros(shape, dtype=lazy.data.dtype)
        else:
            self._parameters[name].materialize(shape)

    def initialize_parameters(self, *args, **kwargs):
        """Gives the uninitialized parameters their shapes from the first input (each lazy layer defines it)."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        """Whether a parameter or buffer still has no shape."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, args, kwargs=None):
        """The forward pre-hook of the first call: initialise, drop the hooks, become the plain layer."""
        # the layers read their sizes from the first argument: a tensor, or torch's TypeError
        require_tensor(args[0] if args else None, f"{self._get_name()}.forward", "input", 0)
        self.initialize_parameters(*args, **(kwargs or {}))
        if self.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        self._initialize_hook.remove()
        self._load_hook.remove()
        delattr(self, "_initialize_hook")
        delattr(self, "_load_hook")
        if self.cls_to_become is not None:
            self.__class__ = self.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError(
            "Modules with uninitialized parameters can't be used with `DataParallel`. Run a dummy forward pass to "
            "correctly initialize the modules"
        )


_PLAIN = (int, float, bool, str, tuple, type(None))


class _Uninitialized:
    """A lazy module before its first call: its class, sizes, parameters and buffers, to put back when that call
    fails after the hook initialised them."""

    def __init__(self, module):
        self.cls = type(module)
        self.attributes = {k: v for k, v in module.__dict__.items() if isinstance(v, _PLAIN)}
        self.parameters = dict(module._parameters)
        self.buffers = dict(module._buffers)
        tensors = itertools.chain(self.parameters.values(), self.buffers.values())
        self.lazy = [(t, type(t), t.data.dtype) for t in tensors if is_lazy(t)]

    def restore(self, module):
        for t, cls, dtype in self.lazy:
            if not is_lazy(t):  # materialized in place: no data and its old class again
                t.data = _core.zeros(0, dtype=dtype)
                t.__class__ = cls
        module._parameters.clear()
        module._parameters.update(self.parameters)
        module._buffers.clear()
        module._buffers.update(self.buffers)
        module.__dict__.update(self.attributes)
        if "_initialize_hook" not in module.__dict__:
            LazyModuleMixin._register_lazy_hooks(module)
        module.__class__ = self.cls


class LazyLinear(LazyModuleMixin, Linear):
    """`Linear` whose `in_features` is the last size of its first input."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        self.out_features = out_features
        self._uninitialized_weight_and_bias(bias, device, dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(
                    f"The in_features inferred from input: {input.shape[-1]} is not equal to in_features from "
                    f"self.weight: {self.weight.shape[-1]}"
                )
            self.in_features = input.shape[-1]


class _LazyConvXdMixin(LazyModuleMixin):
    """A convolution whose `in_channels` is its first input's channel count (`_dims`: the layer's)."""

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            with no_grad():
                if self.transposed:
                    shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
                else:
                    shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
                self.weight.materialize(shape)
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()

    def _get_in_channels(self, input):
        unbatched = self._dims + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(
                f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to "
                f"{self.__class__.__name__}, but got input of size: {input.shape}"
            )
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]


class _LazyConv(_LazyConvXdMixin):
    def __init__(
        self,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        bias=True,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
        self.out_channels = out_channels
        self._uninitialized_weight_and_bias(bias, device, dtype)


class _LazyConvTranspose(_LazyConvXdMixin):
    def __init__(
        self,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups=1,
        bias=True,
        dilation=1,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        super().__init__(
            0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode, device, dtype
        )
        self.out_channels = out_channels
        self._uninitialized_weight_and_bias(bias, device, dtype)


class LazyConv1d(_LazyConv, Conv1d):
    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    cls_to_become = Conv2d


class LazyConv3d(_LazyConv, Conv3d):
    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    cls_to_become = ConvTranspose3d


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """A batch or instance norm whose `num_features` is its first input's channel count."""

    def __init__(
        self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *, bias=True
    ):
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self._uninitialized_weight_and_bias(bias, device, dtype)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = _core.tensor(0, dtype=_core.int64)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            with no_grad():
                if self.affine:
                    self.weight.materialize((self.num_features,))
                    if self.bias is not None:
                        self.bias.materialize((self.num_features,))
                if self.track_running_stats:
                    self._materialize("running_mean", (self.num_features,))
                    self._materialize("running_var", (self.num_features,))
                self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, BatchNorm1d):
    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormBase, BatchNorm2d):
    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormBase, BatchNorm3d):
    cls_to_become = BatchNorm3d


class LazyInstanceNorm1d(_LazyNormBase, InstanceNorm1d):
    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNormBase, InstanceNorm2d):
    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNormBase, InstanceNorm3d):
    cls_to_become = InstanceNorm3d
