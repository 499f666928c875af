"""``run_demo``: the console starts the server it is handed behind its first frame, uses it, and stops it."""

from __future__ import annotations

import asyncio
import os
import threading

import pytest
from textual.widgets import DataTable

import tui.launch
from server_stub.runner import StubServer
from tests.support.waiting import until_listed
from tui.app import MailAdminApp

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")


class HandedServer:
    """The running stub as the console sees it, recording where it was started and whether it was stopped."""

    def __init__(self, server: StubServer) -> None:
        self.base_url = server.base_url
        self.admin_token = server.admin_token
        self.started_in: str | None = None
        self.stopped = False

    def start(self) -> HandedServer:
        self.started_in = threading.current_thread().name
        return self

    def stop(self) -> None:
        self.stopped = True


def test_demo_console_connects_to_the_handed_server_and_stops_it(
    stub_server: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    handed = HandedServer(stub_server)
    seen: dict[str, object] = {}

    class DrivenApp(MailAdminApp):
        def run(self, *args: object, **kwargs: object) -> None:  # type: ignore[override]
            asyncio.run(self._drive())

        async def _drive(self) -> None:
            async with self.run_test(size=(120, 40)) as pilot:
                await until_listed(pilot)
                await self.workers.wait_for_complete()
                seen["label"] = self.context.server_label if self.context else None
                seen["rows"] = self.query_one(DataTable).row_count
                seen["stopped_while_open"] = handed.stopped

    monkeypatch.setattr(tui.launch, "MailAdminApp", DrivenApp)
    assert tui.launch.run_demo(handed.start) == 0
    assert seen == {"label": f"demo {stub_server.base_url}", "rows": 3, "stopped_while_open": False}
    assert handed.started_in not in (None, threading.main_thread().name)  # off the UI's thread
    assert handed.stopped
