"""Cases for ctc_loss (`torch.ctc_loss`, `F.ctc_loss`, `nn.CTCLoss`; issue 28), recorded from torch
(tests/golden/record_ctc.py) and checked by tests/test_ctc.py: values and gradients over the reductions,
padded and concatenated targets, tensor and list lengths, unbatched inputs, zero_infinity, empty targets,
impossible alignments (an infinite loss, torch's NaN gradient), no frames, and torch's errors in its order."""

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
from cases_vocab_ops import _grads
from recorded import error

INF = float("inf")


def _log_probs(t, n, c, dtype=fg.float64, seed=0):
    """Log-softmaxed normal logits (T, N, C) from numpy, so torch and ferrograd start from the same values."""
    x = np.random.default_rng(seed).standard_normal((t, n, c))
    return fg.tensor(x, dtype=dtype).log_softmax(2)


def _batch():
    """T=7, N=4, C=5: targets with a repeated label (the blank between is required), an empty target, and a
    short input."""
    lp = _log_probs(7, 4, 5)
    targets = fg.tensor([[1, 2, 2, 3], [4, 4, 1, 0], [3, 0, 0, 0], [2, 1, 3, 4]])
    return lp, targets, fg.tensor([7, 6, 4, 7]), fg.tensor([4, 2, 0, 3])


def _reductions():
    lp, tg, il, tl = _batch()
    out = {}
    for reduction in ("none", "sum", "mean"):
        out[reduction] = _grads(lambda x, r=reduction: F.ctc_loss(x, tg, il, tl, reduction=r), lp)
        out[f"{reduction}_float32"] = _grads(lambda x, r=reduction: F.ctc_loss(x, tg, il, tl, reduction=r), lp.float())
    out["default_is_mean"] = F.ctc_loss(lp, tg, il, tl)
    return out


def _forms():
    lp, tg, il, tl = _batch()
    concatenated = fg.tensor([1, 2, 2, 3, 4, 4, 2, 1, 3])
    return {
        "lists": F.ctc_loss(lp, tg, [7, 6, 4, 7], [4, 2, 0, 3], reduction="none"),
        "tuples": F.ctc_loss(lp, tg, (7, 6, 4, 7), (4, 2, 0, 3), reduction="none"),
        "int32_lengths": F.ctc_loss(lp, tg, il.int(), tl.int(), reduction="none"),
        "uint8_lengths": F.ctc_loss(lp, tg, il.to(fg.uint8), tl.to(fg.uint8), reduction="none"),
        "2d_lengths": F.ctc_loss(lp, tg, il.reshape(2, 2), tl.reshape(1, 4), reduction="none"),
        "int32_targets": F.ctc_loss(lp, tg.int(), il, tl, reduction="none"),
        "float_targets": F.ctc_loss(lp, tg.double(), il, tl, reduction="none"),
        "concatenated": _grads(lambda x: F.ctc_loss(x, concatenated, il, tl, reduction="none"), lp),
        "wider_padding": F.ctc_loss(lp, fg.cat([tg, fg.full((4, 3), 9)], 1), il, tl, reduction="none"),
        "non_contiguous": _grads(
            lambda x: F.ctc_loss(x.transpose(0, 1).contiguous().transpose(0, 1), tg, il, tl, reduction="sum"), lp
        ),
        "blank_last": F.ctc_loss(lp, tg - 1, il, tl, blank=4, reduction="none"),
        "blank_2": F.ctc_loss(lp, fg.tensor([[1, 3, 3, 4]] * 4), il, tl, blank=2, reduction="none"),
        "target_equals_blank": F.ctc_loss(lp, tg * 0, il, tl, reduction="none"),
        "torch_form": fg.ctc_loss(lp, tg, il, tl),
        "torch_form_sum": fg.ctc_loss(lp, tg, [7, 6, 4, 7], [4, 2, 0, 3], 0, 2, False),
        "torch_form_mean": fg.ctc_loss(lp, tg, il, tl, reduction=1),
        "torch_form_other_int": fg.ctc_loss(lp, tg, il, tl, 0, 7),
        "module": _grads(lambda x: nn.CTCLoss()(x, tg, il, tl), lp),
        "module_settings": _grads(lambda x: nn.CTCLoss(1, "sum", True)(x, tg - 1, il, tl), lp),
        "module_repr": repr(nn.CTCLoss(blank=3, reduction="none", zero_infinity=True)),
    }


