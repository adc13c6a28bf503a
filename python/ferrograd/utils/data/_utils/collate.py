"""`default_collate` and `default_convert`: how the DataLoader turns a list of samples into a batch.

Tensors are stacked (one `ferrograd.stack`), numpy arrays and numpy scalars become tensors, Python ints an
int64 tensor, floats a float64 tensor, bools a bool tensor; strings stay a list; mappings, namedtuples and
sequences are collated field by field (tuples come back as lists, as in PyTorch). `collate` takes a
`collate_fn_map` of type → function for custom element types.
"""

import collections
import copy
import re
import sys

from .... import _core
from ...._core import Tensor

__all__ = ["collate", "default_collate", "default_convert", "default_collate_fn_map"]

np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def _rebuild_mapping(data, values):
    """`values` (a dict) in the type of the mapping `data`, as PyTorch rebuilds it."""
    try:
        if isinstance(data, collections.abc.MutableMapping):
            clone = copy.copy(data)
            clone.update(values)
            return clone
        return type(data)(values)
    except TypeError:
        return values


def _rebuild_sequence(data, values):
    """`values` (a list) in the type of the sequence `data`."""
    try:
        if isinstance(data, collections.abc.MutableSequence):
            clone = copy.copy(data)
            for i, v in enumerate(values):
                clone[i] = v
            return clone
        return type(data)(values)
    except TypeError:
        return values


def _is_numpy(data):
    kind = type(data)
    return kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_")


def default_convert(data):
    """Numpy arrays (but not of strings or objects) and numpy scalars to tensors, inside any nesting of
    mappings and sequences; everything else as it is. (The DataLoader's collate_fn without batching.)"""
    if isinstance(data, Tensor):
        return data
    if _is_numpy(data):
        if type(data).__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return _core.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def collate(batch, *, collate_fn_map=None):
    """Collates a list of samples by the type of the first one: `collate_fn_map` entries first, then
    mappings, namedtuples and sequences recursively."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is default_collate_fn_map:
        _add_numpy_entries()
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        values = {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
        return _rebuild_mapping(elem, values)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        values = [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        if isinstance(elem, tuple):
            return values
        return _rebuild_sequence(elem, values)
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    return _core.stack(list(batch), 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([_core.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    import numpy

    return _core.as_tensor(numpy.asarray(batch))


def collate_float_fn(batch, *, collate_fn_map=None):
    return _core.tensor(batch, dtype=_core.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return _core.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}
_numpy_entries_added = False


def _add_numpy_entries():
    """numpy's entries of `default_collate_fn_map` (arrays; bool, number and object scalars) in PyTorch's place,
    after Tensor, once numpy is in use: `import ferrograd` does not import numpy, and a batch of numpy values
    means it has been imported."""
    global _numpy_entries_added
    if _numpy_entries_added or "numpy" not in sys.modules:
        return
    import numpy

    _numpy_entries_added = True
    rest = [(k, v) for k, v in default_collate_fn_map.items() if k is not Tensor]
    default_collate_fn_map.clear()
    default_collate_fn_map[Tensor] = collate_tensor_fn
    default_collate_fn_map[numpy.ndarray] = collate_numpy_array_fn
    default_collate_fn_map[(numpy.bool_, numpy.number, numpy.object_)] = collate_numpy_scalar_fn
    default_collate_fn_map.update(rest)


def default_collate(batch):
    """A list of samples as one batch (see the module docstring for the rules)."""
    _add_numpy_entries()
    return collate(batch, collate_fn_map=default_collate_fn_map)
