"""`ctc_loss`: the connectionist temporal classification loss (the core's CtcLossBackward0). The lengths
arrive as two integer tensors or two sequences of ints (torch's two overloads of `torch.ctc_loss`); both
become int lists here and the core does the rest, checks included."""

import operator

from ... import _core
from ..._core import Tensor
from ._common import _check_reduction

_OVERLOADS = (
    " * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints target_lengths, "
    "int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n"
    " * (Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, "
    "int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n"
)


def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths,
    target_lengths,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    """The negative log likelihood of each target over all alignments of `log_probs` (T, N, C) or (T, C);
    `reduction='mean'` divides each loss by its target length (at least 1), then averages over the batch."""
    _check_reduction(reduction)
    return _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)


def _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity):
    """torch.ctc_loss with `reduction` as a word."""
    args = (log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)
    if isinstance(input_lengths, Tensor) and isinstance(target_lengths, Tensor):
        lengths = [_integral(input_lengths, "input_lengths"), _integral(target_lengths, "target_lengths")]
    else:
        lengths = [_int_sequence(input_lengths, args), _int_sequence(target_lengths, args)]
    if not isinstance(log_probs, Tensor) or not isinstance(targets, Tensor):
        _invalid(args)
    return _core._ctc_loss(log_probs, targets, lengths[0], lengths[1], blank, reduction, zero_infinity)


def _integral(t, name):
    if t.is_floating_point() or t.is_complex() or t.dtype == _core.bool:
        raise RuntimeError(f"{name} must be integral")
    return t.reshape(-1).tolist()


def _int_sequence(v, args):
    if not isinstance(v, (list, tuple)):
        _invalid(args)
    try:
        return [operator.index(x) for x in v]
    except TypeError:
        _invalid(args)


def _invalid(args):
    names = ", ".join(_type_word(a) for a in args)
    raise TypeError(
        f"ctc_loss() received an invalid combination of arguments - got ({names}), but expected one of:\n{_OVERLOADS}"
    )


def _type_word(a):
    return "Tensor" if isinstance(a, Tensor) else type(a).__name__
