"""The DMARC filter applies as it is typed, once typing pauses (issue 30), and esc in a filter field
holding text empties it; a second esc leaves the field for the list, as before."""

from __future__ import annotations

import json

from textual.widgets import Input, Static

from tests.support.console import StubWorld, make_world
from tests.support.inbox_steps import inbox
from tests.support.waiting import settle, wait_until
from tui.reports.inbox_filters import NOT_FILTERED
from tui.reports.inbox_table import InboxTable

SIZE = (120, 40)
DOMAIN = "example.org"


def report_queries(world: StubWorld) -> int:
    return sum(1 for body in world.transport.bodies for name, _args, _id in json.loads(body)["methodCalls"]
               if name.endswith("DmarcExternalReport/query"))


async def test_the_filter_applies_when_typing_pauses_with_one_query_not_one_per_key() -> None:
    world = make_world("spec", reports=40)
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = report_queries(world)
        await pilot.press("/")
        await pilot.press(*DOMAIN)  # no enter
        await wait_until(pilot, lambda: inbox(pilot).page is not None and inbox(pilot).state.query.domain == DOMAIN,
                         "the typed filter applied")
        await settle(pilot)
        rows = inbox(pilot).page.rows  # type: ignore[union-attr]
        assert rows and {r.policy_domain for r in rows} == {DOMAIN}
        assert report_queries(world) - before < len(DOMAIN)  # not a request per key
        assert pilot.app.focused is pilot.app.query_one("#f-domain", Input)  # the keyboard stays in the field
    world.store.close()


async def test_a_value_that_cannot_be_used_yet_is_said_and_the_list_kept() -> None:
    world = make_world("spec", reports=10)
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        pilot.app.query_one("#f-failed", Input).focus()
        await pilot.press(">", "=")
        await wait_until(pilot, lambda: pilot.app.query_one("#f-failed").has_class("-invalid"), "the problem marked")
        assert inbox(pilot).state.query.failed is None
        note = str(pilot.app.query_one("#dmarc-note", Static).render())
        assert note.startswith(NOT_FILTERED) and "'>='" in note  # the list under it is not filtered by it
        await pilot.press("1")
        await wait_until(pilot, lambda: inbox(pilot).state.query.failed == (">=", 1), "the filter applied")
        assert not pilot.app.query_one("#f-failed").has_class("-invalid")
    world.store.close()


async def test_esc_in_a_filter_field_clears_it_and_a_second_esc_goes_back_to_the_list() -> None:
    world = make_world("spec", reports=40)
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("/", *DOMAIN)
        await wait_until(pilot, lambda: inbox(pilot).state.query.domain == DOMAIN, "the typed filter applied")
        await pilot.press("escape")
        await settle(pilot)
        field = pilot.app.query_one("#f-domain", Input)
        assert field.value == "" and inbox(pilot).state.query.domain == ""
        assert pilot.app.focused is field  # cleared, not left
        await wait_until(pilot, lambda: inbox(pilot).page is not None, "the unfiltered page")
        assert {r.policy_domain for r in inbox(pilot).page.rows} != {DOMAIN}  # type: ignore[union-attr]
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(pilot.app.focused, InboxTable)
    world.store.close()


async def test_a_number_past_the_bound_is_said_here_and_a_failed_load_takes_the_note_away() -> None:
    # The tester: 99999999999999999999999 went to the server, whose refusal replaced the list while the
    # note of an earlier 'abc' still said "the list is as it was"; 5,000 digits were int()'s own ValueError.
    world = make_world("spec", reports=10)
    async with world.app().run_test(size=SIZE) as pilot:
        await settle(pilot)
        box = pilot.app.query_one("#f-failed", Input)
        note = pilot.app.query_one("#dmarc-note", Static)
        for typed in ("9" * 23, "1" * 5000):
            box.value = typed
            await wait_until(pilot, lambda: "must be at most 9007199254740991" in str(note.render()), "the bound said")
            assert inbox(pilot).state.query.failed is None
        world.transport.down = True
        box.value = "5"
        await wait_until(pilot, lambda: pilot.app.query_one("#dmarc-error").display, "the failed load")
        assert not note.display, str(note.render())
    world.store.close()
