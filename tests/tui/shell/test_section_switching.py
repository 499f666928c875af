"""Switching sections in bursts: reopening the open section, switching under a dialog, reconnecting.

Every key here is sent without waiting for the app in between (``pilot.press`` with several
keys, or ``burst``, which queues every key event at once), as people type ahead.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Switch

from bench.explore_engine import burst
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from tests.support.console import Console, StubWorld, make_console_with_a_profile
from tests.support.directory_steps import editor, fill, open_directory
from tests.support.waiting import settle
from tui.directories.section import DirectoriesSection
from tui.reports.dialogs import KeepDialog
from tui.reports.inbox import DmarcInbox
from tui.screens.confirm import ConfirmScreen
from tui.screens.connect import ConnectScreen
from tui.widgets.list_table import ListTable
from tui.widgets.nav import NavTree

LDAP = "Corporate OpenLDAP (service account)"


def keys(*names: str) -> list[tuple[str, str | None]]:
    return [(name, name if len(name) == 1 else None) for name in names]


async def test_jump_to_the_open_section_keeps_it_and_its_edits(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        first = pilot.app.section_view
        await open_directory(pilot, LDAP)
        await fill(pilot, "description", "edited")
        pilot.app.query(Switch).first().focus()
        await pilot.press("colon", "enter")  # the jump dialog highlights the open section first
        await settle(pilot)
        assert pilot.app.is_running
        assert pilot.app.section_view is first
        assert editor(pilot).form.to_wire()["description"] == "edited"
        assert len(pilot.app.query(DirectoriesSection)) == 1


async def test_palette_go_to_the_open_section_twice_in_a_burst(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        first = pilot.app.section_view
        for _ in range(2):
            pilot.app.open_section("directories")
        pilot.app.open_section("dmarc")
        pilot.app.open_section("directories")
        await settle(pilot)
        assert pilot.app.is_running
        assert len(pilot.app.query(DirectoriesSection)) == 1
        assert not pilot.app.query(DmarcInbox)
        assert pilot.app.section_view is not first  # it went to DMARC and back: a fresh list


async def test_menu_enter_on_dmarc_then_straight_back_to_directories(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        nav = pilot.app.query_one(NavTree)
        nav.focus()
        await pilot.pause()
        nav.select_section("dmarc")
        await pilot.pause()
        burst(pilot.app, keys("enter", "up", "up", "up", "enter", "down", "down", "down", "enter", "up", "up",
                              "up", "enter"))
        await settle(pilot)
        assert pilot.app.is_running
        assert len(pilot.app.query(DirectoriesSection)) + len(pilot.app.query(DmarcInbox)) == 1


async def test_jump_with_unsaved_edits_asks_first(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, LDAP)
        await fill(pilot, "description", "edited")
        pilot.app.query(Switch).first().focus()
        await pilot.press("colon", "down", "enter")
        await pilot.pause(0.1)
        assert isinstance(pilot.app.screen, ConfirmScreen)
        assert LDAP in pilot.app.screen.question
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(pilot.app.section_view, DirectoriesSection)
        assert editor(pilot).form.to_wire()["description"] == "edited"
        pilot.app.open_section("dmarc")  # the palette's Go to takes the same path
        await pilot.pause(0.1)
        assert isinstance(pilot.app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(pilot.app.section_view, DmarcInbox)


async def test_a_dialog_of_the_old_section_never_acts_after_a_switch(world: StubWorld) -> None:
    before = world.store.count(DMARC_EXTERNAL_REPORT)
    async with world.app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(pilot.app.screen, ConfirmScreen)
        pilot.app.open_section("directories")  # ctrl+p "Go to …" under the open question
        await pilot.press("y")
        await settle(pilot)
        assert pilot.app.is_running
        assert isinstance(pilot.app.section_view, DirectoriesSection)
        assert not isinstance(pilot.app.screen, ConfirmScreen)
    assert world.store.count(DMARC_EXTERNAL_REPORT) == before


async def test_keep_longer_is_not_sent_when_its_section_is_gone(world: StubWorld) -> None:
    async with world.app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        if not isinstance(pilot.app.screen, KeepDialog):
            pytest.skip("keep longer is refused up front in this profile")
        sent = len(world.transport.bodies)
        pilot.app.open_section("directories")
        await pilot.press("enter")
        await settle(pilot)
        assert pilot.app.is_running
        assert not any(b"DmarcExternalReport/set" in body for body in world.transport.bodies[sent:])


async def test_reconnect_while_directories_is_open(store: object, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    made = make_console_with_a_profile(store)  # type: ignore[arg-type]
    async with made.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        first = pilot.app.section_view
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert isinstance(pilot.app.screen, ConnectScreen)
        await pilot.press("enter", "enter")
        await settle(pilot)
        assert pilot.app.is_running
        assert len(pilot.app.query(DirectoriesSection)) == 1
        assert pilot.app.section_view is not first  # rebuilt on the new connection
        # The second Enter was typed ahead: it lands in the new section, never on a dead one.
        assert pilot.app.focused is not None and pilot.app.section_view in pilot.app.focused.ancestors


async def test_ctrl_o_with_unsaved_edits_asks_first(console: Console, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, LDAP)
        await fill(pilot, "description", "edited")
        pilot.app.query(Switch).first().focus()
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert isinstance(pilot.app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert not isinstance(pilot.app.screen, ConnectScreen)
        assert editor(pilot).form.to_wire()["description"] == "edited"


async def test_directories_j_enter_enter_opens_one_editor(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pilot.app.query_one(ListTable).focus()
        burst(pilot.app, keys("j", "enter", "enter", "enter"))
        await settle(pilot)
        assert pilot.app.is_running
        from tui.directories.editor import DirectoryEditor

        assert len(pilot.app.query(DirectoryEditor)) == 1
        await pilot.press("escape")
        await settle(pilot)
        assert not pilot.app.query(DirectoryEditor)
