"""Pilot flows of the DMARC inbox against the stub, in both of its profiles."""

from __future__ import annotations

import csv
import json
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Static, TabbedContent

from jmapclient.dmarc import COLUMNS
from jmapclient.encoding import parse_utc
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from tests.support.clock import FROZEN_NOW
from tests.support.console import StubWorld, make_world, reports_for_period
from tests.support.dmarc_xml import feedback
from tests.support.footer import footer_keys
from tests.support.inbox_steps import header, ids_where, inbox, plain, position, table, type_into
from tests.support.waiting import settle
from tui.reports.analytics_view import AnalyticsView
from tui.reports.detail import RecordsView, RecordView, ReportView
from tui.reports.dialogs import KeepDialog
from tui.screens.confirm import ConfirmScreen
from tui.screens.form_dialog import MessageDialog

SIZE = (120, 40)


async def test_pages_turn_with_a_position_indicator(world: StubWorld) -> None:
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert position(pilot).startswith("1–50 of 120")
        assert table(pilot).row_count == 50
        await pilot.press("n")
        await settle(pilot)
        assert position(pilot).startswith("51–100 of 120")
        await pilot.press("G")
        await settle(pilot)
        assert position(pilot).startswith("101–120 of 120")
        assert table(pilot).cursor_row == 19
        # Moving up past the first row of a page shows the previous page, cursor on its last row.
        table(pilot).move_cursor(row=0)
        await pilot.press("k")
        await settle(pilot)
        assert position(pilot).startswith("51–100 of 120")
        assert table(pilot).cursor_row == 49
        await pilot.press("g")
        await settle(pilot)
        assert position(pilot).startswith("1–50 of 120")


async def test_filters_narrow_the_list(world: StubWorld) -> None:
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_into(pilot, "#f-domain", "example.org")
        rows = inbox(pilot).page.rows
        # The stalwart profile refuses `domain`; the client retries with the word search and
        # keeps only that domain's reports, claiming no total it cannot know.
        assert rows and {row.policy_domain for row in rows} == {"example.org"}
        if world.profile == "spec":
            assert inbox(pilot).pager.total < 120
        else:
            assert inbox(pilot).pager.total is None and "total unknown" in position(pilot)
            assert "/" not in position(pilot).partition("page")[2]  # no page count from the word matches
            assert "searched the words" in inbox(pilot).pager.note
        await type_into(pilot, "#f-domain", "")
        # The totals count records by their disposition (wire-notes), not messages: the list holds
        # exactly the stored reports that pass each condition.
        for field, typed, keep in (
            ("#f-failed", ">= 1", lambda failed, _passed: failed >= 1),
            ("#f-failed", ">= 3", lambda failed, _passed: failed >= 3),
            ("#f-passed", ">= 1", lambda _failed, passed: passed >= 1),
            ("#f-passed", "<= 0", lambda _failed, passed: passed <= 0),
        ):
            await type_into(pilot, field, typed)
            expected = ids_where(world.store, keep)
            assert 0 < len(expected) < 120, (typed, len(expected))  # each condition tells reports apart
            assert inbox(pilot).pager.total == len(expected)
            assert {row.id for row in inbox(pilot).page.rows} <= expected
            await type_into(pilot, field, "")
        cutoff = FROZEN_NOW + timedelta(days=70)
        await type_into(pilot, "#f-before", cutoff.date().isoformat())
        before = inbox(pilot).pager.total
        assert before and all(parse_utc(r.expires) < cutoff.replace(hour=0, minute=0) for r in inbox(pilot).page.rows)
        await type_into(pilot, "#f-before", "")
        await type_into(pilot, "#f-after", cutoff.date().isoformat())
        after = inbox(pilot).pager.total or 0
        assert after and after + before <= 120
        next_day = cutoff.replace(hour=0, minute=0) + timedelta(days=1)
        assert all(parse_utc(r.expires) >= next_day for r in inbox(pilot).page.rows)
        # The calendar's last day has no day after it (the console ended on an OverflowError): refused in words.
        await type_into(pilot, "#f-after", "9999-12-31")
        note = str(pilot.app.query_one("#dmarc-note", Static).render())
        assert "nothing expires after the calendar's last day" in note
        assert pilot.app.is_running and pilot.app.query_one("#f-after").has_class("-invalid")
        await type_into(pilot, "#f-after", "")
        # A value that is not a comparison is refused in words, nothing is sent.
        await type_into(pilot, "#f-failed", "lots")
        assert "write a number" in str(pilot.app.query_one("#dmarc-note", Static).render())
        assert pilot.app.query_one("#f-failed").has_class("-invalid")


