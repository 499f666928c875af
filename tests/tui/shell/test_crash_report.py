"""An unexpected error stops the console without printing a secret; an expected one is said in words."""

from __future__ import annotations

import stat
from collections.abc import Callable
from io import StringIO
from pathlib import Path

import pytest
from rich.console import Console as RichConsole
from textual.worker import WorkerFailed

from server_stub.store import Store
from tests.support.console import ADMIN_TOKEN, make_console
from tests.support.textual_probe import notifications
from tui.app import MailAdminApp

NEW_SECRET = "NEW-BIND-SECRET-4f9c"


def _save_that_breaks() -> None:
    # The shape a save's patch has: the new secret sits under a secret field's pointer path.
    patch = {"description": "Corporate", "bindSecret/secret": NEW_SECRET}
    raise RuntimeError(f"unexpected failure while saving {len(patch)} changes")


async def _save_in_a_worker_that_breaks() -> None:
    patch = {"description": "Corporate", "bindSecret/secret": NEW_SECRET}
    raise TypeError(f"unexpected failure while saving {len(patch)} changes")


async def _what_the_person_sees(app: MailAdminApp, breaks: Callable[[], None], error: type[BaseException]) -> str:
    """Run the console until ``breaks`` stops it with ``error``; the terminal's text after it stopped."""
    terminal = app.error_console = RichConsole(width=200, record=True, file=StringIO())
    with pytest.raises(error, match="unexpected failure"):
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            breaks()
            await pilot.pause(0.3)
    return terminal.export_text()


async def test_an_unexpected_error_shows_no_secret_and_writes_a_private_masked_crash_file(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAILADMIN_DATA", str(tmp_path))
    app = make_console(store).app
    shown = await _what_the_person_sees(app, lambda: app.call_later(_save_that_breaks), RuntimeError)
    assert "mailadmin stopped on an unexpected error" in shown
    assert "unexpected failure while saving" in shown
    assert NEW_SECRET not in shown and ADMIN_TOKEN not in shown
    assert "bindSecret/secret" not in shown  # no locals on the terminal

    crash_files = list(tmp_path.glob("crash-*.txt"))
    assert len(crash_files) == 1
    assert stat.S_IMODE(crash_files[0].stat().st_mode) == 0o600
    details = crash_files[0].read_text()
    assert "bindSecret/secret" in details  # the locals are there, for whoever debugs it
    assert NEW_SECRET not in details and ADMIN_TOKEN not in details


async def test_a_worker_crash_says_where_and_masks_the_workers_locals(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Textual hands the app a WorkerFailed it never raised (no traceback, no cause): the crash
    # file said "Worker raised exception: TypeError(...)", never where, and searched no locals.
    monkeypatch.setenv("MAILADMIN_DATA", str(tmp_path))
    app = make_console(store).app
    shown = await _what_the_person_sees(
        app, lambda: app.run_worker(_save_in_a_worker_that_breaks(), exit_on_error=True), WorkerFailed)
    assert "_save_in_a_worker_that_breaks" in shown
    assert NEW_SECRET not in shown and ADMIN_TOKEN not in shown
    (crash_file,) = tmp_path.glob("crash-*.txt")
    details = crash_file.read_text()
    assert "_save_in_a_worker_that_breaks" in details
    assert "bindSecret/secret" in details
    assert NEW_SECRET not in details and ADMIN_TOKEN not in details


async def test_a_worker_that_fails_as_expected_is_said_in_words_and_the_console_goes_on(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAILADMIN_DATA", str(tmp_path))
    app = make_console(store).app

    async def write_to_a_full_disk() -> None:
        raise OSError("No space left on device")

    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.run_worker(write_to_a_full_disk(), exit_on_error=True)
        await pilot.pause(0.2)
        assert app.is_running
        messages = notifications(app)
        assert any("No space left on device" in m for m in messages), messages
    assert not list(tmp_path.glob("crash-*.txt"))
