"""Padding: constant, reflect, replicate and circular."""

from ... import _core
from ..._core import Tensor


def pad(input: Tensor, pad, mode: str = "constant", value=None) -> Tensor:
    """Pads the last len(pad) // 2 dims (pad lists (before, after) from the last dim backwards)."""
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode != "constant" and value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if mode == "circular":
        return _pad_circular(input, [int(v) for v in pad])
    return _core._pad(input, [int(v) for v in pad], mode, value)


def _pad_circular(input, pads):
    """Circular padding of the last len(pads) // 2 dims (negative amounts crop first, as torch)."""
    dims = len(pads) // 2
    if input.dim() not in (dims + 1, dims + 2):
        last = {1: "dimension", 2: "2 dimensions", 3: "3 dimensions"}
        combos = "\n".join(
            f"  - {k + 1}D or {k + 2}D input: padding size = {2 * k} (pads last {last[k]})" for k in (1, 2, 3)
        )
        raise NotImplementedError(
            f"Padding size {len(pads)} is not supported for {input.dim()}D input tensor.\n"
            f"Supported combinations for non-constant padding:\n{combos}"
        )
    out = input
    for i in range(dims):
        d = input.dim() - 1 - i
        before, after = pads[2 * i], pads[2 * i + 1]
        size = out.shape[d]
        if before > size or after > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        out = out.narrow(d, max(-before, 0), size - max(-before, 0) - max(-after, 0))
        size = out.shape[d]
        parts = []
        if before > 0:
            parts.append(out.narrow(d, size - before, before))
        parts.append(out)
        if after > 0:
            parts.append(out.narrow(d, 0, after))
        if len(parts) > 1:
            out = _core.cat(parts, d)
    return out
