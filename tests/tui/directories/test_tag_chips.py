"""A set member's chip is removed by its ✕, not by a click anywhere on it (the new user's finding: a click
on the name removed the member at once, with no undo but leaving the whole form)."""

from __future__ import annotations

from textual.app import App, ComposeResult

from tests.support.waiting import settle
from tui.forms.taglist import TagChip, TagList


class Members(App[None]):
    def compose(self) -> ComposeResult:
        yield TagList(["mail", "mailAlias"])


async def test_a_click_on_the_name_takes_the_keyboard_and_one_on_the_cross_removes() -> None:
    async with Members().run_test(size=(60, 6)) as pilot:
        await settle(pilot)
        members = pilot.app.query_one(TagList)
        chip = pilot.app.query(TagChip)[1]
        await pilot.click(chip, offset=(1, 0))
        await settle(pilot)
        assert members.tags == ["mail", "mailAlias"] and chip.has_focus
        await pilot.click(chip, offset=(chip.size.width - 1, 0))
        await settle(pilot)
        assert members.tags == ["mail"]


async def test_enter_on_a_chip_still_removes_it() -> None:
    async with Members().run_test(size=(60, 6)) as pilot:
        await settle(pilot)
        pilot.app.query(TagChip)[0].focus()
        await pilot.press("enter")
        await settle(pilot)
        assert pilot.app.query_one(TagList).tags == ["mailAlias"]
