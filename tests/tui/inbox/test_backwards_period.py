"""A report whose period ends before it begins is shown as that, in the list and in its view: the
inbox showed it as ``11-25 +1h`` (begin 11-25, end 11-22), a plausible period, and the view had no flag."""

from __future__ import annotations

from textual.widgets import Static

from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from tests.support.console import make_world
from tests.support.inbox_steps import inbox, plain, table
from tests.support.waiting import settle
from tui.reports.detail import ReportView


async def test_a_period_that_ends_before_it_begins_is_flagged_in_the_list_and_the_report() -> None:
    world = make_world("spec", reports=3)
    report_id = world.store.all_ids(DMARC_EXTERNAL_REPORT)[0]
    wire = world.store.get(DMARC_EXTERNAL_REPORT, [report_id])[report_id]
    wire["report"]["dateRangeBegin"], wire["report"]["dateRangeEnd"] = "2025-11-25T00:00:00Z", "2025-11-22T00:00:00Z"
    world.store.replace(DMARC_EXTERNAL_REPORT, report_id, DMARC_EXTERNAL_REPORT.read(wire), wire)
    async with world.app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        rows = inbox(pilot).page.rows  # type: ignore[union-attr]
        index = next(i for i, row in enumerate(rows) if row.id == report_id)
        period = str(table(pilot).get_cell(report_id, "period"))
        assert period == "2025-11-25 ⚠−3d", period
        others = [str(table(pilot).get_cell(row.id, "period")) for row in rows if row.id != report_id]
        assert all("⚠" not in shown and "+" in shown for shown in others), others
        table(pilot).focus()
        table(pilot).move_cursor(row=index)
        await pilot.press("enter")
        await settle(pilot)
        reporter = plain(pilot.app.query_one(ReportView).query_one("#reporter", Static))
        assert "2025-11-22 00:00  ⚠ before the period begins" in reporter, reporter
    world.store.close()
