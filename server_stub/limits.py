"""The stub's own limits against its clients: response size, slow clients, connection count.

The stub answers whoever reaches it, so no request may make it build an unbounded reply
or hold a connection forever. Each limit is listed in ``mailadmin serve --help``.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Mapping
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

MAX_SIZE_RESPONSE = 10_000_000
"""Bytes of JSON one API response may hold, counted call by call (result references included)."""
HEADER_TIMEOUT = 10.0
"""Seconds a connection has to deliver a request's headers (against half-open, slow-header clients)."""
BODY_TIMEOUT = 30.0
"""Seconds a request has to deliver its whole body once the headers are in."""
KEEP_ALIVE_TIMEOUT = 5
"""Seconds an idle keep-alive connection stays open."""
MAX_CONNECTIONS = 128
"""Open connections at once; past it a new one takes the place of a connection that has sent
nothing yet, else it is closed on arrival."""
MAX_CONNECTIONS_PER_CLIENT = 32
"""Open connections from one client address; more from it are closed on arrival, so a flood of
idle sockets from one address leaves the others served."""
MAX_CONCURRENT = 64
"""Requests in progress at once; beyond it the stub answers 503. Idle connections do not count
(uvicorn's own limit counted them: 66 sockets sending nothing made every request a 503)."""
MAX_HEADER_BYTES = 64 * 1024
"""Bytes of request line and headers: h11's incomplete-event limit, and checked again on the whole
request (h11 measures only what is still incomplete, so headers arriving at once passed at 100 KB)."""

LIMITS_HELP = (
    f"limits: responses up to {MAX_SIZE_RESPONSE:,} bytes (a call past it answers requestTooLarge); "
    f"request headers within {HEADER_TIMEOUT:g} s and {MAX_HEADER_BYTES // 1024} KiB (else 431), the body within "
    f"{BODY_TIMEOUT:g} s (else 408); idle keep-alive {KEEP_ALIVE_TIMEOUT} s; at most {MAX_CONNECTIONS} "
    f"connections, {MAX_CONNECTIONS_PER_CLIENT} from one address, and {MAX_CONCURRENT} requests in progress "
    f"at once (then 503)."
)


class SizedList(list[Any]):
    """A list whose JSON size its maker already knows (``json_bytes``): :func:`json_size` takes it
    as given instead of walking every value again (the stub's get, serving stored JSON)."""

    json_bytes: int = 0


def json_size(value: Any, limit: int) -> int:
    """Bytes of ``value`` as compact JSON, counted only until they pass ``limit``.

    Objects shared by reference (what result references and Core/echo produce) are
    counted every time they appear, as the encoder would write them, but the walk stops
    past ``limit``, so its work is bounded by the limit and not by the expanded size.
    """
    total = 0
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item.encode("utf-8", "surrogatepass")) + 2
        elif isinstance(item, SizedList):
            total += item.json_bytes
        elif isinstance(item, dict):
            total += 1 + len(item)  # braces, colons and commas
            for key, child in item.items():
                total += len(str(key)) + 2
                stack.append(child)
        elif isinstance(item, list | tuple):
            total += 1 + len(item)
            stack.extend(item)
        elif item is None or isinstance(item, bool):
            total += 5
        else:
            total += len(repr(item))
        if total > limit:
            return total
    return total


class GuardedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a header deadline and a connection cap.

    uvicorn times out idle keep-alive connections but not a client that opens a
    connection and sends its headers slowly or never: such a connection is closed
    when its headers are not complete within HEADER_TIMEOUT.
    """

    _header_timer: asyncio.TimerHandle | None = None
    _silent = True
    """Nothing received yet: the connection a full server gives up first."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        _send_without_delay(transport)
        super().connection_made(transport)
        if self._over_limits():
            transport.close()
            return
        self._arm_header_timer()

    def _over_limits(self) -> bool:
        """Whether this new connection is one too many: from its address, or at all."""
        ours = [c for c in self.connections if isinstance(c, GuardedH11Protocol)]
        per_host: dict[str | None, int] = {}
        for connection in ours:
            per_host[connection.host] = per_host.get(connection.host, 0) + 1
        if per_host.get(self.host, 0) > MAX_CONNECTIONS_PER_CLIENT:
            return True
        if len(self.connections) <= MAX_CONNECTIONS:
            return False
        # Full: a connection that has sent nothing yet gives its place, from the busiest address.
        silent = [c for c in ours if c._silent and c is not self]
        if not silent:
            return True
        victim = max(silent, key=lambda c: per_host.get(c.host, 0))
        victim.transport.close()
        self.connections.discard(victim)
        return False

    @property
    def host(self) -> str | None:
        """The client's address (None for a Unix socket)."""
        return self.client[0] if self.client else None

    def data_received(self, data: bytes) -> None:
        self._silent = False
        super().data_received(data)

    def _arm_header_timer(self) -> None:
        self._cancel_header_timer()
        self._header_timer = self.loop.call_later(HEADER_TIMEOUT, self._headers_too_slow)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def handle_events(self) -> None:
        super().handle_events()
        if self.cycle is not None and not self.cycle.response_complete:
            self._cancel_header_timer()  # a request's headers are in

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm_header_timer()  # the next request on this connection gets the same deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        super().connection_lost(exc)


def _send_without_delay(transport: asyncio.Transport) -> None:
    """TCP_NODELAY on an accepted connection.

    asyncio sets it only on sockets whose ``proto`` is IPPROTO_TCP; ``socket.create_server`` (what
    ``mailadmin serve`` binds with) makes them with proto 0, so Nagle's algorithm held every
    response after the first on a kept-alive connection until the client's delayed ACK (~40 ms).
    """
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def header_bytes(scope: Mapping[str, Any]) -> int:
    """Bytes of a request's line and headers as they came (method, target, each ``name: value``)."""
    line = len(scope.get("method", "")) + len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"")
    return line + sum(len(name) + len(value) + 4 for name, value in scope.get("headers") or [])


class GuardedApp:
    """The stub's ASGI application behind the limits that need a whole request: header bytes (431)
    and requests in progress (503). Anything else is the application's."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.in_progress = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if header_bytes(scope) > MAX_HEADER_BYTES:
            await _refuse(send, 431, f"the request line and headers are over {MAX_HEADER_BYTES // 1024} KiB")
            return
        if self.in_progress >= MAX_CONCURRENT:
            await _refuse(send, 503, f"more than {MAX_CONCURRENT} requests in progress; try again")
            return
        self.in_progress += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.in_progress -= 1


async def _refuse(send: Any, status: int, detail: str) -> None:
    body = json.dumps({"type": "about:blank", "status": status, "detail": detail}).encode()
    headers = [(b"content-type", b"application/problem+json"), (b"content-length", str(len(body)).encode()),
               (b"connection", b"close")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def server_config(app: Any, **options: Any) -> uvicorn.Config:
    """The uvicorn configuration with the stub's limits, for ``mailadmin serve`` and StubServer alike."""
    return uvicorn.Config(
        GuardedApp(app),
        http=GuardedH11Protocol,
        timeout_keep_alive=KEEP_ALIVE_TIMEOUT,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        log_level="warning",
        access_log=False,
        **options,
    )
