"""The gloo backend: collectives between processes over TCP, from the standard library's sockets.

At `init_process_group`, every rank listens on the address it reaches the store from, publishes it (with a
random token a peer must present) in the store, connects to every lower rank and accepts every higher one: a full
mesh, two connections per pair (one for the collectives, run in call order on the group's communication thread;
one for send/recv, run on a sending and a receiving thread, so that a receive waiting for its sender never holds
up a collective). The sockets are non-blocking; every transfer is a loop over `selectors` bounded by the group's
timeout, so a dead peer is an error (`Connection closed by peer`) and a silent one a timeout, never a hang.

Tensors travel as their own bytes (`_memory.TensorMemory`: no copy for a contiguous tensor), each message behind
a 16-byte header (operation, sequence number, size) that the receiver checks, so ranks that call different
collectives or pass different sizes get an error naming both. `all_reduce` is a reduce-scatter and an all-gather
over the mesh: rank r receives everyone's r-th chunk, reduces it with the tensor ops (in Rust), and sends the
result to everyone, so each rank sends and receives 2(n-1)/n of the tensor, as in a ring, in two steps.
"""

import os
import selectors
import socket
import struct
import time

from .. import _core
from ._memory import TensorMemory
from ._mpi import RedOpType
from ._store import _recv_exact
from ._work import CommThread, DistBackendError, Work

_HEADER = struct.Struct("<IIQ")  # operation, sequence number (a tag for send/recv), payload bytes
_HELLO = struct.Struct("<16sII")  # the listener's token, the connecting rank, which connection (0, 1)
_COLLECTIVE, _P2P = 0, 1
_OPS = ["all_reduce", "broadcast", "all_gather", "reduce_scatter", "reduce", "gather", "scatter", "barrier", "send"]
(ALL_REDUCE, BROADCAST, ALL_GATHER, REDUCE_SCATTER, REDUCE, GATHER, SCATTER, BARRIER, SEND) = range(len(_OPS))


class _Timeout(DistBackendError):
    def __init__(self, message, peers):
        super().__init__(message)
        self.peers = peers


def _fold(op, dtype):
    """`fold(acc, x)`: acc = acc op x, in place, by the tensor ops. Refuses an op the dtype has none for."""
    if dtype == _core.bool:  # as MPI's logical operations: a sum or maximum is an "or", a product or min an "and"
        table = {RedOpType.SUM: "bitwise_or_", RedOpType.MAX: "bitwise_or_", RedOpType.PRODUCT: "bitwise_and_",
                 RedOpType.MIN: "bitwise_and_", RedOpType.BAND: "bitwise_and_", RedOpType.BOR: "bitwise_or_",
                 RedOpType.BXOR: "bitwise_xor_"}  # fmt: skip
    else:
        table = {RedOpType.SUM: "add_", RedOpType.AVG: "add_", RedOpType.PRODUCT: "mul_", RedOpType.MIN: "minimum",
                 RedOpType.MAX: "maximum"}  # fmt: skip
        if not (dtype.is_floating_point or dtype.is_complex):
            table.update({RedOpType.BAND: "bitwise_and_", RedOpType.BOR: "bitwise_or_", RedOpType.BXOR: "bitwise_xor_"})
    name = table.get(op)
    if name is None and op in (RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR):
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
    if name is None:
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with the gloo backend")
    if name.endswith("_"):
        return lambda acc, x: getattr(acc, name)(x)
    return lambda acc, x: acc.copy_(getattr(acc, name)(x))


