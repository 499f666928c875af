"""Sorting the inbox by clicking a column's header (issue 30), and a sort line that tells the truth.

Only columns the server can sort by sort; the arrow in the sorted column's header shows the order.
The stalwart profile, as the real server, cannot sort reports by receivedAt: the list is then in
arrival order, the sort line says so, no header claims the order, and the note saying why is whole.
"""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import Static

from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from tests.support.console import make_world
from tests.support.textual_probe import notifications, screen_strips
from tests.support.waiting import settle, wait_until
from tui.reports.inbox import DmarcInbox
from tui.reports.inbox_table import InboxTable

SIZE = (120, 40)
NOTE = DMARC_EXTERNAL_REPORT.sort_fallback("receivedAt").note  # type: ignore[union-attr]


def inbox(pilot: Pilot[object]) -> DmarcInbox:
    return pilot.app.query_one(DmarcInbox)


def headers(pilot: Pilot[object]) -> dict[str, str]:
    table = pilot.app.query_one(InboxTable)
    return {str(key.value): column.label.plain for key, column in table.columns.items()}


async def click_header(pilot: Pilot[object], key: str) -> None:
    table = pilot.app.query_one(InboxTable)
    x = 0
    for column_key, column in table.columns.items():
        if column_key.value == key:
            break
        x += column.get_render_width(table)
    await pilot.click(InboxTable, offset=(x + 1, 0))
    await settle(pilot)


def screen_lines(pilot: Pilot[object]) -> list[str]:
    return ["".join(segment.text for segment in line) for line in screen_strips(pilot.app)]


async def test_a_header_click_sorts_by_its_column_and_again_the_other_way() -> None:
    world = make_world("spec", reports=30)
    async with world.app().run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        assert headers(pilot)["received"] == "Received ▼"
        await click_header(pilot, "received")
        assert (inbox(pilot).state.query.sort, inbox(pilot).state.query.ascending) == ("receivedAt", True)
        assert headers(pilot)["received"] == "Received ▲"
        assert "sort: received ▲" in str(pilot.app.query_one("#dmarc-sort", Static).render())
        rows = inbox(pilot).page.rows  # type: ignore[union-attr]
        assert [r.received for r in rows] == sorted(r.received for r in rows)
        await pilot.press("c")  # From, Subject and Expires
        await settle(pilot)
        await click_header(pilot, "expires")
        assert (inbox(pilot).state.query.sort, inbox(pilot).state.query.ascending) == ("expiresAt", False)
        assert headers(pilot)["expires"] == "Expires ▼" and headers(pilot)["received"] == "Received"
    world.store.close()


async def test_a_column_the_server_cannot_sort_by_is_not_sorted() -> None:
    world = make_world("spec", reports=5)
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = inbox(pilot).state.query
        await click_header(pilot, "domain")
        assert inbox(pilot).state.query == before
        assert any("cannot sort reports by Policy domain" in n for n in notifications(pilot.app))
    world.store.close()


async def test_on_the_real_server_the_sort_line_says_arrival_order_and_received_is_not_clickable() -> None:
    world = make_world("stalwart", reports=30)
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        sort = str(pilot.app.query_one("#dmarc-sort", Static).render())
        assert "arrival order ▼" in sort and "received" not in sort
        assert headers(pilot)["received"] == "Received"  # no column claims the order
        before = inbox(pilot).state.query
        await click_header(pilot, "received")
        assert inbox(pilot).state.query == before
        assert any(NOTE in n for n in notifications(pilot.app))
    world.store.close()


async def test_the_note_is_whole_at_120_and_at_80_columns() -> None:
    world = make_world("stalwart", reports=30)
    for size in (SIZE, (80, 24)):
        async with world.app().run_test(size=size) as pilot:
            await settle(pilot)
            await wait_until(pilot, lambda: pilot.app.query_one("#dmarc-note").display, "the note")
            screen = " ".join(" ".join(line.split("▕")[-1].split()) for line in screen_lines(pilot))
            assert NOTE in screen, size
    world.store.close()


async def test_at_80_columns_a_long_position_leaves_the_sort_line_whole() -> None:
    """Narrowed word matches make the position long ("… on this page · total unknown"): the sort wraps."""
    world = make_world("stalwart", reports=30)
    async with world.app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("/", *"example.com", "enter")
        await wait_until(pilot, lambda: bool(inbox(pilot).page and inbox(pilot).page.narrowed), "the narrowed page")
        await settle(pilot)
        screen = " ".join(" ".join(line.split("▕")[-1].split()) for line in screen_lines(pilot))
        assert "total unknown" in screen and "sort: arrival order ▼ (s)" in screen
    world.store.close()