def _autocast():
    """torch's CPU autocast lists ctc_loss among the float32 ops: a bfloat16 input is cast up first."""
    lp, tg, il, tl = _batch()
    with fg.autocast("cpu", dtype=fg.bfloat16):
        mean = F.ctc_loss(lp.bfloat16(), tg, il, tl)
        none = F.ctc_loss(lp.bfloat16(), tg, il, tl, reduction="none")
    return {"mean": mean, "none": none}


def _unbatched():
    lp = _log_probs(6, 1, 4)[:, 0]
    tg = fg.tensor([1, 3, 3])
    return {
        "none": _grads(lambda x: F.ctc_loss(x, tg, fg.tensor(6), fg.tensor(3), reduction="none"), lp),
        "sum": _grads(lambda x: F.ctc_loss(x, tg, [6], [3], reduction="sum"), lp),
        "mean": _grads(lambda x: F.ctc_loss(x, tg, fg.tensor([5]), fg.tensor([3])), lp),
        "shape": list(F.ctc_loss(lp, tg, [6], [3], reduction="none").shape),
    }


def _edges():
    lp = _log_probs(4, 3, 4, seed=1)
    impossible = fg.tensor([[1, 1, 1], [2, 3, 1], [1, 2, 0]])
    il, tl = [4, 3, 4], [3, 3, 2]
    out = {
        # [1, 1, 1] needs 5 frames, [2, 3, 1] over 3 frames fits exactly
        "impossible": _grads(lambda x: F.ctc_loss(x, impossible, il, tl, reduction="none"), lp),
        "impossible_zero_infinity": _grads(
            lambda x: F.ctc_loss(x, impossible, il, tl, reduction="none", zero_infinity=True), lp
        ),
        "impossible_mean_zero_infinity": _grads(lambda x: F.ctc_loss(x, impossible, il, tl, zero_infinity=True), lp),
        "possible_zero_infinity": _grads(
            lambda x: F.ctc_loss(x, impossible[1:], il[1:], tl[1:], zero_infinity=True, reduction="sum"), lp[:, 1:]
        ),
        "no_frames": _grads(lambda x: F.ctc_loss(x, impossible, [0, 0, 4], [0, 1, 2], reduction="none"), lp),
        "empty_targets": _grads(lambda x: F.ctc_loss(x, fg.zeros(3, 0).long(), il, [0, 0, 0], reduction="none"), lp),
        "empty_concatenated": F.ctc_loss(lp, fg.tensor([], dtype=fg.int64), il, [0, 0, 0], reduction="mean"),
        "one_class": F.ctc_loss(fg.zeros(3, 1, 1), fg.zeros(1, 0).long(), [3], [0], reduction="none"),
        "nan": F.ctc_loss(fg.full((3, 1, 3), float("nan")), fg.tensor([[1]]), [3], [1], reduction="none"),
        "minus_inf": F.ctc_loss(fg.full((3, 1, 3), -INF), fg.tensor([[1]]), [3], [1], reduction="none"),
        "unnormalized": _grads(
            lambda x: F.ctc_loss(x, impossible[1:], il[1:], tl[1:], reduction="none"), (lp * 1.7 + 0.3)[:, 1:]
        ),
        "dtype_float64": F.ctc_loss(lp, impossible, il, tl).dtype,
        "dtype_float32": F.ctc_loss(lp.float(), impossible, il, tl).dtype,
    }
    return out


def _double_backward():
    """torch has no derivative for ctc_loss's backward: under create_graph the gradient's node fails."""
    lp, tg, il, tl = _batch()
    leaf = lp.detach().requires_grad_()
    (g,) = fg.autograd.grad(F.ctc_loss(leaf, tg, il, tl), leaf, create_graph=True)
    (plain,) = fg.autograd.grad(F.ctc_loss(leaf, tg, il, tl), leaf)
    return {
        "requires_grad": g.requires_grad,
        "grad_fn": g.grad_fn.name(),
        "values": g,
        "backward": error(lambda: g.sum().backward()),
        "without_create_graph": [plain.requires_grad, plain.grad_fn is None],
    }


