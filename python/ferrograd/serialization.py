"""`ferrograd.save` and `ferrograd.load`: PyTorch's checkpoint format, both ways, and safetensors.

`save` writes what `torch.save` writes (a zip of a pickle and one record per storage, `_torch_format`), so
`torch.load(path, weights_only=True)` reads a ferrograd checkpoint and `ferrograd.load` reads PyTorch's.
`load` tells the formats apart by content: torch's zip, torch's legacy pickle stream
(`_use_new_zipfile_serialization=False`, or PyTorch before 1.6; `_legacy_format`), or a safetensors file
(ferrograd's own format before, still written by `save_safetensors`, and read by the Rust core,
`rust/core/src/serialize/`).

With `weights_only=True` (the default, as in PyTorch) the pickle is interpreted by an allowlisting unpickler
(`_weights_only_unpickler`): tensors, parameters, containers, numbers, strings, dtypes, devices, sizes and
what `add_safe_globals` allows; any other global raises PyTorch's "Weights only load failed" error and
nothing in the file runs. `weights_only=False` unpickles anything, as `torch.load` does, with torch's
module paths mapped to ferrograd's (`torch.nn.modules.linear.Linear` is `ferrograd.nn.modules.linear.Linear`).
"""

import os

from . import _core

__all__ = [
    "save",
    "load",
    "save_safetensors",
    "add_safe_globals",
    "safe_globals",
    "get_safe_globals",
    "clear_safe_globals",
    "get_unsafe_globals_in_checkpoint",
]

DEFAULT_PROTOCOL = 2


def save(
    obj,
    f,
    pickle_module=None,
    pickle_protocol=DEFAULT_PROTOCOL,
    _use_new_zipfile_serialization=True,
    _disable_byteorder_record=False,
) -> None:
    """Saves `obj` to `f` in PyTorch's zip format (`torch.load` reads it): any object torch would pickle, a
    `state_dict()`, an optimizer's `state_dict()`, a whole module, nested containers of tensors.

    Each storage is written once, as a 64-byte-aligned record (so `load(mmap=True)` maps it in place), and
    tensors saved together keep sharing it (views load as views). `f` is a path (str or os.PathLike),
    replaced atomically: the data goes to a temporary file in the same directory
    (`.<name>.<pid>-<n>.ferrograd-tmp`), which is fsynced and renamed over the target, so a crash mid-save
    leaves the previous file intact. Or `f` is a binary file object (`io.BytesIO`, an open file), written
    at its position. `pickle_module` is accepted for PyTorch's signature (the pickle is always written by
    ferrograd's pickler, protocol `pickle_protocol`); so is `_use_new_zipfile_serialization` (ferrograd
    writes only the zip format, which every PyTorch since 1.6 reads).
    """
    from . import _torch_format

    if isinstance(f, (str, os.PathLike)):
        path = os.fsdecode(f)
        target = _core._AtomicFile(path)
        try:
            _torch_format.write(obj, None, _torch_format.archive_name(path), pickle_protocol, fd=target.fileno())
        except BaseException:
            target.abort()
            raise
        target.commit()
    elif hasattr(f, "write"):
        _torch_format.write(obj, f, "archive", pickle_protocol)
    else:
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")


def save_safetensors(obj, f) -> None:
    """Saves `obj` (tensors in dicts, lists and tuples, with numbers, strings, bools, None) as a safetensors
    file, what `ferrograd.save` wrote before it wrote PyTorch's format: a saved `state_dict()` reads in any
    safetensors loader, and `ferrograd.load` reads the file back with its structure. Pickle is never used.
    A path is replaced atomically, as by `save`; a file object is written at its position."""
    if isinstance(f, (str, os.PathLike)):
        _core._save(obj, os.fsdecode(f))
    elif hasattr(f, "write"):
        f.write(_core._save(obj))
    else:
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")


def add_safe_globals(safe_globals) -> None:
    """Marks the given globals (classes or functions, or `(obj, "full.path")` pairs) as safe for
    `weights_only` load: they may then be called or instantiated, and given state, while unpickling."""
    from . import _weights_only_unpickler as _wo

    _wo.add(safe_globals)


def get_safe_globals():
    """The user-added globals that are safe for `weights_only` load."""
    from . import _weights_only_unpickler as _wo

    return _wo.get()


def clear_safe_globals() -> None:
    """Clears the globals added as safe for `weights_only` load."""
    from . import _weights_only_unpickler as _wo

    _wo.clear()


