"""`torch.layout`: `strided` (every dense tensor) and `sparse_coo` (`ferrograd.sparse`'s COO tensors), and the
layout side of the dense `Tensor` (`.layout`, `.is_sparse`, `.to_sparse()`, `.to_dense()`, `.is_coalesced()`)."""


class NamedConstant:
    """One of a module's named constants (a layout, a memory format): printed and pickled as that module
    attribute of the package, equal by name (a package imported afresh, as tools/op_list.py does, makes new
    objects for the same constants)."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __eq__(self, other):
        kind = type(self)
        return (type(other).__module__, type(other).__name__) == (kind.__module__, kind.__name__) and getattr(
            other, "_name", None
        ) == self._name

    def __hash__(self):
        return hash(self._name)

    def __repr__(self):
        return f"ferrograd.{self._name}"

    def __reduce__(self):
        return self._name  # pickles as the module attribute


class layout(NamedConstant):  # torch's name
    """A tensor's memory layout; printed as its module attribute (`ferrograd.strided`)."""

    __slots__ = ()


strided = layout("strided")
sparse_coo = layout("sparse_coo")


def _is_coalesced(self):
    raise RuntimeError("is_coalesced expected sparse coordinate tensor layout but got Strided")


def _to_dense(self, dtype=None, *, masked_grad=None):
    return self if dtype is None else self.to(dtype)


# The dense class's layout attributes, installed on `Tensor` by `_tensor_python` (with `to_sparse`, which
# reaches `ferrograd.sparse`, a module that imports this one).
TENSOR_ATTRIBUTES = {
    "layout": property(lambda self: strided, doc="`ferrograd.strided`: a dense tensor's layout."),
    "is_sparse": property(lambda self: False),
    "to_dense": _to_dense,
    "is_coalesced": _is_coalesced,
}
