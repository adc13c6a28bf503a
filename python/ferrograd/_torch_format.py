"""PyTorch's checkpoint format: a zip of a pickle (`<archive>/data.pkl`) and one raw record per storage
(`<archive>/data/<key>`), as `torch.save` writes and `torch.load` reads.

The pickle names torch's globals (`torch._utils._rebuild_tensor_v2`, `torch.FloatStorage`, module classes as
`torch.nn.modules...`), so each side reads the other's files: on save ferrograd's names are written under
`torch.`, on load `torch.` names resolve to ferrograd's objects. The bytes of storages never pass through
Python element by element: the core copies a storage out (`_storage_bytes`) and builds storages from a byte
range of the file (`_RecordFile`, `_storage_from_bytes`) and tensors as views of them (`_view_of_storage`),
checking every size and offset against the bytes present before allocating.
"""

import io
import os
import pickle
import struct
import sys
import zipfile
from collections import OrderedDict

from . import _core
from ._core import Tensor

# torch's dtype names for ferrograd's dtypes, and the legacy storage classes that name them in a pickle
DTYPES = {
    name: getattr(_core, name)
    for name in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")
}
_STORAGE_CLASSES = {
    "BoolStorage": "bool",
    "ByteStorage": "uint8",
    "CharStorage": "int8",
    "ShortStorage": "int16",
    "IntStorage": "int32",
    "LongStorage": "int64",
    "HalfStorage": "float16",
    "BFloat16Storage": "bfloat16",
    "FloatStorage": "float32",
    "DoubleStorage": "float64",
}
# torch's other dtypes: a file naming one gets a clear error, not "unsupported global"
UNSUPPORTED_DTYPES = (
    "complex32",
    "complex64",
    "complex128",
    "uint16",
    "uint32",
    "uint64",
    "float8_e4m3fn",
    "float8_e5m2",
    "float8_e4m3fnuz",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float4_e2m1fn_x2",
    "qint8",
    "quint8",
    "qint32",
    "quint4x2",
    "quint2x4",
    "bits1x8",
    "bits2x4",
    "bits4x2",
    "bits8",
    "bits16",
)
_UNSUPPORTED_STORAGES = (
    "ComplexFloatStorage",
    "ComplexDoubleStorage",
    "QInt8Storage",
    "QUInt8Storage",
    "QInt32Storage",
    "QUInt4x2Storage",
    "QUInt2x4Storage",
)

# deflate cannot expand data more than about 1032 times: a record claiming more is a zip bomb
MAX_DEFLATE_RATIO = 1032
STORAGE_ALIGNMENT = 64
_LOCAL_HEADER = struct.Struct("<IHHHHHIIIHH")
_LOCAL_HEADER_SIGNATURE = 0x04034B50


def invalid(message):
    return RuntimeError(f"invalid checkpoint: {message}")


class StorageType:
    """A legacy storage class named in a pickle (`torch.FloatStorage`): the dtype of a storage's elements."""

    def __init__(self, name, dtype):
        self.name = name
        self.dtype = dtype

    def __repr__(self):
        return f"StorageType(dtype={self.dtype})"


STORAGE_TYPES = {name: StorageType(name, DTYPES[dtype]) for name, dtype in _STORAGE_CLASSES.items()}
UNTYPED_STORAGE = StorageType("UntypedStorage", _core.uint8)
_STORAGE_TYPE_OF = {t.dtype: t for t in STORAGE_TYPES.values()}


class Storage:
    """A loaded storage (what `persistent_load` returns): the whole record as a flat tensor; or, for the legacy
    format's storage views, the `numel` elements of that tensor's storage from `offset` on."""

    __slots__ = ("tensor", "offset", "numel")

    def __init__(self, tensor, offset=0, numel=None):
        self.tensor = tensor
        self.offset = offset
        self.numel = numel

    @property
    def dtype(self):
        return self.tensor.dtype


