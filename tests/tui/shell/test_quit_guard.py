"""q never throws away unsaved edits without asking; with nothing unsaved it quits at once."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Switch

from jmapclient.config import Config
from server_stub.store import Store
from tests.support.console import Console, make_console
from tests.support.directory_steps import editor, fill, open_directory
from tests.support.textual_probe import notifications
from tests.support.waiting import settle, wait_until
from tui.app import MailAdminApp
from tui.screens.confirm import ConfirmScreen
from tui.screens.profile_form import ProfileScreen

LDAP = "Corporate OpenLDAP (service account)"


async def test_q_with_unsaved_edits_asks_and_keeps_them_on_no(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, LDAP)
        await fill(pilot, "description", "Corporate LDAP (edited)")
        pilot.app.query(Switch).first().focus()  # off the text input, so q is a key binding
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(pilot.app.screen, ConfirmScreen)
        assert "Corporate OpenLDAP" in pilot.app.screen.question  # names what would be lost
        await pilot.press("n")
        await pilot.pause()
        assert pilot.app.is_running
        assert editor(pilot).form.to_wire()["description"] == "Corporate LDAP (edited)"
        await pilot.press("q")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
    assert pilot.app.return_code == 0


async def test_q_without_unsaved_edits_quits_at_once(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_directory(pilot, LDAP)
        pilot.app.query(Switch).first().focus()
        await pilot.press("q")
        await pilot.pause()
        assert not isinstance(pilot.app.screen, ConfirmScreen)
    assert pilot.app.return_code == 0


def _connections_only(tmp_path: Path) -> MailAdminApp:
    """The console with no connection yet: the connection screen, over an empty config."""
    return MailAdminApp(config=Config(path=tmp_path / "config.toml"), connector=None)  # type: ignore[arg-type]


async def _new_profile_form(pilot: Pilot[int]) -> None:
    """From the connection screen, the form that adds a profile (its name field focused)."""
    await settle(pilot)
    await pilot.press("a")
    await settle(pilot)
    assert isinstance(pilot.app.screen, ProfileScreen)


async def test_ctrl_q_in_the_profile_form_with_edits_asks_and_keeps_them_on_no(tmp_path: Path) -> None:
    """The profile form asks before Esc drops its edits; ctrl+q quit at once, the typed profile lost
    (the tester's). The quit question covers every screen holding unsaved edits. (No ``settle`` while
    the question waits: it would cancel the quit's worker, waiting on the answer, after 5 s.)"""
    app = _connections_only(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await _new_profile_form(pilot)
        await pilot.press(*"lab")
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the quit question")
        assert "the new profile" in app.screen.question.plain  # names what would be lost
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, ProfileScreen), "the form back")
        assert app.is_running
        assert app.screen.query_one("#profile-name", Input).value == "lab"
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the quit question again")
        await pilot.press("y")
        await wait_until(pilot, lambda: app.return_code is not None, "the console to quit")
    assert app.return_code == 0


async def test_ctrl_q_in_an_untouched_profile_form_quits_at_once(tmp_path: Path) -> None:
    app = _connections_only(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await _new_profile_form(pilot)
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmScreen)
    assert app.return_code == 0


@pytest.mark.parametrize("section", ["directories", "dmarc"])
async def test_ctrl_c_names_the_quit_keys_as_the_footer_shows_keys(store: Store, section: str) -> None:
    """ctrl+c (Textual's "it no longer quits" toast) said "Press [b]ctrl+q[/b] to quit the app": the console's
    toasts are plain text. It names the keys that quit here as the footer writes them."""
    async with make_console(store, start_section=section).app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+c")
        await settle(pilot)
        assert pilot.app.is_running
        assert notifications(pilot.app) == ["Press q or ^q to quit."]