async def test_sort_by_received_and_expires(world: StubWorld) -> None:
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        newest_first = [r.received for r in inbox(pilot).page.rows]
        assert newest_first == sorted(newest_first, reverse=True)
        table(pilot).focus()
        await pilot.press("s")
        await settle(pilot)
        oldest_first = [r.received for r in inbox(pilot).page.rows]
        assert oldest_first == sorted(oldest_first) and oldest_first[0] < newest_first[-1]
        await pilot.press("s")
        await settle(pilot)
        expires = [r.expires for r in inbox(pilot).page.rows]
        assert expires == sorted(expires, reverse=True)
        assert "expires ▼" in str(pilot.app.query_one("#dmarc-sort", Static).render())


async def test_drill_down_to_a_record_and_back(world: StubWorld) -> None:
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = inbox(pilot).page.rows[0]
        await pilot.press("enter")
        await settle(pilot)
        report = pilot.app.query_one(ReportView)
        assert report.report is not None and report.report.id == first.id
        assert first.reporter in header(pilot)
        body = plain(pilot.app.query_one("#policy", Static))
        assert "adkim" in body and "Discovery method" in body
        await pilot.press("enter")
        await settle(pilot)
        records = pilot.app.query_one(RecordsView)
        assert sorted(records.shown_records()) == list(range(len(report.report.report.records)))
        assert header(pilot).endswith("Records")
        await pilot.press("enter")
        await settle(pilot)
        record = pilot.app.query_one(RecordView)
        assert record.record == report.report.report.records[records.shown_records()[0]]
        shown = "\n".join(plain(section) for section in record.query(".section").results(Static))
        assert "Alignment (policy evaluated)" in shown and "Authentication: DKIM results" in shown
        assert "Selector" in shown and "Identity checked" in shown
        for expected in (RecordsView, ReportView):
            await pilot.press("escape")
            await settle(pilot)
            assert inbox(pilot).levels[-1].__class__ is expected
        await pilot.press("escape")
        await settle(pilot)
        assert not inbox(pilot).levels and table(pilot).has_focus
        assert header(pilot).endswith("DMARC")


async def test_failing_only_in_records(world: StubWorld) -> None:
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_into(pilot, "#f-failed", ">= 1")
        # A record not marked pass may still pass DMARC by its DKIM/SPF results (the totals count
        # dispositions): open the first listed report with a record that fails DMARC.
        rows = inbox(pilot).page.rows
        stored = world.store.get(DMARC_EXTERNAL_REPORT, [row.id for row in rows])
        failing_at = next(i for i, row in enumerate(rows)
                          if any(not r.passes_dmarc for r in DMARC_EXTERNAL_REPORT.read(stored[row.id]).report.records))
        table(pilot).focus()
        table(pilot).move_cursor(row=failing_at)
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        view = pilot.app.query_one(RecordsView)
        all_rows = len(view.shown_records())
        assert ("f", "Failing only") in footer_keys(pilot.app)
        await pilot.press("f")
        await settle(pilot)
        failing = [r for r in view.item.report.records if not r.passes_dmarc]
        assert 0 < len(view.shown_records()) == len(failing) <= all_rows
        # The footer names what f does now (it kept "Failing only", the tester's).
        assert ("f", "All records") in footer_keys(pilot.app) and ("f", "Failing only") not in footer_keys(pilot.app)
        assert any(line[1] == "All records" for line in pilot.app._keys_here())  # and so does ? (help)
        await pilot.press("f")
        await settle(pilot)
        assert len(view.shown_records()) == all_rows and ("f", "Failing only") in footer_keys(pilot.app)


