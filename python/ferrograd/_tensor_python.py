"""The one place where Python adds attributes to the Rust classes, at import: each concern's module declares
its table (`TENSOR_ATTRIBUTES`), and `install` puts them all on the class. Nothing else in the package sets an
attribute on a Rust class (tests/test_import.py holds it so).

They are Python because they are Python's business: pickling and deep copies (`_utils`), the device and
layout objects (`_device`, `_layout`), `new_*` (`_new`) and the legacy `type()` (`_type`)."""

from . import _core, _device, _layout, _new, _type, _utils

TENSOR_ATTRIBUTES = {
    **_utils.TENSOR_ATTRIBUTES,
    **_device.TENSOR_ATTRIBUTES,
    **_layout.TENSOR_ATTRIBUTES,
    **_new.TENSOR_ATTRIBUTES,
    **_type.TENSOR_ATTRIBUTES,
}
DTYPE_ATTRIBUTES = _utils.DTYPE_ATTRIBUTES


def install():
    for cls, attributes in ((_core.Tensor, TENSOR_ATTRIBUTES), (_core.dtype, DTYPE_ATTRIBUTES)):
        for name, value in attributes.items():
            setattr(cls, name, value)
