"""Analytics' tabs by key: ``]`` and ``[`` from anywhere in the view, shown in the footer, in ``?`` and the palette.

The tester's: Tab and the arrows never changed the tab from a table (the tab bar's own left/right act only
on the tab bar, reached by shift+tab), and nothing on screen said how.
"""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import DataTable, Select, TabbedContent

from tests.support.console import StubWorld
from tests.support.waiting import settle, wait_until
from tui.reports.analytics_view import AnalyticsView
from tui.screens.help import HelpScreen
from tui.textual_compat import FooterKey

SIZE = (120, 40)
NARROW = (80, 24)
TABS = ["tab-domains", "tab-sources", "tab-advice", "tab-daily", "tab-failures"]


async def visit(pilot: Pilot[int]) -> AnalyticsView:
    await settle(pilot)
    await pilot.press("a")
    await settle(pilot)
    return pilot.app.query_one(AnalyticsView)


async def test_brackets_go_through_the_tabs_round_and_take_the_keyboard_along(world: StubWorld) -> None:
    async with world.app().run_test(size=SIZE) as pilot:
        view = await visit(pilot)
        tabs = view.query_one(TabbedContent)
        assert isinstance(pilot.app.focused, DataTable) and pilot.app.focused.id == "domains"
        seen = [tabs.active]
        for _ in TABS:  # five steps right: each tab once, then round to the first
            await pilot.press("right_square_bracket")
            await settle(pilot)
            seen.append(tabs.active)
        assert seen == [*TABS, "tab-domains"]
        await pilot.press("left_square_bracket")  # left of the first: the last
        await settle(pilot)
        assert tabs.active == "tab-failures"
        assert pilot.app.focused is view.query_one("#failures", DataTable)  # the keyboard in the tab shown
        await pilot.press("left_square_bracket", "left_square_bracket")
        await settle(pilot)
        assert tabs.active == "tab-advice" and pilot.app.focused is view.query_one("#advice-scroll")  # its text
        await pilot.press("left_square_bracket")
        await settle(pilot)
        sources = view.query_one("#sources", DataTable)
        assert pilot.app.focused is sources
        await pilot.press("j")  # j goes to the rows shown, not to the hidden tab's
        await settle(pilot)
        assert sources.cursor_row == 1 and view.query_one("#domains", DataTable).cursor_row == 0


async def test_the_tab_keys_are_in_the_footer_at_80_columns_in_help_and_in_the_palette(world: StubWorld) -> None:
    async with world.app().run_test(size=NARROW) as pilot:
        view = await visit(pilot)
        shown = {(key.key_display, key.description) for key in pilot.app.query(FooterKey)}
        assert {("[", "Previous tab"), ("]", "Next tab")} <= shown, shown
        palette = {command.title: command.help for command in pilot.app.get_system_commands(pilot.app.screen)}
        assert palette["Previous tab"] == "Key: [" and palette["Next tab"] == "Key: ]"
        view.focus()
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(pilot.app.screen, HelpScreen)
        assert {("[", "Previous tab", "dmarc.analytics.previous_tab"),
                ("]", "Next tab", "dmarc.analytics.next_tab")} <= set(pilot.app.screen.keys)
        assert "**[** and **]**" in pilot.app.screen.text


async def test_t_opens_the_period_list_and_enter_on_another_period_takes_it(world: StubWorld) -> None:
    # Two testers could not reach the period by key: it is shift+tab away from the tables, its focus faint.
    async with world.app().run_test(size=NARROW) as pilot:
        view = await visit(pilot)
        period = view.query_one("#period", Select)
        before = period.value
        assert ("t", "Period") in {(key.key_display, key.description) for key in pilot.app.query(FooterKey)}
        await pilot.press("t")
        await settle(pilot)
        assert period.expanded and period.has_focus_within
        await pilot.press("down", "enter")
        await settle(pilot)
        assert not period.expanded and period.value != before and view.period()[0] is not None


async def test_the_advice_and_daily_text_scroll_by_key_right_after_the_brackets(world: StubWorld) -> None:
    # The tester's, at 80x24: after ] ] the Advice text ran past the screen and j, Down and PageDown did nothing
    # (the keyboard was on the tab bar) until Tab was found; the same on Daily.
    async with world.app().run_test(size=NARROW) as pilot:
        view = await visit(pilot)
        for tab, scroll_id, keys in (("tab-advice", "#advice-scroll", ("j", "down")),
                                     ("tab-daily", "#daily-scroll", ("pagedown",))):
            await pilot.press("right_square_bracket")
            while view.query_one(TabbedContent).active != tab:
                await pilot.press("right_square_bracket")
            await settle(pilot)
            scroll = view.query_one(scroll_id)
            assert scroll.max_scroll_y > 0, "the text fits: nothing to scroll"
            await pilot.press(*keys)
            await wait_until(pilot, lambda scroll=scroll: scroll.scroll_y > 0, f"{tab} scrolled")