async def test_delete_marked_reports_after_confirmation(world: StubWorld) -> None:
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        doomed = [r.id for r in inbox(pilot).page.rows[:2]]
        await pilot.press("space", "space", "d")
        await pilot.pause()
        assert "Delete 2 marked reports" in str(pilot.app.screen.query_one("#confirm-question", Static).render())
        await pilot.press("n")
        await settle(pilot)
        assert world.store.count(DMARC_EXTERNAL_REPORT) == 120
        await pilot.press("d", "y")
        await settle(pilot)
        assert world.store.count(DMARC_EXTERNAL_REPORT) == 118
        assert position(pilot).startswith("1–50 of 118")
        assert not set(doomed) & {r.id for r in inbox(pilot).page.rows}


async def test_a_marked_report_deleted_elsewhere_loses_its_mark_with_the_delete(world: StubWorld) -> None:
    # The tester: one of three marked reports deleted with the CLI before y; the other two were deleted, and
    # "1 marked" stayed, d then offering to delete the one already gone.
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        marked = [r.id for r in inbox(pilot).page.rows[:3]]
        await pilot.press("space", "space", "space", "d")
        await pilot.pause()
        world.store.delete(DMARC_EXTERNAL_REPORT, marked[0])
        await pilot.press("y")
        await settle(pilot)
        assert world.store.count(DMARC_EXTERNAL_REPORT) == 117
        assert not inbox(pilot).state.marked
        assert "marked" not in position(pilot)


async def test_import_files_shows_progress_and_a_summary(world: StubWorld, tmp_path: Path) -> None:
    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / "a.xml").write_bytes(feedback(report_id="<report_id>imp-1</report_id>"))
    (folder / "b.xml").write_bytes(feedback(report_id="<report_id>imp-2</report_id>"))
    (folder / "b-again.xml").write_bytes(feedback(report_id="<report_id>imp-2</report_id>"))
    (folder / "junk.xml").write_bytes(b"not a report")
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await pilot.pause()
        await type_into(pilot, "#paths", str(folder))
        dialog = pilot.app.screen
        assert isinstance(dialog, MessageDialog)
        summary = "\n".join(dialog.lines)
        assert "duplicates: 1" in summary
        if world.profile == "spec":
            assert "imported: 2" in summary and "rejected: 1" in summary
            assert world.store.count(DMARC_EXTERNAL_REPORT) == 122
        else:  # the real server refuses to create reports: the summary says so per file
            assert "imported: 0" in summary and "Reports cannot be created" in summary
            assert world.store.count(DMARC_EXTERNAL_REPORT) == 120
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, MessageDialog)


async def test_import_skips_reports_the_server_already_holds(world: StubWorld, tmp_path: Path) -> None:
    if world.profile != "spec":
        pytest.skip("the stalwart profile refuses report creation, so nothing is on the server to match")
    report = tmp_path / "once.xml"
    report.write_bytes(feedback(report_id="<report_id>held-1</report_id>"))
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        for expected in ("imported: 1", "duplicates: 1"):  # the second run finds it on the server
            await pilot.press("i")
            await pilot.pause()
            await type_into(pilot, "#paths", str(report))
            dialog = pilot.app.screen
            assert isinstance(dialog, MessageDialog)
            assert expected in "\n".join(dialog.lines)
            await pilot.press("enter")
            await settle(pilot)
    assert world.store.count(DMARC_EXTERNAL_REPORT) == 121


async def test_export_what_the_filter_shows(world: StubWorld, tmp_path: Path) -> None:
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_into(pilot, "#f-failed", ">= 10")
        shown = inbox(pilot).pager.total
        table(pilot).focus()
        await pilot.press("x")
        await pilot.pause()
        target = tmp_path / "out.csv"
        await type_into(pilot, "#path", str(target))
        with target.open(newline="") as handle:
            rows = list(csv.reader(handle))
        assert tuple(rows[0]) == COLUMNS
        assert len({row[0] for row in rows[1:]}) == shown
        assert target.stat().st_mode & 0o777 == 0o600
        await pilot.press("x")
        await pilot.pause()
        pilot.app.screen.query_one("#format").value = "json"
        await pilot.pause()
        json_target = tmp_path / "out.json"
        await type_into(pilot, "#path", str(json_target))
        exported = json.loads(json_target.read_text())
        assert len(exported) == len(rows) - 1