def _int(value, what):
    if type(value) is not int or not 0 <= value < 2**63:
        raise invalid(f"a tensor's {what} is {value!r}, not an integer from 0 to 2**63-1")
    return value


def _ints(values, what):
    if not isinstance(values, (tuple, list)):
        raise invalid(f"a tensor's {what} is a {type(values).__name__}, not a tuple of integers")
    return [_int(v, what) for v in values]


def _tensor_of(storage, storage_offset, size, stride):
    if type(storage) is not Storage:
        raise invalid(f"a tensor is rebuilt from a {type(storage).__name__}, not from a storage of the file")
    sizes = _ints(size, "size")
    strides = _ints(stride, "stride")
    offset = _int(storage_offset, "storage offset")
    if storage.numel is not None:  # a storage view: the tensor must stay inside it
        end = offset + 1 + sum((n - 1) * s for n, s in zip(sizes, strides)) if all(sizes) else offset
        if end > storage.numel:
            raise invalid(f"a tensor reaches element {end - 1} of a storage view of {storage.numel} elements")
        offset += storage.offset
    return _core._view_of_storage(storage.tensor, sizes, strides, offset)


def _rebuild_tensor(storage, storage_offset, size, stride):
    return _tensor_of(storage, storage_offset, size, stride)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    t = _tensor_of(storage, storage_offset, size, stride)
    if type(requires_grad) is not bool:
        raise invalid(f"requires_grad is {requires_grad!r}, not a bool")
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None):
    t = _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks)
    if dtype != t.dtype:
        raise invalid(f"a tensor of {dtype} is stored as {t.dtype}")
    return t


def _parameter_class():
    from .nn.parameter import Parameter

    return Parameter


