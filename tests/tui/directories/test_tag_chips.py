"""A set member's chip is removed by its ✕, not by a click anywhere on it (the new user's finding: a click
on the name removed the member at once, with no undo but leaving the whole form)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Input

import tui
from jmapclient.models.objects import DIRECTORY
from server_stub.store import Store
from tests.support.console import PROFILES
from tests.support.directory_steps import field, open_directory, save, started, stored
from tests.support.waiting import settle
from tui.directories.editor import DirectoryEditor
from tui.forms.taglist import TagChip, TagList

OIDC = "Staff single sign-on (Keycloak)"


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
        pilot.app.query(TagChip)[0].take_keyboard()
        await pilot.press("enter")
        await settle(pilot)
        assert pilot.app.query_one(TagList).tags == ["mailAlias"]


class BetweenFields(App[None]):
    def compose(self) -> ComposeResult:
        yield Input(id="before")
        yield TagList(["openid", "email", "profile", "groups"])
        yield Input(id="after")


async def test_tab_passes_a_set_in_one_stop_its_add_box() -> None:
    # Each chip was a Tab stop: a set of 50 members took 50 Tabs to pass.
    async with BetweenFields().run_test(size=(80, 8)) as pilot:
        await settle(pilot)
        pilot.app.query_one("#before", Input).focus()
        await pilot.press("tab")
        await settle(pilot)
        assert pilot.app.focused is pilot.app.query_one(".tag-input", Input)
        await pilot.press("tab")
        await settle(pilot)
        assert pilot.app.focused is pilot.app.query_one("#after", Input)
        await pilot.press("shift+tab", "shift+tab")
        await settle(pilot)
        assert pilot.app.focused is pilot.app.query_one("#before", Input)


async def test_left_from_the_add_box_reaches_the_chips_and_the_arrows_move_among_them() -> None:
    async with BetweenFields().run_test(size=(80, 8)) as pilot:
        await settle(pilot)
        box = pilot.app.query_one(".tag-input", Input)
        box.focus()
        await pilot.press(*"ab", "left")  # inside typed text, ← moves the cursor
        await settle(pilot)
        assert pilot.app.focused is box and box.cursor_position == 1
        await pilot.press("left", "left", "left")  # the start of the line, then the last chip, the one before
        await settle(pilot)
        chips = pilot.app.query(TagChip)
        assert pilot.app.focused is chips[2]
        await pilot.press("left", "left", "left")  # no further than the first
        await settle(pilot)
        assert pilot.app.focused is chips[0]
        await pilot.press("tab")  # Tab leaves the members for the add box, as from any of them
        await settle(pilot)
        assert pilot.app.focused is box
        await pilot.press("home", "left", "left", "right", "right")
        await settle(pilot)
        assert pilot.app.focused is box and box.value == "ab", "→ on the last chip goes back to the add box"


async def test_delete_on_a_chip_removes_it_and_the_keyboard_moves_to_the_next() -> None:
    async with BetweenFields().run_test(size=(80, 8)) as pilot:
        await settle(pilot)
        pilot.app.query(TagChip)[1].take_keyboard()
        await pilot.press("delete")
        await settle(pilot)
        members = pilot.app.query_one(TagList)
        assert members.tags == ["openid", "profile", "groups"]
        assert isinstance(pilot.app.focused, TagChip) and pilot.app.focused.tag == "profile"
        await pilot.press("backspace", "backspace")
        await settle(pilot)
        assert members.tags == ["openid"]
        assert pilot.app.focused is pilot.app.query_one(".tag-input", Input), "after the last one, the add box"
        await pilot.press("shift+tab")
        await settle(pilot)
        assert pilot.app.focused is pilot.app.query_one("#before", Input), "the visited chips are no Tab stops"


class ManyMembers(App[None]):
    CSS_PATH = str(Path(tui.__file__).with_name("sections.tcss"))  # the console's sizes for chips and box

    def compose(self) -> ComposeResult:
        yield TagList(["openid", "email", "profile", "groups", "offline_access", "x" * 70])


async def test_members_wrap_onto_more_lines_and_every_one_and_the_add_box_is_in_sight() -> None:
    # In one row the fourth scope ran off the form's right edge, and the add box with it.
    async with ManyMembers().run_test(size=(40, 12)) as pilot:
        await settle(pilot)
        members = pilot.app.query_one(TagList)
        box = members.query_one(".tag-input", Input)
        shown = members.content_region
        for widget in [*pilot.app.query(TagChip), box]:
            assert shown.contains_region(widget.region), f"{widget} at {widget.region}, outside {shown}"
        lines = {chip.region.y for chip in pilot.app.query(TagChip)}
        assert len(lines) >= 3 and box.region.width >= 10


async def test_letters_typed_on_a_chip_go_to_the_add_box() -> None:
    # Tab into a set field landed on its first chip: "groups" then Enter was dropped, then removed "mail".
    async with Members().run_test(size=(60, 6)) as pilot:
        await settle(pilot)
        pilot.app.query(TagChip)[0].take_keyboard()
        await settle(pilot)
        await pilot.press(*"groups", "enter")
        await settle(pilot)
        assert pilot.app.query_one(TagList).tags == ["mail", "mailAlias", "groups"]
        assert isinstance(pilot.app.focused, Input) and pilot.app.focused.value == ""


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_member_typed_after_tab_into_a_set_field_is_saved_and_opens_nothing(
        store: Store, profile: str) -> None:
    # The tester's "t" among the letters opened the directory test, and the rest went into its token field.
    async with started(store, profile) as (_, pilot):
        await open_directory(pilot, OIDC)
        before = set(stored(store, OIDC)["requireScopes"])
        chips = field(pilot, "requireScopes").query(TagChip)
        assert chips, "the sample holds scopes"
        chips.first().take_keyboard()
        await settle(pilot)
        await pilot.press(*"tenant", "enter")
        await save(pilot)
        assert set(stored(store, OIDC)["requireScopes"]) == before | {"tenant"}
        assert not pilot.app.query(DirectoryEditor), "saved, the form closed (no dialog on top)"


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_tag_typed_and_not_yet_added_is_saved(store: Store, profile: str) -> None:
    # The tester typed "groups" in the scopes' box and pressed ctrl+s: "Nothing changed", the scope dropped.
    async with started(store, profile) as (_, pilot):
        await open_directory(pilot, OIDC)
        box = field(pilot, "requireScopes").query_one(".tag-input", Input)
        box.focus()
        await pilot.press(*"groups")
        await save(pilot)
        assert "groups" in stored(store, OIDC)["requireScopes"]
        assert not pilot.app.query(DirectoryEditor), "saved, the form closed"


@pytest.mark.parametrize("profile", PROFILES)
async def test_members_with_a_backslash_or_a_lone_star_are_stored_as_typed(store: Store, profile: str) -> None:
    # On the real server "attrEmail/r\\s" stored "rs" and removing "x\\y" by its path removed nothing,
    # while the form said saved (the tester's finding, stalwart profile).
    ldap = "Corporate OpenLDAP (service account)"
    wire = stored(store, ldap)
    wire["attrEmail"] = {"mail": True, "x\\y": True, "*": True}
    store.replace(DIRECTORY, wire["id"], DIRECTORY.read(wire), wire)
    async with started(store, profile) as (_, pilot):
        await open_directory(pilot, ldap)
        members = field(pilot, "attrEmail").query_one(TagList)
        for chip in [chip for chip in pilot.app.query(TagChip) if chip.tag in ("x\\y", "*")]:
            chip.take_keyboard()
            await settle(pilot)  # focus() is deferred: Pilot's Enter could reach the field before
            await pilot.press("enter")
            await settle(pilot)
        members.query_one(".tag-input", Input).focus()
        await pilot.press(*"r\\s", "enter")
        await save(pilot)
        assert stored(store, ldap)["attrEmail"] == {"mail": True, "r\\s": True}


async def test_backspace_held_past_what_was_typed_removes_no_member() -> None:
    # tester85: "xyz" typed in the add box and Backspace pressed five times removed the two last members with
    # the text (Backspace on an empty box removed the last member), and ctrl+s saved the set without them.
    async with BetweenFields().run_test(size=(80, 8)) as pilot:
        await settle(pilot)
        box = pilot.app.query_one(".tag-input", Input)
        box.focus()
        await pilot.press(*"xyz", *["backspace"] * 5)
        await settle(pilot)
        members = pilot.app.query_one(TagList)
        assert members.tags == ["openid", "email", "profile", "groups"] and box.value == ""
        assert pilot.app.focused is box
        await pilot.press("left", "backspace")  # the way to remove one: reach it, then remove it
        await settle(pilot)
        assert members.tags == ["openid", "email", "profile"]


def in_sight(widget: Input) -> bool:
    """The widget is drawn inside the form's scrolled pane (not below or above its fold)."""
    pane = widget.query_ancestor(".form-pane")
    return widget.region.height > 0 and pane.region.contains_region(widget.region)


