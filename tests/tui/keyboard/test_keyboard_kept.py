"""The keyboard where a person expects it: Enter on a button, a label clicked, the list after a connect or a delete."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Button, Input

from server_stub.store import Store
from tests.support.console import Console, make_console_with_a_profile, make_world
from tests.support.footer import footer_keys
from tests.support.waiting import settle
from tui.directories.editor import DirectoryEditor
from tui.reports.inbox_table import InboxTable
from tui.screens.connect import ConnectScreen, ProfileScreen
from tui.widgets.field_label import FieldLabel
from tui.widgets.list_table import ListTable


@pytest.fixture
def with_profile(store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Console:
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    return make_console_with_a_profile(store)


@pytest.mark.parametrize(("button", "opens"), [("#connect-add", ProfileScreen), ("#connect-edit", ProfileScreen)])
async def test_enter_on_a_focused_button_presses_it(with_profile: Console, button: str, opens: type) -> None:
    """Enter was the screen's priority key for Connect: on the focused Add button it connected."""
    async with with_profile.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConnectScreen)
        pilot.app.screen.query_one(button, Button).focus()
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(pilot.app.screen, opens)


async def test_the_connection_screen_shows_its_keys(with_profile: Console) -> None:
    async with with_profile.app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+o")
        await settle(pilot)
        keys = footer_keys(pilot.app.screen)
        for shown in (("a", "Add"), ("e", "Edit"), ("d", "Remove")):
            assert shown in keys, keys


async def test_a_click_on_a_label_puts_the_keyboard_in_its_field(with_profile: Console) -> None:
    """The keyboard stayed where it was: the letters typed next ran commands (q opened Quit)."""
    async with with_profile.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+o")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, ProfileScreen)
        screen.query_one("#profile-save", Button).focus()
        await settle(pilot)
        label = next(label for label in screen.query(FieldLabel) if "Server URL" in str(label.render()))
        await pilot.click(label)
        await settle(pilot)
        assert pilot.app.focused is screen.query_one("#profile-url", Input)
        await pilot.press("q")
        await settle(pilot)
        assert pilot.app.is_running
        assert screen.query_one("#profile-url", Input).value == "q"


async def test_a_click_on_a_form_label_puts_the_keyboard_in_its_field(with_profile: Console) -> None:
    async with with_profile.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        editor = pilot.app.query_one(DirectoryEditor)
        second = editor.form.editors[1]
        label = second.query_one(FieldLabel)
        await pilot.click(label)
        await settle(pilot)
        focused = pilot.app.focused
        assert focused is not None and second in focused.ancestors


async def test_after_connecting_with_ctrl_o_the_list_has_the_keyboard(with_profile: Console) -> None:
    async with with_profile.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+o")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, ConnectScreen)
        assert isinstance(pilot.app.focused, ListTable)
        assert ("n", "New") in footer_keys(pilot.app.screen)


async def test_after_deleting_reports_the_inbox_has_the_keyboard() -> None:
    world = make_world("spec", reports=3)
    async with world.app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = pilot.app.query_one(InboxTable)
        assert pilot.app.focused is table
        before = table.row_count
        await pilot.press("d")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert pilot.app.query_one(InboxTable).row_count == before - 1
        assert pilot.app.focused is pilot.app.query_one(InboxTable)
        assert ("d", "Delete") in footer_keys(pilot.app.screen)
    world.store.close()
