"""Paths that cannot be paths, typed or pasted into the console's dialogs (#32.4).

``~nosuchuser/x`` as an export path, a profile's CA file or a token file, and a NUL byte in a
pasted export or import path stopped the console (``RuntimeError``, ``ValueError``). Paths are
parsed once (``file_safety.local_path``), with one error for what cannot be a path. A failed or
stopped import left its progress bar up for good.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static

from jmapclient.config import ConfigError, Profile
from mailadmin.main import main
from server_stub.store import Store
from tests.support.console import make_console
from tests.support.waiting import settle, wait_until
from tui.reports import inbox_actions
from tui.reports.dialogs import ExportDialog, ImportDialog
from tui.screens.connect import connect_profile


async def submit(pilot: Pilot, selector: str, text: str) -> None:
    field = pilot.app.screen.query_one(selector, Input)
    field.focus()
    field.value = text
    await pilot.press("enter")
    await settle(pilot)


@pytest.mark.parametrize(("key", "field", "path", "said"), [
    ("x", "#path", "~nosuchuser/x.csv", "Cannot write there:"),
    ("x", "#path", "reports\0.csv", "Cannot write there:"),
    ("i", "#paths", "~nosuchuser/reports", "Cannot read the paths:"),
    ("i", "#paths", "'rep\0orts'", "Cannot read the paths:"),
], ids=["export-home", "export-nul", "import-home", "import-nul"])
async def test_a_path_that_cannot_be_a_path_is_said_in_its_dialog(store: Store, key: str, field: str, path: str,
                                                                  said: str) -> None:
    async with make_console(store, start_section="dmarc").app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press(key)
        await settle(pilot)
        await submit(pilot, field, path)
        assert pilot.app.is_running and isinstance(pilot.app.screen, ExportDialog | ImportDialog)
        assert str(pilot.app.screen.query_one("#error", Static).render()).startswith(said)


async def test_a_stopped_import_takes_its_progress_bar_down(store: Store, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    started = asyncio.Event()

    async def never_ends(*args: object, **kwargs: object) -> None:
        started.set()
        await asyncio.Event().wait()

    monkeypatch.setattr(inbox_actions, "import_reports", never_ends)
    async with make_console(store, start_section="dmarc").app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        field = pilot.app.screen.query_one("#paths", Input)
        field.value = str(tmp_path)
        await pilot.press("enter")
        await wait_until(pilot, started.is_set, "the import to start")
        bar = pilot.app.query_one("#dmarc-progress")
        assert bar.display
        pilot.app.workers.cancel_group(pilot.app.query_one("#dmarc-inbox"), inbox_actions.WORKER_GROUPS["import"])
        await pilot.pause()
        assert not bar.display


@pytest.mark.parametrize("field", ["ca_file", "token_file"])
async def test_a_profile_file_under_no_users_home_is_one_error(field: str) -> None:
    profile = Profile(name="lab", url="https://lab.example", token="t" if field == "ca_file" else None,
                      **{field: "~nosuchuser/file"})  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="~nosuchuser is the home folder of no user"):
        await connect_profile(profile)


def test_the_cli_export_to_no_users_home_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--url", "http://127.0.0.1:9", "--token", "t", "export-dmarc", "--output", "~nosuchuser/x.csv"]) != 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and "~nosuchuser is the home folder of no user" in err
