"""The rest of `torch.func`'s names: `functionalize` (ferrograd's transforms run the function as written, so its
in-place ops and views already give the functional program's values), `replace_all_batch_norm_modules_` and
`debug_unwrap` (ferrograd's transforms wrap no tensors)."""

__all__ = ["functionalize", "replace_all_batch_norm_modules_", "debug_unwrap"]


def functionalize(func, *, remove="mutations"):
    """Returns `func` checked for torch's `remove` options: eager ferrograd has no mutations to rewrite."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(
            f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}. Valid options "
            "are:\n     remove='mutations': all inplace and out= operators will be removed from the program, and "
            "replaced with their out-of-place equivalents.\n     remove='mutations_and_views': In addition to the "
            "above, all aliasing operators {view} will be replaced with their non-aliasing counterparts, "
            "{view}_copy.\n"
        )
    return func


def _drop_running_stats(module):
    from ..nn.modules.batchnorm import _BatchNorm

    if isinstance(module, _BatchNorm) and module.track_running_stats:
        module.running_mean = None
        module.running_var = None
        module.num_batches_tracked = None
        module.track_running_stats = False


def replace_all_batch_norm_modules_(root):
    """In place: every batch norm module in `root` stops tracking running statistics (they become None)."""
    _drop_running_stats(root)
    for module in root.modules():
        _drop_running_stats(module)
    return root


def debug_unwrap(tensor, *, recurse=True):
    """The tensor itself: ferrograd's transforms do not wrap tensors."""
    return tensor
