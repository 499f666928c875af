"""The stub's own limits against its clients: response size, slow clients, connection count.

The stub answers whoever reaches it, so no request may make it build an unbounded reply
or hold a connection forever. Each limit is listed in ``mailadmin serve --help``.
"""

from __future__ import annotations

import asyncio
import socket
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
"""Open connections at once; more are closed on arrival."""
MAX_CONCURRENT = 64
"""Requests in progress at once; beyond it uvicorn answers 503."""
MAX_HEADER_BYTES = 64 * 1024
"""Bytes of request line and headers (h11's incomplete-event limit)."""

LIMITS_HELP = (
    f"limits: responses up to {MAX_SIZE_RESPONSE:,} bytes (a call past it answers requestTooLarge); "
    f"request headers within {HEADER_TIMEOUT:g} s and {MAX_HEADER_BYTES // 1024} KiB, the body within "
    f"{BODY_TIMEOUT:g} s (else 408); idle keep-alive {KEEP_ALIVE_TIMEOUT} s; at most {MAX_CONNECTIONS} "
    f"connections and {MAX_CONCURRENT} requests at once (then 503)."
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

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        _send_without_delay(transport)
        super().connection_made(transport)
        if len(self.connections) > MAX_CONNECTIONS:
            transport.close()
            return
        self._arm_header_timer()

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


def server_config(app: Any, **options: Any) -> uvicorn.Config:
    """The uvicorn configuration with the stub's limits, for ``mailadmin serve`` and StubServer alike."""
    return uvicorn.Config(
        app,
        http=GuardedH11Protocol,
        timeout_keep_alive=KEEP_ALIVE_TIMEOUT,
        limit_concurrency=MAX_CONCURRENT,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        log_level="warning",
        access_log=False,
        **options,
    )
