"""torch.nn.modules.utils' names: the argument normalisers, which live in `nn._tuples` so that
`nn.functional` can use them without importing every module class first."""

from .._tuples import _ntuple, _pair, _reverse_repeat_tuple, _single, _triple

__all__ = ["_ntuple", "_pair", "_reverse_repeat_tuple", "_single", "_triple"]
