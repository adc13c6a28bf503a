"""The unpickler behind `load(..., weights_only=True)`: PyTorch's allowlist, and nothing a file names runs
unless it is on it.

It interprets the pickle opcode by opcode, as PyTorch's `torch/_weights_only_unpickler.py` does, and accepts
the same opcodes and the same globals: containers, numbers, strings, torch's tensor and parameter rebuild
functions, storage classes, dtypes, `torch.Size`, `torch.device`, `collections.OrderedDict`/`Counter`, `set`,
`complex`, `bytearray` and `_codecs.encode` (how protocol 2 spells bytes), plus what the user allowlists with
`add_safe_globals`. Objects are created only from allowed classes (NEWOBJ), only allowed callables are called
(REDUCE), state is set (BUILD) only on parameters, OrderedDicts and allowed classes, APPEND only extends
lists and SETITEM only fills dicts. Unlike PyTorch it also refuses calls that would allocate a size taken
from the file (`bytearray(10**12)`, `Tensor(10**12)`): a checkpoint never needs them.
"""

import _compat_pickle
import codecs
import pickle
import struct
import sys
import warnings
from collections import Counter, OrderedDict

from . import _torch_format
from ._core import Tensor

# never allowed, even if allowlisted
BLOCKED_MODULES = ("sys", "os", "posix", "nt")

_user_globals: set = set()


def add(safe):
    global _user_globals
    _user_globals = _user_globals | set(safe)


def remove(safe):
    global _user_globals
    _user_globals = _user_globals - set(safe)


def get():
    return list(_user_globals)


def clear():
    global _user_globals
    _user_globals = set()


def user_allowed():
    """The user's allowlist by full name; a ferrograd object also answers to its torch name (files name
    `torch.nn.modules.linear.Linear` for ferrograd's Linear, since they must load in torch too)."""
    allowed = {}
    for entry in _user_globals:
        if isinstance(entry, tuple):
            if len(entry) != 2:
                raise ValueError(
                    f"Expected tuple of length 2 (global, str of callable full path), but got tuple of length: "
                    f"{len(entry)}"
                )
            if type(entry[1]) is not str:
                raise TypeError(
                    f"Expected second item in tuple to be str of callable full path, but got: {type(entry[1])}"
                )
            obj, name = entry
        else:
            obj, name = entry, f"{entry.__module__}.{entry.__qualname__}"
        allowed[name] = obj
        if name.startswith("ferrograd."):
            allowed["torch." + name[len("ferrograd.") :]] = obj
    return allowed


def _encode(obj, encoding="utf-8", errors="strict"):
    if not isinstance(obj, str):
        raise pickle.UnpicklingError(f"_codecs.encode is allowed on strings only, not on {type(obj).__name__}")
    return codecs.encode(obj, encoding, errors)


def _bytearray(*args):
    if args and isinstance(args[0], int):
        raise pickle.UnpicklingError("bytearray(size) is not allowed: it would allocate a size read from the file")
    return bytearray(*args)


_defaults = None


def default_allowed():
    """PyTorch's default allowlist, with ferrograd's objects for torch's names."""
    global _defaults
    if _defaults is None:
        allowed = {
            "collections.OrderedDict": OrderedDict,
            "collections.Counter": Counter,
            "_codecs.encode": _encode,
            "builtins.bytearray": _bytearray,
            "builtins.set": set,
            "builtins.complex": complex,
        }
        allowed.update(_torch_format.torch_globals())
        _defaults = allowed
    return _defaults


# resolved on first use, so that loading plain tensors leaves `ferrograd.nn` unimported
PARAMETER = "torch.nn.parameter.Parameter"


def _loaded_parameter():
    """`nn.Parameter` if `ferrograd.nn` is loaded (no file can have put one on the stack otherwise)."""
    module = sys.modules.get("ferrograd.nn.parameter")
    return module.Parameter if module is not None else None


