"""The analytics view while it fetches: progress, stopping (x, esc), bursts of keys, deleted reports;
and its next visit: the view kept, only the listing checked, arrivals counted, another filter a new view."""

from __future__ import annotations

import gc
import sqlite3
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import DataTable, ProgressBar, Select, Static, TabbedContent, Tabs

from jmapclient.dmarc.digest_store import DigestStore
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from server_stub.validation import stored_form
from tests.support.console import StubWorld, make_world, reports_for_period
from tests.support.held_requests import QUERY, HeldGets, HeldQueries
from tests.support.hostile import screen_lines
from tests.support.inbox_steps import type_into
from tests.support.waiting import press_handed_over, settle, wait_until
from tui.reports import analytics_figures
from tui.reports.analytics_view import AnalyticsView
from tui.reports.cache import DigestCache
from tui.reports.progress_line import say_progress

SIZE = (120, 40)
async def visit(pilot: Pilot[int]) -> AnalyticsView:
    """Press ``a`` and let the visit finish; the analytics view it shows."""
    await pilot.press("a")
    await settle(pilot)
    return pilot.app.query_one(AnalyticsView)


async def leave(pilot: Pilot[int]) -> None:
    """Esc out of analytics (the view is kept, hidden) and let the console settle."""
    await pilot.press("escape")
    await settle(pilot)


def count_for_period(world: StubWorld, first: date) -> int:
    return len(reports_for_period(world, first))


def status(view: AnalyticsView) -> str:
    return str(view.query_one("#status", Static).render())


def bindings(view: AnalyticsView) -> set[str]:
    return {b.binding.id or "" for b in view.app.active_bindings.values() if b.enabled}


async def visit_with_gets_held(pilot: Pilot[int], world: StubWorld) -> tuple[HeldGets, AnalyticsView]:
    """``a`` pressed on the inbox, the first get held at the server until ``held.released`` is set."""
    await settle(pilot)
    held = HeldGets(world.transport)
    await pilot.press("a")
    await wait_until(pilot, held.started.is_set, "the first get")
    return held, pilot.app.query_one(AnalyticsView)


async def test_progress_shows_and_x_stops_with_what_was_fetched() -> None:
    world = make_world("spec", reports=600)
    async with world.app().run_test(size=SIZE) as pilot:
        held, view = await visit_with_gets_held(pilot, world)
        await wait_until(pilot, lambda: "Fetching" in status(view), "the fetching status")
        bar = view.query_one("#progress", ProgressBar)
        assert bar.display and "0%" in pilot.app.export_screenshot()  # seen on screen, not just displayed
        period = count_for_period(world, view.period()[0])
        assert 0 < period < 600 and f"{period:,} reports (0 already cached)" in status(view)
        assert "dmarc.analytics.stop" in bindings(view)
        await press_handed_over(pilot, "x")
        held.released.set()
        await settle(pilot)
        assert "stopped" in status(view) and "0 reports" in status(view)
        assert not view.query_one("#progress", ProgressBar).display
        assert "dmarc.analytics.stop" not in bindings(view)
        # r fetches again.
        await pilot.press("r")
        await settle(pilot)
        assert "stopped" not in status(view)
        assert len(view.cache) == period  # the period's reports: the whole inbox's, not a capped part
    world.store.close()


async def test_what_x_stopped_is_said_whole_at_80_columns() -> None:
    # The shell's status line rule (two lines at most) matched the view's status line too: at 80
    # columns "· stopped: only the reports fetched so far…" was cut off.
    world = make_world("spec", reports=600)
    async with world.app().run_test(size=(80, 24)) as pilot:
        held, view = await visit_with_gets_held(pilot, world)
        await press_handed_over(pilot, "x")
        held.released.set()
        await settle(pilot)
        said = status(view)
        width = view.query_one("#status").size.width
        assert "stopped" in said and len(said) > 2 * width  # more than two lines of the view's width
        shown = " ".join(" ".join(screen_lines(pilot.app)).split())
        assert " ".join(said.split()[-4:]) in shown
        shell_status = pilot.app.screen.query_one("#status")
        assert shell_status.parent is pilot.app.screen and shell_status.styles.max_height is not None
    world.store.close()


def count_layouts(line: Static) -> list[str]:
    """The words ``line`` showed at each refresh of it that laid the screen out again, as they come."""
    laid_out: list[str] = []
    refresh = line.refresh

    def counted(*regions: Any, **options: Any) -> Any:
        if options.get("layout"):
            laid_out.append(str(line.content))
        return refresh(*regions, **options)

    line.refresh = counted  # type: ignore[method-assign]
    return laid_out


