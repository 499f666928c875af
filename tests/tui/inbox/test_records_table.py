"""The records of a big report: the table shows at once and fills as the cursor goes (issue #33).

A report of 5,000 records took 12 times its ``get`` to show its records table, every row built and
measured before the first was drawn. Rows are now added a page at a time, the next page when the
cursor comes near the last row added; the view still knows every record it shows.
"""

from __future__ import annotations

from datetime import UTC, datetime

from jmapclient.dmarc import load_bytes
from tests.support.console import make_world
from tests.support.dmarc_xml import feedback, record
from tests.support.waiting import settle, settle_work
from tui.reports import detail
from tui.reports.detail import PAGE_ROWS, RecordsView, ReportView
from tui.widgets.list_table import ListTable

SIZE = (120, 40)
RECORDS = PAGE_ROWS * 3 + 7


async def open_records(pilot) -> RecordsView:  # type: ignore[no-untyped-def]
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)
    return pilot.app.query_one(RecordsView)


async def test_a_big_reports_records_show_a_page_and_fill_as_the_cursor_goes() -> None:
    world = make_world(reports=0)
    rows = "".join(record(ip=f"10.0.{index // 256}.{index % 256}", count=str(index + 1)) for index in range(RECORDS))
    wire = load_bytes(feedback(records=rows), "big.xml", now=datetime(2026, 3, 1, tzinfo=UTC)).wire
    assert wire is not None
    context = world.context()
    await context.client.dmarc_reports.create(wire)
    async with world.app(context).run_test(size=SIZE) as pilot:
        view = await open_records(pilot)
        table = view.query_one("#records")
        assert PAGE_ROWS <= table.row_count < PAGE_ROWS + 2  # a page of records (and a service's heading)
        assert sorted(view.shown_records()) == list(range(RECORDS))  # every record, shown or to come
        assert f"{RECORDS} of {RECORDS} records" in str(view.query_one("#status").render())
        while table.row_count < RECORDS:
            before = table.row_count
            table.move_cursor(row=before - 1)
            await pilot.pause()
            assert table.row_count > before, "the cursor at the last row added brings the next rows"
        assert [int(str(row.key.value)) for row in table.ordered_rows if str(row.key.value).isdigit()] \
            == view.shown_records()


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
