"""The console knows the login's rights before the server refuses (issue 27): read from
``/api/account``, as ``connect`` does, they disable the actions and say why at once."""

from __future__ import annotations

from textual.widgets import Button, Static

from server_stub.store import Store
from tests.support.console import READONLY_TOKEN, make_console, make_world
from tests.support.waiting import settle


async def test_a_read_only_login_sees_new_and_delete_disabled_before_any_refusal(store: Store) -> None:
    console = make_console(store, token=READONLY_TOKEN, profile="stalwart")
    console.context.granted = await console.context.client.permissions()
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert pilot.app.query_one("#dir-new", Button).disabled
        text = str(pilot.app.query_one("#dir-permissions", Static).render())
        assert "lacks the sysDirectoryCreate permission" in text
        assert console.context.denied == set()  # known up front, not learned from a refusal


async def test_keep_longer_is_disabled_where_the_server_never_changes_reports() -> None:
    world = make_world("stalwart", reports=20)
    context = world.context()
    context.granted = await context.client.permissions()
    async with world.app(context).run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        text = str(pilot.app.query_one("#dmarc-denied", Static).render())
        assert "Keep longer unavailable: this server never lets received reports be created or changed" in text
        assert "Delete unavailable" not in text  # the admin may delete reports
    world.store.close()
