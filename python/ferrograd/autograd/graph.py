"""`ferrograd.autograd.graph`: the backward graph's node objects (`y.grad_fn`).

Every node name has its own class (`MulBackward0`, `AccumulateGrad`, a custom function's
`CubeBackward`), a subclass of `Node`, made on first use.
"""

from .._core import Node

__all__ = ["Node"]
