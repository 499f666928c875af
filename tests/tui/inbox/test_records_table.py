"""The records of a big report: the table shows at once and fills as the cursor goes (issue #33).

A report of 5,000 records took 12 times its ``get`` to show its records table, every row built and
measured before the first was drawn. Rows are now added as they come near the screen: at first
what fills the screen plus a margin, then a page at a time when the cursor or the scroll comes near
the last row added; G goes to the last record; the view still knows every record it shows.
"""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime

import pytest
from rich.console import Console
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.pilot import Pilot

from jmapclient.dmarc import load_bytes
from jmapclient.models.dmarc import DmarcReport
from tests.support.console import make_world
from tests.support.dmarc_xml import feedback, record
from tests.support.textual_probe import cached_cell_renders, screen_strips
from tests.support.waiting import settle, settle_work, wait_until
from tui.reports import detail
from tui.reports.detail import MARGIN_ROWS, PAGE_ROWS, RecordsView, ReportView
from tui.reports.record_rows import RecordRows
from tui.widgets import outside
from tui.widgets.list_table import ListTable
from tui.widgets.plain_cell import CELL_MAX, PlainCell

SIZE = (120, 40)
RECORDS = PAGE_ROWS * 3 + 7


async def open_records(pilot) -> RecordsView:  # type: ignore[no-untyped-def]
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)
    return pilot.app.query_one(RecordsView)


@asynccontextmanager
async def big_report(records: int = RECORDS, size: tuple[int, int] = SIZE) -> AsyncIterator[Pilot[None]]:
    """The console on a report of ``records`` records, one service's (one heading row), the report open."""
    world = make_world(reports=0)
    rows = "".join(record(ip=f"10.0.{index // 256}.{index % 256}", count=str(index + 1)) for index in range(records))
    wire = load_bytes(feedback(records=rows), "big.xml", now=datetime(2026, 3, 1, tzinfo=UTC)).wire
    assert wire is not None
    context = world.context()
    await context.client.dmarc_reports.create(wire)
    async with world.app(context).run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle_work(pilot)  # its records judged in the background
        yield pilot
    world.store.close()


@asynccontextmanager
async def big_report_records(records: int = RECORDS) -> AsyncIterator[tuple[Pilot[None], RecordsView]]:
    """The records view of a report of ``records`` records."""
    async with big_report(records) as pilot:
        await pilot.press("enter")
        await settle(pilot)
        yield pilot, pilot.app.query_one(RecordsView)


def record_keys(table: ListTable) -> list[int]:
    return [int(str(row.key.value)) for row in table.ordered_rows if str(row.key.value).isdigit()]


async def test_a_big_reports_records_show_a_screen_and_fill_as_the_cursor_goes() -> None:
    async with big_report_records() as (pilot, view):
        table = view.query_one("#records", ListTable)
        assert table.row_count == SIZE[1] + MARGIN_ROWS  # the screen and a margin (a heading among them)
        assert sorted(view.shown_records()) == list(range(RECORDS))  # every record, shown or to come
        assert f"{RECORDS} of {RECORDS} records" in str(view.query_one("#status").render())
        while table.row_count < RECORDS:
            before = table.row_count
            table.move_cursor(row=before - 1)
            await pilot.pause()
            assert table.row_count > before, "the cursor at the last row added brings the next rows"
        assert record_keys(table) == view.shown_records()


@pytest.mark.parametrize("key", ["G", "ctrl+end"])
async def test_the_last_row_key_goes_to_the_reports_last_record(key: str) -> None:
    # G went to the last row added and added one page more: 3 pages short of the last record.
    async with big_report_records() as (pilot, view):
        table = view.query_one("#records", ListTable)
        await pilot.press(key)
        await settle(pilot)
        assert record_keys(table) == view.shown_records()  # every row added, in order
        assert table.selected_key == str(view.shown_records()[-1])
        assert f"{RECORDS} of {RECORDS} records" in str(view.query_one("#status").render())
        await pilot.press("g")
        await settle(pilot)
        assert table.cursor_row == 0  # back at the top (the service's heading)