async def test_keep_longer_sends_a_minimal_patch(world: StubWorld) -> None:
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        row = inbox(pilot).page.rows[0]
        await pilot.press("e")
        await pilot.pause()
        await type_into(pilot, "#expires", "2027-01-31")
        stored = world.store  # read back what the server holds
        got = await inbox(pilot).context.client.dmarc_reports.get([row.id])
        expires = got.raw[0]["expiresAt"]
        if world.profile == "spec":
            assert expires.startswith("2027-01-31T")
            assert inbox(pilot).page.rows[0].expires == expires
            # Minimal: the one property changed, of the one report (the stored value alone could
            # not tell a patch from the whole report sent back).
            [update] = [args["update"] for body in world.transport.bodies
                        for name, args, _ in json.loads(body)["methodCalls"]
                        if name.endswith("DmarcExternalReport/set")]
            assert update == {row.id: {"expiresAt": expires}}
        else:
            assert expires == row.expires
            assert "does not let received reports be changed" in str(
                pilot.app.query_one("#dmarc-denied", Static).render())
            assert inbox(pilot).check_action("keep", ()) is False
        assert stored.count(DMARC_EXTERNAL_REPORT) == 120


async def kept_longer(pilot: Pilot[None]) -> None:
    await pilot.press("e")
    await pilot.pause()
    await type_into(pilot, "#expires", "2027-01-31")
    await settle(pilot)


async def opened(pilot: Pilot[None]) -> None:
    await pilot.press("enter")
    await settle(pilot)
    assert "no longer exists" in str(pilot.app.query_one(ReportView).query_one("#status", Static).render())


@pytest.mark.parametrize("learned_by", [kept_longer, opened], ids=["keep longer", "open"])
async def test_a_report_deleted_elsewhere_leaves_the_list_once_the_console_learns_it(
        learned_by: Callable[[Pilot[None]], Awaitable[None]]) -> None:
    # The tester: e on a report the CLI had deleted said it does not exist, and the list kept showing it.
    world = make_world("spec", reports=10)
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        row = inbox(pilot).page.rows[0]
        world.store.delete(DMARC_EXTERNAL_REPORT, row.id)
        inbox(pilot).state.marked.add(row.id)
        await learned_by(pilot)
        assert row.id not in {r.id for r in inbox(pilot).page.rows} and not inbox(pilot).state.marked
        await pilot.press("escape")  # back to the list, from the report (keep longer is already there)
        await settle(pilot)
        assert position(pilot).startswith("1–9 of 9")
    world.store.close()


async def test_keep_longer_refuses_a_past_or_malformed_date_and_keeps_the_dialog(world: StubWorld) -> None:
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        row = inbox(pilot).page.rows[0]
        await pilot.press("e")
        await pilot.pause()
        for typed, reason in (("2020-01-01", "has already passed"), ("garbage", "is not a date")):
            await type_into(pilot, "#expires", typed)
            dialog = pilot.app.screen
            assert isinstance(dialog, KeepDialog), typed  # still open, with what was typed
            assert reason in str(dialog.query_one("#error", Static).render())
            assert dialog.query_one("#expires", Input).value == typed
        await pilot.press("escape")
        await settle(pilot)
        got = await inbox(pilot).context.client.dmarc_reports.get([row.id])
        assert got.raw[0]["expiresAt"] == row.expires  # nothing was sent


async def test_forbidden_delete_disables_the_action_with_the_reason(profile: str) -> None:
    world = make_world(profile, reports=10, denied=frozenset({DMARC_EXTERNAL_REPORT.permission("destroy")}))
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("d", "y")
        await settle(pilot)
        denied = str(pilot.app.query_one("#dmarc-denied", Static).render())
        assert "Delete unavailable" in denied and "sysDmarcExternalReportDestroy" in denied
        assert inbox(pilot).check_action("delete", ()) is False
        assert world.store.count(DMARC_EXTERNAL_REPORT) == 10


async def test_read_only_profile_disables_changes_from_the_start() -> None:
    world = make_world("spec", reports=5)
    context = world.context()
    context.read_only = True
    async with world.app(context).run_test(size=SIZE) as pilot:
        await settle(pilot)
        denied = str(pilot.app.query_one("#dmarc-denied", Static).render())
        # One reason, one line (issue 30: at 80×24 the same reason repeated took the list's rows).
        assert denied == "Delete, Import and Keep longer unavailable: this profile is read-only"
        await pilot.press("d")
        await pilot.pause()
        assert len(pilot.app.screen.query("#confirm-question")) == 0

