"""Helpers shared by the functional forms: in-place application, reduction arguments, dtype words."""

import warnings

from ... import _core


def _inplace(input, fn):
    """`input` overwritten with `fn(input)` (PyTorch's `inplace=True`), returned. When autograd records, `fn`
    runs on a copy, so a function that saves its input for backward still has the original values."""
    src = input.clone() if input.requires_grad and _core.is_grad_enabled() else input
    return input.copy_(fn(src))


def _reduction(size_average, reduce, reduction):
    """The `reduction` string, honouring the deprecated `size_average`/`reduce` flags as PyTorch does."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "none" if not reduce else "mean" if size_average else "sum"
    warnings.warn(
        f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
        UserWarning,
        stacklevel=3,
    )
    return ret


def _check_reduction(reduction):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _warn_size_mismatch(input, target, stacklevel=3):
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            UserWarning,
            stacklevel=stacklevel,
        )


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _scalar_type_name(t):
    return {"int64": "Long", "bool": "Bool"}.get(str(t.dtype).split(".")[-1], "Float")


def _loss_reduction(size_average, reduce, reduction):
    return _check_reduction(_reduction(size_average, reduce, reduction))


_NEG_INF = float("-inf")


def _dtype_word(dtype):
    """torch's C++ name of a dtype in messages ("float", "double", "long int", ...)."""
    name = str(dtype).split(".")[-1]
    return {
        "float32": "float",
        "float64": "double",
        "int64": "long int",
        "int32": "int",
        "float16": "c10::Half",
        "bfloat16": "c10::BFloat16",
        "int16": "short int",
        "int8": "signed char",
        "uint8": "unsigned char",
        "bool": "bool",
    }.get(name, name)
