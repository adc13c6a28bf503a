"""Broadcasting and grids of several tensors: `broadcast_shapes`, `broadcast_tensors`, `meshgrid`,
`cartesian_prod`. Compositions of `expand`, `reshape` and `stack` as in PyTorch, so each output's grad_fn is
the one PyTorch gives (ExpandBackward0, StackBackward0)."""

from ._arg_errors import type_name
from ._core import Tensor, stack
from ._size import Size

__all__ = ["broadcast_shapes", "broadcast_tensors", "cartesian_prod", "meshgrid"]


def broadcast_shapes(*shapes):
    """The shape that tensors of `shapes` (ints or sequences of ints) broadcast to, without making tensors."""
    as_tuples = []
    for shape in shapes:
        if isinstance(shape, int):
            shape = (shape,)
        if not isinstance(shape, (tuple, list)):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {shape}")
        as_tuples.append(tuple(shape))
    result = [1] * max((len(s) for s in as_tuples), default=0)
    for index, shape in enumerate(as_tuples):
        for i in range(-1, -1 - len(shape), -1):
            if shape[i] < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            if shape[i] == 1 or shape[i] == result[i]:
                continue
            if result[i] != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[i]} at {i}! Mismatching argument at index "
                    f"{index} had {shape}; but expected shape should be broadcastable to {result}"
                )
            result[i] = shape[i]
    return Size(result)


def _tensors(tensors):
    """`tensors`, checked to be tensors, with PyTorch's TypeError for a list of them."""
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type_name(t)}")
    return tensors


def broadcast_tensors(*tensors):
    """Each tensor expanded (a view) to the shape they broadcast to together."""
    _tensors(tensors)
    shape: list = []
    for t in tensors:
        new = list(t.shape)
        n = max(len(shape), len(new))
        a, b = [1] * (n - len(shape)) + shape, [1] * (n - len(new)) + new
        for d in range(n):
            if a[d] != b[d] and a[d] != 1 and b[d] != 1:
                raise RuntimeError(
                    f"The size of tensor a ({a[d]}) must match the size of tensor b ({b[d]}) at non-singleton "
                    f"dimension {d}"
                )
        shape = [y if x == 1 else x for x, y in zip(a, b)]
    return tuple(t.expand(shape) for t in tensors)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 0-d or 1-d tensors: output i varies along dim i (``indexing='ij'``, the default,
    with PyTorch's warning when not given) or with the first two dims swapped (``'xy'``)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        import warnings  # only here: `import ferrograd` does not load it

        warnings.warn(
            "ferrograd.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
            UserWarning,
            stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    _tensors(tensors)
    if any(t.dtype != tensors[0].dtype for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    # the dim each input varies along: its position, with the first two swapped for 'xy'
    along = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        along[0], along[1] = 1, 0
    sizes = [0] * len(tensors)
    for t, d in zip(tensors, along):
        sizes[d] = t.numel()
    out = []
    for t, d in zip(tensors, along):
        view = [1] * len(tensors)
        view[d] = -1
        out.append(t.reshape(view).expand(sizes))
    return tuple(out)


def cartesian_prod(*tensors):
    """Every combination of one element of each 1-d tensor, as rows (a single tensor comes back as is)."""
    _tensors(tensors)
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)
