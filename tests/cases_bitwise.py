"""Cases for `& | ^ ~ << >>` recorded from torch (tests/golden/record_bitwise.py) and checked by
tests/test_bitwise.py: promotion with tensors and Python numbers, shifts at and beyond the bit width and by
negative counts, the errors for floats and bad operands, in-place casts."""

import ferrograd as fg
from recorded import error

INTS = ["uint8", "int8", "int16", "int32", "int64"]


def raised_type(fn):
    """The exception's type alone, for Python's own operator errors: they name the class by its full name,
    which is `ferrograd.Tensor` here and `Tensor` in torch."""
    try:
        fn()
    except Exception as e:  # the point is to record any exception
        return type(e).__name__
    return None


def _t(values, dtype):
    return fg.tensor(values, dtype=getattr(fg, dtype))


def _promotion():
    b = _t([True, False, True], "bool")
    i8 = _t([1, -2, 3], "int8")
    u8 = _t([1, 2, 255], "uint8")
    i32 = _t([5, -6, 7], "int32")
    return {
        "bool&int8": b & i8,
        "int8|uint8": i8 | u8,
        "int32^int8": i32 ^ i8,
        "bool&1": b & 1,
        "bool&True": b & True,
        "True|bool": True | b,
        "1^bool": 1 ^ b,
        "int8&1000": i8 & 1000,
        "int8|True": i8 | True,
        "int8&0dim_int64": i8 & fg.tensor(5),
        "bool&0dim_int64": b & fg.tensor(5),
        "bool&0dim_bool": b ^ fg.tensor(True),
        "0dim_int8&0dim_int64": fg.tensor(3, dtype=fg.int8) & fg.tensor(5),
        "0dim_int8&dim_int64": fg.tensor(3, dtype=fg.int8) & fg.tensor([5]),
        "~bool": ~b,
        "~int8": ~i8,
        "~uint8": ~u8,
        "~int32": ~i32,
        "uint8<<int8": u8 << _t([1, 2, 3], "int8"),
        "1<<int8": 1 << i8,
        "3>>int64": 3 >> fg.tensor([1, 2]),
        "bool<<1": b << 1,
        "bool>>1": b >> 1,
    }


def _shifts():
    out = {}
    for dtype in INTS:
        x = _t([1, -8 if dtype != "uint8" else 248, 127, 100], dtype)
        bits = {"uint8": 8, "int8": 8, "int16": 16, "int32": 32, "int64": 64}[dtype]
        for by in (1, bits - 1, bits, bits + 1, 100, -1, -bits):
            out[f"{dtype}<<{by}"] = x << by
            out[f"{dtype}>>{by}"] = x >> by
        counts = _t([0, 1, bits - 1, bits], dtype)
        out[f"{dtype}<<tensor"] = x << counts
        out[f"{dtype}>>tensor"] = x >> counts
        if dtype != "uint8":
            negative = _t([-1, -2, -(bits - 1), 3], dtype)
            out[f"{dtype}<<negative_tensor"] = x << negative
            out[f"{dtype}>>negative_tensor"] = (-x) >> negative
    big = fg.tensor([1, -1, 2**62, -(2**62)])
    out["int64<<63"] = big << 63
    out["int64>>63"] = big >> 63
    out["-8>>1"] = fg.tensor([-8]) >> 1
    return out


def _errors():
    f = fg.tensor([1.0, 2.0])
    i = fg.tensor([1, 2])
    b = fg.tensor([True, False])
    return {
        "float&int": error(lambda: f & 1),
        "float|float": error(lambda: f | f),
        "float^int_tensor": error(lambda: i ^ f),
        "int&1.5": error(lambda: i & 1.5),
        "1.5&int": error(lambda: 1.5 & i),
        "float<<1": error(lambda: f << 1),
        "int>>1.5": error(lambda: i >> 1.5),
        "bool<<bool": error(lambda: b << b),
        "bool<<True": error(lambda: b << True),
        "half&1": error(lambda: f.half() & 1),
        "double|1": error(lambda: f.double() | 1),
        "bfloat16^1": error(lambda: f.bfloat16() ^ 1),
        "~float": error(lambda: ~f),
        "~float_requires_grad": error(lambda: ~fg.ones(2, requires_grad=True)),
        "bitwise_not(float)": error(lambda: fg.bitwise_not(f)),
        "float_requires_grad&1": error(lambda: (fg.ones(2, requires_grad=True) * 2) & 1),
        "int&str": raised_type(lambda: i & "a"),
        "int|None": raised_type(lambda: i | None),
        "int^list": raised_type(lambda: i ^ [1]),
        "shapes": error(lambda: fg.tensor([1, 2]) & fg.tensor([1, 2, 3])),
        "float_shapes": error(lambda: fg.ones(2) & fg.ones(3)),
        "__and__(str)": i.__and__("a") is NotImplemented,
    }


