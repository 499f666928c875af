"""Hold a console's report uploads until a test lets them go.

Tests that must act *while* an import runs (another action, a burst of keys) hold the
uploads, so the import cannot finish before they act, however fast the machine is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import httpx

from tests.support.transport import FlakyTransport

UPLOAD = b'"x:DmarcExternalReport/set"'


class HeldUploads:
    """Installed on ``transport``: every report upload waits until :meth:`release`."""

    def __init__(self, transport: FlakyTransport) -> None:
        self.transport = transport
        self.started = asyncio.Event()
        self._release = asyncio.Event()
        transport.intercept = self._intercept

    def release(self) -> None:
        self._release.set()

    def _intercept(self, request: httpx.Request) -> Callable[[httpx.Request], Awaitable[httpx.Response]] | None:
        return self._held if UPLOAD in request.content else None

    async def _held(self, request: httpx.Request) -> httpx.Response:
        self.started.set()
        await self._release.wait()
        return await self.transport.inner.handle_async_request(request)
