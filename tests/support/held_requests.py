"""Requests of the DMARC inbox held at the stub until a test releases them: a fetch caught mid-way."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import httpx

from tests.support.transport import FlakyTransport

GET = b'"x:DmarcExternalReport/get"'
QUERY = b'"x:DmarcExternalReport/query"'


class HeldGets:
    """Every plain get of reports (what analytics fetches; the inbox always queries too) waits for release;
    not the gets of arrival times that find which reports the period needs."""

    def __init__(self, transport: FlakyTransport) -> None:
        self.transport = transport
        self.started = asyncio.Event()
        self.released = asyncio.Event()
        transport.intercept = self._intercept

    def _intercept(self, request: httpx.Request) -> Callable[[httpx.Request], Awaitable[httpx.Response]] | None:
        body = request.content
        return self._held if GET in body and QUERY not in body and b'"receivedAt"' not in body else None

    async def _held(self, request: httpx.Request) -> httpx.Response:
        self.started.set()
        await self.released.wait()
        return await self.transport.inner.handle_async_request(request)


class HeldQueries(HeldGets):
    """Every query of reports (what a listing asks) waits for release."""

    def _intercept(self, request: httpx.Request) -> Callable[[httpx.Request], Awaitable[httpx.Response]] | None:
        return self._held if QUERY in request.content else None


class HeldSets(HeldGets):
    """Every set of reports (a delete, a keep-longer) waits for release."""

    def _intercept(self, request: httpx.Request) -> Callable[[httpx.Request], Awaitable[httpx.Response]] | None:
        return self._held if b'"x:DmarcExternalReport/set"' in request.content else None