async def test_progress_steps_repaint_the_status_line_without_laying_the_screen_out() -> None:
    world = make_world("spec", reports=600)
    async with world.app().run_test(size=SIZE) as pilot:
        held, view = await visit_with_gets_held(pilot, world)
        laid_out = count_layouts(view.query_one("#status", Static))
        await wait_until(pilot, lambda: "Fetching" in status(view), "the fetching status")
        held.released.set()
        await settle(pilot)
        assert "DMARC pass" in status(view)
        # Every step said on screen (listing, fetching, done), but only the figures laid it out.
        assert laid_out and not [words for words in laid_out if words.startswith(("Listing", "Fetching"))]
    world.store.close()


class OneLine(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("Listing reports…", id="line")


async def test_a_progress_line_is_laid_out_again_when_it_needs_more_rows_and_back() -> None:
    async with OneLine().run_test(size=(40, 5)) as pilot:
        line = pilot.app.query_one("#line", Static)
        laid_out = count_layouts(line)
        say_progress(line, "Fetching 600 reports: 500 done…")
        say_progress(line, "Fetching 10,666 reports (0 already cached): 500 done…")  # wider than 40: two rows
        say_progress(line, "Fetching 600 reports: 600 done…")  # back to one row
        say_progress(line, "Fetching 600 reports: 600 done…")  # the same words: nothing to draw
        await pilot.pause()
        assert laid_out == ["Fetching 10,666 reports (0 already cached): 500 done…", "Fetching 600 reports: 600 done…"]
        assert line.size.height == 1


async def test_the_cycle_collector_rests_while_fetching_and_runs_again_after() -> None:
    world = make_world("spec", reports=600)
    assert gc.isenabled()
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        # The first visit to its end, then r fetches again: stopped by x, then by esc.
        for key, stop, hold in (("a", None, HeldGets), ("r", "x", HeldQueries), ("r", "escape", HeldQueries)):
            held = hold(world.transport)
            await pilot.press(key)
            await wait_until(pilot, held.started.is_set, f"the fetch after {key}")
            assert not gc.isenabled()  # paused while fetching: jmapclient/collector.py
            if stop is not None:
                await press_handed_over(pilot, stop)
            held.released.set()
            await settle(pilot)
            assert gc.isenabled(), stop
    world.store.close()


async def test_the_listing_is_asked_while_the_view_is_built_and_the_view_shows_once_whole() -> None:
    world = make_world("spec", reports=120)
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        at_listing: list[tuple[bool, bool]] = []

        def intercept(request: httpx.Request) -> None:
            if QUERY in request.content:  # the inbox is idle: analytics' listing
                view = pilot.app.query_one(AnalyticsView)
                at_listing.append((view.is_mounted, view.display))

        world.transport.intercept = intercept
        view = await visit(pilot)
        # Asked as the view was composed, before it was mounted, and the view not shown half built.
        assert at_listing[:1] == [(False, False)]
        assert view.display and view.query_one("#domains", DataTable).columns and "DMARC pass" in status(view)
    world.store.close()


async def test_esc_while_fetching_cancels_and_a_new_visit_finishes() -> None:
    world = make_world("stalwart", reports=300)
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        held = HeldGets(world.transport)
        await pilot.press("a")
        await wait_until(pilot, held.started.is_set, "the first get")
        await pilot.press("escape")
        view = pilot.app.query_one(AnalyticsView)  # kept for the next visit, hidden
        assert not view.display and not view.fetching
        held.released.set()
        await settle(pilot)
        assert len(view.cache) == 0  # the get that was under way was not stored: the fetch stopped
        world.transport.intercept = None
        await pilot.press("a")
        await settle(pilot)
        assert pilot.app.query_one(AnalyticsView) is view and view.display
        assert len(view.cache) == count_for_period(world, view.period()[0]) and "DMARC pass" in status(view)
    world.store.close()


async def test_a_burst_of_keys_while_fetching_leaves_consistent_figures(world: StubWorld) -> None:
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        # No waiting between keys: stop, fetch again, stop, fetch again, change tab and period.
        await pilot.press("a", "x", "r", "x", "r", "x", "r", "tab", "r")
        await settle(pilot)
        view = pilot.app.query_one(AnalyticsView)
        view.query_one("#period", Select).value = 365
        view.query_one("#period", Select).value = 7
        view.query_one("#period", Select).value = 365
        await settle(pilot)
        assert len(view.cache) == 120
        first, last = view.period()  # the period chosen last is the one shown
        assert (last - first).days == 364
        assert status(view).startswith(f"{first:%Y-%m-%d} to {last:%Y-%m-%d}: ")
        assert "stopped" not in status(view)


async def test_a_report_deleted_on_the_server_leaves_the_figures(world: StubWorld) -> None:
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = await visit(pilot)
        period = count_for_period(world, view.period()[0])
        assert len(view.cache) == period
        victim = world.store.all_ids(DMARC_EXTERNAL_REPORT)[-1]  # the newest: one of the period's
        assert victim in view.cache
        assert world.store.delete(DMARC_EXTERNAL_REPORT, victim)  # by someone else, on the server
        await pilot.press("escape", "a")
        await settle(pilot)
        view = pilot.app.query_one(AnalyticsView)
        assert len(view.cache) == period - 1 and victim not in view.cache


async def test_a_second_visit_shows_the_kept_view_and_only_checks_the_listing(world: StubWorld) -> None:
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = await visit(pilot)
        drawn, advice = view.drawn, view.advice
        assert drawn is not None and advice
        await leave(pilot)
        assert not view.display and pilot.app.query_one("#dmarc-list").display
        requests = world.transport.requests
        await pilot.press("a")
        await settle(pilot)
        assert pilot.app.query_one(AnalyticsView) is view and view.display  # not built again
        assert world.transport.requests - requests == 1  # the listing's first page, nothing fetched
        assert view.drawn is drawn and view.advice is advice  # nothing drawn or judged again
        assert "DMARC pass" in status(view) and not view.fetching


async def test_a_visit_with_nothing_to_fetch_never_says_it_fetches_0_reports(
        world: StubWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    # A second visit flashed "Fetching 0 reports (600 already cached): 0 done…" (the console helper's finding).
    said: list[str] = []
    monkeypatch.setattr(analytics_figures, "say_progress",
                        lambda line, words: (said.append(words), say_progress(line, words))[1])
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        await visit(pilot)
        assert any(words.startswith("Fetching ") for words in said)
        await leave(pilot)
        said.clear()
        await pilot.press("a")
        await settle(pilot)
        fetching = [words for words in said if "fetch" in words.lower()]
        cached = len(world.store.all_ids(DMARC_EXTERNAL_REPORT))
        assert fetching == [f"Nothing new to fetch: {cached:,} reports cached…"], said


async def test_x_stops_the_check_of_a_second_visit_and_keeps_the_figures(world: StubWorld) -> None:
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = await visit(pilot)
        drawn = view.drawn
        await leave(pilot)
        held = HeldQueries(world.transport)
        await pilot.press("a")
        await wait_until(pilot, held.started.is_set, "the listing")
        assert view.display and view.fetching and "dmarc.analytics.stop" in bindings(view)
        await press_handed_over(pilot, "x")
        held.released.set()
        await settle(pilot)
        assert not view.fetching and "stopped" in status(view) and "dmarc.analytics.stop" not in bindings(view)
        assert view.drawn is drawn


async def test_a_report_that_arrived_since_the_last_visit_is_counted(world: StubWorld) -> None:
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = await visit(pilot)
        assert view.figures is not None
        before = view.figures.overview.reports
        await leave(pilot)
        reports = world.store.get(DMARC_EXTERNAL_REPORT, world.store.all_ids(DMARC_EXTERNAL_REPORT)).values()
        newest = max(reports, key=lambda wire: wire["report"]["dateRangeEnd"])
        model = DMARC_EXTERNAL_REPORT.read({key: value for key, value in newest.items() if key != "id"})
        world.store.insert(DMARC_EXTERNAL_REPORT, model, stored_form(model))  # it arrives on the server
        await pilot.press("a")
        await settle(pilot)
        assert pilot.app.query_one(AnalyticsView) is view
        assert view.figures.overview.reports == before + 1
        assert f"{before + 1:,} reports" in status(view)


async def test_another_inbox_filter_gets_a_new_view_of_its_reports(world: StubWorld) -> None:
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        kept = await visit(pilot)
        assert kept.figures is not None and len(kept.figures.domains) > 1
        await pilot.press("escape")
        await type_into(pilot, "#f-domain", "example.org")
        await pilot.press("a")
        await settle(pilot)
        view = pilot.app.query_one(AnalyticsView)  # one only: the kept one was removed
        assert view is not kept and view.display
        assert view.figures is not None and {d.domain for d in view.figures.domains} == {"example.org"}


def test_the_old_json_cache_is_removed(tmp_path: Path) -> None:
    path = tmp_path / "dmarc-digests" / "abc.sqlite"
    path.parent.mkdir()
    legacy = path.with_suffix(".json")
    legacy.write_text('{"digests": []}')
    DigestCache(path)
    assert not legacy.exists() and path.exists()


async def test_a_failing_cache_is_said_not_crashed(monkeypatch: pytest.MonkeyPatch) -> None:
    world = make_world("spec", reports=20)

    def broken(*_: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        monkeypatch.setattr(DigestStore, "figures", broken)
        view = await visit(pilot)
        assert "analytics cache failed" in status(view) and "disk is full" in status(view)
        assert "dmarc.analytics.stop" not in bindings(view)
    world.store.close()


LATER_PARTS = "#sources, #advice-scroll, #chart, #failures"
"""The widgets of the four tabs a visit does not show at first."""


async def test_hidden_tabs_are_built_when_first_shown_by_keys_or_a_click(world: StubWorld) -> None:
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = await visit(pilot)
        assert view.drawn is not None and view.advice and view.drawn.failing
        assert not view.query(LATER_PARTS)  # the first visit built the Domains tab only
        domains = view.query_one("#domains", DataTable)
        domains.move_cursor(row=1)
        # The keyboard: from the tabs, right goes to Sources, built then with the judged sources.
        view.query_one(TabbedContent).query_one(Tabs).focus()
        await pilot.press("right")
        await settle(pilot)
        assert view.query_one(TabbedContent).active == "tab-sources"
        assert view.query_one("#sources", DataTable).row_count >= len(view.advice[0].sources)
        assert "Names:" in str(view.query_one(".names-status", Static).render())
        # The mouse: a click on Failures builds it with the failing records of the figures drawn.
        await pilot.click("#--content-tab-tab-failures")
        await settle(pilot)
        assert view.query_one("#failures", DataTable).row_count == len(view.drawn.failing)
        assert len(view.query("#chart, #advice-scroll")) == 0  # not shown yet: still not built
        view.query_one(TabbedContent).active = "tab-daily"
        await settle(pilot)
        assert "Messages per day" in "\n".join(screen_lines(pilot.app))
        assert domains.cursor_row == 1  # each tab built filled itself alone: Domains was not drawn again


async def test_a_tab_built_while_fetching_takes_the_figures_when_they_come(world: StubWorld) -> None:
    async with world.app().run_test(size=SIZE) as pilot:
        held, view = await visit_with_gets_held(pilot, world)
        tabs = view.query_one(TabbedContent)
        for tab in ("tab-failures", "tab-advice"):
            tabs.active = tab
        await pilot.pause()
        assert view.query("#failures") and view.figures is None
        held.released.set()
        await settle(pilot)
        assert view.drawn is not None and view.query_one("#failures", DataTable).row_count == len(view.drawn.failing)
        assert "Published: p=" in "\n".join(screen_lines(pilot.app))  # the Advice tab, shown, has the advice


async def test_the_totals_say_they_include_reports_the_advice_leaves_out(world: StubWorld) -> None:
    # A forged count of a billion ruled the headline, the Domains table and the chart, while the Advice tab
    # left its report out; nothing on the first tab said so (the tester's).
    reports = world.store.get(DMARC_EXTERNAL_REPORT, world.store.all_ids(DMARC_EXTERNAL_REPORT)).values()
    newest = max(reports, key=lambda wire: wire["report"]["dateRangeEnd"])
    forged = {key: value for key, value in newest.items() if key != "id"}
    forged["report"] = {**forged["report"], "reportId": "forged-1"}
    first = next(iter(forged["report"]["records"]))
    forged["report"]["records"] = {first: {**forged["report"]["records"][first], "count": 10**9}}
    model = DMARC_EXTERNAL_REPORT.read(forged)
    world.store.insert(DMARC_EXTERNAL_REPORT, model, stored_form(model))
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = await visit(pilot)
        await wait_until(pilot, lambda: "leaves out" in status(view), "the note on the totals")
        assert "the totals include 1 report the advice leaves out (repeated, or implausible for its reporter)" \
            in status(view)


async def test_the_views_messages_stay_with_the_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """Progress, headline, figures, advice and names are handled by the view alone: none goes up through the
    inbox, the screen and the app (six message queues a progress step, each woken on the fetch's loop)."""
    from textual.message_pump import MessagePump

    from tui.reports.analytics_figures import FiguresReady, HeadlineReady, SyncStep
    from tui.reports.analytics_insight import AdviceReady

    kinds = (SyncStep, HeadlineReady, FiguresReady, AdviceReady)
    posted: list[tuple[str, str]] = []
    post = MessagePump.post_message

    def noted(pump: MessagePump, message: Any) -> bool:
        if isinstance(message, kinds):  # a bubbling message is posted again to each ancestor
            posted.append((type(pump).__name__, type(message).__name__))
        return post(pump, message)

    monkeypatch.setattr(MessagePump, "post_message", noted)
    world = make_world("spec", reports=120)
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = await visit(pilot)
        assert "DMARC pass" in status(view)
        await wait_until(pilot, lambda: view.advised is not None, "the advice")
    assert {kind for _, kind in posted} >= {"SyncStep", "HeadlineReady", "FiguresReady", "AdviceReady"}
    assert {pump for pump, _ in posted} == {"AnalyticsView"}, posted
    world.store.close()
