"""A report's id and JSON (issue 30), as the Directories' y, Y and J: ``y`` copies the highlighted
report's id, ``Y`` the whole report as JSON (OSC 52), ``J`` shows it; none of them while a report is open."""

from __future__ import annotations

import json

from textual.pilot import Pilot
from textual.widgets import Static

from tests.support.console import make_world
from tests.support.inbox_steps import inbox
from tests.support.waiting import settle, wait_until
from tui.reports.dialogs import MessageDialog
from tui.reports.pager import InboxRow

SIZE = (120, 40)


async def highlighted(pilot: Pilot[object]) -> InboxRow:
    """The list shown, and the report it highlights."""
    await settle(pilot)
    row = inbox(pilot).current_row()
    assert row is not None
    return row


async def test_y_copies_the_id_and_shift_y_the_whole_report_as_json() -> None:
    world = make_world("spec", reports=5)
    async with world.app().run_test(size=SIZE) as pilot:
        row = await highlighted(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert pilot.app.clipboard == row.id
        await pilot.press("Y")
        await wait_until(pilot, lambda: pilot.app.clipboard != row.id, "the report copied")
        copied = json.loads(pilot.app.clipboard)
        assert copied["id"] == row.id
        assert copied["report"]["policyDomain"] == row.policy_domain
        assert "to" in copied  # the whole report, not the list's properties
    world.store.close()


async def test_shift_j_shows_the_report_as_json_and_esc_closes_it() -> None:
    world = make_world("spec", reports=5)
    async with world.app().run_test(size=SIZE) as pilot:
        row = await highlighted(pilot)
        await pilot.press("J")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, MessageDialog), "the JSON shown")
        dialog = pilot.app.screen
        assert json.loads("\n".join(dialog.lines))["id"] == row.id
        shown = str(dialog.query_one("#message", Static).render())
        assert f'"orgName": "{row.reporter}"' in shown
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, MessageDialog)
    world.store.close()


async def test_in_an_open_report_the_lists_y_does_nothing() -> None:
    world = make_world("spec", reports=5)
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert not pilot.app.clipboard
    world.store.close()
