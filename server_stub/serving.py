"""uvicorn's server, ended by SIGTERM or SIGINT like a service: the caller's clean-up always runs.

uvicorn (0.29 and later) raises a captured signal again once it has shut down. For SIGTERM
that is the default action, which kills the process before ``mailadmin serve`` closes its
database, leaving the WAL (hundreds of MB at 100,000 reports) beside it. This server stops
gracefully on any of them and returns, so the caller checkpoints and closes the store.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

import uvicorn

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""Ctrl-C, a service manager's stop, and the terminal closing (SIGHUP) all stop it gracefully."""


_received: list[int] = []
"""Stop signals taken by :func:`_interrupt`: the server, once it takes the signals over, acts on them."""


def _interrupt(signum: int, frame: FrameType | None) -> None:
    # The KeyboardInterrupt ends the set-up where it stands, but a handler's exception can be
    # lost on the way (seen: SIGHUP sent as the tokens were printed, and the server then ran on,
    # idle with no signal pending, once in a few full test runs). The signal is kept as well.
    _received.append(signum)
    raise KeyboardInterrupt


@contextmanager
def stop_signals_interrupt() -> Iterator[None]:
    """Until the server takes the signals over (while opening, seeding, binding), a stop signal
    stops the process through ``KeyboardInterrupt``, so the caller's ``finally`` runs.

    SIGINT too, not left to Python's own handler: with that handler in place ``asyncio.run``
    puts its own, which *cancels* the server's task instead, and uvicorn's start-up may swallow
    the cancellation; the server then took the signals over with the SIGINT spent, and served on
    (a Ctrl-C ignored, seen as a test waiting 15 s on a loaded machine)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _received.clear()
    previous = {sig: signal.signal(sig, _interrupt) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        _received.clear()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


class GracefulServer(uvicorn.Server):
    @contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield  # signal handlers belong to the main thread; a threaded server is stopped by its owner
            return
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in STOP_SIGNALS}
        if _received:  # a stop signal came during the set-up, and its KeyboardInterrupt was lost
            self.handle_exit(_received[-1], None)
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