async def test_the_mouse_wheel_brings_the_next_rows() -> None:
    # The wheel moves the view, not the cursor: it stopped at the first rows added.
    async with big_report_records() as (pilot, view):
        table = view.query_one("#records", ListTable)
        first = table.row_count
        for _ in range(first):  # bounded: a turn of the wheel scrolls at least a line
            if table.row_count > first:
                break
            table.post_message(events.MouseScrollDown(table, 5, 5, 0, 1, 0, False, False, False))
            await settle(pilot)
        assert table.row_count > first and table.cursor_row == 1
        assert record_keys(table) == view.shown_records()[:len(record_keys(table))]


async def test_scrolling_to_the_end_brings_the_next_rows() -> None:
    # The scrollbar moves the view, not the cursor: dragged to the bottom, it stopped at the first rows added.
    async with big_report_records() as (pilot, view):
        table = view.query_one("#records", ListTable)
        for _ in range(RECORDS):  # bounded: each scroll to the end adds rows until none is left
            if table.row_count > RECORDS:
                break
            before = table.row_count
            table.scroll_to(y=table.max_scroll_y, animate=False, immediate=True)  # as a drag to the bottom
            await settle(pilot)
            assert table.row_count > before, "scrolled to the end, the next rows came"
        assert record_keys(table) == view.shown_records()
        table.scroll_to(y=table.max_scroll_y, animate=False, immediate=True)
        await settle(pilot)
        assert table.cursor_row == 1  # the view moved, not the cursor


async def test_f_deep_in_the_records_shows_the_other_choice_from_its_top() -> None:
    # Emptying the table scrolls it to the top, and the rows of the choice left were once added to it.
    async with big_report_records() as (pilot, view):
        table = view.query_one("#records", ListTable)
        for _ in range(4):
            await pilot.press("pagedown")
        await settle(pilot)
        assert table.scroll_y > 0 and table.row_count > SIZE[1] + MARGIN_ROWS
        await pilot.press("f")  # failing DMARC only: none of these records
        await settle(pilot)
        assert view.shown_records() == [] and table.row_count == 0
        await pilot.press("f")
        await settle(pilot)
        shown = record_keys(table)
        assert shown == view.shown_records()[:len(shown)] and table.cursor_row == 1 and table.scroll_y == 0


async def objects_made_by_opening_the_records(records: int) -> int:
    """How many more objects the garbage collector tracks once a report's records are open (it not running)."""
    async with big_report(records) as pilot:
        gc.collect()
        gc.disable()
        try:
            before = len(gc.get_objects())
            await pilot.press("enter")
            await settle(pilot)
            assert pilot.app.query_one(RecordsView).shown_records()
            return len(gc.get_objects()) - before
        finally:
            gc.enable()


async def test_the_rows_still_to_come_make_no_objects_for_the_garbage_collector() -> None:
    # Each record still to come was a functools.partial and a tuple: 10,000 objects for 5,000 records,
    # and a full collection of the console's heap (0.1 s with such a report loaded) fell inside most
    # visits of the records. Now they are plain indexes: a report 20 times bigger, about as many objects.
    # Each the fewest of three openings: what Textual has pending when an opening settles (timers, messages,
    # a frame) moves the count by about 2,000 either way, and more on a loaded machine (it failed so with two, once
    # in the session's runs beside a suite of tests).
    small = min([await objects_made_by_opening_the_records(RECORDS) for _ in range(3)])
    big = min([await objects_made_by_opening_the_records(RECORDS * 20) for _ in range(3)])
    # Before: 2.7 objects a record more (12,000-13,000); now the same but for Textual's own. The bound is half
    # the old cost a record.
    assert big - small < RECORDS * 19 * 1.35, (small, big)


