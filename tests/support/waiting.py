"""Waiting in Pilot for what the console does asynchronously (workers, removals, messages).

A fixed pause before an assert is a guess about how fast the machine is: under load the
worker has not finished and the test fails, and on a quiet machine the pause is time spent
doing nothing. Tests wait for the condition itself, bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable

from textual.app import App
from textual.pilot import Pilot
from textual.worker import Worker

from tui.textual_compat import refresh_callbacks_pending


async def wait_until(pilot: Pilot, condition: Callable[[], bool], what: str, timeout: float = 30) -> None:
    """Return once ``condition()`` holds; fail naming ``what`` after ``timeout`` seconds."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


WORKERS_TIMEOUT = 5.0
QUIET_CHECKS = 2
"""How many checks in a row must find the console quiet: a handler may post once more after the first."""
SETTLE_ROUNDS = 40
"""The bound on settling: a console that never goes quiet (a clock ticking) is left after this many rounds."""


async def press_handed_over(pilot: Pilot, *keys: str) -> None:
    """Press ``keys``, then wait until the console's key path has handed them over: ``pilot.press`` returns
    with a key still waiting there while the console catches up, and a test that then let a held fetch
    end saw the fetch finish before its ``x`` stopped it (once, on a loaded machine)."""
    await pilot.press(*keys)
    await wait_until(pilot, lambda: not getattr(getattr(pilot.app, "key_path", None), "busy", False),
                     f"{' '.join(keys)} handed over")


async def settle(pilot: Pilot) -> None:
    """Let the console catch up: every message handled, every worker started meanwhile finished.

    Not a fixed pause: a round is ``pilot.pause()`` (the screen's queued messages handled, then
    the process idle), then a wait for any worker not yet waited for. The console is settled
    when ``QUIET_CHECKS`` rounds in a row find no message queued anywhere in the screen stack
    and no new worker: a burst of keys that opens a dialog, then a form, then its controls,
    takes several rounds, and a fixed pause under load was too short for it. Bounded: a worker
    a test holds on purpose (a connection kept waiting) is waited for once, for at most
    ``WORKERS_TIMEOUT``; the test's own assert then says what did not happen.
    """
    waited: set[Worker[object]] = set()
    quiet = 0
    for _ in range(SETTLE_ROUNDS):
        await pilot.pause()
        new = [worker for worker in pilot.app.workers if worker not in waited and not worker.is_finished]
        if new:
            waited.update(new)
            await _ended(new, WORKERS_TIMEOUT)
        quiet = 0 if new or _messages_queued(pilot.app) else quiet + 1
        if quiet >= QUIET_CHECKS:
            return


async def settle_work(pilot: Pilot, timeout: float = 60) -> None:
    """:func:`settle`, after every worker has ended: a long fetch (analytics' first visit on a loaded
    machine) outlasts the ``WORKERS_TIMEOUT`` settling gives a worker. For work that must end."""
    await wait_until(pilot, lambda: all(worker.is_finished for worker in pilot.app.workers),
                     "the console's work to end", timeout=timeout)
    await settle(pilot)


def _messages_queued(app: App[object]) -> bool:
    if getattr(getattr(app, "key_path", None), "busy", False):
        return True  # keys still waiting in the console's key path (tui/keyboard.py)
    if app.screen_stack and refresh_callbacks_pending(app.screen):
        # Work waiting for the next frame (Textual's tab underline is placed so): a snapshot taken
        # before it ran showed the Domains tab without its underline, once, under load.
        return True
    nodes = [app, *(node for screen in app.screen_stack for node in screen.walk_children(with_self=True))]
    return any(node.message_queue_size for node in nodes)


async def _ended(workers: Iterable[Worker[object]], timeout: float) -> None:
    # A worker the console cancelled (a view left mid-load) is a normal end, not the test's
    # failure; a worker that failed shows as the app's exception, which the test asserts on.
    waits = [worker.wait() for worker in workers]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*waits, return_exceptions=True), timeout)


async def until_listed(pilot: Pilot, rounds: int = 200) -> None:
    """Until a list of the console has rows, over real HTTP: the start, then the section's first
    load (bounded: ``rounds`` waits for the workers and 50 ms each)."""
    from textual.widgets import DataTable

    app = pilot.app
    for _ in range(rounds):
        await app.workers.wait_for_complete()
        await pilot.pause(0.05)
        if app.query(DataTable) and app.query_one(DataTable).row_count:
            return
