"""The console's import of the hostile corpus: one summary, no crash, the server holds what it says."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
from textual.pilot import Pilot
from textual.widgets import Input

from bench.hostile_corpus import CASES
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from server_stub.store import MEMORY, Store
from tests.support.console import make_console
from tui.reports.dialogs import MessageDialog


async def wait_until(pilot: Pilot, condition: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.05)


UPLOAD = b'"x:DmarcExternalReport/set"'


async def test_the_console_imports_the_hostile_corpus_to_one_true_summary(hostile_dir: Path) -> None:
    store = Store(MEMORY)
    console = make_console(store, start_section="dmarc")
    uploading, release = asyncio.Event(), asyncio.Event()

    async def held(request: httpx.Request) -> httpx.Response:
        # Every upload waits until the burst below is typed, so the burst surely lands mid-import.
        uploading.set()
        await release.wait()
        return await console.transport.inner.handle_async_request(request)

    def hold_uploads(request: httpx.Request) -> Callable[[httpx.Request], Awaitable[httpx.Response]] | None:
        return held if UPLOAD in request.content else None

    console.transport.intercept = hold_uploads
    try:
        async with console.app.run_test(size=(120, 40)) as pilot:
            await pilot.app.workers.wait_for_complete()
            await pilot.press("i")
            await pilot.pause()
            field = pilot.app.screen.query_one("#paths", Input)
            field.focus()
            field.value = str(hostile_dir)
            await pilot.press("enter")
            await wait_until(pilot, uploading.is_set, "the import's first upload")
            await pilot.press("i", "i", "enter", "escape", "i")  # a burst while the import runs
            release.set()
            await wait_until(pilot, lambda: isinstance(pilot.app.screen, MessageDialog), "the import summary")
            screen = pilot.app.screen
            assert isinstance(screen, MessageDialog)
            assert screen.title_text == "Import finished"
            summary = "\n".join(screen.lines)
            stored = store.count(DMARC_EXTERNAL_REPORT)
            assert f"imported: {stored} " in summary
            assert f"rejected: {sum(case.outcome == 'rejected' for case in CASES)}" in summary
            for case in CASES:
                if case.outcome == "rejected":
                    assert f"{case.name}: " in summary and case.reason in summary, case.name
    finally:
        store.close()
