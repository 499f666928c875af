"""The inbox's actions run side by side: starting one never cancels another that is running."""

from __future__ import annotations

import csv
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input, Select

from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from server_stub.store import Store
from tests.support.console import make_console
from tests.support.held_uploads import HeldUploads
from tests.support.samples import samples_or_skip
from tests.support.waiting import settle, wait_until
from tui.reports.dialogs import ImportDialog
from tui.screens.form_dialog import MessageDialog


async def submit(pilot: Pilot, selector: str, text: str) -> None:
    field = pilot.app.screen.query_one(selector, Input)
    field.focus()
    field.value = text
    await pilot.press("enter")


async def test_an_export_started_during_an_import_leaves_the_import_running(store: Store, tmp_path: Path) -> None:
    samples = samples_or_skip()
    console = make_console(store, start_section="dmarc")
    # The import's first batch waits, so the export certainly starts while it runs.
    uploads = HeldUploads(console.transport)
    target = tmp_path / "during-import.csv"
    async with console.app.run_test(size=(120, 40)) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.press("i")
        await pilot.pause()
        await submit(pilot, "#paths", str(samples))
        await wait_until(pilot, uploads.started.is_set, "the import's first upload")
        await pilot.press("x")
        await pilot.pause()
        await submit(pilot, "#path", str(target))
        export_progress = pilot.app.query_one("#dmarc-export-progress")
        await wait_until(pilot, lambda: target.exists() and not export_progress.display, "the export to finish")
        assert pilot.app.query_one("#dmarc-progress").display  # the import's own progress stays up
        await pilot.press("i")  # a second import is refused in words, the running one goes on
        await pilot.pause()
        assert not isinstance(pilot.app.screen, ImportDialog)
        uploads.release()
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, MessageDialog), "the import summary", 10)
        summary = "\n".join(pilot.app.screen.lines)
        assert pilot.app.screen.title_text == "Import finished"
        imported = store.count(DMARC_EXTERNAL_REPORT)
        assert imported > 0 and f"imported: {imported} " in summary
        with target.open(newline="") as handle:
            assert next(csv.reader(handle))  # the export wrote its header row too


async def test_a_path_typed_right_after_x_is_the_export_file_name(store: Store) -> None:
    async with make_console(store, start_section="dmarc").app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("x", *"mine.json")  # no waiting: the dialog opens under the keys
        await settle(pilot)
        dialog = pilot.app.screen
        assert dialog.query_one("#path", Input).value == "mine.json"  # the default is replaced
        assert dialog.query_one("#format", Select).value == "json"  # chosen by the extension typed
        await pilot.press("backspace", "backspace", "backspace", "backspace", *"csv")
        await settle(pilot)
        assert dialog.query_one("#path", Input).value == "mine.csv"
        assert dialog.query_one("#format", Select).value == "csv"
