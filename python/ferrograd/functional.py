"""`torch.functional`: the module where torch defines its Python-level tensor functions (`einsum`, `meshgrid`,
`unique`, `norm`, ...); here the same names, re-exported from the package (where ferrograd defines them by
concern), for programs that import them from it."""

import ferrograd as _ferrograd

# torch.functional.__all__ (torch 2.15), in its order; the names ferrograd has are exported
_TORCH_NAMES = (
    "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors", "cartesian_prod",
    "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu", "norm", "meshgrid", "pca_lowrank", "split",
    "stft", "svd_lowrank", "tensordot", "unique", "unique_consecutive", "unravel_index",
)  # fmt: skip

__all__ = [name for name in _TORCH_NAMES if hasattr(_ferrograd, name)]
globals().update({name: getattr(_ferrograd, name) for name in __all__})