def _global_name(readline):
    module = readline()[:-1].decode("utf-8")
    name = readline()[:-1].decode("utf-8")
    # protocol 2 pickles may carry Python 2 names
    if (module, name) in _compat_pickle.NAME_MAPPING:
        module, name = _compat_pickle.NAME_MAPPING[(module, name)]
    elif module in _compat_pickle.IMPORT_MAPPING:
        module = _compat_pickle.IMPORT_MAPPING[module]
    return module, name


def unsupported_global_message(full_path):
    if full_path.startswith("builtins"):
        rest = full_path[len("builtins") :]
        full_path = rest[1:] if rest.startswith(".") else "builtins" + rest
    return (
        f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. "
        f"Please use `torch.serialization.add_safe_globals([{full_path}])` or the "
        f"`torch.serialization.safe_globals([{full_path}])` context manager to allowlist this global "
        "if you trust this class/function."
    )


def resolve(module, name, allowed, user):
    full_path = f"{module}.{name}"
    if module in BLOCKED_MODULES:
        raise pickle.UnpicklingError(f"Trying to load unsupported GLOBAL {full_path} whose module {module} is blocked.")
    if full_path in allowed:
        return allowed[full_path]
    if full_path == PARAMETER:
        return _torch_format._parameter_class()
    if full_path in user:
        return user[full_path]
    missing = _torch_format.unsupported_global(full_path)
    if missing is not None:
        raise missing
    raise pickle.UnpicklingError(unsupported_global_message(full_path))


def _is_one_of(obj, objects):
    return any(obj is x for x in objects)


