"""A page key that reaches a Select's list the moment it opens, before it was ever laid out.

Found by the exploration on a loaded machine (seed 77063, stalwart): Textual's Select gives its
hidden overlay the keyboard as it opens; a page key handled before the next refresh met the
overlay's empty line map (``KeyError: 0`` in ``OptionList._move_page``) and stopped the console.
The action is run in the same turn as the opening, as a loaded machine orders it.
"""

from __future__ import annotations

import pytest
from textual.widgets import Select

from tests.support.console import Console, make_world
from tests.support.directory_steps import open_directory
from tests.support.waiting import settle
from tui.textual_compat import SelectOverlay


async def open_and_page(pilot, select: Select, action: str) -> None:  # type: ignore[no-untyped-def]
    select.focus()
    select.action_show_overlay()  # the Select's own enter: the overlay is given the keyboard, unlaid
    await pilot.app.run_action(action, select.query_one(SelectOverlay))
    await settle(pilot)
    assert pilot.app.is_running


@pytest.mark.parametrize("action", ["page_down", "page_up"])
async def test_the_export_format_list_takes_a_page_key_as_it_opens(action: str) -> None:
    world = make_world("stalwart", reports=3)
    async with world.app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        await open_and_page(pilot, pilot.app.screen.query_one("#format", Select), action)
    world.store.close()


async def test_a_directory_form_select_takes_a_page_key_as_it_opens(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        editor = await open_directory(pilot, "Customer accounts in PostgreSQL")
        for select in list(editor.query(Select))[:3]:
            await open_and_page(pilot, select, "page_down")
            select.expanded = False
            await settle(pilot)


async def test_the_analytics_period_list_takes_a_page_key_as_it_opens() -> None:
    world = make_world("stalwart", reports=3)
    async with world.app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        await open_and_page(pilot, pilot.app.query_one("#period", Select), "page_down")
    world.store.close()
