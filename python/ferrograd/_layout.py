"""`torch.layout`: `strided` (every dense tensor) and `sparse_coo` (`ferrograd.sparse`'s COO tensors), and the
layout side of the dense `Tensor` (`.layout`, `.is_sparse`, `.to_sparse()`, `.to_dense()`)."""


class layout:  # noqa: N801 - torch's name
    """A tensor's memory layout; compared by identity, printed as its module attribute (`ferrograd.strided`)."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"ferrograd.{self._name}"

    def __reduce__(self):
        return self._name  # pickles as the module attribute


strided = layout("strided")
sparse_coo = layout("sparse_coo")


def _to_sparse(self, sparse_dim=None):
    from . import sparse  # the COO tensor's code loads when a program first makes one

    return sparse.from_dense(self, sparse_dim)


def _is_coalesced(self):
    raise RuntimeError("is_coalesced expected sparse coordinate tensor layout but got Strided")


def install(tensor_class):
    tensor_class.layout = property(lambda self: strided, doc="`ferrograd.strided`: a dense tensor's layout.")
    tensor_class.is_sparse = property(lambda self: False)
    tensor_class.to_sparse = _to_sparse
    tensor_class.to_dense = lambda self, dtype=None, *, masked_grad=None: self if dtype is None else self.to(dtype)
    tensor_class.is_coalesced = _is_coalesced