class Unpickler:
    def __init__(self, file, persistent_load, *, encoding="utf-8"):
        self.read = file.read
        self.readline = file.readline
        self.persistent_load = persistent_load
        self.encoding = encoding
        self.memo = {}

    def _read(self, n):
        data = self.read(n)
        if len(data) != n:
            raise pickle.UnpicklingError("pickle data was truncated")
        return data

    def load(self):
        try:
            return self._load()
        except (IndexError, KeyError, EOFError, TypeError, struct.error, UnicodeDecodeError) as e:
            raise pickle.UnpicklingError(f"the pickle is malformed or truncated ({type(e).__name__}: {e})") from None

    def _load(self):
        allowed = default_allowed()
        user = user_allowed()
        allowed_values = list(allowed.values())
        user_values = list(user.values())
        self.metastack = []
        self.stack = []
        read = self._read
        while True:
            key = self.read(1)
            if not key:
                raise EOFError("pickle data was truncated")
            op = key[0]
            stack = self.stack
            if op == pickle.GLOBAL[0]:
                module, name = _global_name(self.readline)
                stack.append(resolve(module, name, allowed, user))
            elif op == pickle.NEWOBJ[0]:
                args = stack.pop()
                cls = stack.pop()
                parameter = _loaded_parameter()
                if parameter is not None and cls is parameter:
                    stack.append(parameter(*args))
                elif isinstance(cls, type) and (_is_one_of(cls, allowed_values) or _is_one_of(cls, user_values)):
                    if cls is Tensor and args:
                        raise pickle.UnpicklingError("creating a torch.Tensor with arguments is not allowed")
                    stack.append(cls.__new__(cls, *args))
                else:
                    raise pickle.UnpicklingError(
                        "Can only create new object for nn.Parameter or classes allowlisted via `add_safe_globals` "
                        f"but got {cls}"
                    )
            elif op == pickle.REDUCE[0]:
                args = stack.pop()
                func = stack[-1]
                known = _is_one_of(func, allowed_values) or _is_one_of(func, user_values)
                if not known and (func is not _loaded_parameter() or func is None):
                    raise pickle.UnpicklingError(f"Trying to call reduce for unrecognized function {func}")
                if type(args) is not tuple:
                    raise pickle.UnpicklingError(f"REDUCE arguments must be a tuple, not {type(args).__name__}")
                if func is Tensor and args:
                    raise pickle.UnpicklingError("calling torch.Tensor with arguments is not allowed in a checkpoint")
                stack[-1] = func(*args)
            elif op == pickle.BUILD[0]:
                state = stack.pop()
                self._build(stack[-1], state, _loaded_parameter(), allowed_values, user_values)
            elif op == pickle.APPEND[0]:
                item = stack.pop()
                if type(stack[-1]) is not list:
                    raise pickle.UnpicklingError(f"Can only append to lists, but got {type(stack[-1])}")
                stack[-1].append(item)
            elif op == pickle.APPENDS[0]:
                items = self._pop_mark()
                if type(self.stack[-1]) is not list:
                    raise pickle.UnpicklingError(f"Can only extend lists, but got {type(self.stack[-1])}")
                self.stack[-1].extend(items)
            elif op == pickle.SETITEM[0]:
                value, k = stack.pop(), stack.pop()
                self._check_dict("SETITEM")
                stack[-1][k] = value
            elif op == pickle.SETITEMS[0]:
                items = self._pop_mark()
                self._check_dict("SETITEMS")
                target = self.stack[-1]
                if len(items) % 2:
                    raise pickle.UnpicklingError("SETITEMS with an odd number of items")
                for i in range(0, len(items), 2):
                    target[items[i]] = items[i + 1]
            elif op == pickle.MARK[0]:
                self.metastack.append(self.stack)
                self.stack = []
            elif op == pickle.TUPLE[0]:
                items = self._pop_mark()
                self.stack.append(tuple(items))
            elif op == pickle.TUPLE1[0]:
                stack[-1] = (stack[-1],)
            elif op == pickle.TUPLE2[0]:
                stack[-2:] = [(stack[-2], stack[-1])]
            elif op == pickle.TUPLE3[0]:
                stack[-3:] = [(stack[-3], stack[-2], stack[-1])]
            elif op == pickle.NONE[0]:
                stack.append(None)
            elif op == pickle.NEWFALSE[0]:
                stack.append(False)
            elif op == pickle.NEWTRUE[0]:
                stack.append(True)
            elif op == pickle.EMPTY_TUPLE[0]:
                stack.append(())
            elif op == pickle.EMPTY_LIST[0]:
                stack.append([])
            elif op == pickle.EMPTY_DICT[0]:
                stack.append({})
            elif op == pickle.EMPTY_SET[0]:
                stack.append(set())
            elif op == pickle.BININT[0]:
                stack.append(struct.unpack("<i", read(4))[0])
            elif op == pickle.BININT1[0]:
                stack.append(read(1)[0])
            elif op == pickle.BININT2[0]:
                stack.append(struct.unpack("<H", read(2))[0])
            elif op == pickle.BINFLOAT[0]:
                stack.append(struct.unpack(">d", read(8))[0])
            elif op == pickle.BINUNICODE[0]:
                n = struct.unpack("<I", read(4))[0]
                stack.append(str(read(n), "utf-8", "surrogatepass"))
            elif op == pickle.SHORT_BINSTRING[0]:
                data = read(read(1)[0])
                stack.append(data if self.encoding == "bytes" else data.decode(self.encoding, "strict"))
            elif op == pickle.BINPERSID[0]:
                pid = stack.pop()
                if type(pid) is not tuple and type(pid) is not int:
                    raise pickle.UnpicklingError(f"persistent_load id must be tuple or int, but got {type(pid)}")
                stack.append(self.persistent_load(pid))
            elif op == pickle.BINGET[0]:
                stack.append(self._memo(read(1)[0]))
            elif op == pickle.LONG_BINGET[0]:
                stack.append(self._memo(struct.unpack("<I", read(4))[0]))
            elif op == pickle.BINPUT[0]:
                self.memo[read(1)[0]] = stack[-1]
            elif op == pickle.LONG_BINPUT[0]:
                self.memo[struct.unpack("<I", read(4))[0]] = stack[-1]
            elif op == pickle.LONG1[0]:
                stack.append(pickle.decode_long(read(read(1)[0])))
            elif op == pickle.PROTO[0]:
                proto = read(1)[0]
                if proto != 2:
                    warnings.warn(
                        f"Detected pickle protocol {proto} in the checkpoint, which was not the default pickle "
                        "protocol used by `torch.load` (2). The weights_only Unpickler might not support all "
                        "instructions implemented by this protocol, please file an issue for adding support if you "
                        "encounter this.",
                        stacklevel=2,
                    )
            elif op == pickle.STOP[0]:
                return self.stack.pop()
            else:
                raise pickle.UnpicklingError(f"Unsupported operand {op}")

    def _memo(self, i):
        if i not in self.memo:
            raise pickle.UnpicklingError(f"the pickle reads memo entry {i}, which was never stored")
        return self.memo[i]

    def _build(self, inst, state, parameter, allowed_values, user_values):
        if type(inst) is Tensor:
            raise pickle.UnpicklingError("ferrograd cannot load legacy tensor state (BUILD on a Tensor)")
        if (parameter is not None and type(inst) is parameter) or type(inst) is OrderedDict:
            if not isinstance(state, dict) or not all(type(k) is str for k in state):
                raise pickle.UnpicklingError(f"the state of a {type(inst).__name__} must be a dict of attributes")
            inst.__dict__.update(state)
        elif _is_one_of(type(inst), allowed_values) or _is_one_of(type(inst), user_values):
            if hasattr(inst, "__setstate__"):
                inst.__setstate__(state)
            else:
                slots = None
                if isinstance(state, tuple) and len(state) == 2:
                    state, slots = state
                if state:
                    inst.__dict__.update(state)
                if slots:
                    for k, v in slots.items():
                        setattr(inst, k, v)
        else:
            raise pickle.UnpicklingError(
                "Can only build Tensor, Parameter, OrderedDict or types allowlisted via `add_safe_globals`, "
                f"but got {type(inst)}"
            )

    def _pop_mark(self):
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    def _check_dict(self, opcode):
        if type(self.stack[-1]) not in (dict, OrderedDict, Counter):
            raise pickle.UnpicklingError(
                f"Can only {opcode} for dict, collections.OrderedDict, collections.Counter, but got "
                f"{type(self.stack[-1])}"
            )


