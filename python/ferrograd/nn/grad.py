"""`torch.nn.grad`: a convolution's gradient with respect to its input or its weight, given the output's gradient.

The convolution is linear in each operand, so each gradient is that of the convolution applied to zeros of the
wanted shape: the same convolution ops and backward rules as training uses (no second implementation), with
the graph kept when an operand requires grad, so the result differentiates again as torch's does."""

import importlib

from .. import _core

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]


def _gradient(conv, input, weight, grad_output, wrt, stride, padding, dilation, groups):
    # the operand asked for is a zero leaf of the given size; the other operands keep their graphs.
    # nn.functional imports this module (torch's `F.grad`), so it is looked up when called
    F = importlib.import_module("ferrograd.nn.functional")
    autograd = importlib.import_module("ferrograd.autograd")
    output = getattr(F, conv)(input, weight, None, stride, padding, dilation, groups)
    keep = grad_output.requires_grad or (input if wrt is weight else weight).requires_grad
    return autograd.grad(output, wrt, grad_output, create_graph=keep)[0]


def _input(conv):
    def conv_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
        leaf = _core.zeros(tuple(input_size), dtype=grad_output.dtype, requires_grad=True)
        return _gradient(conv, leaf, weight, grad_output, leaf, stride, padding, dilation, groups)

    return conv_input


def _weight(conv):
    def conv_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
        leaf = _core.zeros(tuple(weight_size), dtype=grad_output.dtype, requires_grad=True)
        return _gradient(conv, input, leaf, grad_output, leaf, stride, padding, dilation, groups)

    return conv_weight


def _named(fn, name, what, dims):
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = __name__
    fn.__doc__ = f"The gradient of conv{dims}d with respect to its {what}, given `grad_output`."
    return fn


conv1d_input = _named(_input("conv1d"), "conv1d_input", "input", 1)
conv2d_input = _named(_input("conv2d"), "conv2d_input", "input", 2)
conv3d_input = _named(_input("conv3d"), "conv3d_input", "input", 3)
conv1d_weight = _named(_weight("conv1d"), "conv1d_weight", "weight", 1)
conv2d_weight = _named(_weight("conv2d"), "conv2d_weight", "weight", 2)
conv3d_weight = _named(_weight("conv3d"), "conv3d_weight", "weight", 3)
