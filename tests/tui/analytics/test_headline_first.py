"""A first visit shows the figures' headline (status line, Domains) while the records are still added up."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from textual.widgets import DataTable, ProgressBar, Static, TabbedContent

from jmapclient.dmarc.digest_figures import DigestFigures
from tests.support.console import StubWorld
from tests.support.waiting import settle, wait_until
from tui.reports.analytics_view import AnalyticsView

SIZE = (120, 40)
HOLD = 30.0
"""Seconds a held part of the figures waits at most (a failed test must not hang its thread)."""


class Held:
    """A part of the figures' computation, in its thread, waits until ``release``; ``reached`` once it does."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
        self.reached = threading.Event()
        self.released = threading.Event()
        part = getattr(DigestFigures, name)

        def held(store: DigestFigures, *args: Any) -> Any:
            self.reached.set()
            self.released.wait(HOLD)
            return part(store, *args)

        monkeypatch.setattr(DigestFigures, name, held)

    def release(self) -> None:
        self.released.set()


@pytest.fixture
def records_held(monkeypatch: pytest.MonkeyPatch) -> Iterator[Held]:
    held = Held(monkeypatch, "_sources")
    yield held
    held.release()


def status(view: AnalyticsView) -> str:
    return str(view.query_one("#status", Static).render())


async def test_the_headline_shows_before_the_records_are_added_up(world: StubWorld, records_held: Held) -> None:
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        view = pilot.app.query_one(AnalyticsView)
        await wait_until(pilot, lambda: "DMARC pass" in status(view), "the headline")
        assert records_held.reached.is_set() and view.figures is None  # the records are still being added up
        assert view.headline is not None and not view.fetching
        assert not view.query_one("#progress", ProgressBar).display
        assert f"{view.headline.overview.reports:,} reports" in status(view)
        assert view.query_one("#domains", DataTable).row_count == len(view.headline.domains) > 0
        view.query_one(TabbedContent).active = "tab-failures"  # shown before its records are there: empty
        await pilot.pause()
        assert view.query_one("#failures", DataTable).row_count == 0
        domains = view.query_one("#domains", DataTable)
        domains.move_cursor(row=1)
        records_held.release()
        await settle(pilot)
        assert view.figures is not None and view.figures.headline == view.headline and view.drawn is view.figures
        assert view.query_one("#failures", DataTable).row_count == len(view.figures.failing) > 0
        assert domains.cursor_row == 1  # the whole figures did not draw Domains again
        assert view.advice  # judged once whole


async def test_a_headline_of_a_visit_left_is_not_drawn(world: StubWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    held = Held(monkeypatch, "_headline")
    try:
        async with world.app().run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("a")
            view = pilot.app.query_one(AnalyticsView)
            await wait_until(pilot, held.reached.is_set, "the figures' headline being added up")
            await pilot.press("escape")
            await pilot.pause()
            held.release()  # its thread goes on, and tells the headline of the visit left
            await settle(pilot)
            assert not view.display and view.headline is None
            assert "DMARC pass" not in status(view)
            await pilot.press("a")
            await settle(pilot)
            assert view.headline is not None and "DMARC pass" in status(view)
    finally:
        held.release()
