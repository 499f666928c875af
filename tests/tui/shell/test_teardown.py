"""Leaving, reconnecting or quitting in the turns while a form is still being built.

Enter on "SQL database" in the variant picker builds a form of a few hundred widgets over many
turns of the event loop. A key typed right behind it (Esc, ctrl+o) or a quit arrives somewhere in
those turns. Seen in a full exploration run on a busy machine, and reproduced here: the picker's
answer mounting an editor into a section already left (``MountError``), a field's mount handler
asking for its error line after its rows were taken down, and Textual's own Select failing in its
mount handler when its parts were gone (``NoMatches``). Each turn count below hit one of them.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot

from tests.support.console import Console
from tests.support.textual_probe import exception_of
from tests.support.waiting import settle
from tui.widgets.list_table import ListTable

TURNS = (7, 8, 9, 10, 12, 13, 15, 16, 18, 19)
"""Event-loop turns between the Enter and what follows it (where the failures were seen)."""


@pytest.mark.parametrize("turns", TURNS)
@pytest.mark.parametrize("then", ["escape", "ctrl+o", "quit"])
async def test_leaving_while_a_new_form_is_being_built(console: Console, then: str, turns: int) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pilot.app.query_one(ListTable).focus()
        await pilot.press("n")
        await settle(pilot)
        options = pilot.app.screen.query_one("#variant-options")
        options.highlighted = next(i for i, o in enumerate(options.options) if o.id == "Sql")
        await then_after(pilot, events.Key("enter", "\r"), turns, then)


async def then_after(pilot: Pilot[Any], key: events.Key, turns: int, then: str) -> None:
    """``key`` posted, as the terminal driver hands keys over (nobody waits for the app); ``turns`` turns of
    the loop later, ``then`` (a key, or "quit"); and no crash."""
    pilot.app.post_message(key)
    for _ in range(turns):
        await asyncio.sleep(0)
    if then == "quit":
        pilot.app.exit()
    else:
        pilot.app.post_message(events.Key(then, None))
    await asyncio.sleep(0.2)
    assert exception_of(pilot.app) is None, repr(exception_of(pilot.app))


@pytest.mark.parametrize("turns", range(2, 40, 3))
@pytest.mark.parametrize("then", ["escape", "quit"])
async def test_leaving_while_analytics_is_being_built(then: str, turns: int) -> None:
    # Analytics' period Select, taken down in the turns it was mounting, failed in Textual's mount handler
    # (NoMatches '#label' on SelectCurrent): the exploration's palette episode at load 8. The guard the
    # forms' Selects had is every Select's now.
    from tests.support.console import make_world

    world = make_world("spec", reports=30)
    async with world.app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await then_after(pilot, events.Key("a", "a"), turns, then)
    world.store.close()
