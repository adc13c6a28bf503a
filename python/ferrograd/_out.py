"""Function forms that take what torch's take beyond their method: a number as `pow`'s base."""

import builtins

from ._core import Tensor


def pow(input, exponent):  # noqa: A001
    """`input ** exponent`; `input` may be a number (then `exponent` is a tensor), as in torch."""
    if isinstance(input, Tensor):
        result = input.pow(exponent)
    elif isinstance(exponent, Tensor) and isinstance(input, (builtins.int, builtins.float, builtins.bool)):
        result = exponent.__rpow__(input)
    else:
        raise TypeError(
            f"pow() received an invalid combination of arguments - got ({type(input).__name__}, "
            f"{type(exponent).__name__}), but expected (Tensor input, Tensor exponent) or (Number self, Tensor "
            "exponent) or (Tensor input, Number exponent)"
        )
    return result


__all__ = ["pow"]