class safe_globals:
    """Context manager that adds globals as safe for `weights_only` load while it is open."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        from . import _weights_only_unpickler as _wo

        _wo.add(self.safe_globals)

    def __exit__(self, *exc):
        from . import _weights_only_unpickler as _wo

        _wo.remove(self.safe_globals)


def get_unsafe_globals_in_checkpoint(f):
    """The globals a checkpoint's pickle names that `weights_only` load would refuse, as 'module.name'
    strings, read statically (nothing runs)."""
    from . import _weights_only_unpickler as _wo

    source = _source_of(f)
    if not isinstance(source, str) and not isinstance(source, bytes):
        raise TypeError("expected a path or a binary file object")
    if _kind_of(source) != "zip":
        raise ValueError("Expected input to be a checkpoint returned by torch.save")
    from . import _torch_format

    with _torch_format.Archive(source) as archive:
        names = _wo.globals_in(archive.read("data.pkl"))
    safe = set(_wo.default_allowed()) | set(_wo.user_allowed()) | {_wo.PARAMETER}
    return list(names - safe)


def _check_map_location(map_location, placing=True) -> None:
    """Every tensor lives on the CPU: accept the ways of saying so, refuse the others. A dict's targets are only
    checked for their type here: a mapping from a location no storage has ({"cuda:0": "cuda:1"} for a CPU
    checkpoint, pytorch/examples' DDP demo) moves nothing, and one that would is refused per storage."""
    if map_location is None or callable(map_location) and not isinstance(map_location, str):
        return
    if isinstance(map_location, dict):
        for target in map_location.values():
            _check_map_location(target, placing=False)
        return
    device = map_location if isinstance(map_location, str) else getattr(map_location, "type", None)
    if not isinstance(device, str):
        raise TypeError(
            f"map_location must be None, a device string, a device, a dict or a callable, "
            f"not {type(map_location).__name__}"
        )
    if not placing:
        return
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


def _source_of(f):
    """A path (str) or the bytes of the file (read from a file object's position to its end)."""
    if isinstance(f, (str, os.PathLike)):
        return os.fsdecode(f)
    if hasattr(f, "read"):
        data = f.read()
        return data if isinstance(data, bytes) else bytes(data)
    raise AttributeError(
        f"'{type(f).__name__}' object has no attribute 'seek'. You can only torch.load from a file that is "
        "seekable. Please pre-load the data into a buffer like io.BytesIO and try to load from it instead."
    )


def _head(source, n=512):
    if isinstance(source, bytes):
        return source[:n]
    if os.path.isdir(source):
        return b""  # the safetensors reader raises the usual IsADirectoryError
    with open(source, "rb") as f:
        return f.read(n)


def _kind_of(source):
    """'zip' (torch.save), 'legacy' (torch's pre-1.6 pickle stream), 'tar' (torch's oldest format) or
    'safetensors', by content."""
    head = _head(source)
    if len(head) >= 9 and head[8:9] == b"{":
        return "safetensors"  # an 8-byte header length, then the JSON header
    if head[:4] == b"PK\x03\x04":
        return "zip"
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return "legacy"
    if head[257:262] == b"ustar":  # a tar's magic: `storages`, `tensors` and `pickle`
        return "tar"
    return "safetensors"  # its reader says what is wrong with the file


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Loads what `torch.save` or `ferrograd.save` wrote (PyTorch's zip format, or its legacy format:
    `_use_new_zipfile_serialization=False`, PyTorch before 1.6), or a safetensors file (ferrograd's format
    before, `save_safetensors`; any `.safetensors` loads as a dict name → tensor).

    `weights_only=True` (the default, as in PyTorch, unless a `pickle_module` is given) runs nothing from the
    file: the pickle may only build tensors, parameters, containers, numbers, strings, dtypes, devices, sizes,
    and the classes and functions
    allowed with `add_safe_globals`; anything else raises PyTorch's "Weights only load failed" error
    (an `UnpicklingError`). `weights_only=False` unpickles anything (only for files you trust): whole
    modules, numpy arrays, user classes, with torch's module paths resolved to ferrograd's.

    Every size, offset and stride in the file is checked against the bytes present before any tensor is
    made; a truncated, corrupt or hostile file raises RuntimeError naming the problem. Tensors saved
    together keep their sharing. `mmap=True` (paths to zip files only) maps the file privately instead of reading it:
    the tensors use the mapping's pages (writes to them stay in this process). `map_location` may be None,
    'cpu', a CPU device, a dict of locations or a callable `(storage, location)` (ferrograd has only the CPU).
    As in PyTorch, `TORCH_FORCE_WEIGHTS_ONLY_LOAD=1` forces `weights_only=True`, and
    `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1` turns the default (not an explicit `weights_only=True`) to False.
    """
    weights_only = _weights_only_setting(weights_only, pickle_module)
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if pickle_module is not None and not hasattr(pickle_module, "Unpickler"):
        # torch fails later with an AttributeError from inside; the argument is what is wrong
        raise TypeError(
            f"load(): pickle_module must be a module like pickle (with an Unpickler), "
            f"not {type(pickle_module).__name__}"
        )
    _check_map_location(map_location)
    source = _source_of(f)
    kind = _kind_of(source)
    if mmap and kind in ("legacy", "tar"):
        from . import _legacy_format

        raise _legacy_format.mmap_error(f)
    if mmap and not isinstance(f, (str, os.PathLike)):
        raise ValueError("f must be a file path in order to use the mmap argument")
    if kind == "safetensors":
        if pickle_load_args:
            raise TypeError(f"load() got unexpected keyword arguments {sorted(pickle_load_args)}")
        obj = _core._load(source, bool(mmap)) if isinstance(source, str) else _core._load(source)
        if callable(map_location) and not isinstance(map_location, str):
            _apply_map_callable(obj, map_location)
        return obj
    import io
    import pickle

    from . import _torch_format
    from . import _weights_only_unpickler as _wo

    if kind == "tar":
        from . import _legacy_format

        raise _legacy_format.tar_error(weights_only)
    encoding = pickle_load_args.pop("encoding", "utf-8")
    if weights_only and pickle_load_args:
        import warnings

        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    if kind == "legacy":
        from . import _legacy_format

        unpickler_class = None if weights_only else _full_unpickler(pickle_module or pickle)
        try:
            return _legacy_format.load(source, map_location, weights_only, unpickler_class, encoding, pickle_load_args)
        except pickle.UnpicklingError as e:
            if not weights_only:
                raise
            raise pickle.UnpicklingError(_wo.failure_message(str(e))) from None
    with _torch_format.Archive(source, bool(mmap)) as archive:
        data = archive.read("data.pkl")
        storages = _torch_format.StorageLoader(archive, map_location)
        if weights_only:
            try:
                return _wo.Unpickler(io.BytesIO(data), storages, encoding=encoding).load()
            except pickle.UnpicklingError as e:
                raise pickle.UnpicklingError(_wo.failure_message(str(e))) from None
        unpickler = _full_unpickler(pickle_module or pickle)(io.BytesIO(data), encoding=encoding, **pickle_load_args)
        unpickler.persistent_load = storages
        return unpickler.load()


def _weights_only_setting(weights_only, pickle_module):
    """torch's rule: unset means True without a `pickle_module`; its two environment variables override."""
    not_set = weights_only is None
    if not_set:
        weights_only = pickle_module is None
    true_values = ("1", "y", "yes", "true")
    force = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    force_no = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    if force and force_no:
        raise RuntimeError(
            "Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
            "should be set, but both were set."
        )
    if force:
        return True
    if force_no and not_set:
        import warnings

        # torch's text, its missing space included
        warnings.warn(
            "Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the"
            "`weights_only` argument was not explicitly passed to `torch.load`, forcing weights_only=False.",
            UserWarning,
            stacklevel=3,
        )
        return False
    return bool(weights_only)


def _full_unpickler(pickle_module):
    """An unpickler of `pickle_module` that reads torch's names as ferrograd's (`weights_only=False`)."""
    import importlib

    from . import _torch_format

    names = _torch_format.torch_globals()

    class Unpickler(pickle_module.Unpickler):
        def find_class(self, module, name):
            full_name = f"{module}.{name}"
            if full_name == "torch.nn.parameter.Parameter":
                return _torch_format._parameter_class()
            if full_name in names:
                return names[full_name]
            missing = _torch_format.unsupported_global(full_name)
            if missing is not None:
                raise missing
            if module == "torch" or module.startswith("torch."):
                here = "ferrograd" + module[len("torch") :]
                try:
                    found = importlib.import_module(here)
                    for part in name.split("."):
                        found = getattr(found, part)
                except (ImportError, AttributeError):
                    raise AttributeError(
                        f"the checkpoint names {full_name}, and ferrograd has no {here}.{name} to load it as"
                    ) from None
                return found
            return super().find_class(module, name)

    return Unpickler


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
