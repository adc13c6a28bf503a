"""Key-value stores for the rendezvous (PyTorch's `Store`, `TCPStore`, `FileStore`, `PrefixStore`) and the
`init_method` URLs that make one (`env://`, `tcp://host:port`, `file:///path`).

A `TCPStore` master serves the keys from a thread of the process that made it (rank 0's, in
`init_process_group`), one thread per client connection: the clients are the ranks, a handful. A `get` or `wait`
of a missing key waits in the server, bounded by the client's timeout, which the server is told, so a request
never outlives its client's patience and the connection's replies stay in order. The wire format is length-prefixed
fields, no pickle: anything that can reach the port can only set and read keys.
"""

import os
import struct
import threading
import time
from datetime import timedelta

from ._work import DistNetworkError, DistStoreError

# PyTorch's default store timeout (torch.distributed.constants.default_pg_timeout is the group's; the store's
# own default, in TCPStore's signature, is 300 s)
_STORE_TIMEOUT = timedelta(seconds=300)

_SET, _GET, _ADD, _CHECK, _WAIT, _DELETE, _NUM_KEYS, _COMPARE_SET, _APPEND, _PING = range(10)
_OK, _TIMEOUT = 0, 1
_JOINED, _ALL_JOINED = b"__ferrograd_store_joined", b"__ferrograd_store_all_joined"


def _as_bytes(value):
    return value if isinstance(value, bytes) else str(value).encode()


def _seconds(timeout):
    return timeout.total_seconds() if isinstance(timeout, timedelta) else float(timeout)


def _keys(keys):
    return ", ".join("/" + k.decode(errors="replace") for k in keys)  # torch's way of naming them


def _send_fields(sock, code, fields):
    parts = [struct.pack("!BI", code, len(fields))]
    for f in fields:
        parts.append(struct.pack("!I", len(f)))
        parts.append(f)
    sock.sendall(b"".join(parts))


def _recv_exact(sock, n):
    data = bytearray(n)
    view, got = memoryview(data), 0
    while got < n:
        k = sock.recv_into(view[got:])
        if k == 0:
            raise ConnectionError("connection closed")
        got += k
    return bytes(data)


def _recv_fields(sock):
    code, count = struct.unpack("!BI", _recv_exact(sock, 5))
    fields = []
    for _ in range(count):
        (n,) = struct.unpack("!I", _recv_exact(sock, 4))
        fields.append(_recv_exact(sock, n))
    return code, fields


class Store:
    """The interface of PyTorch's `torch.distributed.Store`; `TCPStore`, `FileStore` and `PrefixStore` are the
    ones ferrograd has."""

    def __init__(self):
        self._timeout = _STORE_TIMEOUT

    @property
    def timeout(self):
        return self._timeout

    def set_timeout(self, timeout):
        self._timeout = timeout

    def _call(self, code, fields, timeout=None):
        raise NotImplementedError

    def set(self, key, value):
        self._call(_SET, [_as_bytes(key), _as_bytes(value)])

    def get(self, key):
        """The value of `key`, waiting for another rank to set it (up to the store's timeout)."""
        return self._call(_GET, [_as_bytes(key)])[0]

    def add(self, key, amount):
        """Adds `amount` to the integer at `key` (0 when unset) and returns the sum."""
        return int(self._call(_ADD, [_as_bytes(key), str(int(amount)).encode()])[0])

    def append(self, key, value):
        self._call(_APPEND, [_as_bytes(key), _as_bytes(value)])

    def compare_set(self, key, expected_value, desired_value):
        """Sets `key` to `desired_value` if it holds `expected_value` (or is unset and `expected_value` is
        empty); returns the value it holds afterwards."""
        return self._call(_COMPARE_SET, [_as_bytes(key), _as_bytes(expected_value), _as_bytes(desired_value)])[0]

    def check(self, keys):
        return self._call(_CHECK, [_as_bytes(k) for k in keys])[0] == b"1"

    def wait(self, keys, timeout=None):
        """Waits until every key in `keys` is set (up to `timeout`, else the store's)."""
        self._call(_WAIT, [_as_bytes(k) for k in keys], timeout)

    def delete_key(self, key):
        return self._call(_DELETE, [_as_bytes(key)])[0] == b"1"

    def num_keys(self):
        return int(self._call(_NUM_KEYS, [])[0])

    def multi_get(self, keys):
        return [self.get(k) for k in keys]

    def multi_set(self, keys, values):
        for k, v in zip(keys, values):
            self.set(k, v)