def test_a_service_with_no_record_shown_has_no_heading() -> None:
    wire = load_bytes(feedback(records=record(ip="192.0.2.9", dkim="fail", spf="fail") + record()), "f.xml",
                      now=datetime(2026, 3, 1, tzinfo=UTC)).wire
    assert wire is not None
    records = DmarcReport.model_validate(wire["report"]).records
    groups: detail.RecordGroups = [("Fails", [(0, None)]), ("Passes", [(1, None)]), ("", [])]
    rows = RecordRows(groups, records, failing_only=True)
    assert not records[0].passes_dmarc and records[1].passes_dmarc
    assert rows.entries == ["Fails", 0] and rows.shown() == [0] and rows.record_count == 1
    assert rows.counts_under(0) == [records[0].count]
    everything = RecordRows(groups, records, failing_only=False)
    assert everything.entries == ["Fails", 0, "Passes", 1]
    assert list(everything.take(3)) == [0, 1, 2] and everything.left == 1 and list(everything.take(3)) == [3]


async def test_back_from_the_records_enter_opens_them_again() -> None:
    world = make_world(reports=3)
    async with world.app().run_test(size=SIZE) as pilot:
        await open_records(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert pilot.app.query(ReportView) and not pilot.app.query(RecordsView)
        await pilot.press("enter")  # the report's own key: it went nowhere once back at the report
        await settle(pilot)
        assert pilot.app.query(RecordsView)


async def test_at_80_by_24_a_reports_records_keep_their_dkim_and_spf_columns() -> None:
    """Beside the menu the main area holds about 59 cells; the verdicts come before the columns it cuts."""
    world = make_world(reports=3)
    async with world.app().run_test(size=(80, 24)) as pilot:
        view = await open_records(pilot)
        table = view.query_one("#records", ListTable)
        right_edges: dict[str, int] = {}
        edge = 0
        for key, column in table.columns.items():
            edge += column.get_render_width(table)
            right_edges[str(key.value)] = edge
        assert right_edges["evaluatedDkim"] <= table.scrollable_content_region.width
        assert right_edges["evaluatedSpf"] <= table.scrollable_content_region.width
        assert right_edges["name"] > table.scrollable_content_region.width  # the test measures a cut-off table
    world.store.close()


def judging_counted(monkeypatch, *, fail_first: bool = False) -> list[int]:  # type: ignore[no-untyped-def]
    """Each judging of a report's records (``detail.record_groups``) counted; the first failing if asked."""
    record_groups = detail.record_groups
    calls: list[int] = []

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        if fail_first and len(calls) == 1:
            raise ValueError("a record the digest cannot walk")
        return record_groups(*args, **kwargs)

    monkeypatch.setattr(detail, "record_groups", counted)
    return calls


async def test_a_reports_records_are_judged_while_the_report_is_read(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # Judging every record (to group them by service) was most of what enter on a big report waited
    # for; it now runs in the background once the report is shown, and enter takes what it made.
    judged = judging_counted(monkeypatch)
    world = make_world(reports=3)
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle_work(pilot)
        report = pilot.app.query_one(ReportView)
        assert judged == [1] and report.groups is not None  # before enter
        await pilot.press("enter")
        await settle(pilot)
        view = pilot.app.query_one(RecordsView)
        assert judged == [1]  # the records view judged nothing again
        assert sorted(view.shown_records()) == list(range(len(report.report.report.records)))  # type: ignore[union-attr]
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("r")  # a reload judges the report read again
        await settle_work(pilot)
        assert judged == [1, 1]
    world.store.close()


async def test_judging_that_fails_in_the_background_leaves_it_to_the_records_view(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    calls = judging_counted(monkeypatch, fail_first=True)
    world = make_world(reports=3)
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle_work(pilot)
        assert pilot.app.is_running and pilot.app.query_one(ReportView).groups is None
        await pilot.press("enter")
        await settle(pilot)
        assert pilot.app.query_one(RecordsView).shown_records() and calls == [1, 1]
    world.store.close()


@pytest.mark.parametrize(("value", "style"), [
    ("10.0.0.1", ""), ("fail", "bold red"), ("pass", "green"), ("", ""), ("shop.example.net, other.example", ""),
    ("[bold]not markup[/bold] [@click=app.quit]x[/]", ""), ("evil\x1b[2Jname\u202e\n", "bold red"),
    ("數據報告", ""), ("x" * 48, ""),
])
@pytest.mark.parametrize("width", [0, 3, 9, 40])
def test_a_plain_cell_is_drawn_as_its_text_would_be(value: str, style: str, width: int) -> None:
    # The records table's cells are drawn as one segment, not as rich Text: the same cells on screen.
    console = Console(width=120, force_terminal=True, color_system="truecolor")
    options = console.options.update_dimensions(width, 1).update(no_wrap=True)

    def drawn(cell: object) -> list[list[tuple[str, Style]]]:
        """Each line's characters, each with its style (however they are cut into segments)."""
        lines = console.render_lines(Padding(cell, (0, 1)), options)  # type: ignore[arg-type]
        return [[(char, segment.style or Style.null()) for segment in line for char in segment.text] for line in lines]

    assert drawn(PlainCell(value, style)) == drawn(outside.cut(value, style))
    assert str(PlainCell(value, style)) == outside.cut(value, style).plain
    assert console.measure(PlainCell(value, style)).maximum == console.measure(outside.cut(value, style)).maximum


@pytest.mark.parametrize(("value", "shown"), [
    ("x" * 300, "x" * 47 + "…"), ("x" * 49, "x" * 47 + "…"),
    ("數" * 30, "數" * 23 + "…"), ("a" + "數" * 30, "a" + "數" * 23 + "…"),
])
def test_a_long_cell_is_cut_with_an_ellipsis_at_the_cell_cap(value: str, shown: str) -> None:
    # A hostile policy domain of 3,000 letters made its column the screen's width: every figure beside it hid.
    console = Console(width=120, force_terminal=True, color_system="truecolor")
    assert str(PlainCell(value)) == shown
    assert console.measure(PlainCell(value)).maximum <= CELL_MAX


def test_a_one_style_text_cell_is_cut_at_the_cell_cap_too() -> None:
    # The Sources tab's cells are Text (cut at 200 characters): a 300-letter policy domain hid the figures.
    capped = outside.cell(outside.cut("a" * 300, "bold"))
    assert isinstance(capped, PlainCell) and str(capped) == "a" * 47 + "…" and capped.style == "bold"


class DataTablesOwnDrawing(ListTable):
    """The records table as DataTable draws it: every column of a row rendered, every cell through Rich."""

    def __init__(self, add_all: object, *, id: str | None = None) -> None:
        super().__init__(id=id)


async def records_screens(size: tuple[int, int], drawn_by: type[ListTable]) -> list[list[list[Segment]]]:
    """A big report's records on screen: at first, the cursor moved down, scrolled to the right end and back."""
    async with big_report(size=size) as pilot:
        await pilot.press("enter")
        await settle(pilot)
        table = pilot.app.query_one(RecordsView).query_one("#records", ListTable)
        assert type(table) is drawn_by
        # Grouped by service once the sources' names are known: on a loaded machine one side's first screen
        # was taken before its service heading came (CI), the other's after.
        await wait_until(pilot, lambda: table.row_count > 0 and not str(table.ordered_rows[0].key.value).isdigit(),
                         "the records grouped under their service")
        await settle(pilot)
        screens = [screen_strips(pilot.app)]
        await pilot.press("down", "down", "down")
        await settle(pilot)
        screens.append(screen_strips(pilot.app))
        table.scroll_to(x=table.max_scroll_x, animate=False)
        await settle(pilot)
        assert table.scroll_x > 0
        screens.append(screen_strips(pilot.app))
        table.scroll_to(x=0, animate=False)
        await settle(pilot)
        screens.append(screen_strips(pilot.app))
        return screens


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_the_records_table_looks_as_datatable_draws_it(monkeypatch, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    # The records table renders the columns in view only and its plain cells itself (its first frame
    # was half cells cut off and Rich's rendering around each cell): the same screen, scrolled too.
    ours = await records_screens(size, detail.RecordsTable)
    monkeypatch.setattr(detail, "RecordsTable", DataTablesOwnDrawing)
    datatables = await records_screens(size, DataTablesOwnDrawing)
    assert [strips_text(screen) for screen in ours] == [strips_text(screen) for screen in datatables]
    assert ours == datatables  # styles too


class LaidOutLate(App[None]):
    """A list table whose cursor moves to its second row while the table has no size yet."""

    CSS = "#box { display: none; }"

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield ListTable(id="rows")

    def on_mount(self) -> None:
        table = self.query_one(ListTable)
        table.add_column("Source IP", key="ip")
        table.add_row("a heading", key="heading")
        for index in range(100):
            table.add_row(f"10.0.0.{index}", key=str(index))
        table.move_cursor(row=1)  # as the records view does: on the first record, below its heading


async def test_a_table_laid_out_after_its_cursor_moved_opens_at_its_top() -> None:
    # On a busy machine (CI) the records view's cursor was scrolled into view before the table had a
    # size: the window of no height put the cursor's row at its top, and the heading stayed scrolled off.
    app = LaidOutLate()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.query_one(ListTable)
        assert table.size.height == 0
        app.query_one("#box").display = True
        await settle(pilot)
        assert table.size.height > 0
        assert (table.scroll_y, table.cursor_row) == (0, 1)
        table.move_cursor(row=60)  # the cursor scrolls the view as before
        await settle(pilot)
        assert table.scroll_y > 0


def strips_text(screen: list[list[Segment]]) -> list[str]:
    return ["".join(segment.text for segment in line) for line in screen]


async def test_the_records_table_renders_the_columns_in_view_only() -> None:
    async with big_report_records() as (pilot, view):
        table = view.query_one("#records", ListTable)
        in_view, edge = set(), 0
        for key, column in table.columns.items():
            if edge < table.size.width:
                in_view.add(key.value)
            edge += column.get_render_width(table)
        assert "reason" not in in_view  # the test measures a cut-off table
        assert {key[1].value for key in cached_cell_renders(table)} == in_view
        table.scroll_to(x=table.max_scroll_x, animate=False)
        await settle(pilot)
        assert "reason" in {key[1].value for key in cached_cell_renders(table)}


async def test_the_records_tables_plain_cells_are_drawn_without_rich(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # Plain cells and one-style Text cells (its service and class) are drawn directly, not through Rich.
    drawn_by_rich: list[str] = []
    plain_cell, text = PlainCell.__rich_console__, Text.__rich_console__

    def counted(self: PlainCell | Text, console: Console, options: object) -> object:
        drawn_by_rich.append(str(self) if isinstance(self, PlainCell) else self.plain)
        return (plain_cell if isinstance(self, PlainCell) else text)(self, console, options)  # type: ignore[arg-type]

    async with big_report() as pilot:
        monkeypatch.setattr(PlainCell, "__rich_console__", counted)
        monkeypatch.setattr(Text, "__rich_console__", counted)
        await pilot.press("enter")
        await settle(pilot)
        table = pilot.app.query_one(RecordsView).query_one("#records", ListTable)
        first = [str(cell) for cell in table.get_row_at(1)]
        assert first[0] == "10.0.0.0" and first[0] in "".join(strips_text(screen_strips(pilot.app)))  # on screen
        klass = first[5]  # a Text cell (the service beside it is blank: none known)
        assert klass and klass in "".join(strips_text(screen_strips(pilot.app)))
        assert not {first[0], klass} & set(drawn_by_rich)


async def test_a_reports_status_line_groups_its_record_count() -> None:
    # "Records: 2286" beside "Messages: 2,286" (the new user's finding).
    async with big_report(1234) as pilot:
        said = str(pilot.app.query_one(ReportView).query_one("#status").render())
        assert said.startswith("Records: 1,234 · "), said
