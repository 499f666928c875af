"""Console tests: the app against an in-process stub (ASGI transport, no socket, no port on screen).

``FlakyTransport`` lets a test cut the connection and bring it back. The clock is frozen
and animations are off so snapshots are stable.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

import httpx
import pytest

from jmapclient import JmapClient
from server_stub.app import create_app
from server_stub.auth import standard_registry
from server_stub.demo_data import seed_store
from server_stub.store import Store
from tui.app import MailAdminApp
from tui.context import ConsoleContext

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

ADMIN_TOKEN = "test-admin-token"
READONLY_TOKEN = "test-readonly-token"
FROZEN_NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
STUB_URL = "http://stub.test"


class FlakyTransport(httpx.AsyncBaseTransport):
    """The stub's ASGI transport, with a switch that makes every request fail to connect."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.down = False
        self.bodies: list[bytes] = []
        self.intercept: Callable[[httpx.Request], Callable[[httpx.Request], Awaitable[httpx.Response]] | None] | None
        self.intercept = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            self.bodies.append(await request.aread())
        if self.down:
            raise httpx.ConnectError("connection refused", request=request)
        answer = self.intercept(request) if self.intercept else None
        if answer is not None:
            return await answer(request)
        return await self.inner.handle_async_request(request)


@dataclass
class Console:
    """What a test needs: the app, its context, the store behind the stub and the network switch."""

    app: MailAdminApp
    context: ConsoleContext
    store: Store
    transport: FlakyTransport


def make_console(store: Store, *, token: str = ADMIN_TOKEN, read_only: bool = False, profile: str = "spec",
                 start_section: str = "directories") -> Console:
    stub = create_app(store, profile=profile, tokens=standard_registry(ADMIN_TOKEN, READONLY_TOKEN))
    transport = FlakyTransport(httpx.ASGITransport(app=stub))
    client = JmapClient(STUB_URL, token, transport=transport, timeout=10)
    context = ConsoleContext(
        client=client,
        server_label=STUB_URL,
        username="admin" if token == ADMIN_TOKEN else "readonly",
        read_only=read_only,
        now=lambda: FROZEN_NOW,
    )
    app = MailAdminApp(context, start_section=start_section)
    app.animation_level = "none"
    return Console(app, context, store, transport)


@pytest.fixture
def store() -> Iterator[Store]:
    """A fresh in-memory stub database holding the three demo directories."""
    database = Store()
    seed_store(database, reports=0, directories=True)
    yield database
    database.close()


@pytest.fixture
def console(store: Store) -> Console:
    return make_console(store)
