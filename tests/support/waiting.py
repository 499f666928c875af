"""Waiting in Pilot for what the console does asynchronously (workers, removals, messages).

A fixed pause before an assert is a guess about how fast the machine is: under load the
worker has not finished and the test fails. Tests wait for the condition itself, bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from textual.pilot import Pilot


async def wait_until(pilot: Pilot, condition: Callable[[], bool], what: str, timeout: float = 30) -> None:
    """Return once ``condition()`` holds; fail naming ``what`` after ``timeout`` seconds."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


SETTLE = 0.3
"""The first pause of :func:`settle`: long enough for a key's messages to be handled."""
WORKERS_TIMEOUT = 5.0


async def settle(pilot: Pilot, pause: float = SETTLE) -> None:
    """Let the console catch up: a pause, then its workers (a load, a switch, a save) finished.

    Bounded: a worker a test holds on purpose (a connection kept waiting) is not waited for
    beyond ``WORKERS_TIMEOUT``; the test's own assert then says what did not happen.
    """
    await pilot.pause(pause)
    await workers_done(pilot)
    await pilot.pause()


async def workers_done(pilot: Pilot, timeout: float = WORKERS_TIMEOUT) -> None:
    """Wait, bounded, for the workers running now to end, however they end.

    A worker the console cancelled (a view left mid-load) is a normal end, not the test's
    failure; a worker that failed shows as the app's exception, which the test asserts on.
    """
    waits = [worker.wait() for worker in pilot.app.workers]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*waits, return_exceptions=True), timeout)
