"""At 80×24 beside the menu, the inbox's Messages column shows each count whole, or marked as
rounded: never cut at the screen's edge so that it reads as another number (a tester's finding: a
count of 9,007,199,254,740,991 sized the column for 21 characters, and rows showed ``9,007,199,25``,
``1,099,`` or, right-aligned out of view, nothing)."""

from __future__ import annotations

from textual.pilot import Pilot

from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from tests.support.console import make_world
from tests.support.inbox_steps import inbox, table
from tests.support.textual_probe import screen_strips
from tests.support.waiting import settle

HUGE = 9007199254740991
MILLIONS = 1099511


def messages_shown(pilot: Pilot[object]) -> list[str]:
    """What the screen shows in the Messages column, row by row (up to the table's visible edge)."""
    shown = table(pilot)
    lines = ["".join(segment.text for segment in line) for line in screen_strips(pilot.app)]
    start = shown.region.x
    for key, column in shown.columns.items():
        if key.value == "messages":
            break
        start += column.get_render_width(shown)
    end = min(start + column.get_render_width(shown), shown.region.right)
    top = shown.region.y + 1  # under the header
    return [lines[top + i][start:end].strip() for i in range(shown.row_count)]


async def test_a_huge_count_is_marked_rounded_and_the_other_counts_show_whole() -> None:
    world = make_world("spec", reports=3)
    ids = world.store.all_ids(DMARC_EXTERNAL_REPORT)
    for report_id, total in zip(ids, (HUGE, MILLIONS), strict=False):
        wire = world.store.get(DMARC_EXTERNAL_REPORT, [report_id])[report_id]
        records = wire["report"]["records"]
        for index, record in enumerate(records.values()):
            record["count"] = total if index == 0 else 0
        world.store.replace(DMARC_EXTERNAL_REPORT, report_id, DMARC_EXTERNAL_REPORT.read(wire), wire)
    async with world.app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        rows = inbox(pilot).page.rows  # type: ignore[union-attr]
        assert sorted(row.messages for row in rows)[-2:] == [MILLIONS, HUGE]
        expected = [f"≈{HUGE:.2e}" if row.messages == HUGE else f"{row.messages:,}" for row in rows]
        assert messages_shown(pilot) == expected
    world.store.close()
