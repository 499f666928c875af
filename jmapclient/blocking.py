"""One command's exchange on blocking sockets, driven without an event loop.

A one-shot command (``mailadmin query ...``) sends a few requests one after another and
waits for each: asyncio and anyio's socket layer buy it nothing but their import, about a
sixth of its start. The client, the object API and the pager stay ``async`` (one flow, which
the console runs on its event loop): here the same coroutines run on a transport that
sends each request with httpx's blocking client. Nothing then ever suspends, so
:func:`run` steps the command's coroutine to its end with no loop at all.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Coroutine
from typing import Any, TypeVar

import httpcore
import httpx

from jmapclient.keepalive import CONNECTION_LIMITS

T = TypeVar("T")


def run(command: Coroutine[Any, Any, T]) -> T:
    """The coroutine's result, stepped once: anything it awaits must finish without suspending."""
    try:
        awaited = command.send(None)
    except StopIteration as finished:
        result: T = finished.value
        return result
    # Something waited on a loop (a sleep, a thread, an async socket): a caller's mistake, said as one.
    command.close()
    raise RuntimeError(f"a blocking command awaited {awaited!r}, which needs an event loop")


class _BlockingBody(httpx.AsyncByteStream):
    """A blocking response body read through the async interface; past ``deadline``, a timeout.

    httpx times each read on its own, so a server trickling a byte at a time would never time
    out: the deadline bounds the whole exchange, as ``asyncio.timeout`` does on a loop.
    """

    def __init__(self, response: httpx.Response, deadline: float) -> None:
        self._response = response
        self._deadline = deadline

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self._response.iter_raw():
            if time.monotonic() > self._deadline:
                raise httpx.ReadTimeout("the exchange outlasted its timeout", request=self._response.request)
            yield chunk

    async def aclose(self) -> None:
        self._response.close()


class _Deadline:
    """The current exchange's end, read by every socket operation of the transport's streams."""

    def __init__(self) -> None:
        self.at = float("inf")

    def left(self, timeout: float | None) -> float:
        """The time one socket operation may take: its own timeout, cut to what the exchange has left."""
        remaining = self.at - time.monotonic()
        if remaining <= 0:
            raise httpcore.ReadTimeout("the exchange outlasted its timeout")
        return remaining if timeout is None else min(timeout, remaining)


class _DeadlineStream(httpcore.NetworkStream):
    """A socket stream whose every read and write ends by the exchange's deadline."""

    def __init__(self, inner: httpcore.NetworkStream, deadline: _Deadline) -> None:
        self._inner = inner
        self._deadline = deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, self._deadline.left(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, self._deadline.left(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        tls = self._inner.start_tls(ssl_context, server_hostname, self._deadline.left(timeout))
        return _DeadlineStream(tls, self._deadline)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    """Opens the streams of one transport's connection pools, each bounded by the shared deadline."""

    def __init__(self, inner: httpcore.NetworkBackend, deadline: _Deadline) -> None:
        self._inner = inner
        self._deadline = deadline

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None, socket_options: Any = None) -> httpcore.NetworkStream:
        stream = self._inner.connect_tcp(host, port, self._deadline.left(timeout), local_address, socket_options)
        return _DeadlineStream(stream, self._deadline)

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Any = None) -> httpcore.NetworkStream:
        stream = self._inner.connect_unix_socket(path, self._deadline.left(timeout), socket_options)
        return _DeadlineStream(stream, self._deadline)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class BlockingTransport(httpx.AsyncBaseTransport):
    """Sends through a blocking ``httpx.Client``; it follows the environment's proxy settings as
    an async client would (an async client given a transport would ignore them).

    httpx times each socket read on its own, so a server trickling its status line and headers a
    byte at a time held a command forever (``--timeout 3`` still waiting after minutes): every
    socket operation of the client's pools, the proxies' included, ends by the exchange's deadline.
    """

    def __init__(self, *, verify: Any, timeout: float, trust_env: bool = True) -> None:
        self._timeout = timeout
        self._deadline = _Deadline()
        self._client = httpx.Client(verify=verify, timeout=httpx.Timeout(timeout), follow_redirects=False,
                                    trust_env=trust_env, limits=CONNECTION_LIMITS)
        # httpx has no public hook for a network backend; its pools read this attribute for each
        # new connection (an httpx upgrade that renames it fails tests/hostile/test_slow_server.py).
        for transport in [self._client._transport, *self._client._mounts.values()]:
            pool = getattr(transport, "_pool", None)
            if pool is not None:
                pool._network_backend = _DeadlineBackend(pool._network_backend, self._deadline)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        deadline = time.monotonic() + self._timeout
        self._deadline.at = deadline
        response = self._client.send(request, stream=True)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_BlockingBody(response, deadline),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        self._client.close()