def _rebuild_parameter(data, requires_grad, backward_hooks):
    if not isinstance(data, Tensor) or type(requires_grad) is not bool:
        raise invalid("a parameter is rebuilt from something other than a tensor and a bool")
    return _parameter_class()(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = _rebuild_parameter(data, requires_grad, backward_hooks)
    _set_state(param, state)
    return param


def _set_state(obj, state):
    """torch's `_set_obj_state`: a dict of attributes, or (dict, slots)."""
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
    else:
        slots = None
    for attrs in (state, slots):
        if attrs:
            if not isinstance(attrs, dict):
                raise invalid(f"an object's state is a {type(attrs).__name__}, not a dict")
            for name, value in attrs.items():
                setattr(obj, name, value)


def _rebuild_from_type_v2(func, new_type, args, state):
    # only a rebuild function may make the tensor (not, say, a class called with a size read from the file)
    if not any(func is f for f in REBUILD_FUNCTIONS.values()) or type(args) is not tuple:
        raise pickle.UnpicklingError(
            f"a tensor subclass is rebuilt by {func!r}, not by one of torch's tensor rebuild functions"
        )
    t = func(*args)
    if type(t) is not new_type:
        if not (isinstance(new_type, type) and issubclass(new_type, Tensor)):
            raise invalid(f"a tensor is rebuilt as {new_type!r}, which is not a tensor class")
        sub = Tensor.__new__(new_type)
        sub.data = t
        sub.requires_grad_(t.requires_grad)
        t = sub
    if getattr(new_type, "__setstate__", None) not in (None, getattr(Tensor, "__setstate__", None)):
        t.__setstate__(state)
    else:
        _set_state(t, state)
    return t


def _rebuild_device_tensor_from_cpu_tensor(data, dtype, device, requires_grad):
    if not isinstance(data, Tensor):
        raise invalid("a tensor is rebuilt from something other than a tensor")
    return data.to(dtype).requires_grad_(bool(requires_grad))


def _unsupported_rebuild(kind):
    def rebuild(*args, **kwargs):
        raise RuntimeError(f"ferrograd cannot load {kind} tensors (the checkpoint holds one)")

    rebuild.__name__ = f"_rebuild_{kind}_tensor"
    return rebuild


def _get_layout(name):
    if name != "torch.strided":
        raise RuntimeError(f"ferrograd has only strided tensors; the checkpoint names the layout {name!r}")
    return name


REBUILD_FUNCTIONS = {
    "torch._utils._rebuild_tensor": _rebuild_tensor,
    "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
    "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3,
    "torch._utils._rebuild_parameter": _rebuild_parameter,
    "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
    "torch._utils._rebuild_device_tensor_from_cpu_tensor": _rebuild_device_tensor_from_cpu_tensor,
    "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
    "torch._utils._rebuild_qtensor": _unsupported_rebuild("quantized"),
    "torch._utils._rebuild_sparse_tensor": _unsupported_rebuild("sparse"),
    "torch._utils._rebuild_meta_tensor_no_storage": _unsupported_rebuild("meta"),
    "torch._utils._rebuild_wrapper_subclass": _unsupported_rebuild("wrapper-subclass"),
    "torch._utils._rebuild_device_tensor_from_numpy": _unsupported_rebuild("numpy-backed device"),
}


def torch_globals():
    """The torch names a checkpoint may use for ferrograd's own objects (both unpicklers resolve them)."""
    from ._device import device
    from ._size import Size

    names = dict(REBUILD_FUNCTIONS)
    names["torch.serialization._get_layout"] = _get_layout
    names.update({"torch.Size": Size, "torch.Tensor": Tensor, "torch.device": device})
    names.update({f"torch.{name}": dtype for name, dtype in DTYPES.items()})
    names.update({f"torch.{name}": t for name, t in STORAGE_TYPES.items()})
    # old files name a CUDA tensor's storage class (torch allows them too; map_location decides where they go)
    names.update({f"torch.cuda.{name}": t for name, t in STORAGE_TYPES.items()})
    names["torch.UntypedStorage"] = UNTYPED_STORAGE
    names["torch.storage.UntypedStorage"] = UNTYPED_STORAGE
    return names


def unsupported_global(full_name):
    """The error for a torch dtype or storage class ferrograd lacks, or None."""
    module, _, name = full_name.rpartition(".")
    if module == "torch" and (name in UNSUPPORTED_DTYPES or name in _UNSUPPORTED_STORAGES):
        return RuntimeError(f"ferrograd does not support {full_name} (the checkpoint holds such a tensor)")
    return None


# ---- saving ----


class _StorageRef:
    """Stands for a storage in the pickle: written as a persistent id, its bytes as a record."""

    __slots__ = ("pid",)

    def __init__(self, pid):
        self.pid = pid


def _torch_name_of(obj):
    """(module, name) under which torch knows one of ferrograd's objects, or None."""
    from ._device import device
    from ._size import Size

    special = {Tensor: ("torch", "Tensor"), Size: ("torch", "Size"), device: ("torch", "device")}
    for full_name, fn in REBUILD_FUNCTIONS.items():
        special[fn] = tuple(full_name.rsplit(".", 1))
    param = sys.modules.get("ferrograd.nn.parameter")
    if param is not None:
        special[param.Parameter] = ("torch.nn.parameter", "Parameter")
        special[param.Buffer] = ("torch.nn.parameter", "Buffer")
    return special


class Pickler(pickle._Pickler):
    """Pickles `obj` as torch.save does: tensors by reference to their storages, globals under torch's names.

    The Python implementation of the pickler, because only it lets `save_global` write a name that is not
    where the object lives here (`torch._utils._rebuild_tensor_v2` for ferrograd's rebuild function); the
    pickle is small (storages are records of their own), so its speed does not matter."""

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages = {}  # core storage key -> (record key, a tensor holding the storage alive)
        self.torch_names = _torch_name_of(None)
        param = sys.modules.get("ferrograd.nn.parameter")
        self.parameter = param.Parameter if param is not None else None
        hooks = sys.modules.get("ferrograd.nn.modules._call_hooks")
        self.call_hooks = hooks.CallHooks if hooks is not None else None
        from ._device import device
        from ._size import Size

        self.size, self.device = Size, device

    def persistent_id(self, obj):
        return obj.pid if type(obj) is _StorageRef else None

    def _storage(self, t):
        if t.is_complex():
            # a complex tensor's storage holds float pairs here: not yet written as torch's complex storages
            raise NotImplementedError(f"ferrograd.save does not support {t.dtype} tensors yet")
        key, numel = _core._storage_key(t)
        entry = self.storages.get(key)
        if entry is None:
            entry = self.storages[key] = (str(len(self.storages)), t)
        return _StorageRef(("storage", _STORAGE_TYPE_OF[t.dtype], entry[0], "cpu", numel))

    def _reduce_tensor(self, t):
        if self.parameter is not None and isinstance(t, self.parameter):
            data = t.detach()
            state = dict(t.__dict__)
            if state:
                return _rebuild_parameter_with_state, (data, t.requires_grad, OrderedDict(), state)
            return _rebuild_parameter, (data, t.requires_grad, OrderedDict())
        args = (self._storage(t), t.storage_offset(), tuple(t.shape), tuple(t.stride()), t.requires_grad, OrderedDict())
        state = getattr(t, "__dict__", None)
        if type(t) is Tensor and not state:
            return _rebuild_tensor_v2, args
        return _rebuild_from_type_v2, (_rebuild_tensor_v2, type(t), args, dict(state or {}))

    def reducer_override(self, obj):
        kind = type(obj)
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        if kind is _core.dtype:
            return str(obj).rpartition(".")[2]  # a global: torch.float32
        if kind is StorageType:
            return obj.name  # a global: torch.FloatStorage
        if kind is self.call_hooks:
            return OrderedDict, (), None, None, iter(obj.items())  # torch's modules keep hooks in OrderedDicts
        if kind is self.size:
            return self.size, (tuple(obj),)
        if kind is self.device:
            return self.device, (str(obj),)
        return NotImplemented

    def _write_global(self, module, name, obj):
        self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode())
        self.memoize(obj)

    def save_global(self, obj, name=None):
        if type(obj) is _core.dtype:
            return self._write_global("torch", name or str(obj).rpartition(".")[2], obj)
        if type(obj) is StorageType:
            return self._write_global("torch", obj.name, obj)
        try:
            special = self.torch_names.get(obj)
        except TypeError:  # unhashable
            special = None
        if special is not None:
            return self._write_global(*special, obj)
        module = getattr(obj, "__module__", None) or ""
        if module == "ferrograd" or module.startswith("ferrograd."):
            qualname = name or obj.__qualname__
            found = sys.modules.get(module)
            for part in qualname.split("."):
                found = getattr(found, part, None)
            if found is not obj:
                raise pickle.PicklingError(f"Can't pickle {obj!r}: it's not found as {module}.{qualname}")
            return self._write_global("torch" + module[len("ferrograd") :], qualname, obj)
        return super().save_global(obj, name)