class _Table:
    """The keys and the logic of every command, shared by the TCP server and the file store."""

    def __init__(self):
        self.data = {}
        self.changed = threading.Condition()

    def run(self, code, fields, timeout):
        """(status, reply fields) of one command; GET and WAIT wait up to `timeout` seconds for their keys."""
        data = self.data
        with self.changed:
            if code in (_GET, _WAIT):
                if not self.changed.wait_for(lambda: all(k in data for k in fields), timeout):
                    return _TIMEOUT, [k for k in fields if k not in data]
                return _OK, [data[fields[0]]] if code == _GET else []
            if code == _SET:
                data[fields[0]] = fields[1]
            elif code == _APPEND:
                data[fields[0]] = data.get(fields[0], b"") + fields[1]
            elif code == _ADD:
                data[fields[0]] = str(int(data.get(fields[0], b"0")) + int(fields[1])).encode()
                self.changed.notify_all()
                return _OK, [data[fields[0]]]
            elif code == _COMPARE_SET:
                key, expected, desired = fields
                if data.get(key, b"") == expected and (key in data or expected == b""):
                    data[key] = desired
                    self.changed.notify_all()
                return _OK, [data.get(key, expected)]
            elif code == _CHECK:
                return _OK, [b"1" if all(k in data for k in fields) else b"0"]
            elif code == _DELETE:
                return _OK, [b"1" if data.pop(fields[0], None) is not None else b"0"]
            elif code == _NUM_KEYS:
                return _OK, [str(len(data)).encode()]
            self.changed.notify_all()
            return _OK, []


class _Server:
    """The master's listening socket and its threads (daemons: they end with the process)."""

    def __init__(self, host, port):
        import socket  # here, not at import: `import ferrograd.distributed` stays light

        self.table = _Table()
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.sock.bind((host, port))
        except OSError as e:
            self.sock.close()
            import errno

            raise DistNetworkError(
                f"The server socket has failed to listen on any local network address. port: {port}, "
                f"code: {-(e.errno or 0)}, name: {errno.errorcode.get(e.errno or 0, '?')}, "
                f"message: {os.strerror(e.errno or 0).lower()}"
            ) from None
        self.sock.listen(128)
        self.port = self.sock.getsockname()[1]
        self.closed = False
        threading.Thread(target=self._accept, name="ferrograd-store", daemon=True).start()

    def _accept(self):
        while not self.closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), name="ferrograd-store-client", daemon=True).start()

    def _serve(self, conn):
        with conn:
            try:
                while True:
                    code, fields = _recv_fields(conn)
                    timeout = struct.unpack("!d", fields.pop())[0] if code in (_GET, _WAIT) else None
                    status, reply = self.table.run(code, fields, timeout)
                    _send_fields(conn, status, reply)
            except (ConnectionError, OSError, struct.error):
                return

    def close(self):
        import socket

        self.closed = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept(), which close() does not
        except OSError:
            pass
        self.sock.close()


def _connect(host, port, timeout):
    """A connection to the master, retried until `timeout` seconds: the master may not be listening yet."""
    import socket

    deadline = time.monotonic() + timeout
    pause = 0.01
    while True:
        try:
            sock = socket.create_connection((host, port), timeout=max(0.1, deadline - time.monotonic()))
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return sock
        except OSError:
            if time.monotonic() + pause > deadline:
                raise DistNetworkError(
                    f"The client socket has timed out after {round(timeout * 1000)}ms while trying to connect to "
                    f"({host}, {port})."
                ) from None
            time.sleep(pause)
            pause = min(pause * 2, 0.5)


class TCPStore(Store):
    """A store served over TCP by the process that passes `is_master=True` (PyTorch's signature); the others
    connect to `host_name:port`. `port=0` on the master binds a free port (`.port` tells which). With
    `world_size` and `wait_for_workers`, the master's constructor returns once that many stores have connected."""

    def __init__(self, host_name, port, world_size=None, is_master=False, timeout=_STORE_TIMEOUT,
                 wait_for_workers=True, multi_tenant=False, master_listen_fd=None, use_libuv=True):  # fmt: skip
        super().__init__()
        self._timeout = timeout
        self._host = host_name
        self._server = _Server(host_name, port) if is_master else None
        self._port = self._server.port if is_master else port
        self._lock = threading.Lock()
        self._sock = _connect(host_name, self._port, _seconds(timeout))
        if world_size is not None and world_size > 0:
            # every store counts itself in (the master's too); the one that completes the count says so
            if self.add(_JOINED, 1) == world_size:
                self.set(_ALL_JOINED, b"1")
            if is_master and wait_for_workers:
                try:
                    self.wait([_ALL_JOINED], timeout)
                except DistStoreError:
                    joined = int(self.get(_JOINED))
                    raise DistStoreError(
                        f"Timed out after {_seconds(timeout):g} seconds waiting for clients. "
                        f"{joined}/{world_size} clients joined."
                    ) from None

    @property
    def host(self):
        return self._host

    @property
    def port(self):
        return self._port

    @property
    def libuvBackend(self):
        return False

    def _call(self, code, fields, timeout=None):
        wait = _seconds(self._timeout if timeout is None else timeout)
        if code in (_GET, _WAIT):
            fields = [*fields, struct.pack("!d", wait)]
        with self._lock:
            # the server answers a wait by its deadline; the margin is for the reply to arrive
            self._sock.settimeout(wait + 30)
            try:
                _send_fields(self._sock, code, fields)
                status, reply = _recv_fields(self._sock)
            except (OSError, ConnectionError) as e:
                raise DistNetworkError(
                    f"ferrograd.distributed: the TCPStore at ({self._host}, {self._port}) is gone: {e}"
                ) from None
        if status == _TIMEOUT:
            raise DistStoreError(f"wait timeout after {round(wait * 1000)}ms, keys: {_keys(reply)}")
        return reply

    def _close(self):
        """Closes the connection, and on the master stops serving, so that the port is free again."""
        sock = getattr(self, "_sock", None)
        if sock is not None:
            sock.close()
        if getattr(self, "_server", None) is not None:
            self._server.close()

    def __del__(self):
        self._close()


