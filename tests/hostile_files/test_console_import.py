"""The console's import of the hostile corpus: one summary, no crash, the server holds what it says."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from bench.hostile_corpus import CASES
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from server_stub.store import MEMORY, Store
from tests.support.console import make_console
from tests.support.held_uploads import HeldUploads
from tests.support.waiting import wait_until
from tui.screens.form_dialog import MessageDialog


async def test_the_console_imports_the_hostile_corpus_to_one_true_summary(hostile_dir: Path) -> None:
    store = Store(MEMORY)
    console = make_console(store, start_section="dmarc")
    # Every upload waits until the burst below is typed, so the burst surely lands mid-import.
    uploads = HeldUploads(console.transport)
    try:
        async with console.app.run_test(size=(120, 40)) as pilot:
            await pilot.app.workers.wait_for_complete()
            await pilot.press("i")
            await pilot.pause()
            field = pilot.app.screen.query_one("#paths", Input)
            field.focus()
            field.value = str(hostile_dir)
            await pilot.press("enter")
            await wait_until(pilot, uploads.started.is_set, "the import's first upload")
            await pilot.press("i", "i", "enter", "escape", "i")  # a burst while the import runs
            uploads.release()
            await wait_until(pilot, lambda: isinstance(pilot.app.screen, MessageDialog), "the import summary", 60)
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
