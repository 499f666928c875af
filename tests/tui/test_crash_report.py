"""An unexpected error stops the console without printing a secret; an expected one is said in words."""

from __future__ import annotations

import stat
from io import StringIO
from pathlib import Path

import pytest
from rich.console import Console as RichConsole

from server_stub.store import Store
from tests.support.console import ADMIN_TOKEN, make_console

NEW_SECRET = "NEW-BIND-SECRET-4f9c"


def _save_that_breaks() -> None:
    # The shape a save's patch has: the new secret sits under a secret field's pointer path.
    patch = {"description": "Corporate", "bindSecret/secret": NEW_SECRET}
    raise RuntimeError(f"unexpected failure while saving {len(patch)} changes")


async def test_an_unexpected_error_shows_no_secret_and_writes_a_private_masked_crash_file(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAILADMIN_DATA", str(tmp_path))
    console = make_console(store)
    app = console.app
    terminal = app.error_console = RichConsole(width=200, record=True, file=StringIO())  # what the person sees
    with pytest.raises(RuntimeError, match="unexpected failure"):
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            app.call_later(_save_that_breaks)
            await pilot.pause(0.2)

    shown = terminal.export_text()
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
        messages = [n.message for n in app._notifications]
        assert any("No space left on device" in m for m in messages), messages
    assert not list(tmp_path.glob("crash-*.txt"))
