"""httpx transports the tests put between a client and the stub."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import httpx

Answer = Callable[[httpx.Request], Awaitable[httpx.Response]]


class FlakyTransport(httpx.AsyncBaseTransport):
    """The stub's ASGI transport, with a switch that makes every request fail to connect.

    It also keeps what tests look at afterwards: every POST body sent (``bodies``) and how many
    requests got past the switch (``requests``); ``intercept`` may answer a request in the stub's place.
    """

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.down = False
        self.bodies: list[bytes] = []
        self.requests = 0
        self.intercept: Callable[[httpx.Request], Answer | None] | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            self.bodies.append(await request.aread())
        if self.down:
            raise httpx.ConnectError("connection refused", request=request)
        self.requests += 1
        answer = self.intercept(request) if self.intercept else None
        if answer is not None:
            return await answer(request)
        return await self.inner.handle_async_request(request)


class CountingTransport(httpx.AsyncBaseTransport):
    """Counts requests and answers each with HTTP 500; for tests that expect no request at all."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return httpx.Response(500, json={"detail": "counting transport"})