def _errors():
    lp, tg, il, tl = _batch()
    return {
        "reduction": error(F.ctc_loss, lp, tg, il, tl, reduction="avg"),
        "input_length_too_long": error(F.ctc_loss, lp, tg, fg.tensor([8, 6, 4, 7]), tl),
        "input_length_negative": error(F.ctc_loss, lp, tg, fg.tensor([-1, 6, 4, 7]), tl),
        "target_length_too_long": error(F.ctc_loss, lp, tg, il, fg.tensor([5, 2, 0, 3])),
        "target_length_negative": error(F.ctc_loss, lp, tg, il, fg.tensor([4, -1, 0, 3])),
        "negative_before_too_long": error(F.ctc_loss, lp, tg, il, fg.tensor([9, -1, 0, 3])),
        "concatenated_short": error(F.ctc_loss, lp, fg.tensor([1, 2, 3]), il, tl),
        "blank_too_big": error(F.ctc_loss, lp, tg, il, tl, blank=5),
        "blank_negative": error(F.ctc_loss, lp, tg, il, tl, blank=-1),
        "blank_before_lengths": error(F.ctc_loss, lp, tg, il[:2], tl, blank=9),
        "input_lengths_count": error(F.ctc_loss, lp, tg, il[:3], tl[:3]),
        "target_lengths_count": error(F.ctc_loss, lp, tg, il, tl[:3]),
        "targets_batch": error(F.ctc_loss, lp, tg[:3], il, tl),
        "targets_3d": error(F.ctc_loss, lp, tg[None], il, tl, blank=9),
        "targets_0d": error(F.ctc_loss, lp, fg.tensor(1), il, tl),
        "log_probs_int": error(F.ctc_loss, lp.long(), tg, il, tl),
        "log_probs_int_empty": error(F.ctc_loss, fg.zeros(0, 4, 5, dtype=fg.int64), tg, il, tl),
        "log_probs_half": error(F.ctc_loss, lp.half(), tg, il, tl),
        "log_probs_4d": error(F.ctc_loss, lp[None], tg, il, tl, blank=9),
        "log_probs_1d": error(F.ctc_loss, lp[0, 0], tg, il, tl),
        "log_probs_0d": error(F.ctc_loss, lp[0, 0, 0], tg, il, tl),
        "empty": error(F.ctc_loss, fg.zeros(0, 4, 5), tg, il, tl),
        "empty_batch": error(F.ctc_loss, fg.zeros(5, 0, 4), fg.zeros(0, 2).long(), [], []),
        "float_input_lengths": error(F.ctc_loss, lp, tg, il.float(), tl.float()),
        "float_target_lengths": error(F.ctc_loss, lp, tg, il, tl.float()),
        "bool_input_lengths": error(F.ctc_loss, lp, tg, il.bool(), tl),
        "unbatched_targets_2d": error(F.ctc_loss, lp[:, 0], tg, fg.tensor(7), fg.tensor(4)),
        "unbatched_lengths_count": error(F.ctc_loss, lp[:, 0], tg[0], [7, 7], [4]),
    }


def _type_errors():
    """torch's binding names every argument's type in these messages; the type is what is compared."""
    lp, tg, il, tl = _batch()
    calls = {
        "mixed_lengths": lambda: F.ctc_loss(lp, tg, [7, 6, 4, 7], tl),
        "int_lengths": lambda: F.ctc_loss(lp[:, 0], tg[0], 7, 4),
        "list_with_tensor_lengths": lambda: fg.ctc_loss(lp, tg, il, [4, 2, 0, 3]),
        "string_reduction_in_torch_form": lambda: fg.ctc_loss(lp, tg, il, tl, reduction="sum"),
    }
    return {name: error(fn).type for name, fn in calls.items()}


CASES = {
    "reductions": _reductions,
    "forms": _forms,
    "unbatched": _unbatched,
    "autocast": _autocast,
    "double_backward": _double_backward,
    "edges": _edges,
    "errors": _errors,
    "type_errors": _type_errors,
}
