"""What the console does before and after its first frame (``bench/bench_startup.py`` measures how fast).

Before: the shell only, its own CSS, the cycle collector still paused by the front door. After:
the collector back on, the dialogs' and sections' CSS loaded before anything they style is shown.
"""

from __future__ import annotations

import asyncio
import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import DataTable

import mailadmin.demo
import tui.launch
from mailadmin.main import main
from server_stub.runner import StubServer
from tests.support.waiting import until_listed
from tui.app import SECTIONS_STYLESHEET, MailAdminApp

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")


class Handed:
    """The running stub handed to the demo in place of the one it would start."""

    def __init__(self, server: StubServer) -> None:
        self.base_url = server.base_url
        self.admin_token = server.admin_token

    def start(self) -> Handed:
        return self

    def stop(self) -> None:
        pass


@pytest.fixture
def collector_on() -> Iterator[None]:
    """The collector on, as in any process (the front door pauses only a collector that is on)."""
    was = gc.isenabled()
    gc.enable()
    try:
        yield
    finally:
        if not was:
            gc.disable()


def driven(seen: dict[str, object]) -> type[MailAdminApp]:
    """The console as ``tui.launch`` builds it, driven by Pilot until its list has rows."""

    class DrivenApp(MailAdminApp):
        def run(self, *args: object, **kwargs: object) -> None:  # type: ignore[override]
            asyncio.run(self._drive())

        def compose(self):  # type: ignore[no-untyped-def]
            seen["collector while composing"] = gc.isenabled()
            seen["sections css while composing"] = self.stylesheet.has_source(str(SECTIONS_STYLESHEET), "")
            return super().compose()

        async def _drive(self) -> None:
            async with self.run_test(size=(120, 40)) as pilot:
                await until_listed(pilot)
                seen["collector after"] = gc.isenabled()
                seen["sections css after"] = self.stylesheet.has_source(str(SECTIONS_STYLESHEET), "")
                table = self.query_one(DataTable)
                seen["rows"] = table.row_count
                seen["table height"] = str(table.styles.height)  # `#dir-table { height: 1fr }`, sections.tcss

    return DrivenApp


def test_the_demo_draws_its_first_frame_with_the_collector_paused_and_the_shell_css_only(
    stub_server: StubServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, collector_on: None
) -> None:
    monkeypatch.setenv("MAILADMIN_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setattr(mailadmin.demo, "demo_server", lambda fresh, reports: Handed(stub_server))
    seen: dict[str, object] = {}
    monkeypatch.setattr(tui.launch, "MailAdminApp", driven(seen))
    monkeypatch.setattr("mailadmin.main.has_terminal", lambda: True)  # the app runs headless here
    assert main(["demo"]) == 0
    assert seen == {
        "collector while composing": False, "sections css while composing": False,
        "collector after": True, "sections css after": True, "rows": 3, "table height": "1fr",
    }
    assert gc.isenabled()


def test_the_console_on_a_server_named_by_the_environment_does_the_same(
    stub_server: StubServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, collector_on: None
) -> None:
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("MAILADMIN_URL", stub_server.base_url)
    monkeypatch.setenv("MAILADMIN_TOKEN", stub_server.admin_token)
    seen: dict[str, object] = {}
    monkeypatch.setattr(tui.launch, "MailAdminApp", driven(seen))
    monkeypatch.setattr("mailadmin.main.has_terminal", lambda: True)  # the app runs headless here
    assert main([]) == 0
    assert seen == {
        "collector while composing": False, "sections css while composing": False,
        "collector after": True, "sections css after": True, "rows": 3, "table height": "1fr",
    }


def test_a_console_opened_on_a_context_has_all_its_css_at_once() -> None:
    app = MailAdminApp(config=None)  # the connection screen comes first: it needs the dialogs' CSS
    assert [Path(path).name for path in app.css_path] == ["mailadmin.tcss", "sections.tcss"]
    later = MailAdminApp(starter=lambda: asyncio.sleep(0))  # type: ignore[arg-type,return-value]
    assert [Path(path).name for path in later.css_path] == ["mailadmin.tcss"]