# the base class's table holds its own save_global (for functions and classes): point it at the override
# (pickle's pure-Python pickler is private API, untyped in typeshed)
Pickler.dispatch = {
    kind: Pickler.save_global if fn is pickle._Pickler.save_global else fn  # type: ignore[attr-defined,misc]
    for kind, fn in pickle._Pickler.dispatch.items()
}


def archive_name(f):
    """torch's name for the zip's top folder: the file's name without its extension, or 'archive'."""
    if isinstance(f, (str, os.PathLike)):
        stem = os.path.splitext(os.path.basename(os.fsdecode(f)))[0]
        return stem or "archive"
    return "archive"


_ZIP64_MARK = 0xFFFFFFFF  # a 32-bit field saying "see the zip64 extra field"
ZIP64_THRESHOLD = _ZIP64_MARK  # sizes and offsets from here on go in zip64 fields (lowered by a test)
_DOS_DATE_1980_01_01 = (1 << 5) | 1
_VERSION_ZIP64 = 45


class _ZipWriter:
    """Writes torch's zip: records stored uncompressed, each with its sizes and CRC in its local header (no data
    descriptors) and its data on a 64-byte boundary (an `FB` padding field, as torch's writer uses), zip64
    fields where a size or an offset needs them. Storages go from the core straight to the file descriptor
    when there is one; their CRC is computed by the core too."""

    def __init__(self, out, fd):
        self.out = out
        self.fd = fd  # set for ferrograd's own temporary file (a file object's fileno() may not be its sink)
        self.at = 0  # offsets are relative to where the zip starts, as zipfile writes them
        self.entries = []

    def _write(self, data):
        if self.fd is not None:
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view) :]
        else:
            self.out.write(data)
        self.at += len(data)

    def _header(self, name, size, crc):
        name_bytes = name.encode("utf-8")
        zip64 = size >= ZIP64_THRESHOLD
        extra = struct.pack("<HHQQ", 1, 16, size, size) if zip64 else b""
        fixed = _LOCAL_HEADER.size + len(name_bytes) + len(extra) + 4
        pad = -(self.at + fixed) % STORAGE_ALIGNMENT
        extra += b"FB" + struct.pack("<H", pad) + b"\0" * pad
        field = _ZIP64_MARK if zip64 else size
        version = _VERSION_ZIP64 if zip64 else 20
        self.entries.append((name_bytes, size, crc, self.at, version))
        header = _LOCAL_HEADER.pack(
            _LOCAL_HEADER_SIGNATURE,
            version,
            0,
            0,
            0,
            _DOS_DATE_1980_01_01,
            crc,
            field,
            field,
            len(name_bytes),
            len(extra),
        )
        self._write(header + name_bytes + extra)

    def record(self, name, data):
        import zlib

        self._header(name, len(data), zlib.crc32(data))
        self._write(data)

    def storage(self, name, t):
        numel = _core._storage_key(t)[1]
        self._header(name, numel * t.dtype.itemsize, _core._storage_crc32(t))
        if self.fd is not None:
            _core._write_storage(t, self.fd)
            self.at += numel * t.dtype.itemsize
        else:
            self._write(_core._storage_bytes(t))

    def finish(self):
        start = self.at
        central = []
        for name, size, crc, offset, version in self.entries:
            extra = b""
            big_size, big_offset = size >= ZIP64_THRESHOLD, offset >= ZIP64_THRESHOLD
            if big_size:
                extra += struct.pack("<QQ", size, size)
            if big_offset:
                extra += struct.pack("<Q", offset)
            if extra:
                extra = struct.pack("<HH", 1, len(extra)) + extra
                version = _VERSION_ZIP64
            field = _ZIP64_MARK if big_size else size
            central.append(
                struct.pack(
                    "<IHHHHHHIIIHHHHHII",
                    0x02014B50,
                    (3 << 8) | version,  # made on unix
                    version,
                    0,
                    0,
                    0,
                    _DOS_DATE_1980_01_01,
                    crc,
                    field,
                    field,
                    len(name),
                    len(extra),
                    0,
                    0,
                    0,
                    0o644 << 16,
                    _ZIP64_MARK if big_offset else offset,
                )
                + name
                + extra
            )
        directory = b"".join(central)
        self._write(directory)
        count, end = len(self.entries), self.at
        # torch writes the zip64 end records always; readers use them when the classic fields overflow
        zip64_end = struct.pack(
            "<IQHHIIQQQQ",
            0x06064B50,
            44,
            (3 << 8) | _VERSION_ZIP64,
            _VERSION_ZIP64,
            0,
            0,
            count,
            count,
            len(directory),
            start,
        )
        locator = struct.pack("<IIQI", 0x07064B50, 0, end, 1)
        classic = struct.pack(
            "<IHHHHIIH",
            0x06054B50,
            0,
            0,
            min(count, 0xFFFF),
            min(count, 0xFFFF),
            min(len(directory), _ZIP64_MARK),
            _ZIP64_MARK if start >= ZIP64_THRESHOLD else start,
            0,
        )
        self._write(zip64_end + locator + classic)


