"""Thousands of policy domains: keys answered while the advice is judged, and only the busiest domains drawn.

10,000 forged one-report domains, each its own policy domain: the Advice tab drew 10,000 blocks on the loop the
keys wait for; ``]`` went unanswered for minutes and the console grew to 533 MB (tester91).
"""

from __future__ import annotations

import threading
from datetime import date

import pytest
from textual.widgets import Static, TabbedContent

from jmapclient.dmarc.insight.advice import MAX_SHOWN_DOMAINS, DomainAdvice, Verdict
from jmapclient.dmarc.insight.judge import SourceBound
from jmapclient.dmarc.insight.names import SourceName
from tests.support.console import StubWorld
from tests.support.waiting import wait_until
from tui.reports.analytics_insight import AnalyticsInsight
from tui.reports.analytics_tabs import ADVICE_PENDING
from tui.reports.analytics_view import AnalyticsView

SIZE = (120, 40)
FLOOD = MAX_SHOWN_DOMAINS + 7


def flood(first: date, last: date) -> list[DomainAdvice]:
    """One advice a domain, the most messages first (as the advice orders them)."""
    return [DomainAdvice(f"d{n:05d}.flood.example", first, last, reports=1, messages=FLOOD - n,
                         verdict=Verdict.TOO_LITTLE_DATA, summary=f"Too little data for d{n:05d}.")
            for n in range(FLOOD)]


def drawn(widget: Static) -> str:
    """The lines the widget draws at its width now."""
    return "\n".join(line.text for line in widget.render_lines(widget.content_region.reset_offset))


async def test_keys_are_answered_while_a_flood_is_judged_and_its_advice_is_bounded(
        world: StubWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    entered, release = threading.Event(), threading.Event()

    def held_advice(self: AnalyticsInsight, first: date, last: date, known: dict[str, SourceName],
                    bound: SourceBound) -> list[DomainAdvice]:
        entered.set()  # in the judging thread: the console's loop runs on meanwhile
        release.wait(30)
        return flood(first, last)

    monkeypatch.setattr(AnalyticsInsight, "_advise", held_advice)
    async with world.app().run_test(size=SIZE) as pilot:
        await pilot.press("a")
        await wait_until(pilot, entered.is_set, "the judging to start")
        view = pilot.app.query_one(AnalyticsView)
        tabs = view.query_one(TabbedContent)
        await pilot.press("right_square_bracket", "right_square_bracket")
        await wait_until(pilot, lambda: tabs.active == "tab-advice", "the Advice tab")
        judging = [worker for worker in pilot.app.workers if worker.name == "judge"]
        assert judging and not any(worker.is_finished for worker in judging)  # answered before the judging ended
        advice = view.query_one("#advice", Static)
        assert str(advice.content) == ADVICE_PENDING
        release.set()
        await wait_until(pilot, lambda: str(advice.content) != ADVICE_PENDING, "the advice drawn")
        await pilot.pause()
        shown = drawn(advice)
        assert shown.count(".flood.example  ") == MAX_SHOWN_DOMAINS  # a heading a domain told, the busiest
        assert f"d{MAX_SHOWN_DOMAINS - 1:05d}.flood.example" in shown
        assert f"d{MAX_SHOWN_DOMAINS:05d}.flood.example" not in shown
        assert "… and 7 more policy domains with fewer messages (28 messages in all; 7 too little data)" in shown
        await pilot.press("left_square_bracket")
        await wait_until(pilot, lambda: tabs.active == "tab-sources", "the Sources tab")
