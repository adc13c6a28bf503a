"""PNG encoding of uint8 images with zlib alone (so that images need no Pillow): 8 bits per sample, grey,
grey+alpha, RGB or RGBA, every row unfiltered (filter type 0) and the whole image deflated at once."""

import struct
import zlib

import numpy as np

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# PNG colour types by channel count (PNG spec, table 11.1)
_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}
_BIT_DEPTH = 8
_NO_FILTER = 0


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode_png(pixels):
    """The PNG file of `pixels`, a height x width x channels (1 to 4) uint8 array."""
    if pixels.dtype != np.uint8 or pixels.ndim != 3 or pixels.shape[2] not in _COLOR_TYPES:
        raise ValueError(f"expected a height x width x 1-4 uint8 array, got {pixels.dtype} of shape {pixels.shape}")
    height, width, channels = pixels.shape
    if height == 0 or width == 0:
        raise ValueError(f"an image needs at least one pixel, got {height}x{width}")
    rows = np.empty((height, 1 + width * channels), dtype=np.uint8)
    rows[:, 0] = _NO_FILTER
    rows[:, 1:] = pixels.reshape(height, width * channels)
    header = struct.pack(">IIBBBBB", width, height, _BIT_DEPTH, _COLOR_TYPES[channels], 0, 0, 0)
    return (
        _SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)) + _chunk(b"IEND", b"")
    )
