"""The one place where Python adds attributes to the Rust classes, at import: each concern's module declares
its table (`TENSOR_ATTRIBUTES`), and `install` puts them all on the class. Nothing else in the package sets an
attribute on a Rust class (tests/test_import.py holds it so).

They are Python because they are Python's business: pickling and deep copies (`_utils`), the device and
layout objects (`_device`, `_layout`; `to_sparse` here), `new_*` (`_new`), the legacy `type()` (`_type`), and
the method forms of the splits (`_splitting`) and of the small compositions of `_tensor_vocab` and
`_tensor_misc`, the memory queries and Python-callable fills of `_tensor_memory`, `stft`/`istft` (`_spectral`),
and the random fills of `_random_fills`."""

from . import (
    _complex,
    _core,
    _device,
    _layout,
    _new,
    _random_fills,
    _spectral,
    _splitting,
    _tensor_memory,
    _tensor_misc,
    _tensor_vocab,
    _type,
    _utils,
)


def _to_sparse(self, sparse_dim=None):
    """`x.to_sparse(sparse_dim)`: a COO tensor of the nonzero entries (or nonzero slices, with dense dims)."""
    from . import sparse  # on first use: `import ferrograd` leaves it out

    return sparse.from_dense(self, sparse_dim)


TENSOR_ATTRIBUTES = {
    "to_sparse": _to_sparse,
    "to_sparse_coo": lambda self: _to_sparse(self),
    **_utils.TENSOR_ATTRIBUTES,
    **_complex.TENSOR_ATTRIBUTES,
    **_device.TENSOR_ATTRIBUTES,
    **_layout.TENSOR_ATTRIBUTES,
    **_new.TENSOR_ATTRIBUTES,
    **_type.TENSOR_ATTRIBUTES,
    **_splitting.TENSOR_ATTRIBUTES,
    **_spectral.TENSOR_ATTRIBUTES,
    **_tensor_vocab.TENSOR_ATTRIBUTES,
    **_tensor_misc.TENSOR_ATTRIBUTES,
    **_tensor_memory.TENSOR_ATTRIBUTES,
    **_random_fills.TENSOR_ATTRIBUTES,
}
DTYPE_ATTRIBUTES = _utils.DTYPE_ATTRIBUTES


def install():
    for cls, attributes in ((_core.Tensor, TENSOR_ATTRIBUTES), (_core.dtype, DTYPE_ATTRIBUTES)):
        for name, value in attributes.items():
            setattr(cls, name, value)
