"""Fixtures for the DMARC console tests: a seeded server in process, a context, the shell."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from jmapclient import JmapClient
from tests.tui_dmarc.fake_jmap import FakeJmap
from tui.app import MailAdminApp
from tui.context import ConsoleContext

NOW = datetime(2026, 3, 15, 12, 0, tzinfo=UTC)
PROFILES = ("spec", "stalwart")


@pytest.fixture(autouse=True)
def private_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The analytics cache and exports never touch the real data directory."""
    data = tmp_path / "data"
    monkeypatch.setenv("MAILADMIN_DATA", str(data))
    yield data


def make_context(server: FakeJmap) -> ConsoleContext:
    client = JmapClient("http://stub.test", "token", transport=server.client_transport())
    return ConsoleContext(client=client, server_label="stub.test", username="admin", now=lambda: NOW)


def make_app(server: FakeJmap) -> MailAdminApp:
    return MailAdminApp(make_context(server), start_section="dmarc")


@pytest.fixture(params=PROFILES)
def profile(request: pytest.FixtureRequest) -> str:
    return str(request.param)
