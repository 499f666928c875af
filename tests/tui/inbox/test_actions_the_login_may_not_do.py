"""Actions the server refuses are not offered (issue 30): the rights read from ``/api/account`` up
front hide Import, Keep longer and Delete from the footer and the palette, and the line under the
list says why, instead of the key failing after the fact."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import Static

from tests.support.console import make_world
from tests.support.waiting import settle
from tui.app import MailAdminApp

SIZE = (120, 40)
ACTIONS = {"delete", "import_files", "keep"}


def offered(pilot: Pilot[object]) -> set[str]:
    """The inbox actions the footer and the palette offer (bindings present in the screen's active set)."""
    return {binding.action for _node, binding, _enabled, _tip in pilot.app.screen.active_bindings.values()} & ACTIONS


async def test_the_real_servers_rule_hides_import_and_keep_longer_but_not_delete() -> None:
    world = make_world("stalwart", reports=5)
    context = world.context()
    context.granted = await context.client.permissions()
    app: MailAdminApp = world.app(context)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert offered(pilot) == {"delete"}
        denied = str(pilot.app.query_one("#dmarc-denied", Static).render())
        assert denied.startswith("Import and Keep longer unavailable: this server never lets")  # one line, one reason
        await pilot.press("i")  # the key of an action not offered does nothing
        await settle(pilot)
        assert pilot.app.screen is pilot.app.screen_stack[0]
    world.store.close()


async def test_a_login_without_rights_is_offered_none_of_the_changes() -> None:
    world = make_world("spec", reports=5)
    context = world.context()
    context.granted = frozenset({"sysDmarcExternalReportGet", "sysDmarcExternalReportQuery"})
    async with world.app(context).run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert offered(pilot) == set()
    world.store.close()


async def test_a_login_with_every_right_is_offered_all_three() -> None:
    world = make_world("spec", reports=5)
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert offered(pilot) == ACTIONS
    world.store.close()
