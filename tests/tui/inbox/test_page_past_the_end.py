"""A page the list stood on that is past the end once reports were deleted elsewhere (tester87).

The real server answers a ``position`` past the end with ``position: 0`` and no ids: the console showed
"0 of 639 page 14/13" with no rows, and r, PageUp, g and G did nothing until the sort was changed.
"""

from __future__ import annotations

from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from tests.support.console import StubWorld
from tests.support.inbox_steps import inbox, position, table
from tests.support.waiting import settle

SIZE = (120, 40)


async def test_a_refresh_past_the_end_shows_the_last_page_there_is(world: StubWorld) -> None:
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("G")
        await settle(pilot)
        assert position(pilot).startswith("101–120 of 120")
        last_page = [row.id for row in inbox(pilot).page.rows]
        others = [i for i in world.store.all_ids(DMARC_EXTERNAL_REPORT) if i not in last_page]
        for report_id in last_page + others[:10]:  # 30 deleted elsewhere: 90 left, two pages
            assert world.store.delete(DMARC_EXTERNAL_REPORT, report_id)
        await pilot.press("r")
        await settle(pilot)
        assert position(pilot).startswith("51–90 of 90")
        assert table(pilot).row_count == 40
        await pilot.press("g")  # the keys work again: the list is shown and holds the keyboard
        await settle(pilot)
        assert position(pilot).startswith("1–50 of 90")