def globals_in(data):
    """Every global the pickle `data` names (read statically, without running it), as 'module.name'."""
    import io
    import pickletools

    names = set()
    try:
        for opcode, arg, _ in pickletools.genops(io.BytesIO(data)):
            if opcode.name == "GLOBAL":
                module, name = arg.split(" ", 1)
                if (module, name) in _compat_pickle.NAME_MAPPING:
                    module, name = _compat_pickle.NAME_MAPPING[(module, name)]
                elif module in _compat_pickle.IMPORT_MAPPING:
                    module = _compat_pickle.IMPORT_MAPPING[module]
                names.add(f"{module}.{name}")
            elif opcode.name in ("STACK_GLOBAL", "INST", "OBJ"):
                raise pickle.UnpicklingError(f"Unsupported operand {opcode.code.encode('latin-1')[0]}")
    except ValueError as e:
        raise pickle.UnpicklingError(f"the pickle is malformed ({e})") from None
    return names


DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
    "weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)
UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, "
    "but it can result in arbitrary code execution. Do it only if you got the file from a "
    "trusted source."
)


def failure_message(message):
    """PyTorch's wording around an error of this unpickler."""
    if "was not an allowed global by default." in message:
        text = (
            "Weights only load failed. This file can still be loaded, to do so you have two options, "
            "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
            f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` please check "
            "the recommended steps in the following error message.\n\tWeightsUnpickler error: " + message
        )
    else:
        text = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
        if "is blocked" not in message:
            text += (
                "Please file an issue with the following so that we can make `weights_only=True` compatible "
                "with your use case: WeightsUnpickler error: "
            )
        text += "\n\n" + message
    return text + DOCS_MESSAGE
