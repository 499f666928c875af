"""The Advice tab's prose is wrapped again when the terminal shrinks.

At 120x40 then 80x24 the headline and every verdict sentence stayed wrapped at 120 columns, cut at column 80,
and switching tabs did not wrap them again; a console started at 80x24 wrapped them (tester91). The tester's
server held 10,000 forged one-report domains: the advice drew a block for each, and drawing them again at the new
width held the loop for a minute, the old frame on screen meanwhile (``MAX_SHOWN_DOMAINS`` bounds them now).
"""

from __future__ import annotations

from textual.widgets import Static, TabbedContent

from tests.support.console import StubWorld
from tests.support.waiting import settle, wait_until
from tui.reports.analytics_tabs import ADVICE_PENDING
from tui.reports.analytics_view import AnalyticsView

WIDE = (120, 40)
NARROW = (80, 24)


def drawn(widget: Static) -> list[str]:
    """The lines the widget draws at its size now, trailing blanks aside."""
    return [line.text.rstrip() for line in widget.render_lines(widget.content_region.reset_offset)]


async def test_the_advice_is_wrapped_again_after_a_resize(world: StubWorld) -> None:
    async with world.app().run_test(size=WIDE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        view = pilot.app.query_one(AnalyticsView)
        await pilot.press("right_square_bracket", "right_square_bracket")
        advice = view.query_one("#advice", Static)
        await wait_until(pilot, lambda: view.query_one(TabbedContent).active == "tab-advice"
                         and str(advice.content) != ADVICE_PENDING, "the advice drawn")
        await settle(pilot)
        assert max(map(len, drawn(advice))) > NARROW[0]  # the sentences run past 80 columns at 120
        await pilot.resize_terminal(*NARROW)
        await settle(pilot)
        await pilot.press("right_square_bracket", "left_square_bracket")  # as the tester went on
        await settle(pilot)
        assert advice.region.right <= NARROW[0]
        narrow = drawn(advice)
        assert max(map(len, narrow)) <= advice.content_region.width
        told = "".join("".join(narrow).split())
        for entry in view.advice:  # each sentence whole, wrapped, not cut
            assert "".join(entry.summary.split()) in told, entry.summary
