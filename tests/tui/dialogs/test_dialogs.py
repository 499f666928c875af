"""Dialogs answer once, drill-down levels open once, and typed text never crashes a form.

Keys go in bursts: ``burst`` queues every key event at once, so a second Enter (or an Esc)
reaches a dialog before the first answer has taken it off the screen.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.screen import Screen
from textual.widgets import Input, Static

from bench.explore_engine import burst
from jmapclient.config import Config
from tests.support.console import Console, StubWorld, make_world
from tests.support.directory_steps import field, start_create
from tests.support.waiting import settle
from tui.directories.editor import DirectoryEditor
from tui.directories.variant_picker import VariantPicker
from tui.reports.detail import ReportView
from tui.reports.dialogs import ExportDialog, ImportDialog, KeepDialog
from tui.reports.inbox import DmarcInbox
from tui.screens.confirm import ConfirmScreen
from tui.screens.connect import ConnectScreen, ProfileScreen
from tui.screens.jump import JumpScreen
from tui.widgets.list_table import ListTable


def keys(*names: str) -> list[tuple[str, str | None]]:
    return [(name, name if len(name) == 1 else None) for name in names]


@pytest.mark.parametrize("second", ["enter", "escape"])
async def test_jump_dialog_answers_once(console: Console, second: str) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        burst(pilot.app, keys("colon", "down", "enter", second))
        await settle(pilot)
        assert pilot.app.is_running
        assert not isinstance(pilot.app.screen, JumpScreen)
        # Whichever answer came first counts (Esc may win the race); there is one section either way.
        assert len(pilot.app.query(DmarcInbox)) + len(pilot.app.query("DirectoriesSection")) == 1
        if second == "enter":
            assert isinstance(pilot.app.section_view, DmarcInbox)


@pytest.mark.parametrize("second", ["enter", "escape"])
async def test_variant_picker_answers_once(console: Console, second: str) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pilot.app.query_one(ListTable).focus()
        burst(pilot.app, keys("n", "enter", second))
        await settle(pilot)
        assert pilot.app.is_running
        assert not isinstance(pilot.app.screen, VariantPicker)
        assert len(pilot.app.query(DirectoryEditor)) <= 1


@pytest.mark.parametrize("key, dialog", [("i", ImportDialog), ("x", ExportDialog), ("e", KeepDialog),
                                         ("d", ConfirmScreen)])
async def test_inbox_dialogs_answer_once(key: str, dialog: type[Screen[object]], tmp_path: Path) -> None:
    world = make_world("spec", reports=10)
    try:
        async with world.app().run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(pilot.app.screen, dialog)
            for widget in pilot.app.screen.query(Input):
                if widget.id == "paths":
                    widget.value = str(tmp_path / "none.xml")
                elif widget.id == "path":
                    widget.value = str(tmp_path / "out.csv")
            pilot.app.screen.query(Input).first().focus() if pilot.app.screen.query(Input) else None
            burst(pilot.app, keys("y" if dialog is ConfirmScreen else "enter", "enter", "escape"))
            await settle(pilot)
            assert pilot.app.is_running
            assert isinstance(pilot.app.section_view, DmarcInbox)
    finally:
        world.store.close()


async def test_repeated_enter_on_the_inbox_opens_one_report(world: StubWorld) -> None:
    async with world.app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        burst(pilot.app, keys("enter", "enter", "enter"))
        await settle(pilot)
        inbox = pilot.app.query_one(DmarcInbox)
        assert len(inbox.levels) <= 2  # the report, and at most its records (Enter on a report opens them)
        assert len(pilot.app.query(ReportView)) == 1
        for _ in inbox.levels:
            await pilot.press("escape")
            await pilot.pause()
        assert not inbox.levels
        assert pilot.app.query_one("#dmarc-list").display


async def test_closing_a_report_before_it_is_drawn(world: StubWorld) -> None:
    """Found by the exploration: Enter then Esc at once ran the report's on_mount after it was gone."""
    async with world.app().run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        burst(pilot.app, keys("enter", "escape", "enter", "escape"))
        await settle(pilot)
        assert pilot.app.is_running
        inbox = pilot.app.query_one(DmarcInbox)
        assert len(inbox.levels) <= 1
        inbox.go_back()
        await settle(pilot)
        assert not inbox.levels and pilot.app.query_one("#dmarc-list").display


async def test_page_keys_before_a_list_is_drawn(console: Console) -> None:
    """Found by the exploration: page up in the palette's (or the jump dialog's) list before it is laid out."""
    async with console.app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        burst(pilot.app, keys("ctrl+p", "pageup", "pagedown", "escape", "colon", "pageup", "pagedown", "escape"))
        await settle(pilot)
        assert pilot.app.is_running


@pytest.mark.parametrize("typed", ["mail.example.com", "http://[@click=app.quit]/", "https://mail.example.com:99999"])
async def test_profile_form_explains_a_url_saving_would_refuse(typed: str, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    from tui.app import MailAdminApp

    app = MailAdminApp(config=Config.load())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(pilot.app.screen, ConnectScreen)
        await pilot.press("a")
        await pilot.pause()
        await pilot.press(*"prod", "tab", *typed, "tab", *"secret", "enter", "enter")
        await pilot.pause()
        assert pilot.app.is_running
        assert isinstance(pilot.app.screen, ProfileScreen)  # still open, saying why
        error = str(pilot.app.screen.query_one("#profile-error", Static).render())
        assert "not a server URL" in error and "https://mail.example.com" in error
        assert not (tmp_path / "config.toml").exists()
        url = pilot.app.screen.query_one("#profile-url", Input)
        url.value = "https://mail.example.com"
        url.focus()
        burst(pilot.app, keys("enter", "enter"))  # a double Enter never closes the screen behind
        await pilot.pause(0.2)
        assert isinstance(pilot.app.screen, ConnectScreen)
        assert "prod" in Config.load().profiles


async def test_markup_typed_into_the_ldap_base_dn(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await start_create(pilot, "Ldap")
        base_dn = field(pilot, "baseDn").query_one(Input)
        base_dn.focus()
        await pilot.press("left_square_bracket", "slash", "left_square_bracket", "b", "right_square_bracket")
        await pilot.pause()
        assert pilot.app.is_running
        assert base_dn.value == "[/[b]"
        panel = pilot.app.query_one("#l1-text", Static)
        assert "[/[b]" in str(panel.render())


async def test_palette_answers_once(console: Console) -> None:
    """30-minute exploration: two Enters on a palette command; the second popped the console's
    own screen (``ScreenStackError``) and would have run the command again."""
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        opened: list[str] = []
        original = pilot.app.open_section
        pilot.app.open_section = lambda section_id, **kw: (opened.append(section_id), original(section_id, **kw))
        await pilot.press("ctrl+p")
        await pilot.pause(0.2)
        await pilot.press(*"go to dmarc")
        await pilot.pause(0.5)
        burst(pilot.app, keys("enter", "enter", "enter"))
        await settle(pilot)
        assert pilot.app.is_running
        assert len(pilot.app.screen_stack) == 1
        assert opened == ["dmarc"]


async def test_a_confirm_dialog_taken_down_before_it_mounted(console: Console) -> None:
    """30-minute exploration: a confirm dialog closed in the tick it was opened (a switch closes
    the old section's dialogs) still ran its on_mount, and found no buttons."""
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for _ in range(3):
            pilot.app.push_screen(ConfirmScreen("Delete?"))
            pilot.app.open_section("dmarc", context=pilot.app.context)
            await pilot.pause()
        await settle(pilot)
        assert pilot.app.is_running
        assert len(pilot.app.screen_stack) == 1
