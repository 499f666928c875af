"""A mark re-renders its own row only (issue #33): space cost twice a cursor move.

DataTable's ``update_cell`` bumps the table's update count, on which every cached cell render is
keyed, so each mark rendered every visible cell again. The inbox now replaces the one cell and
drops only that row's cached renders.
"""

from __future__ import annotations

from tests.support.console import make_world
from tests.support.inbox_steps import inbox, table
from tests.support.textual_probe import cached_cell_renders, table_update_count
from tests.support.waiting import settle
from tui.reports.inbox_table import MARK

SIZE = (120, 40)


async def test_a_mark_changes_its_row_and_keeps_the_other_rows_renders() -> None:
    world = make_world(reports=60)
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown = table(pilot)
        far_row = inbox(pilot).page.rows[10].id
        cached_far = {key for key in cached_cell_renders(shown) if key[0].value == far_row}
        assert cached_far  # drawn, so cached
        count = table_update_count(shown)
        first = inbox(pilot).page.rows[0].id
        await pilot.press("space")
        await settle(pilot)
        assert str(shown.get_cell(first, "received")).startswith(MARK)
        assert table_update_count(shown) == count  # nothing every cached render is keyed on changed
        assert cached_far <= cached_cell_renders(shown)  # a row away from the mark: not rendered again
        await pilot.press("k", "space")
        await settle(pilot)
        assert not str(shown.get_cell(first, "received")).startswith(MARK)  # unmarked, shown at once
