"""The console paints first and connects after: how `mailadmin demo` starts its server.

A starter that fails is explained in the status line, and r tries it again.
"""

from __future__ import annotations

import asyncio

from textual.widgets import DataTable, Static

from server_stub.store import Store
from tests.support.console import make_console
from tui.app import MailAdminApp
from tui.context import ConsoleContext


def _status(app: MailAdminApp) -> str:
    return str(app.query_one("#status", Static).render())


async def test_first_frame_comes_before_the_starter_finishes(store: Store) -> None:
    context = make_console(store).context
    release = asyncio.Event()
    calls = 0

    async def starter() -> ConsoleContext:
        nonlocal calls
        calls += 1
        await release.wait()
        return context

    app = MailAdminApp(starter=starter)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.context is None and calls == 1
        assert "Starting" in _status(app)
        assert "starting…" in str(app.query_one("#shell-header", Static).render())
        assert not app.query(DataTable)  # nothing to list yet, and nothing blocks the screen
        release.set()
        await app.workers.wait_for_complete()
        await pilot.pause(0.2)
        assert app.context is context
        table = app.query_one(DataTable)
        assert table.row_count == 3


async def test_a_failed_start_is_explained_and_r_retries(store: Store) -> None:
    context = make_console(store).context
    attempts: list[int] = []

    async def starter() -> ConsoleContext:
        attempts.append(1)
        if len(attempts) == 1:
            raise OSError("address already in use")
        return context

    app = MailAdminApp(starter=starter)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Could not start: address already in use" in _status(app)
        assert app.context is None
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause(0.2)
        assert len(attempts) == 2 and app.context is context