def write(obj, out, name, protocol=2, fd=None):
    """Writes `obj` in torch's zip format to the binary file object `out`, or to the file descriptor `fd`."""
    buf = io.BytesIO()
    pickler = Pickler(buf, protocol)
    pickler.dump(obj)
    zf = _ZipWriter(out, fd)
    zf.record(f"{name}/data.pkl", buf.getvalue())
    zf.record(f"{name}/.format_version", b"1")
    zf.record(f"{name}/.storage_alignment", str(STORAGE_ALIGNMENT).encode())
    zf.record(f"{name}/byteorder", sys.byteorder.encode())
    for key, t in pickler.storages.values():
        zf.storage(f"{name}/data/{key}", t)
    zf.record(f"{name}/version", b"3\n")
    zf.record(f"{name}/.data/serialization_id", str(int.from_bytes(os.urandom(16), "little")).zfill(40).encode())
    zf.finish()


# ---- loading ----


def open_source(source):
    """A checkpoint's source (a path, or the file's bytes) as (path, bytes, open file, size in bytes)."""
    if isinstance(source, str):
        file = open(source, "rb")
        return source, None, file, os.fstat(file.fileno()).st_size
    return None, source, io.BytesIO(source), len(source)


class Archive:
    """A torch zip checkpoint opened for reading: its records found, and every claimed size checked against
    the bytes present before anything is read."""

    def __init__(self, source, mmap=False):
        self.path, self.bytes, self.file, self.size = open_source(source)
        self.records = None
        self.mmap = mmap
        try:
            self.zip = zipfile.ZipFile(self.file)
            infos = self.zip.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, struct.error, OverflowError) as e:
            self.file.close()
            raise RuntimeError(f"PytorchStreamReader failed reading zip archive: {e}") from None
        if not infos:
            self.file.close()
            raise RuntimeError("PytorchStreamReader failed reading zip archive: the zip is empty")
        self.prefix = infos[0].filename.split("/", 1)[0]
        self.records = {info.filename: info for info in infos}
        self._record_file = None

    def close(self):
        self.file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def has(self, name):
        return f"{self.prefix}/{name}" in self.records

    def _info(self, name):
        info = self.records.get(f"{self.prefix}/{name}")
        if info is None:
            raise RuntimeError(f"PytorchStreamReader failed locating file {name}: file not found")
        if info.flag_bits & 0x1:
            raise invalid(f"the record {name} is encrypted")
        return info

    def _data_start(self, info, name):
        """Where the record's data begins: after its local header, whose lengths are read from the file."""
        at = info.header_offset
        if at + _LOCAL_HEADER.size > self.size:
            raise invalid(f"the record {name} starts past the end of the file")
        self.file.seek(at)
        fields = _LOCAL_HEADER.unpack(self.file.read(_LOCAL_HEADER.size))
        if fields[0] != _LOCAL_HEADER_SIGNATURE:
            raise invalid(f"the record {name} has a bad local header")
        start = at + _LOCAL_HEADER.size + fields[9] + fields[10]
        if start + info.compress_size > self.size:
            raise invalid(
                f"the record {name} claims {info.compress_size} bytes at byte {start}, past the end of the "
                f"{self.size}-byte file (truncated?)"
            )
        return start

    def _check_compressed(self, info, name):
        if info.compress_type == zipfile.ZIP_STORED:
            if info.compress_size != info.file_size:
                raise invalid(f"the stored record {name} claims {info.file_size} bytes but holds {info.compress_size}")
            return False
        if info.compress_type != zipfile.ZIP_DEFLATED:
            raise invalid(f"the record {name} uses compression method {info.compress_type} (torch stores records)")
        if info.file_size > MAX_DEFLATE_RATIO * max(info.compress_size, 1):
            raise invalid(
                f"the record {name} claims {info.file_size} bytes from {info.compress_size} compressed ones, "
                "more than deflate can produce (a zip bomb?)"
            )
        return True

    def read(self, name):
        """A small record (the pickle, the version) as bytes."""
        info = self._info(name)
        start = self._data_start(info, name)
        if self._check_compressed(info, name):
            with self.zip.open(info) as f:
                data = f.read(info.file_size)
        else:
            self.file.seek(start)
            data = self.file.read(info.file_size)
        if len(data) != info.file_size:
            raise invalid(f"the record {name} is truncated")
        return data

    def storage(self, key, dtype, numel):
        """The record `data/<key>` as a flat tensor of `numel` elements of `dtype`."""
        name = f"data/{key}"
        info = self._info(name)
        start = self._data_start(info, name)
        nbytes = numel * dtype.itemsize
        if nbytes > info.file_size:
            raise invalid(
                f"the storage {key} needs {nbytes} bytes ({numel} × {dtype}) but its record holds {info.file_size}"
            )
        if self._check_compressed(info, name):
            with self.zip.open(info) as f:
                data = f.read(nbytes)
            if len(data) != nbytes:
                raise invalid(f"the record {name} is truncated")
            return _core._storage_from_bytes(data, dtype, 0, numel, name)
        if self.bytes is not None:
            return _core._storage_from_bytes(self.bytes, dtype, start, numel, name)
        if self._record_file is None:
            self._record_file = _core._RecordFile(self.path, self.mmap)
        return self._record_file.storage(dtype, start, numel, name)


