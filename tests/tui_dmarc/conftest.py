"""Fixtures for the DMARC console tests: the shared stub in process, a context, the shell.

The stub runs as an ASGI app behind ``httpx.ASGITransport`` (no socket, so no port on
screen), seeded deterministically and anchored to a frozen ``NOW``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from jmapclient import JmapClient
from server_stub.app import create_app
from server_stub.auth import Principal, TokenRegistry, all_permissions
from server_stub.demo_data import seed_store
from server_stub.store import MEMORY, Store
from tui.app import MailAdminApp
from tui.context import ConsoleContext

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

NOW = datetime(2026, 3, 1, 6, 0, tzinfo=UTC)
TOKEN = "dmarc-console-test-token"
PROFILES = ("spec", "stalwart")
SEED = 11


class FlakyTransport(httpx.AsyncBaseTransport):
    """The in-process stub, or a dead connection while ``down`` is set."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.down = False
        self.requests = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.down:
            raise httpx.ConnectError("connection refused", request=request)
        self.requests += 1
        return await self.inner.handle_async_request(request)


@dataclass
class StubWorld:
    profile: str
    store: Store
    transport: FlakyTransport
    denied: frozenset[str] = field(default_factory=frozenset)

    def context(self) -> ConsoleContext:
        client = JmapClient("http://stub.test", TOKEN, transport=self.transport)
        return ConsoleContext(client=client, server_label="stub.test", username="admin", now=lambda: NOW)

    def app(self, context: ConsoleContext | None = None) -> MailAdminApp:
        app = MailAdminApp(context or self.context(), start_section="dmarc")
        app.animation_level = "none"
        return app


def make_world(profile: str = "spec", reports: int = 120, denied: frozenset[str] = frozenset()) -> StubWorld:
    store = Store(MEMORY)
    if reports:
        seed_store(store, reports=reports, directories=False, seed=SEED, now=NOW)
    registry = TokenRegistry()
    registry.add(TOKEN, Principal("admin", all_permissions() - denied))
    app = create_app(store, profile=profile, tokens=registry)
    return StubWorld(profile, store, FlakyTransport(httpx.ASGITransport(app=app)), denied)


@pytest.fixture(autouse=True)
def private_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The analytics cache and exports never touch the real data directory."""
    data = tmp_path / "data"
    monkeypatch.setenv("MAILADMIN_DATA", str(data))
    yield data


@pytest.fixture(params=PROFILES)
def world(request: pytest.FixtureRequest) -> Iterator[StubWorld]:
    made = make_world(str(request.param))
    yield made
    made.store.close()


@pytest.fixture(params=PROFILES)
def profile(request: pytest.FixtureRequest) -> str:
    return str(request.param)
