"""A worker's unexpected error is reported with its own traceback, and its frames' secrets masked.

Textual hands the app a ``WorkerFailed`` it never raised: no traceback, no cause. The crash file
held one line ("WorkerFailed: Worker raised exception: TypeError(...)"), never where it happened,
and the worker's locals were neither shown nor searched for secrets.
"""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from rich.console import Console as RichConsole
from textual.worker import WorkerFailed

from server_stub.store import Store
from tests.support.console import ADMIN_TOKEN, make_console

NEW_SECRET = "NEW-BIND-SECRET-in-a-worker-77"


async def save_in_a_worker_that_breaks() -> None:
    # A save's patch: the new secret sits under a secret field's pointer path.
    patch = {"description": "Corporate", "bindSecret/secret": NEW_SECRET}
    raise TypeError(f"unexpected failure while saving {len(patch)} changes")


async def test_a_worker_crash_file_says_where_and_masks_the_worker_locals(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAILADMIN_DATA", str(tmp_path))
    app = make_console(store).app
    terminal = app.error_console = RichConsole(width=200, record=True, file=StringIO())
    with pytest.raises(WorkerFailed, match="unexpected failure"):
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            app.run_worker(save_in_a_worker_that_breaks(), exit_on_error=True)
            await pilot.pause(0.3)

    shown = terminal.export_text()
    assert "save_in_a_worker_that_breaks" in shown  # where it happened, not only that a worker failed
    assert NEW_SECRET not in shown and ADMIN_TOKEN not in shown
    (crash_file,) = tmp_path.glob("crash-*.txt")
    details = crash_file.read_text()
    assert "save_in_a_worker_that_breaks" in details
    assert "bindSecret/secret" in details  # the worker's locals, for whoever debugs it
    assert NEW_SECRET not in details and ADMIN_TOKEN not in details
