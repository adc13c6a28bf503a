"""Affine maps: `linear` and `bilinear`."""

from ... import _core
from ..._core import Tensor


def linear(input: Tensor, weight: Tensor, bias=None) -> Tensor:
    """`input @ weight.T + bias`; with a bias it is one fused `addmm` (AddmmBackward0)."""
    return _core._linear(input, weight, bias)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias=None) -> Tensor:
    """y[..., o] = input1 · weight[o] · input2 + bias[o], as one matrix product and a sum."""
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for d in range(input1.dim() - 1):
        if input1.shape[d] != input2.shape[d]:
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {d}: got {input1.shape[d]} and "
                f"{input2.shape[d]}"
            )
    out_features, in1, in2 = weight.shape
    if input1.shape[-1] != in1:
        raise RuntimeError(
            f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but expected {in1}"
        )
    if input2.shape[-1] != in2:
        raise RuntimeError(
            f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but expected {in2}"
        )
    if bias is not None and bias.shape[-1] != out_features:
        raise RuntimeError(
            f"bilinear(): bias size does not match weight size: got {bias.shape[-1]} but expected {out_features}"
        )
    lead = input1.shape[:-1]
    x1 = input1.reshape(-1, in1)
    x2 = input2.reshape(-1, in2)
    # (N, in1) @ (in1, out·in2) -> (N, out, in2), then contracted with x2
    left = (x1 @ weight.permute(1, 0, 2).reshape(in1, out_features * in2)).reshape(-1, out_features, in2)
    out = (left * x2.unsqueeze(1)).sum(-1)
    if bias is not None:
        out = out + bias
    return out.reshape(*lead, out_features)