CUDA_MESSAGE = (
    "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are "
    "running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your "
    "storages to the CPU."
)


def _check_cpu(location, storage_name):
    device = str(location)
    if device == "cpu" or device.startswith("cpu:"):
        return
    if device.startswith("cuda"):
        raise RuntimeError(CUDA_MESSAGE)
    raise RuntimeError(f"don't know how to restore data location of {storage_name} (tagged with {device})")


def _decode_ascii(value):
    return value.decode("ascii") if isinstance(value, bytes) else value


class StorageLoader:
    """`persistent_load` for a torch archive: each storage record read once, then moved by `map_location`."""

    def __init__(self, archive, map_location):
        self.archive = archive
        self.map_location = map_location
        self.loaded = {}

    def __call__(self, pid):
        if type(pid) is not tuple or len(pid) != 5 or _decode_ascii(pid[0]) != "storage":
            raise pickle.UnpicklingError(f"unsupported persistent id {pid!r}: only storages are")
        _, storage_type, key, location, numel = pid
        key, location = _decode_ascii(key), _decode_ascii(location)
        if type(storage_type) is not StorageType:
            raise invalid(f"a storage has the type {storage_type!r}, not a storage class")
        if type(key) is not str or "/" in key or type(location) is not str:
            raise invalid(f"a storage has the key {key!r} and location {location!r}, not strings")
        if type(numel) is not int or numel < 0:
            raise invalid(f"a storage claims {numel!r} elements")
        if key in self.loaded:
            return self.loaded[key]
        flat = self.archive.storage(key, storage_type.dtype, numel)
        flat = self._relocate(flat, location, f"torch.{storage_type.name}")
        storage = self.loaded[key] = Storage(flat)
        return storage

    def _relocate(self, flat, location, storage_name):
        where = self.map_location
        if where is None:
            _check_cpu(location, storage_name)
            return flat
        if isinstance(where, dict):
            target = where.get(location, location)
            _check_cpu(target, storage_name)
            return flat
        if callable(where) and not isinstance(where, str):
            result = where(flat, location)
            if result is None:
                _check_cpu(location, storage_name)
                return flat
            if not isinstance(result, Tensor) or result.dtype != flat.dtype:
                raise RuntimeError(
                    "map_location callables must return the storage they are given, on the CPU (ferrograd has no "
                    f"other device); this one returned {type(result).__name__}"
                )
            return result
        _check_cpu(where if isinstance(where, str) else getattr(where, "type", where), storage_name)
        return flat
