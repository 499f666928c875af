"""The console when its real server dies and comes back (issue 8.4, console part).

Unlike the console's own tests (a simulated transport), the server here is a real stub on a
loopback socket that is stopped and restarted on the same port and database file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Button, Input, Static

from jmapclient import JmapClient
from server_stub.runner import StubServer
from tests.support.directory_steps import editor, field, fill, open_directory, save, section, stored, table_rows
from tests.support.waiting import settle
from tui.app import MailAdminApp
from tui.context import ConsoleContext

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
OIDC = "Staff single sign-on (Keycloak)"
ADMIN = "console-fault-admin-token"


class Restartable:
    """A stub on a file database that can be stopped and started again on the same port."""

    def __init__(self, database: Path) -> None:
        self.database = database
        self.server = StubServer(database, reports=0, admin_token=ADMIN).start()
        self.base_url = self.server.base_url
        self.port = int(self.base_url.rsplit(":", 1)[1])

    def stop(self) -> None:
        self.server.stop()

    def start(self) -> None:
        self.server = StubServer(self.database, reports=0, admin_token=ADMIN, port=self.port).start()


def refused(stub: Restartable) -> str:
    """What the console says of the stopped server: its address, and why in plain words."""
    return f"cannot connect to 127.0.0.1:{stub.port}: connection refused (is the server running?)"


@pytest.fixture
def restartable(tmp_path: Path) -> Iterator[Restartable]:
    stub = Restartable(tmp_path / "console.sqlite3")
    yield stub
    stub.server.stop()


def _app(stub: Restartable) -> MailAdminApp:
    client = JmapClient(stub.base_url, ADMIN, timeout=5)
    app = MailAdminApp(ConsoleContext(client=client, server_label=stub.base_url, username="admin"))
    app.animation_level = "none"
    return app


async def _settle(pilot) -> None:
    await settle(pilot)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_list_refresh_while_the_server_is_down_then_retry(restartable: Restartable):
    async with _app(restartable).run_test(size=(120, 40)) as pilot:
        await _settle(pilot)
        assert len(table_rows(pilot)) == 3
        restartable.stop()
        await pilot.press("r")
        await _settle(pilot)
        message = str(section(pilot).query_one("#dir-message", Static).render())
        assert refused(restartable) in message, message
        retry = section(pilot).query_one("#dir-retry", Button)
        assert retry.display
        restartable.start()
        await pilot.click(retry)
        await _settle(pilot)
        assert len(table_rows(pilot)) == 3
        assert not retry.display


async def _save_while_down(pilot, stub: Restartable) -> None:
    """Edit the OIDC directory, save with the server down, then bring the server back."""
    await _settle(pilot)
    await open_directory(pilot, OIDC)
    await fill(pilot, "claimName", "display_name")
    stub.stop()
    await save(pilot)
    await _settle(pilot)
    message = str(editor(pilot).query_one("#editor-message", Static).render())
    # httpx's "All connection attempts failed" named neither the address nor why (tester).
    assert f"Not saved: {refused(stub)}." in message and "press ctrl+s to try again" in message, message
    assert field(pilot, "claimName").query_one(Input).value == "display_name"  # what was typed is kept
    stub.start()


async def test_save_while_the_server_is_down_keeps_the_form_and_saves_when_it_is_back(restartable: Restartable):
    async with _app(restartable).run_test(size=(120, 40)) as pilot:
        await _save_while_down(pilot, restartable)
        await pilot.click("#editor-save")  # the retry (ctrl+s: see the test below)
        await _settle(pilot)
        assert stored(restartable.server.store, OIDC)["claimName"] == "display_name"


async def test_ctrl_s_retries_a_save_that_failed_on_a_real_socket(restartable: Restartable):
    async with _app(restartable).run_test(size=(120, 40)) as pilot:
        await _save_while_down(pilot, restartable)
        assert pilot.app.focused is not None
        await save(pilot)
        await _settle(pilot)
        assert stored(restartable.server.store, OIDC)["claimName"] == "display_name"
