"""The inbox's filter and sort outlive a visit to another section on the same connection.

The tester's: a filter typed in the inbox (and the sort chosen), then Directories and back by ``:``: the filter
field was empty and the whole inbox listed again in the default order.
"""

from __future__ import annotations

from textual.widgets import Input

from tests.support.console import StubWorld
from tests.support.inbox_steps import inbox, type_into
from tests.support.waiting import settle
from tui.directories.section import DirectoriesSection


async def test_the_filter_and_sort_are_there_again_after_another_section(world: StubWorld) -> None:
    async with world.app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await type_into(pilot, "#f-domain", "example.org")
        await pilot.press("s")
        await settle(pilot)
        left = inbox(pilot)
        query = left.state.query
        assert query.domain == "example.org" and query != type(query)(domain="example.org")  # sorted otherwise too
        pilot.app.open_section("directories")
        await settle(pilot)
        assert pilot.app.query(DirectoriesSection)
        pilot.app.open_section("dmarc")
        await settle(pilot)
        back = inbox(pilot)
        assert back is not left  # built afresh, as every visit
        assert back.query_one("#f-domain", Input).value == "example.org"
        assert back.state.query == query
        rows = back.page.rows if back.page is not None else []
        assert rows and {row.policy_domain for row in rows} == {"example.org"}
