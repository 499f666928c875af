"""Snapshots of the DMARC section at 120×40: a frozen clock, a seeded stub, animations off.

Each snapshot was looked at (converted to PNG) before it was accepted.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.support.console import make_world
from tests.support.held_requests import HeldGets
from tests.support.waiting import press_handed_over, settle, settle_work, wait_until

SIZE = (120, 40)
Step = Callable[[Pilot], Awaitable[None]]


def steps(*keys: str) -> Step:
    async def run(pilot: Pilot) -> None:
        for widget in pilot.app.query("Input"):
            widget.cursor_blink = False  # type: ignore[attr-defined]
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        await settle_work(pilot)
        await settle(pilot)

    return run


@pytest.fixture
def world() -> Any:
    made = make_world("spec", reports=120)
    yield made
    made.store.close()


def test_inbox(snap_compare: Any, world: Any) -> None:
    assert snap_compare(world.app(), terminal_size=SIZE, run_before=steps())


def test_inbox_with_from_and_subject(snap_compare: Any, world: Any) -> None:
    assert snap_compare(world.app(), terminal_size=SIZE, run_before=steps("c", "space"))


def test_report(snap_compare: Any, world: Any) -> None:
    assert snap_compare(world.app(), terminal_size=SIZE, run_before=steps("enter"))


def test_records(snap_compare: Any, world: Any) -> None:
    assert snap_compare(world.app(), terminal_size=SIZE, run_before=steps("enter", "enter"))


def test_records_scrolled_right(snap_compare: Any, world: Any) -> None:
    """The records table scrolled to its right-hand columns: the table draws only the columns in view
    (``textual_compat.ColumnsInView``), so the columns come into view whole as it scrolls."""
    assert snap_compare(world.app(), terminal_size=SIZE, run_before=steps("enter", "enter", *["right"] * 12))


def test_record(snap_compare: Any, world: Any) -> None:
    assert snap_compare(world.app(), terminal_size=SIZE, run_before=steps("enter", "enter", "enter"))


ANALYTICS_TABS = ("tab-domains", "tab-sources", "tab-advice", "tab-daily", "tab-failures")


@pytest.mark.parametrize("tab", ANALYTICS_TABS)
def test_analytics(snap_compare: Any, world: Any, tab: str) -> None:
    """Each tab reached as a person reaches it, with ``]`` (its footer is then the one they see: set
    from the code, a tab left the keyboard nowhere, and the footer showed only the app's keys)."""
    nexts = ["right_square_bracket"] * ANALYTICS_TABS.index(tab)
    assert snap_compare(world.app(), terminal_size=SIZE, run_before=steps("a", *nexts))


def test_empty_inbox(snap_compare: Any) -> None:
    assert snap_compare(make_world("spec", reports=0).app(), terminal_size=SIZE, run_before=steps())


def test_lost_connection(snap_compare: Any) -> None:
    world = make_world("spec", reports=5)
    world.transport.down = True
    assert snap_compare(world.app(), terminal_size=SIZE, run_before=steps())


NARROW = (80, 24)


def test_inbox_narrow(snap_compare: Any, world: Any) -> None:
    """80×24: the pass rate stays on screen, the footer keeps its important keys whole."""
    assert snap_compare(world.app(), terminal_size=NARROW, run_before=steps())


def test_report_narrow(snap_compare: Any, world: Any) -> None:
    assert snap_compare(world.app(), terminal_size=NARROW, run_before=steps("enter"))


def test_records_narrow(snap_compare: Any, world: Any) -> None:
    """80×24: the address, count, DKIM and SPF beside the menu; the columns past them cut off at the edge."""
    assert snap_compare(world.app(), terminal_size=NARROW, run_before=steps("enter", "enter"))


def test_inbox_narrow_on_the_real_server(snap_compare: Any) -> None:
    """80×24 on the stalwart profile: the sort line says arrival order, the note why, wrapped, whole."""
    made = make_world("stalwart", reports=30)
    assert snap_compare(made.app(), terminal_size=NARROW, run_before=steps())
    made.store.close()


def test_analytics_stopped_narrow(snap_compare: Any, world: Any) -> None:
    """80×24, analytics stopped by x before any report came: the status line says the whole sentence,
    "stopped: only the reports fetched so far are counted (r fetches again)" (the shell's two-line
    cap on its own status line once cut it off here)."""

    async def run(pilot: Pilot) -> None:
        await settle(pilot)
        held = HeldGets(world.transport)
        await pilot.press("a")
        await wait_until(pilot, held.started.is_set, "the first get")
        await press_handed_over(pilot, "x")
        held.released.set()
        await settle_work(pilot)

    assert snap_compare(world.app(), terminal_size=NARROW, run_before=run)
