"""PyTorch's legacy checkpoint format, read: what `torch.save(obj, f, _use_new_zipfile_serialization=False)` writes,
and what every PyTorch before 1.6 wrote.

The file is a stream of pickles and raw storages, one after another:

1. the magic number 0x1950a86a20f9469cfc6c, pickled;
2. the format's protocol version, 1001, pickled;
3. a dict describing the machine that saved it (byte order, C type sizes), pickled;
4. the object itself, pickled, each storage as the persistent id
   `('storage', storage_class, key, location, numel, view_metadata)`, where `view_metadata` is None or, in
   files of older PyTorch, `(view_key, offset, numel)`: a slice of the storage `key` (a whole module's classes
   as `('module', class, source_file, source)`);
5. the list of the storage keys, pickled;
6. for each key, in that list's order, the storage's element count as a little-endian int64, then its bytes
   (little-endian).

Unlike the zip format, the storages come after the pickle that uses them. As in torch, each storage is made
when the pickle first names it, and its bytes are read into it once the pickle is done; but first, everything
the storages claim is checked against the bytes left in the file, so no size taken from a file is allocated
before the file is seen to hold it. The header pickles go through the same unpickler as the object (with
`weights_only=True`, the allowlisting one), and every read is bounded by the file's end.
"""

import pickle

from . import _core
from . import _torch_format as tf
from ._core import Tensor

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
_COUNT_SIZE = 8


def tar_error(weights_only):
    """The oldest format, a tar of `storages`, `tensors` and `pickle`, is not read."""
    from ._weights_only_unpickler import UNSAFE_MESSAGE

    if weights_only:  # torch's text
        return RuntimeError(
            "Cannot use ``weights_only=True`` with files saved in the legacy .tar format. " + UNSAFE_MESSAGE
        )
    return RuntimeError(
        "this checkpoint is in PyTorch's oldest format (a tar of 'storages', 'tensors' and 'pickle'), which "
        "ferrograd does not read; load it with torch and save it again"
    )


def mmap_error(f):
    name = f"{f}, " if isinstance(f, str) else ""  # torch's text
    return RuntimeError(
        "mmap can only be used with files saved with "
        f"`torch.save({name}_use_new_zipfile_serialization=True), "
        "please torch.save your checkpoint with this option in order to use mmap."
    )


class _Bounded:
    """The file, as the unpicklers read it: never past its end, so a length read from the file (a string of
    2**31 bytes) cannot make `read` allocate more than the file holds."""

    def __init__(self, file, size):
        self.file = file
        self.size = size

    def tell(self):
        return self.file.tell()

    def left(self):
        return max(self.size - self.file.tell(), 0)

    def read(self, n=-1):
        left = self.left()
        return self.file.read(left if n is None or n < 0 else min(n, left))

    def readline(self, limit=-1):
        left = self.left()
        return self.file.readline(left if limit is None or limit < 0 else min(limit, left))


class _Root:
    """A storage the pickle named: its class, its length and the flat tensor its bytes will be read into."""

    __slots__ = ("storage_type", "numel", "storage")

    def __init__(self, storage_type, numel, storage):
        self.storage_type = storage_type
        self.numel = numel
        self.storage = storage


def _decode(value):
    return value.decode("ascii") if isinstance(value, bytes) else value