class FileStore(Store):
    """A store in a file every rank can open (PyTorch's `FileStore(file_name, world_size=-1)`): each command
    reads the file under an exclusive lock, and a write rewrites it. Waits poll the file."""

    def __init__(self, file_name, world_size=-1):
        super().__init__()
        self.path = file_name
        self.world_size = world_size
        open(file_name, "ab").close()

    def _call(self, code, fields, timeout=None):
        import fcntl

        wait = _seconds(self._timeout if timeout is None else timeout)
        deadline = time.monotonic() + wait
        while True:
            with open(self.path, "r+b") as fh:
                fcntl.flock(fh, fcntl.LOCK_EX)
                table = _Table()
                table.data = _unpack(fh.read())
                before = dict(table.data)
                status, reply = table.run(code, fields, 0)
                if table.data != before:
                    fh.seek(0)
                    fh.truncate()
                    fh.write(_pack(table.data))
            if status == _OK:
                return reply
            if time.monotonic() > deadline:
                raise DistStoreError(f"wait timeout after {round(wait * 1000)}ms, keys: {_keys(reply)}")
            time.sleep(0.01)


def _pack(data):
    return b"".join(struct.pack("!I", len(x)) + x for kv in data.items() for x in kv)


def _unpack(raw):
    fields, at = [], 0
    while at < len(raw):
        (n,) = struct.unpack_from("!I", raw, at)
        fields.append(raw[at + 4 : at + 4 + n])
        at += 4 + n
    return dict(zip(fields[::2], fields[1::2]))


class PrefixStore(Store):
    """Another store's keys under `prefix/` (PyTorch's `PrefixStore(prefix, store)`)."""

    def __init__(self, prefix, store):
        super().__init__()
        self.prefix = prefix
        self.underlying_store = store

    @property
    def timeout(self):
        return self.underlying_store.timeout

    def set_timeout(self, timeout):
        self.underlying_store.set_timeout(timeout)

    def _call(self, code, fields, timeout=None):
        if code == _NUM_KEYS:
            return self.underlying_store._call(code, fields, timeout)
        keys = fields if code in (_CHECK, _WAIT) else fields[:1]
        prefixed = [self.prefix.encode() + b"/" + k for k in keys]
        return self.underlying_store._call(code, prefixed + fields[len(keys) :], timeout)


# ---- init_method URLs ----


def _require_rank_and_size(scheme, rank, world_size):
    """tcp:// and file:// take the rank and world size from the call (env:// reads them from the environment)."""
    if rank == -1:
        raise _rendezvous_error(scheme, "rank parameter missing")
    if world_size == -1:
        raise _rendezvous_error(scheme, "world size parameter missing")


def _rendezvous_error(scheme, msg):
    return ValueError(f"Error initializing torch.distributed using {scheme} rendezvous: {msg}")


def rendezvous(init_method, rank, world_size, timeout):
    """(store, rank, world_size) for `init_process_group(init_method=...)`: `env://` reads RANK, WORLD_SIZE,
    MASTER_ADDR and MASTER_PORT (rank and world_size given as arguments win, as in PyTorch); `tcp://host:port`
    needs both as arguments; `file:///path` shares a file. The TCP store's master is rank 0."""
    from urllib.parse import parse_qs, urlparse

    url = urlparse(init_method)
    query = {k: v[0] for k, v in parse_qs(url.query).items()}
    rank = int(query.get("rank", rank))
    world_size = int(query.get("world_size", world_size))
    if url.scheme == "env":
        err = _rendezvous_error
        if rank == -1:
            if "RANK" not in os.environ:
                raise err("env://", "environment variable RANK expected, but not set")
            rank = int(os.environ["RANK"])
        if world_size == -1:
            if "WORLD_SIZE" not in os.environ:
                raise err("env://", "environment variable WORLD_SIZE expected, but not set")
            world_size = int(os.environ["WORLD_SIZE"])
        for var in ("MASTER_ADDR", "MASTER_PORT"):
            if var not in os.environ:
                raise err("env://", f"environment variable {var} expected, but not set")
        host, port = os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])
    elif url.scheme == "tcp":
        if not url.port:
            raise _rendezvous_error("tcp://", "port number missing")
        _require_rank_and_size("tcp://", rank, world_size)
        host, port = url.hostname, url.port
    elif url.scheme == "file":
        if not url.path:
            raise _rendezvous_error("file://", "path missing")
        _require_rank_and_size("file://", rank, world_size)
        store = FileStore(url.path, world_size)
        store.set_timeout(timeout)
        return store, rank, world_size
    else:
        raise RuntimeError(f"No rendezvous handler for {url.scheme}://")
    store = TCPStore(host, port, world_size, is_master=rank == 0, timeout=timeout, multi_tenant=True)
    return store, rank, world_size
