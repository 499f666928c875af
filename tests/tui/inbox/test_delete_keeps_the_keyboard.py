"""After a delete the list keeps the keyboard and the footer its keys.

The new user's finding: after a DMARC delete the footer showed only "? Help q Quit : Jump / Filter r Refresh"
though enter, j and d still worked. The confirmation closed while the list was loading (the delete had
started), and a loading widget cannot take the keyboard: nothing held it after.
"""

from __future__ import annotations

from tests.support.console import make_world
from tests.support.held_requests import HeldSets
from tests.support.hostile import screen_lines
from tests.support.waiting import settle, wait_until
from tui.reports.inbox_table import InboxTable


async def test_the_list_has_the_keyboard_and_the_footer_its_keys_after_a_delete() -> None:
    world = make_world("spec", reports=20)
    async with world.app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        held = HeldSets(world.transport)
        await pilot.press("d")
        await settle(pilot)
        await pilot.press("y")
        await wait_until(pilot, held.started.is_set, "the delete")
        await pilot.pause(0.2)  # the confirmation gone, the list still loading (settle would wait for the delete)
        held.released.set()
        await pilot.app.workers.wait_for_complete()
        await settle(pilot)
        assert isinstance(pilot.app.focused, InboxTable)
        footer = screen_lines(pilot.app)[-1]
        assert "d Delete" in footer and "Open" in footer, footer
    world.store.close()