class Loader:
    """Reads one legacy checkpoint (`source`: a path, or the file's bytes)."""

    def __init__(self, source, map_location, weights_only, unpickler_class, encoding, pickle_load_args):
        self.path, self.bytes, self.file, self.size = tf.open_source(source)
        self.stream = _Bounded(self.file, self.size)
        self.relocate = tf.StorageLoader(None, map_location)._relocate
        self.weights_only = weights_only
        self.unpickler_class = unpickler_class  # for weights_only=False
        self.encoding = encoding
        self.pickle_load_args = pickle_load_args
        self.roots = {}  # key -> _Root, in the order the pickle names them
        self.views = {}  # view key -> (root key, Storage)
        self.claimed = 0  # bytes the storages named so far take in the file, with their counts

    def close(self):
        self.file.close()

    def _unpickle(self, persistent_load):
        if self.weights_only:
            from . import _weights_only_unpickler as _wo

            return _wo.Unpickler(self.stream, persistent_load, encoding=self.encoding).load()
        unpickler = self.unpickler_class(self.stream, encoding=self.encoding, **self.pickle_load_args)
        unpickler.persistent_load = persistent_load
        return unpickler.load()

    @staticmethod
    def _no_persistent_id(pid):
        raise pickle.UnpicklingError("unsupported persistent id encountered")

    def load(self):
        magic = self._unpickle(self._no_persistent_id)
        if type(magic) is not int or magic != MAGIC_NUMBER:
            raise RuntimeError("Invalid magic number; corrupt file?")
        version = self._unpickle(self._no_persistent_id)
        if type(version) is not int or version != PROTOCOL_VERSION:
            raise RuntimeError(f"Invalid protocol version: {version}")  # torch's text
        self._unpickle(self._no_persistent_id)  # the saving machine's description: torch does not use it
        result = self._unpickle(self._persistent_load)
        keys = self._unpickle(self._no_persistent_id)
        self._read_storages(self._check_keys(keys))
        return result

    def _persistent_load(self, pid):
        if type(pid) is not tuple or not pid:
            raise pickle.UnpicklingError(f"unsupported persistent id {pid!r}: a legacy checkpoint's are tuples")
        kind = _decode(pid[0])
        if kind == "module" and not self.weights_only and len(pid) == 4:
            return pid[1]  # a whole module's class (torch also compares its saved source; ferrograd's differs)
        if kind != "storage":
            if self.weights_only:  # torch's text
                raise pickle.UnpicklingError(f"Only persistent_load of storage is allowed, but got {type(pid[0])}")
            raise RuntimeError(f"Unknown saved id type: {pid[0]!r}")
        if len(pid) != 6:
            raise tf.invalid(f"a storage's persistent id has {len(pid)} fields, not 6")
        _, storage_type, key, location, numel, view = pid
        key, location = _decode(key), _decode(location)
        if type(storage_type) is not tf.StorageType:
            raise tf.invalid(f"a storage has the type {storage_type!r}, not a storage class")
        if type(key) is not str or type(location) is not str:
            raise tf.invalid(f"a storage has the key {key!r} and location {location!r}, not strings")
        if type(numel) is not int or not 0 <= numel < 2**63:
            raise tf.invalid(f"a storage claims {numel!r} elements")
        root = self.roots.get(key)
        if root is None:
            root = self._new_root(key, storage_type, location, numel)
        elif root.storage_type is not storage_type or root.numel != numel:
            raise tf.invalid(
                f"the storage {key} is named as {root.numel} × {root.storage_type.dtype} and as {numel} × "
                f"{storage_type.dtype}"
            )
        if view is None:
            return root.storage
        return self._view(key, root, view)

    def _view(self, key, root, view):
        """A storage saved as a slice of another (older PyTorch): `(view_key, offset, numel)` of the root."""
        if type(view) is not tuple or len(view) != 3:
            raise tf.invalid(f"the storage {key} has the view metadata {view!r}, not (key, offset, size)")
        view_key, offset, numel = _decode(view[0]), view[1], view[2]
        if type(view_key) is not str or type(offset) is not int or type(numel) is not int:
            raise tf.invalid(f"the storage {key} has the view metadata {view!r}, not (key, offset, size)")
        if offset < 0 or numel < 0 or offset + numel > root.numel:
            raise tf.invalid(
                f"the storage view {view_key} claims elements {offset} to {offset + numel} of the storage {key}, "
                f"which has {root.numel}"
            )
        known = self.views.get(view_key)
        if known is None:
            known = self.views[view_key] = (key, tf.Storage(root.storage.tensor, offset, numel))
        if known[0] != key or known[1].offset != offset or known[1].numel != numel:
            raise tf.invalid(f"the storage view {view_key} is named as two different slices")
        return known[1]

    def _new_root(self, key, storage_type, location, numel):
        dtype = storage_type.dtype
        nbytes = numel * dtype.itemsize
        # every storage is in the file after this point: refuse what it cannot hold before allocating
        self.claimed += _COUNT_SIZE + nbytes
        left = self.stream.left()
        if self.claimed > left:
            raise tf.invalid(
                f"the storage {key} needs {nbytes} bytes ({numel} × {dtype}), more than the {left} bytes left "
                "in the file after its storages so far (truncated?)"
            )
        flat = self.relocate(_core.zeros(numel, dtype=dtype), location, f"torch.{storage_type.name}")
        if tuple(flat.shape) != (numel,):
            raise RuntimeError(
                f"map_location callables must return the storage they are given; this one returned a tensor of "
                f"shape {tuple(flat.shape)} for a storage of {numel} elements"
            )
        root = self.roots[key] = _Root(storage_type, numel, tf.Storage(flat))
        return root

    def _check_keys(self, keys):
        if type(keys) is not list:
            raise tf.invalid(f"the list of storage keys is a {type(keys).__name__}, not a list")
        keys = [_decode(k) for k in keys]
        seen = set()
        for key in keys:
            if type(key) is not str:
                raise tf.invalid(f"the list of storage keys holds {key!r}, not a string")
            if key in seen:
                raise tf.invalid(f"the list of storage keys holds {key} twice")
            if key not in self.roots:
                raise tf.invalid(f"the list of storage keys holds {key}, which the pickle does not name")
            seen.add(key)
        for key in self.roots:
            if key not in seen:
                raise tf.invalid(f"the pickle names the storage {key}, which the file's list of storages lacks")
        return keys

    def _read_storages(self, keys):
        record_file = None
        for key in keys:
            root = self.roots[key]
            dtype = root.storage_type.dtype
            at = self.stream.tell()
            head = self.stream.read(_COUNT_SIZE)
            if len(head) != _COUNT_SIZE:
                raise _eof(_COUNT_SIZE - len(head))
            count = int.from_bytes(head, "little", signed=True)
            if count != root.numel:  # torch's text: expected what the file says, got what the pickle said
                raise RuntimeError(
                    f"storage has wrong byte size: expected {count * dtype.itemsize} got {root.numel * dtype.itemsize}"
                )
            start = at + _COUNT_SIZE
            nbytes = root.numel * dtype.itemsize
            if start + nbytes > self.size:
                raise _eof(start + nbytes - self.size)
            name = f"storage {key}"
            try:
                if self.bytes is not None:
                    data = _core._storage_from_bytes(self.bytes, dtype, start, root.numel, name)
                else:
                    if record_file is None:
                        record_file = _core._RecordFile(self.path, False)
                    data = record_file.storage(dtype, start, root.numel, name)
            except RuntimeError as e:  # bool bytes other than 0 and 1: the core names its own format
                message = str(e).removeprefix("invalid safetensors file: ")
                raise tf.invalid(message) from None
            target = root.storage.tensor
            if not isinstance(target, Tensor):
                raise tf.invalid(f"the storage {key} was mapped to a {type(target).__name__}")
            target.detach().copy_(data)
            self.file.seek(start + nbytes)


def _eof(missing):
    return RuntimeError(f"unexpected EOF, expected {missing} more bytes. The file might be corrupted.")  # torch's


def load(source, map_location, weights_only, unpickler_class, encoding, pickle_load_args):
    loader = Loader(source, map_location, weights_only, unpickler_class, encoding, pickle_load_args)
    try:
        return loader.load()
    finally:
        loader.close()
