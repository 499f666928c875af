"""Every palette Textual supplies answers once (#32.4).

The palette's Theme entry opened Textual's own plain palette (``App.search_themes``): Enter Enter,
or a double click, answered it twice and the second answer popped the console's last screen
(``ScreenStackError``). The console's own palette already answered once; now every palette that
Textual opens for it is that one.
"""

from __future__ import annotations

from bench.explore_engine import burst
from tests.support.console import Console
from tests.support.waiting import settle
from tui.widgets.option_list import SteadyCommandPalette


async def open_theme_palette(pilot) -> None:  # type: ignore[no-untyped-def]
    await pilot.press("ctrl+p")
    await settle(pilot)
    await pilot.press(*"theme")
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)


async def test_the_theme_palette_answers_once_to_enter_enter(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screens = len(pilot.app.screen_stack)
        await open_theme_palette(pilot)
        assert isinstance(pilot.app.screen, SteadyCommandPalette)
        burst(pilot.app, [("enter", None), ("enter", None)])
        await settle(pilot)
        assert pilot.app.is_running and len(pilot.app.screen_stack) == screens
        assert pilot.app.section_view is not None


async def test_search_commands_opens_the_steady_palette(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pilot.app.search_commands([("One", lambda: None)])
        await settle(pilot)
        assert isinstance(pilot.app.screen, SteadyCommandPalette)
