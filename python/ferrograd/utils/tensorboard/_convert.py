"""Values to numpy arrays for the protobufs (interop, not computation), and images to height x width x channel
uint8 arrays: the layouts torch's `add_image`/`add_images` accept (CHW, HWC, HW; NCHW, NHWC as a grid)."""

import numpy as np

from ... import _core


def make_np(x):
    """A numpy array of `x`: a tensor (detached; bfloat16 through float32, as numpy has none), a numpy array,
    or a Python number (as a 1-element array)."""
    if isinstance(x, np.ndarray):
        return x
    if np.isscalar(x):
        return np.array([x])
    if isinstance(x, _core.Tensor):
        t = x.detach()
        if t.dtype == _core.bfloat16:
            t = t.float()
        return t.numpy()
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def make_grid(images, ncols=8):
    """N x 3 x H x W images (or N x 1, repeated to 3 channels) tiled into one 3 x rows*H x cols*W canvas, row
    by row, `ncols` to a row; the empty places stay zero."""
    if not isinstance(images, np.ndarray):
        raise AssertionError("plugin error, should pass numpy array here")
    if images.shape[1] == 1:
        images = np.concatenate([images, images, images], 1)
    if images.ndim != 4 or images.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    count, _, height, width = images.shape
    ncols = min(count, ncols)
    nrows = -(-count // ncols)
    padded = np.zeros((nrows * ncols, 3, height, width), dtype=images.dtype)
    padded[:count] = images
    grid = padded.reshape(nrows, ncols, 3, height, width).transpose(2, 0, 3, 1, 4)
    return grid.reshape(3, nrows * height, ncols * width)


def convert_to_hwc(array, input_format):
    """`array` (laid out as `input_format` says, e.g. "CHW") as height x width x channels; one channel or none
    becomes three (grey as RGB), a batch (4 letters) becomes a grid."""
    if len(set(input_format)) != len(input_format):
        raise AssertionError(
            f"You can not use the same dimension shorthand twice.             input_format: {input_format}"
        )
    if len(array.shape) != len(input_format):
        raise AssertionError(
            "size of input tensor and input format are different.         "
            f"tensor shape: {array.shape}, input_format: {input_format}"
        )
    input_format = input_format.upper()
    if len(input_format) == 4:
        nchw = array.transpose([input_format.find(c) for c in "NCHW"])
        return make_grid(nchw).transpose(1, 2, 0)
    if len(input_format) == 3:
        hwc = array.transpose([input_format.find(c) for c in "HWC"])
        if hwc.shape[2] == 1:
            hwc = np.concatenate([hwc, hwc, hwc], 2)
        return hwc
    if len(input_format) == 2:
        hw = array.transpose([input_format.find(c) for c in "HW"])
        return np.stack([hw, hw, hw], 2)
    raise AssertionError(f"unsupported input_format {input_format!r}: expected 2, 3 or 4 of the letters NCHW")


def to_uint8_image(array, dataformats):
    """The HWC uint8 pixels of an image: uint8 values as they are, others (floats in [0, 1]) times 255, both
    clipped to [0, 255]."""
    hwc = convert_to_hwc(array, dataformats)
    scale = 1 if hwc.dtype == np.uint8 else 255
    return (hwc.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