async def test_the_add_box_that_has_the_keyboard_stays_in_sight_when_the_terminal_shrinks(store: Store) -> None:
    # Carried: the scopes' add box, focused at 120x40, was below the fold after a resize to 80x24, and what was
    # then typed went in unseen.
    async with started(store) as (_, pilot):
        await open_directory(pilot, OIDC)
        box = field(pilot, "requireScopes").query_one(".tag-input", Input)
        box.focus()
        await settle(pilot)
        assert in_sight(box)
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert pilot.app.focused is box and in_sight(box)
        await pilot.press("a")
        await settle(pilot)
        assert box.value == "a" and in_sight(box)


async def test_a_key_typed_into_an_add_box_scrolled_out_of_sight_brings_it_back(store: Store) -> None:
    async with started(store) as (_, pilot):
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        await open_directory(pilot, OIDC)
        box = field(pilot, "requireScopes").query_one(".tag-input", Input)
        box.focus()
        await settle(pilot)
        pane = box.query_ancestor(".form-pane")
        pane.scroll_to(y=0 if pane.scroll_y else pane.max_scroll_y, animate=False)  # the wheel, say
        await settle(pilot)
        assert not in_sight(box)
        await pilot.press("a")
        await settle(pilot)
        assert box.value == "a" and in_sight(box)