class GlooBackend:
    name = "gloo"
    # a Work waits this much longer than the group's timeout: the transfer's own deadline ends first, with the
    # error saying what was waited for
    wait_grace = 5.0

    def __init__(self, store, rank, size, timeout):
        self.store = store
        self.rank = rank
        self.size = size
        self.timeout = timeout
        self._seq = 0
        self._broken = None
        self._groups = 0  # groups made from this one (`new_group`), each its own mesh
        self.owned_store = None  # the TCPStore init_process_group made for this group, closed with it
        self._coll, self._p2p, self._addresses = _mesh(store, rank, size, timeout)
        self._sender = CommThread("ferrograd-gloo-send")
        self._receiver = CommThread("ferrograd-gloo-recv")
        # every rank is connected to every other once this returns: the store may go after it
        self._exchange(BARRIER, {q: None for q in self._coll}, {q: None for q in self._coll})

    def dup(self, timeout):
        from ._store import PrefixStore

        self._groups += 1
        return GlooBackend(PrefixStore(f"group{self._groups}", self.store), self.rank, self.size, timeout)

    def close(self, timeout):
        for thread in (self._sender, self._receiver):
            thread.close(timeout)
        # rank 0 stops its store (made by init_process_group: the port must be free for the next one) and only
        # then lets the others go, so that none can meet rank 0's old store in a next init_process_group
        if self.rank == 0 and self.owned_store is not None:
            self.owned_store._close()
        if self._broken is None:
            try:
                self._exchange(BARRIER, dict.fromkeys(self._peers()) if self.rank == 0 else {},
                               {0: None} if self.rank != 0 else {})  # fmt: skip
            except DistBackendError:
                pass  # a rank already gone: nothing to wait for
        for sock in [*self._coll.values(), *self._p2p.values()]:
            sock.close()

    # ---- transport ----

    def _error(self, what, detail):
        return DistBackendError(f"ferrograd.distributed (gloo): {what} on rank {self.rank}: {detail}")

    def _transfer(self, socks, sends, recvs, what, timeout=None):
        """Sends and receives every message at once, so that no pair waits for the other to read first.
        `sends` and `recvs` map a peer to its list of buffers (a receive's with the header it must match)."""
        if self._broken is not None:
            raise self._error(what, f"the process group is unusable after an earlier error ({self._broken})")
        try:
            _transfer(socks, sends, recvs, self.timeout if timeout is None else timeout, self._addresses)
        except DistBackendError as e:
            self._broken = str(e)
            e.args = (f"ferrograd.distributed (gloo): {what} on rank {self.rank}: {e}",)
            raise

    def _exchange(self, code, sends, recvs, timeout=None):
        """One collective step: `sends`/`recvs` map a peer to the memoryview going to/coming from it (None: no
        payload), each behind the checked header."""
        self._seq += 1
        seq = self._seq
        out = {q: [_HEADER.pack(code, seq, 0 if mv is None else mv.nbytes), mv] for q, mv in sends.items()}
        into = {q: [(bytearray(_HEADER.size), _expect(code, seq, mv, q, self.rank)), (mv, None)]
                for q, mv in recvs.items()}  # fmt: skip
        self._transfer(self._coll, out, into, _OPS[code], timeout)

    def _peers(self):
        return [q for q in range(self.size) if q != self.rank]

    # ---- collectives: each returns what the communication thread runs ----

    def all_reduce(self, tensor, op):
        fold = _fold(op, tensor.dtype)
        mem = TensorMemory(tensor)

        def run():
            n, r = self.size, self.rank
            bounds = [mem.flat.numel() * i // n for i in range(n + 1)]
            mine = mem.flat[bounds[r] : bounds[r + 1]]
            parts = {q: _core.zeros(mine.numel(), dtype=tensor.dtype) for q in self._peers()}
            self._exchange(ALL_REDUCE, {q: mem.bytes(bounds[q], bounds[q + 1]) for q in parts},
                           {q: _bytes(p) for q, p in parts.items()})  # fmt: skip
            for q in sorted(parts):
                fold(mine, parts[q])
            if op is RedOpType.AVG:
                mine.div_(n)
            self._exchange(ALL_REDUCE, {q: mem.bytes(bounds[r], bounds[r + 1]) for q in parts},
                           {q: mem.bytes(bounds[q], bounds[q + 1]) for q in parts})  # fmt: skip
            mem.written()

        return run

    def broadcast(self, tensor, src):
        mem = TensorMemory(tensor)

        def run():
            if self.rank == src:
                self._exchange(BROADCAST, {q: mem.bytes() for q in self._peers()}, {})
            else:
                self._exchange(BROADCAST, {}, {src: mem.bytes()})
                mem.written()

        return run

    def all_gather(self, tensor_list, tensor):
        src = TensorMemory(tensor)
        outs = [TensorMemory(t) for t in tensor_list]

        def run():
            peers = self._peers()
            self._exchange(ALL_GATHER, {q: src.bytes() for q in peers}, {q: outs[q].bytes() for q in peers})
            outs[self.rank].flat.copy_(src.flat)
            for out in outs:
                out.written()

        return run

    def all_gather_into_tensor(self, output, input):
        out, src = TensorMemory(output), TensorMemory(input)
        if out.overlaps(src):  # the input is this rank's part of the output: it must not change while sent
            src = TensorMemory(input.detach().clone())

        def run():
            m, peers = src.flat.numel(), self._peers()
            self._exchange(ALL_GATHER, {q: src.bytes() for q in peers},
                           {q: out.bytes(q * m, (q + 1) * m) for q in peers})  # fmt: skip
            out.flat[self.rank * m : (self.rank + 1) * m].copy_(src.flat)
            out.written()

        return run

    def reduce_scatter_tensor(self, output, input, op):
        fold = _fold(op, output.dtype)
        out, src = TensorMemory(output), TensorMemory(input)
        if out.overlaps(src):
            src = TensorMemory(input.detach().clone())

        def run():
            m, r = out.flat.numel(), self.rank
            parts = {q: _core.zeros(m, dtype=output.dtype) for q in self._peers()}
            self._exchange(REDUCE_SCATTER, {q: src.bytes(q * m, (q + 1) * m) for q in parts},
                           {q: _bytes(p) for q, p in parts.items()})  # fmt: skip
            out.flat.copy_(src.flat[r * m : (r + 1) * m])
            for q in sorted(parts):
                fold(out.flat, parts[q])
            if op is RedOpType.AVG:
                out.flat.div_(self.size)
            out.written()

        return run

    def reduce(self, tensor, dst, op):
        fold = _fold(op, tensor.dtype)
        mem = TensorMemory(tensor)

        def run():
            if self.rank != dst:
                self._exchange(REDUCE, {dst: mem.bytes()}, {})
                return
            parts = {q: _core.zeros(mem.flat.numel(), dtype=tensor.dtype) for q in self._peers()}
            self._exchange(REDUCE, {}, {q: _bytes(p) for q, p in parts.items()})
            for q in sorted(parts):
                fold(mem.flat, parts[q])
            if op is RedOpType.AVG:
                mem.flat.div_(self.size)
            mem.written()

        return run

    def gather(self, tensor, gather_list, dst):
        src = TensorMemory(tensor)
        outs = [TensorMemory(t) for t in gather_list] if self.rank == dst else None

        def run():
            if outs is None:
                self._exchange(GATHER, {dst: src.bytes()}, {})
                return
            self._exchange(GATHER, {}, {q: outs[q].bytes() for q in self._peers()})
            outs[self.rank].flat.copy_(src.flat)
            for out in outs:
                out.written()

        return run

    def scatter(self, tensor, scatter_list, src):
        out = TensorMemory(tensor)
        ins = [TensorMemory(t) for t in scatter_list] if self.rank == src else None

        def run():
            if ins is None:
                self._exchange(SCATTER, {}, {src: out.bytes()})
            else:
                self._exchange(SCATTER, {q: ins[q].bytes() for q in self._peers()}, {})
                out.flat.copy_(ins[self.rank].flat)
            out.written()

        return run

    def barrier(self):
        def run():
            peers = self._peers()
            self._exchange(BARRIER, dict.fromkeys(peers), dict.fromkeys(peers))

        return run

    def monitored_barrier(self, seconds, wait_all_ranks):
        """Rank 0 waits for every other rank, then lets them go; a rank missing past `seconds` is named
        (torch's words)."""

        def run():
            if self.rank != 0:  # two steps, as rank 0's: arrive, then be let go
                self._exchange(BARRIER, {0: None}, {}, seconds)
                self._exchange(BARRIER, {}, {0: None}, seconds)
                return
            peers = self._peers()
            try:
                self._exchange(BARRIER, {}, dict.fromkeys(peers), seconds)
            except _Timeout as e:
                missing = e.peers if wait_all_ranks else e.peers[:1]
                which = f"Ranks {', '.join(map(str, missing))}" if wait_all_ranks else f"Rank {missing[0]}"
                raise RuntimeError(
                    f"[Rank 0]: {which} failed to pass monitoredBarrier in {round(seconds * 1000)} ms"
                ) from None
            self._exchange(BARRIER, dict.fromkeys(peers), {})

        return run

    # ---- point to point ----

    def isend(self, tensor, dst, tag, timeout):
        mem = TensorMemory(tensor)
        work = Work("send", self.rank, timeout + self.wait_grace, [tensor])

        def run():
            header = _HEADER.pack(SEND, tag, mem.nbytes)
            self._transfer(self._p2p, {dst: [header, mem.bytes()]}, {}, "send")

        self._sender.submit(run, work)
        return work

    def irecv(self, tensor, src, tag, timeout):
        mem = TensorMemory(tensor)
        work = Work("recv", self.rank, timeout + self.wait_grace, [tensor])

        def run():
            peer = src if src is not None else self._first_sender()
            expected = _expect(SEND, tag, mem.bytes(), peer, self.rank)
            self._transfer(self._p2p, {}, {peer: [(bytearray(_HEADER.size), expected), (mem.bytes(), None)]}, "recv")
            mem.written()
            work._source = peer

        self._receiver.submit(run, work)
        return work

    def _first_sender(self):
        """The lowest rank with a message waiting (a receive from any rank)."""
        with selectors.DefaultSelector() as sel:
            for q, sock in self._p2p.items():
                sel.register(sock, selectors.EVENT_READ, q)
            ready = sel.select(self.timeout)
        if not ready:
            raise self._error(
                "recv", f"Timed out waiting {round(self.timeout * 1000)}ms for recv operation to complete"
            )
        return min(key.data for key, _ in ready)


def _bytes(tensor):
    return memoryview(tensor.numpy().reshape(-1).view("uint8"))


def _expect(code, seq, mv, peer, rank):
    """The check of the header from `peer`: the same operation, step and size as this rank's."""
    nbytes = 0 if mv is None else mv.nbytes
    want = _HEADER.pack(code, seq, nbytes)

    def check(header):
        if header != want:
            got_code, got_seq, got_bytes = _HEADER.unpack(header)
            got = _OPS[got_code] if got_code < len(_OPS) else f"operation {got_code}"
            what = "tag" if code == SEND else "step"
            raise DistBackendError(
                f"rank {peer} sent {got} ({what} {got_seq}, {got_bytes} bytes) where rank {rank} expected "
                f"{_OPS[code]} ({what} {seq}, {nbytes} bytes): the ranks called different operations, or with "
                "tensors of different sizes or dtypes"
            )

    return check


class _Pending:
    """What is left to send to and receive from one peer: lists of buffers, done front to back."""

    def __init__(self, peer, sends, recvs):
        self.peer = peer
        self.sends = [mv for mv in sends if mv is not None and len(mv)]
        self.recvs = [(mv, check) for mv, check in recvs if check is not None or (mv is not None and len(mv))]
        self.sent = self.received = 0

    def events(self):
        return (selectors.EVENT_WRITE if self.sends else 0) | (selectors.EVENT_READ if self.recvs else 0)


def _transfer(socks, sends, recvs, timeout, addresses):
    pending = [_Pending(q, sends.get(q, ()), recvs.get(q, ())) for q in sorted(set(sends) | set(recvs))]
    pending = [p for p in pending if p.events()]
    if not pending:
        return
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as sel:
        for p in pending:
            sel.register(socks[p.peer], p.events(), p)
        while sel.get_map():
            ready = sel.select(max(0.0, deadline - time.monotonic()))
            if not ready:
                waiting = sorted(key.data.peer for key in sel.get_map().values())
                ms = round(timeout * 1000)
                kind = "recv" if any(sel.get_key(socks[q]).data.recvs for q in waiting) else "send"
                raise _Timeout(
                    f"Timed out waiting {ms}ms for {kind} operation to complete (rank {', '.join(map(str, waiting))})",
                    waiting,
                )
            for key, mask in ready:
                p, sock = key.data, key.fileobj
                try:
                    if mask & selectors.EVENT_WRITE:
                        _send_some(sock, p)
                    if mask & selectors.EVENT_READ:
                        _receive_some(sock, p)
                except OSError as e:
                    host, port = addresses[p.peer]
                    raise DistBackendError(f"Connection closed by peer [{host}]:{port} (rank {p.peer}): {e}") from None
                events = p.events()
                if events == 0:
                    sel.unregister(sock)
                elif events != key.events:
                    sel.modify(sock, events, p)


def _send_some(sock, p):
    mv = p.sends[0]
    try:
        p.sent += sock.send(mv[p.sent :])
    except BlockingIOError:
        return
    if p.sent == len(mv):
        p.sends.pop(0)
        p.sent = 0


def _receive_some(sock, p):
    mv, check = p.recvs[0]
    try:
        got = sock.recv_into(memoryview(mv)[p.received :])
    except BlockingIOError:
        return
    if got == 0:
        raise ConnectionResetError("the connection was closed")
    p.received += got
    if p.received == len(mv):
        p.recvs.pop(0)
        p.received = 0
        if check is not None:
            check(bytes(mv))


def _mesh(store, rank, size, timeout):
    """The two connections to every other rank ({peer: socket} for collectives and for send/recv) and every
    rank's listening (host, port)."""
    host = _own_host(store)
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    listener.bind((host, 0))
    listener.listen(2 * size)
    token = os.urandom(16)
    port = listener.getsockname()[1]
    store.set(f"gloo/{rank}", f"{host} {port} {token.hex()}")
    conns = ({}, {})
    addresses = {}
    deadline = time.monotonic() + timeout
    try:
        for q in range(size):
            if q == rank:
                continue
            peer_host, peer_port, peer_token = store.get(f"gloo/{q}").decode().split()
            addresses[q] = (peer_host, int(peer_port))
            if q < rank:  # the higher rank connects, the lower one accepts
                for kind in (_COLLECTIVE, _P2P):
                    sock = socket.create_connection(addresses[q], timeout=max(0.1, deadline - time.monotonic()))
                    sock.sendall(_HELLO.pack(bytes.fromhex(peer_token), rank, kind))
                    conns[kind][q] = sock
        while sum(len(c) for c in conns) < 2 * (size - 1):
            listener.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                sock, _ = listener.accept()
            except TimeoutError:
                raise DistBackendError(
                    f"ferrograd.distributed (gloo): rank {rank} timed out after {timeout:g} s waiting for the other "
                    "ranks to connect"
                ) from None
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                hello = _recv_exact(sock, _HELLO.size)
            except OSError:
                sock.close()
                continue
            their_token, q, kind = _HELLO.unpack(hello)
            if their_token != token or not rank < q < size or kind not in (0, 1) or q in conns[kind]:
                sock.close()  # not one of the ranks
                continue
            conns[kind][q] = sock
    finally:
        listener.close()
    for c in conns:
        for sock in c.values():
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.setblocking(False)
    return conns[_COLLECTIVE], conns[_P2P], addresses


def _own_host(store):
    """The address this rank listens on: the one it reaches the TCP store from (loopback when the store is
    there), so that the mesh uses the network the user named; a file store means one machine: loopback."""
    while hasattr(store, "underlying_store"):
        store = store.underlying_store
    sock = getattr(store, "_sock", None)
    return sock.getsockname()[0] if sock is not None else "127.0.0.1"
