"""Marks belong to the list shown: a new filter starts unmarked, and a mark made while the new
list loads marks nothing of the old one (``d`` would then delete a report no longer shown)."""

from __future__ import annotations

from dataclasses import replace

from tests.support.console import StubWorld, make_world
from tests.support.inbox_steps import inbox
from tests.support.waiting import settle


def spec_world() -> StubWorld:
    return make_world("spec", reports=10)


async def test_a_mark_made_while_a_new_filter_loads_marks_nothing_of_the_old_list() -> None:
    async with spec_world().app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        view = inbox(pilot)
        assert view.state.rows
        view.set_query(replace(view.state.query, domain="nothing-matches.example"))
        view.action_mark()  # space, before the new list's first page has arrived
        await settle(pilot)
        assert view.state.marked == set()
        assert not view.state.rows  # the new filter matches nothing: nothing to delete either


async def test_marks_made_before_a_new_filter_are_dropped_with_it() -> None:
    async with spec_world().app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        view = inbox(pilot)
        view.action_mark()
        assert len(view.state.marked) == 1
        view.set_query(view.state.query.next_sort())
        await settle(pilot)
        assert view.state.marked == set()
