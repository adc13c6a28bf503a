"""`ferrograd.save` and `ferrograd.load`: checkpoints as safetensors files.

The format, the checks on load and the atomic replacement are in the Rust core
(`rust/core/src/serialize/`); this module handles the arguments PyTorch's versions take.
"""

import os

from . import _core

__all__ = ["save", "load"]


def save(
    obj,
    f,
    pickle_module=None,
    pickle_protocol=2,
    _use_new_zipfile_serialization=True,
    _disable_byteorder_record=False,
) -> None:
    """Saves `obj` (tensors in dicts, lists and tuples, with numbers, strings, bools, None) to `f`.

    `f` is a path (str or os.PathLike), replaced atomically: the data goes to a temporary file in
    the same directory (`.<name>.<pid>-<n>.ferrograd-tmp`), which is fsynced and renamed over the
    target, so a crash mid-save leaves the previous file intact. Or `f` is a binary file object
    (`io.BytesIO`, an open file), written at its position. The file is safetensors: a saved
    `state_dict()` reads in any safetensors loader. Pickle is never used; `pickle_module` and
    `pickle_protocol` are accepted for PyTorch's signature and ignored.
    """
    if isinstance(f, (str, os.PathLike)):
        _core._save(obj, os.fsdecode(f))
    elif hasattr(f, "write"):
        f.write(_core._save(obj))
    else:
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")


def _check_map_location(map_location) -> None:
    """Every tensor lives on the CPU: accept the ways of saying so, refuse the others."""
    if map_location is None or callable(map_location) and not isinstance(map_location, str):
        return
    if isinstance(map_location, dict):
        for target in map_location.values():
            _check_map_location(target)
        return
    device = map_location if isinstance(map_location, str) else getattr(map_location, "type", None)
    if not isinstance(device, str):
        raise TypeError(
            f"map_location must be None, a device string, a device, a dict or a callable, "
            f"not {type(map_location).__name__}"
        )
    kind = device.split(":", 1)[0]
    if kind == "cpu":
        return
    if kind == "cuda":
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but ferrograd has no CUDA support. "
            "ferrograd runs on the CPU: use map_location='cpu' (or leave it out)."
        )
    raise RuntimeError(
        f"don't know how to restore data location of a tensor (tagged with {device}); ferrograd tensors live on the CPU"
    )


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, **pickle_load_args):
    """Loads what `ferrograd.save` wrote, or any `.safetensors` file (as a dict name → tensor).

    `f` is a path or a binary file object (read from its position to the end). Nothing in the file
    is executed: the header, every name, size and offset are checked against the bytes present
    before any tensor is made, and a truncated, corrupt or hostile file raises RuntimeError naming
    the problem. Tensors saved together keep their sharing: the same tensor twice loads as one
    object twice, views of one storage load as views of one storage.

    `mmap=True` (paths only) maps the file privately instead of reading it: the tensors then use
    the mapping's pages, and writes to them stay in this process (the file must not be truncated
    or rewritten in place meanwhile, as with any mapping; ferrograd's own saves replace files,
    never rewrite them). `map_location` may be None, 'cpu', a CPU device, a dict of locations or a
    callable (ferrograd has only the CPU). `weights_only=False` loads the same objects: ferrograd
    files never hold pickled ones.
    """
    if pickle_module is not None:
        raise RuntimeError(
            "ferrograd.load never unpickles, so it takes no pickle_module (checkpoints are safetensors files)"
        )
    if pickle_load_args:
        raise TypeError(f"load() got unexpected keyword arguments {sorted(pickle_load_args)}")
    _check_map_location(map_location)
    if isinstance(f, (str, os.PathLike)):
        obj = _core._load(os.fsdecode(f), bool(mmap))
    elif hasattr(f, "read"):
        if mmap:
            raise ValueError("f must be a file path in order to use the mmap argument")
        data = f.read()
        obj = _core._load(data if isinstance(data, bytes) else bytes(data))
    else:
        raise AttributeError(
            f"'{type(f).__name__}' object has no attribute 'seek'. You can only torch.load from a file that is "
            "seekable. Please pre-load the data into a buffer like io.BytesIO and try to load from it instead."
        )
    if callable(map_location):
        _apply_map_callable(obj, map_location)
    return obj


def _apply_map_callable(obj, fn) -> None:
    """PyTorch calls `map_location(storage, location)` per storage. Every ferrograd tensor is on the
    CPU, so the callable is asked once, with an empty tensor standing in for the storages: the usual
    `lambda storage, loc: storage` (or `storage.cpu()`) agrees; one that returns anything else, or
    raises, means a device ferrograd does not have."""
    result = fn(_core.zeros(0), "cpu")
    if result is not None and not isinstance(result, _core.Tensor):
        raise RuntimeError(
            "map_location callables must keep storages on the CPU (ferrograd has no other device); "
            f"this one returned {type(result).__name__}"
        )
