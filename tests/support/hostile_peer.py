"""A misbehaving directory server, real, on 127.0.0.1: one that trickles its answer, or answers garbage.

A trickling peer (a tarpit) answers a byte at a time, each well inside a driver's read timeout, so no
single read ever times out and only a bound on the whole step ends it. A garbage peer answers bytes no
protocol reads (an HTTP status line, NULs, terminal escapes), as a wrong port or a hostile service does.

Each connection is served by a daemon thread bounded in bytes and time, and looks at ``stopped`` often.
"""

from __future__ import annotations

import select
import socket
import threading

from tests.support.loopback_peer import LoopbackPeer

TRICKLE_EVERY = 0.2
"""Seconds between two trickled bytes: far inside any read timeout the tests use (1 s)."""
TRICKLE_MOST = 600
"""Bytes trickled at most (two minutes): the peer itself is bounded, whatever the client does."""

HTTP_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
"""Headers promising a long body, which then comes a byte at a time."""
LDAP_HEAD = b"\x30\x84\x00\x01\x00\x00"
"""An LDAPMessage (SEQUENCE) announcing 65536 bytes, which then come a byte at a time."""
MYSQL_HEAD = b"\x00\x01\x00\x00"
"""A MySQL packet header (256 bytes, sequence 0): the greeting, which then comes a byte at a time."""
POSTGRES_HEAD = b"E\x00\x00\x03\xe8"
"""An ErrorResponse announcing 1000 bytes (within what libpq takes at the start), which then come a byte at a time."""
GARBAGE = b"HTTP/1.0 200 OK\r\n\r\n\x00\xff garbage \x1b[31mRED\x1b[0m" * 50
"""What the tester's port sent: no LDAP, SQL or JSON reads it."""


class HostilePeer(LoopbackPeer):
    """On 127.0.0.1: for each connection, waits for the client's first bytes (``speaks_first``: not at all),
    then sends ``head`` and trickles ``fill`` a byte at a time; or, with ``garbage``, sends it and ends its side,
    reading on until the client closes (so the client reads it all, then the end, deterministically: no reset)."""

    def __init__(self, head: bytes = b"", *, fill: bytes = b" ", garbage: bytes | None = None,
                 speaks_first: bool = False) -> None:
        self.head, self.fill, self.garbage, self.speaks_first = head, fill, garbage, speaks_first
        self.reached = threading.Event()
        """Set once a client's connection got the hostile answer under way."""
        super().__init__("hostile-peer")

    def serve(self, client: socket.socket) -> None:
        with client:
            try:
                if not self.speaks_first and not self._read(client):
                    return
                if self.garbage is not None:
                    # Set before the answer goes: set after it, a client that read it and hung up could be
                    # checked before this thread ran again (a loaded CI saw the flag unset).
                    self.reached.set()
                    client.sendall(self.garbage)
                    client.shutdown(socket.SHUT_WR)  # the end, as the tester's port closed; no reset: its bytes
                    # are still read below, so the client reads every garbage byte first
                    while not self.stopped.is_set() and self._read(client):  # until the client closes it
                        pass
                    return
                self.reached.set()  # before the head goes, for the same reason
                client.sendall(self.head)
                for _ in range(TRICKLE_MOST):
                    if self.stopped.wait(TRICKLE_EVERY):
                        return
                    client.sendall(self.fill)
            except OSError:  # the client cut the connection: what the bound does
                return

    def _read(self, client: socket.socket) -> bool:
        """The client's next bytes (waited for a few seconds at most); False once it closed or said nothing."""
        for _ in range(50):  # 5 s, a tenth at a time: a stop is seen at once
            ready, _, _ = select.select([client], [], [], 0.1)
            if ready:
                return bool(client.recv(65536))
            if self.stopped.is_set():
                return False
        return False


FLOOD_MOST = 200_000
"""Entries a flooding peer sends at most (some 200 MB): the peer itself is bounded, whatever the client does."""


def _ber(tag: int, body: bytes) -> bytes:
    """One BER element, its length in the long form (as servers write large ones)."""
    return bytes([tag, 0x84]) + len(body).to_bytes(4, "big") + body


def ldap_message(message_id: int, operation: bytes) -> bytes:
    # The id as BER writes an INTEGER: ldap3 counts ids over the whole process, past 127 after a few tests.
    encoded = message_id.to_bytes((message_id.bit_length() + 8) // 8, "big")
    return _ber(0x30, bytes([0x02, len(encoded)]) + encoded + operation)


def bind_success(message_id: int) -> bytes:
    """A BindResponse: success, no matched DN, no message."""
    return ldap_message(message_id, bytes([0x61, 0x07, 0x0A, 0x01, 0x00, 0x04, 0x00, 0x04, 0x00]))


def search_entry(message_id: int, number: int) -> bytes:
    """A SearchResultEntry of some 1 KB: ``cn=xN,dc=example,dc=org`` with one mail value."""
    dn = b"cn=x%d,dc=example,dc=org" % number
    attribute = _ber(0x30, _ber(0x04, b"mail") + _ber(0x31, _ber(0x04, b"a" * 1000)))
    return ldap_message(message_id, _ber(0x64, _ber(0x04, dn) + _ber(0x30, attribute)))


class LdapFloodPeer(LoopbackPeer):
    """On 127.0.0.1: answers every bind with success and every search with entries without end (never the
    "done"), ignoring the search's size limit, as a broken or hostile server (or proxy) may."""

    def __init__(self) -> None:
        self.sent = 0
        """Entries sent, over every connection."""
        super().__init__("ldap-flood-peer")

    def serve(self, client: socket.socket) -> None:
        with client:
            pending = b""
            try:
                while not self.stopped.is_set():
                    ready, _, _ = select.select([client], [], [], 0.1)
                    if not ready:
                        continue
                    data = client.recv(65536)
                    if not data:
                        return
                    pending += data
                    # A request may come in pieces (a loaded machine's reads cut it): answered once it is whole.
                    while (size := _whole_message(pending)) is not None:
                        request, pending = pending[:size], pending[size:]
                        self._answer(client, request)
            except OSError:  # the client stopped reading and closed: what the bound does
                return

    def _answer(self, client: socket.socket, request: bytes) -> None:
        start = 2 + (request[1] & 0x7F if request[1] & 0x80 else 0)  # past the SEQUENCE's length
        width = request[start + 1]  # the id's INTEGER: two bytes once ldap3's process-wide count passed 127
        message_id = int.from_bytes(request[start + 2:start + 2 + width], "big")
        operation = request[start + 2 + width]
        if operation == 0x60:  # BindRequest
            client.sendall(bind_success(message_id))
        elif operation == 0x63:  # SearchRequest
            for number in range(FLOOD_MOST):
                if self.stopped.is_set():
                    return
                client.sendall(search_entry(message_id, number))
                self.sent += 1


def _whole_message(data: bytes) -> int | None:
    """The size of the LDAP message (a BER SEQUENCE) at the start of ``data``, when all of it is there."""
    if len(data) < 2:
        return None
    if data[1] & 0x80:
        width = data[1] & 0x7F
        if len(data) < 2 + width:
            return None
        size = 2 + width + int.from_bytes(data[2:2 + width], "big")
    else:
        size = 2 + data[1]
    return size if len(data) >= size else None
