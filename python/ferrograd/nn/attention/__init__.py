"""`torch.nn.attention`: `sdpa_kernel`, the block that limits which kernels `scaled_dot_product_attention` may
use. On the CPU, as in torch's CPU build, FLASH_ATTENTION is the fused kernel (one
`ScaledDotProductFlashAttentionForCpuBackward0` node) and MATH the composition of matmul and softmax;
EFFICIENT_ATTENTION and CUDNN_ATTENTION have no CPU kernel, so allowing only those leaves none."""

import contextlib
import enum

from ... import _flags

__all__ = ["SDPBackend", "WARN_FOR_UNFUSED_KERNELS", "sdpa_kernel"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.Enum):
    """The kernels of `scaled_dot_product_attention`, with torch's values (`int()` of one; not equal to it)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __int__(self):
        return self.value


_FLAG_OF = {
    SDPBackend.FLASH_ATTENTION: "sdp.flash",
    SDPBackend.EFFICIENT_ATTENTION: "sdp.mem_efficient",
    SDPBackend.MATH: "sdp.math",
    SDPBackend.CUDNN_ATTENTION: "sdp.cudnn",
}


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Allows only `backends` (one `SDPBackend` or a list) in `scaled_dot_product_attention` inside the block;
    the previous switches come back after it. `set_priority` orders GPU kernels and changes nothing here."""
    if not isinstance(backends, (list, SDPBackend)):
        kind = type(backends).__name__
        raise AssertionError(f"Backend must be an instance of SDPBackend or a list of SDPBackend instances, got {kind}")
    wanted = {backends} if isinstance(backends, SDPBackend) else set(backends)
    if not all(isinstance(b, SDPBackend) for b in wanted):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances")
    saved = {key: _flags.STATE[key] for key in _FLAG_OF.values()}
    try:
        for backend, key in _FLAG_OF.items():
            _flags.STATE[key] = backend in wanted
        yield {}
    finally:
        _flags.STATE.update(saved)
