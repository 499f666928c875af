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

import httpx

from jmapclient import collector

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


class BlockingTransport(httpx.AsyncBaseTransport):
    """Sends through a blocking ``httpx.Client``; it follows the environment's proxy settings as
    an async client would (an async client given a transport would ignore them)."""

    def __init__(self, *, verify: Any, timeout: float) -> None:
        self._timeout = timeout
        self._client = httpx.Client(verify=verify, timeout=httpx.Timeout(timeout), follow_redirects=False)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        collector.resume()  # the command's set-up is over: its data and garbage start here
        deadline = time.monotonic() + self._timeout
        response = self._client.send(request, stream=True)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_BlockingBody(response, deadline),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        self._client.close()