ROW_KEYS = {("space", "Mark"), ("d", "Delete"), ("e", "Keep longer")}


async def test_lost_connection_is_explained_and_retry_recovers(profile: str) -> None:
    world = make_world(profile, reports=5)
    world.transport.down = True
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "Could not load the reports" in str(pilot.app.query_one("#dmarc-error-text", Static).render())
        assert "cannot reach the server" in str(pilot.app.query_one("#dmarc-error-text", Static).render())
        # No report is shown: the keys acting on one are not offered (they did nothing, the tester's).
        assert not ROW_KEYS & set(footer_keys(pilot.app)), footer_keys(pilot.app)
        assert ("i", "Import") in footer_keys(pilot.app)
        world.transport.down = False
        await pilot.click("#dmarc-retry")
        await settle(pilot)
        assert position(pilot).startswith("1–5 of 5")
        assert not pilot.app.query_one("#dmarc-error").display
        assert set(footer_keys(pilot.app)) >= ROW_KEYS, footer_keys(pilot.app)


async def test_empty_inbox_says_what_to_do() -> None:
    world = make_world("spec", reports=0)
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "No DMARC reports yet" in str(pilot.app.query_one("#dmarc-empty", Static).render())
        assert position(pilot).startswith("0 of 0")
        assert not ROW_KEYS & set(footer_keys(pilot.app)), footer_keys(pilot.app)
        assert inbox(pilot).check_action("yank_id", ()) is False


async def test_analytics_computes_and_caches(world: StubWorld, private_data_dir: Path) -> None:
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        view = pilot.app.query_one(AnalyticsView)
        assert len(view.cache) == len(reports_for_period(world, view.period()[0]))  # the period's, not all 120
        assert view.query_one("#domains", DataTable).row_count >= 1
        view.query_one(TabbedContent).active = "tab-sources"  # built when first shown
        assert view.query_one("#sources", DataTable).row_count >= 1
        assert "DMARC pass" in str(view.query_one("#status", Static).render())
        cache_files = list((private_data_dir / "dmarc-digests").glob("*.sqlite"))
        assert len(cache_files) == 1 and cache_files[0].stat().st_mode & 0o777 == 0o600
        # A second visit fetches only the list of ids: every report of the period is cached.
        await pilot.press("escape")
        requests_before = world.transport.requests
        await pilot.press("a")
        await settle(pilot)
        assert world.transport.requests - requests_before == 1


async def test_a_long_import_summary_keeps_its_close_button_on_screen(world: StubWorld) -> None:
    lines = ["imported: 0 (0 records)", "duplicates: 60", "rejected: 0"]
    lines += [f"  duplicate f{i}.xml: seen" for i in range(60)]
    async with world.app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        pilot.app.push_screen(MessageDialog("Import finished", lines))
        await pilot.pause()
        close = pilot.app.screen.query_one("#cancel")
        assert close.region.bottom <= 24 and close.region.height > 0  # visible, not pushed off the screen
        await pilot.click("#cancel")
        await pilot.pause(0.3)
        assert not isinstance(pilot.app.screen, MessageDialog)


@pytest.mark.parametrize("answer", ["escape", "y"])
async def test_keep_longer_to_an_earlier_date_asks_first(answer: str) -> None:
    world = make_world("spec", reports=5)
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        row = inbox(pilot).page.rows[0]
        earlier = parse_utc(row.expires) - timedelta(days=1)
        assert earlier > FROZEN_NOW
        await pilot.press("e")
        await pilot.pause()
        await type_into(pilot, "#expires", f"{earlier:%Y-%m-%d}")
        await pilot.pause()
        question = pilot.app.screen
        assert isinstance(question, ConfirmScreen)
        assert "earlier than the report's current expiry" in " ".join(
            str(static.render()) for static in question.query(Static))
        await pilot.press(answer)
        await settle(pilot)
        got = (await inbox(pilot).context.client.dmarc_reports.get([row.id])).raw[0]["expiresAt"]
        assert got == (row.expires if answer == "escape" else f"{earlier:%Y-%m-%d}T{row.expires[11:]}")
