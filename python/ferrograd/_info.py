"""`finfo` and `iinfo`: the limits of the floating-point and integer dtypes, with PyTorch's attributes, repr and
errors (`finfo()` describes the default dtype)."""

from . import _core
from ._arg_errors import type_name

__all__ = ["finfo", "iinfo"]

# bits, eps, max, smallest normal, resolution (10 ** -decimal digits), as torch reports them
_FLOATS = {
    "float16": (16, 2.0**-10, 65504.0, 2.0**-14, 0.001),
    "bfloat16": (16, 2.0**-7, 3.3895313892515355e38, 2.0**-126, 0.01),
    "float32": (32, 2.0**-23, 3.4028234663852886e38, 2.0**-126, 1e-06),
    "float64": (64, 2.0**-52, 1.7976931348623157e308, 2.0**-1022, 1e-15),
}
_INTS = {
    "uint8": (8, 0, 255),
    "int8": (8, -(2**7), 2**7 - 1),
    "int16": (16, -(2**15), 2**15 - 1),
    "int32": (32, -(2**31), 2**31 - 1),
    "int64": (64, -(2**63), 2**63 - 1),
}


_REQUIRED = object()  # iinfo(): torch's message for the missing dtype


def _name(dtype, kind):
    if not isinstance(dtype, _core.dtype):
        raise TypeError(f"{kind}(): argument 'type' (position 1) must be ferrograd.dtype, not {type_name(dtype)}")
    return str(dtype).rpartition(".")[2]


class finfo:
    """Machine limits of a floating-point dtype (the default dtype without one)."""

    bits: int
    eps: float
    max: float
    min: float
    tiny: float
    smallest_normal: float
    resolution: float
    dtype: str

    def __init__(self, type=None):
        name = _name(_core.get_default_dtype() if type is None else type, "finfo")
        if name not in _FLOATS:
            raise TypeError(
                "ferrograd.finfo() requires a floating point input type. Use ferrograd.iinfo to handle "
                "'ferrograd.finfo'"
            )
        self.bits, self.eps, self.max, self.tiny, self.resolution = _FLOATS[name]
        self.min = -self.max
        self.smallest_normal = self.tiny
        self.dtype = name

    def __eq__(self, other):
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (
            f"finfo(resolution={self.resolution:.6g}, min={self.min:.6g}, max={self.max:.6g}, eps={self.eps:.6g}, "
            f"smallest_normal={self.smallest_normal:.6g}, tiny={self.tiny:.6g}, dtype={self.dtype})"
        )


class iinfo:
    """Limits of an integer dtype."""

    bits: int
    max: int
    min: int
    dtype: str

    def __init__(self, type=_REQUIRED):
        if type is _REQUIRED:
            raise TypeError('iinfo() missing 1 required positional arguments: "type"')
        name = _name(type, "iinfo")
        if name == "bool":
            raise TypeError("ferrograd.bool is not supported by ferrograd.iinfo")
        if name not in _INTS:
            raise TypeError(
                "ferrograd.iinfo() requires an integer input type. Use ferrograd.finfo to handle 'ferrograd.iinfo'"
            )
        self.bits, self.min, self.max = _INTS[name]
        self.dtype = name

    def __eq__(self, other):
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={self.min:.6g}, max={self.max:.6g}, dtype={self.dtype})"


finfo.__module__ = iinfo.__module__ = "ferrograd"
