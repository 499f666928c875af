"""Every console view over a stub whose reports and directories carry every payload class.

Each step asserts: no crash (Pilot re-raises), the payload visible as literal text, no rendered
segment with a link or a click action, and no raw control character on screen.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from rich.console import Console
from textual.widgets import Input, TabbedContent

from jmapclient.models.dmarc import DmarcDkimResult
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from server_stub.store import MEMORY, Store
from tests.support.console import make_console
from tests.support.hostile import (
    HOSTILE,
    HUGE,
    MARKERS,
    PAYLOADS,
    assert_safe_screen,
    hostile_report,
    hostile_store,
    screen_text,
    visible,
)
from tests.support.waiting import settle, settle_work
from tui.reports.analytics_view import AnalyticsView
from tui.reports.detail import DKIM_COLUMNS, RecordsView, RecordView, ReportView, results_table
from tui.reports.dialogs import KeepDialog
from tui.screens.confirm import ConfirmScreen
from tui.screens.form_dialog import MessageDialog

SIZE = (160, 60)
LIST_MARKERS = ("[boldred]R", "[/x]")
"""What a list's clipped column shows of the payload (it starts with these)."""


async def test_the_inbox_report_records_and_record_show_every_payload_literally() -> None:
    console = make_console(hostile_store(), start_section="dmarc")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert_safe_screen(pilot.app, "inbox (figures)", markers=LIST_MARKERS)
        await pilot.press("c")
        await settle(pilot)
        assert_safe_screen(pilot.app, "inbox (mail columns)", markers=LIST_MARKERS)
        await pilot.press("enter")
        await settle(pilot)
        assert pilot.app.query(ReportView)
        assert_safe_screen(pilot.app, "report")
        await pilot.press("enter")
        await settle(pilot)
        assert pilot.app.query(RecordsView)
        assert_safe_screen(pilot.app, "records", markers=LIST_MARKERS)
        await pilot.press("enter")
        await settle(pilot)
        assert pilot.app.query(RecordView)
        # The record view holds the DKIM/SPF tables (the selector carries the payload) and the breadcrumb.
        assert_safe_screen(pilot.app, "record")
        # Detail panels show the value whole (wrapped), its newline as \n: the Source panel holds three.
        assert screen_text(pilot.app).count(visible(HOSTILE)) >= 3


async def test_delete_asks_with_the_literal_name_and_the_warning_stays_visible() -> None:
    console = make_console(hostile_store(), start_section="dmarc")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("d", "y", "y")  # a burst: the second y must not answer anything else
        await settle(pilot)
        # The first y answered the question: it was a real question, not a button in the name.
        assert console.store.count(DMARC_EXTERNAL_REPORT) == 0
    console = make_console(hostile_store(), start_section="dmarc")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmScreen)
        assert_safe_screen(pilot.app, "delete question")
        text = screen_text(pilot.app)
        assert "Thiscannotbeundone." in text
        # The name's own newline is shown as \n, so it cannot start a line of the question.
        assert "id\\rX\\nsafe" in text
        await pilot.click("#confirm-no")
        await settle(pilot)
        assert console.store.count(DMARC_EXTERNAL_REPORT) == 1


async def test_keep_longer_dialog_and_toasts_show_the_payload_as_text() -> None:
    console = make_console(hostile_store(), start_section="dmarc")
    async with console.app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(pilot.app.screen, KeepDialog)
        assert_safe_screen(pilot.app, "keep longer", markers=("[boldred]R", "[/x]", "[@click="))
        await pilot.press("escape")
        await settle(pilot)
        pilot.app.notify(f"The server said: {HOSTILE}", markup=True)
        await pilot.pause(0.3)
        assert_safe_screen(pilot.app, "toast")


async def test_analytics_tabs_show_the_payload_as_text() -> None:
    console = make_console(hostile_store(), start_section="dmarc")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle_work(pilot)
        assert pilot.app.query(AnalyticsView)
        tabs = pilot.app.query_one(TabbedContent)
        for tab, markers in (("tab-domains", ("[/x]",)), ("tab-sources", ()), ("tab-daily", ()),
                             ("tab-failures", ())):  # domains are lower-cased; the report fails nothing
            tabs.active = tab
            await settle(pilot)
            assert_safe_screen(pilot.app, f"analytics {tab}", markers=markers)


async def test_import_summary_shows_hostile_file_and_member_names(tmp_path: Path) -> None:
    name = "[bold red]\x1b]0;pwned\x07\u202egnp.xml"
    (tmp_path / name).write_text("not a report")
    with zipfile.ZipFile(tmp_path / "reports.zip", "w") as archive:
        archive.writestr("[/x]\x1b[2J\u200b.xml", "<feedback>")
    console = make_console(hostile_store(), start_section="dmarc")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        field = pilot.app.screen.query_one("#paths", Input)
        field.value = str(tmp_path)
        field.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(pilot.app.screen, MessageDialog)
        assert_safe_screen(pilot.app, "import summary", markers=("[boldred]", "\\u001b]0;pwned", "\\u202egnp.xml"))


async def test_a_100_kb_value_is_cut_in_lists_and_never_crashes() -> None:
    console = make_console(hostile_store(huge=True), start_section="dmarc")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert "WWW" in screen_text(pilot.app)
        await pilot.press("d")
        await settle(pilot)
        assert "…" in screen_text(pilot.app)
        assert HUGE not in screen_text(pilot.app)


async def test_directories_list_editor_and_rule_panel_show_the_payload_as_text() -> None:
    console = make_console(hostile_store(), start_section="directories")
    async with console.app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert_safe_screen(pilot.app, "directories list", markers=LIST_MARKERS)
        await pilot.press("enter")
        await settle(pilot)
        # The form and the L1 panel quote the Base DN: "[/x]" there crashed the panel before.
        assert_safe_screen(pilot.app, "directory editor", markers=("[/x]",))
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmScreen)
        assert_safe_screen(pilot.app, "directory delete question", markers=("[boldred]R", "[/x]"))


def test_every_payload_class_is_in_the_hostile_string() -> None:
    assert all(sample in HOSTILE for sample in PAYLOADS.values())
    assert all(marker.replace("\\", "") for marker in MARKERS)


async def test_a_100_kb_value_is_cut_in_the_record_view_and_its_results_stay_one_line_a_row() -> None:
    # The tester: a 3,000-character comment filled 97 lines of the record view at 80x24, and a result's text with
    # a line break wrapped to three table lines, each cut, its middle lost.
    store = Store(MEMORY)
    model, stored, _ = hostile_report(HUGE)
    store.insert_many(DMARC_EXTERNAL_REPORT, [(model, stored)])
    console = make_console(store, start_section="dmarc")
    async with console.app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for _ in range(3):  # the report, its records, the record
            await pilot.press("enter")
            await settle(pilot)
        view = pilot.app.query_one(RecordView)
        body = view.query_one("#record-body")
        assert body.virtual_size.height < 150, body.virtual_size.height
        assert HUGE not in screen_text(pilot.app)
        drawn = Console(width=80, record=True, file=io.StringIO())
        results = view.record.dkim_results
        drawn.print(results_table("DKIM", DmarcDkimResult, DKIM_COLUMNS, results))
        lines = [line for line in drawn.export_text().splitlines() if line.strip()]
        assert results and len(lines) == 3 + len(results), lines  # title, header, rule, one line a result