def _methods():
    i8 = _t([1, -2, 3], "int8")
    b = _t([True, False, True], "bool")
    return {
        "bitwise_and": fg.bitwise_and(i8, 3),
        "bitwise_or": fg.bitwise_or(b, b),
        "bitwise_xor": fg.bitwise_xor(i8, _t([7, 7, 7], "int16")),
        "bitwise_not": fg.bitwise_not(i8),
        "bitwise_left_shift": fg.bitwise_left_shift(i8, 1),
        "bitwise_right_shift": fg.bitwise_right_shift(i8, fg.tensor([1, 2, 3])),
        "method_and": i8.bitwise_and(1),
        "method_left_shift_kw": i8.bitwise_left_shift(other=1),
        "method_right_shift": i8.bitwise_right_shift(1),
        "method_not": b.bitwise_not(),
        "method_and(1.5)": error(lambda: i8.bitwise_and(1.5)),
        "__rand__": i8.__rand__(1),
        "__rlshift__": i8.__rlshift__(1),
        "__rrshift__": i8.__rrshift__(1),
        "logical_and": fg.logical_and(fg.tensor([0.0, 1.5, 2.0]), i8),
        "logical_xor": fg.logical_xor(b, fg.tensor([0.0, 1.0, 0.0])),
    }


def _inplace():
    def run(fn, values, dtype):
        x = _t(values, dtype)
        out = error(fn, x)
        return [out, x]

    def iand_int8(x):
        x &= _t([1, 1, 1], "int8")

    def iand_true(x):
        x &= True

    def iand_1(x):
        x &= 1

    def ior_int64(x):
        x |= fg.tensor([1, 2, 3])

    def ixor_str(x):
        x ^= "a"

    def ilshift(x):
        x <<= 1

    def irshift(x):
        x >>= 1

    def ilshift_float(x):
        x <<= 1.5

    def iand_float(x):
        x &= 1

    def iand_broadcast(x):
        x &= fg.tensor([[1], [2]])

    base = fg.tensor([1, 2, 3, 4], dtype=fg.int8)
    base[::2].bitwise_or_(8)
    view = fg.tensor([[1, 2], [3, 4]]).t()
    return {
        "bool&=int8": run(iand_int8, [True, False, True], "bool"),
        "bool&=True": run(iand_true, [True, False, True], "bool"),
        "bool&=1": run(iand_1, [True, False, True], "bool"),
        "int8|=int64": run(ior_int64, [1, -2, 3], "int8"),
        "int8^=str": run(ixor_str, [1, -2, 3], "int8"),
        "int8<<=1": run(ilshift, [1, -2, 127], "int8"),
        "int8>>=1": run(irshift, [1, -2, 127], "int8"),
        "int8<<=1.5": run(ilshift_float, [1, -2, 3], "int8"),
        "float&=1": run(iand_float, [1.0, 2.0, 3.0], "float32"),
        "int&=broadcast": run(iand_broadcast, [1, 2, 3], "int64"),
        "bitwise_and_": run(lambda x: x.bitwise_and_(6), [1, 2, 7], "int16"),
        "bitwise_xor_(bool)": run(lambda x: x.bitwise_xor_(fg.tensor([True, False, True])), [1, 2, 7], "int16"),
        "bool.bitwise_or_(int8)": run(lambda x: x.bitwise_or_(_t([1, 0, 1], "int8")), [True, False, False], "bool"),
        "bitwise_left_shift_": run(lambda x: x.bitwise_left_shift_(3), [1, 2, 7], "int32"),
        "bitwise_right_shift_": run(lambda x: x.bitwise_right_shift_(1), [-1, -2, 7], "int32"),
        "bitwise_not_": run(lambda x: x.bitwise_not_(), [0, 255, 7], "uint8"),
        "logical_and_": run(lambda x: x.logical_and_(fg.tensor([True, False, True])), [0, 2, 7], "int8"),
        "logical_or_": run(lambda x: x.logical_or_(fg.tensor([0.0, 0.0, 1.0])), [0.0, 2.0, 0.0], "float32"),
        "logical_xor_": run(lambda x: x.logical_xor_(fg.tensor([True, True, False])), [True, False, False], "bool"),
        "logical_not_": run(lambda x: x.logical_not_(), [0, 2, -7], "int64"),
        "through_a_view": base,
        "transposed&row": view & fg.tensor([3, 1]),
    }


CASES = {
    "promotion": _promotion,
    "shifts": _shifts,
    "errors": _errors,
    "methods": _methods,
    "inplace": _inplace,
}
