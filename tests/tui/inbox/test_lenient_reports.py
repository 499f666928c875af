"""Reports as the real server stores them ("" where a reporter left a string out) open down to
their DKIM/SPF results, and show those strings as empty (issue 12, item 2)."""

from __future__ import annotations

from textual.widgets import Static

from tests.support.console import StubWorld
from tests.support.inbox_steps import inbox, plain, table
from tests.support.waiting import settle
from tui.reports.detail import RecordsView, RecordView, ReportView

SIZE = (120, 40)


async def open_row(pilot, index: int) -> None:  # type: ignore[no-untyped-def]
    table(pilot).focus()
    table(pilot).move_cursor(row=index)
    await pilot.press("enter")
    await settle(pilot)


async def test_report_with_empty_strings_opens_down_to_its_dkim_results(world: StubWorld) -> None:
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        rows = inbox(pilot).page.rows
        # Google leaves out envelope-from, Yahoo DKIM selectors, Mail.Ru the subject.
        for reporter in ("google.com", "Yahoo", "Mail.Ru"):
            index = next(i for i, row in enumerate(rows) if row.reporter == reporter)
            await open_row(pilot, index)
            report = pilot.app.query_one(ReportView)
            assert report.report is not None, reporter  # set only when the client could read it
            await pilot.press("enter")
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
            record = pilot.app.query_one(RecordView)
            shown = "\n".join(plain(section) for section in record.query(".section").results(Static))
            assert "Envelope from" in shown and "Selector" in shown, reporter
            if reporter == "google.com":
                assert record.record.envelope_from == ""
            if reporter == "Yahoo":
                assert all(result.selector == "" for result in record.record.dkim_results)
            for _ in (RecordView, RecordsView, ReportView):
                await pilot.press("escape")
                await settle(pilot)
            assert not inbox(pilot).levels


async def test_a_report_whose_extension_has_no_name_or_definition_opens() -> None:
    # The real server stores "" for both (wire-notes.md); before issue 27 such a report did not open.
    from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
    from tests.support.console import make_world

    world = make_world("stalwart", reports=3)
    report_id = world.store.all_ids(DMARC_EXTERNAL_REPORT)[0]
    wire = world.store.get(DMARC_EXTERNAL_REPORT, [report_id])[report_id]
    wire["report"]["extensions"] = {"0": {"name": "", "definition": ""}}
    world.store.replace(DMARC_EXTERNAL_REPORT, report_id, DMARC_EXTERNAL_REPORT.read(wire), wire)
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        index = next(i for i, row in enumerate(inbox(pilot).page.rows) if row.id == report_id)
        await open_row(pilot, index)
        report = pilot.app.query_one(ReportView)
        assert report.report is not None
        assert [(e.name, e.definition) for e in report.report.report.extensions] == [("", "")]
    world.store.close()


async def test_deleting_a_report_with_no_reporter_or_policy_domain_names_it() -> None:
    # tester102: the question read "Delete the report from  for  (1970-01-01 +1h)?": nothing said which report.
    from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
    from tests.support.console import make_world
    from tui.screens.confirm import ConfirmScreen

    world = make_world("stalwart", reports=3)
    source = world.store.all_ids(DMARC_EXTERNAL_REPORT)[0]
    wire = {k: v for k, v in world.store.get(DMARC_EXTERNAL_REPORT, [source])[source].items() if k != "id"}
    wire["report"] |= {"orgName": "", "policyDomain": "", "email": "", "reportId": ""}
    nameless = world.store.insert(DMARC_EXTERNAL_REPORT, DMARC_EXTERNAL_REPORT.read(wire), wire)
    async with world.app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        index = next(i for i, row in enumerate(inbox(pilot).page.rows) if row.id == nameless)
        table(pilot).focus()
        table(pilot).move_cursor(row=index)
        await pilot.press("d")
        await settle(pilot)
        question = pilot.app.screen
        assert isinstance(question, ConfirmScreen)
        first_line = question.question.plain.splitlines()[0]  # type: ignore[union-attr]
        assert nameless in first_line and "(no reporter named)" in first_line and "(no policy domain)" in first_line
        assert "  " not in first_line, first_line
        await pilot.press("escape")
        await settle(pilot)
    world.store.close()
