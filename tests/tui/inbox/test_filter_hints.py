"""The inbox's filter fields show whole hints at every size: a narrow field shows a shorter hint, never a cut one.

The tester's: at 120 columns with the menu shown the fields read "recs not pass" (its example lost) and
"recs pass e.g." (a dangling "e.g."), where 100 columns without the menu showed them whole.
"""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from tests.support.console import StubWorld
from tests.support.waiting import settle
from tui.reports.inbox_filters import FILTERS
from tui.widgets.filter_bar import FilterField, fitting_hint


def shown(field: FilterField) -> str:
    """The field's line as the terminal shows it."""
    return "".join(segment.text for segment in field.render_line(0)).strip()


@pytest.mark.parametrize("menu", [True, False], ids=["menu", "no-menu"])
@pytest.mark.parametrize("size", [(80, 24), (100, 30), (120, 40)], ids=["80x24", "100x30", "120x40"])
async def test_each_filter_field_shows_a_whole_hint(world: StubWorld, size: tuple[int, int], menu: bool) -> None:
    async with world.app().run_test(size=size) as pilot:
        await settle(pilot)
        if not menu:
            await pilot.press("ctrl+n")
            await settle(pilot)
        for widget_id, hints in FILTERS:
            field = pilot.app.query_one(f"#{widget_id}", FilterField)
            width = field.scrollable_content_region.width
            assert shown(field) in hints, (size, menu, widget_id, shown(field))
            # The longest hint that fits: nothing longer was left out while it had the room.
            assert all(cell_len(hint) > width for hint in hints[:hints.index(shown(field))])


async def test_the_hint_follows_the_width(world: StubWorld) -> None:
    async with world.app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        field = pilot.app.query_one("#f-failed", FilterField)
        narrow = shown(field)
        await pilot.press("ctrl+n")  # the menu hidden: the fields widen
        await settle(pilot)
        await pilot.resize_terminal(160, 40)
        await settle(pilot)
        assert shown(field) == field.hints[0] != narrow


def test_narrower_than_every_hint_the_last_is_cut_visibly() -> None:
    hints = ("recs not pass e.g. >=1", "recs not pass")
    assert fitting_hint(hints, 22) == hints[0]
    assert fitting_hint(hints, 21) == hints[1]
    cut = fitting_hint(hints, 8)
    assert cell_len(cut) <= 8 and cut.endswith("…") and hints[1].startswith(cut[:-1])
    assert fitting_hint(hints, 0) == ""
