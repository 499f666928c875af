"""q never throws away unsaved edits without asking; with nothing unsaved it quits at once."""

from __future__ import annotations

from textual.widgets import Switch

from tests.support.console import Console
from tests.support.directory_steps import editor, fill, open_directory
from tests.support.waiting import settle
from tui.screens.confirm import ConfirmScreen

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
