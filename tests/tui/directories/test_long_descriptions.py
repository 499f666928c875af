"""One long directory description neither hides the Kind column nor runs off the screen uncut: it is
cut with ``…`` to what the other columns leave (a tester's finding, at 120 and at 80 columns)."""

from __future__ import annotations

import pytest

from jmapclient.models.objects import DIRECTORY
from server_stub.store import Store
from tests.support.console import make_console
from tests.support.directory_steps import stored
from tests.support.textual_probe import screen_strips
from tests.support.waiting import settle
from tui.widgets.list_table import ListTable

LONG = ("Corporate OpenLDAP (service account) used by the helpdesk, the finance team and every branch office "
        "in the northern region, kept in sync nightly with HR")


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_a_long_description_is_cut_with_an_ellipsis_and_every_kind_stays_in_view(
        store: Store, size: tuple[int, int]) -> None:
    wire = {**stored(store, "Corporate OpenLDAP (service account)"), "description": LONG}
    store.replace(DIRECTORY, wire["id"], DIRECTORY.read(wire), wire)
    console = make_console(store)
    async with console.app.run_test(size=size) as pilot:
        await settle(pilot)
        for menu in ("shown", "hidden"):
            table = pilot.app.query_one(ListTable)
            screen = ["".join(segment.text for segment in line) for line in screen_strips(pilot.app)]
            rows = [screen[table.region.y + 1 + i][table.region.x:table.region.right] for i in range(table.row_count)]
            assert any("…" in row for row in rows), rows
            for kind in ("LDAP", "SQL", "OpenID Connect"):
                assert any(row.rstrip().endswith(kind) for row in rows), (menu, kind, rows)
            await pilot.press("ctrl+n")  # the menu hidden: the description takes the width it frees
            await settle(pilot)
