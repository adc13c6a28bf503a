"""`torch.utils.dlpack`: tensors to and from DLPack capsules (the protocol's objects: `__dlpack__` and
`__dlpack_device__` are the Tensor's own)."""

import enum

from .._core import from_dlpack
from .._misc_functions import to_dlpack

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]


class DLDeviceType(enum.IntEnum):
    """DLPack's device codes (ferrograd's tensors are all on kDLCPU)."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17
