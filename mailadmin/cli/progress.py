"""Progress on stderr, shown only to a person at a terminal, and only when it helps: a one-line bar
(:class:`Progress`) for a count of items, and a running line (:class:`RunningLine`) for a wait that
has no count (a step on a silent server).

A pipe or a file never gets either (stderr is no terminal): scripts and cron keep clean output.
At a terminal both wait :data:`SHOW_AFTER`: a quick run draws nothing, while a slow one shows
how far it got however few its items (it once needed ten files, so three large ones ran silent).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import TextIO

from jmapclient.display import safe_text

MIN_ITEMS = 2
"""A single item's bar says nothing its end does not."""
SHOW_AFTER = 0.5
"""Seconds before the bar is first drawn: a run that ends sooner draws nothing (no flicker)."""
WIDTH = 30
TICK = 0.25
"""Seconds between two looks at what a running line says: its seconds change once a second, so a quarter
of one keeps it on time (the console's running line ticks alike)."""
CLEAR_TO_END = "\x1b[K"
"""Erases from the cursor to the end of the line: a shorter text leaves nothing of a longer one behind."""
FALLBACK_COLUMNS = 80

Clock = Callable[[], float]
Paused = Callable[[], AbstractContextManager[None]]
"""``with paused():`` the running line is erased, and stays so, while the block asks or tells the person."""


def at_terminal(stream: TextIO | None) -> TextIO | None:
    """``stream`` (stderr when None) if a person reads it at a terminal; None for a pipe or a file."""
    chosen = stream or sys.stderr
    return chosen if chosen.isatty() else None


class _Delayed:
    """What a bar and a running line share: the stream, and the :data:`SHOW_AFTER` wait before the first draw."""

    def __init__(self, stream: TextIO, clock: Clock) -> None:
        self.stream = stream
        self.clock = clock
        self.began = clock()
        self.drawn = False

    def due(self) -> bool:
        """Whether to draw now: once drawn, always; before, only after :data:`SHOW_AFTER`."""
        return self.drawn or self.clock() - self.began >= SHOW_AFTER

    def write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()


class Progress(_Delayed):
    def __init__(self, total: int, label: str, stream: TextIO | None = None,
                 clock: Clock = time.monotonic) -> None:
        super().__init__(stream or sys.stderr, clock)
        self.total = total
        self.label = label
        self.done = 0

    @classmethod
    def maybe(cls, total: int, label: str, *, stream: TextIO | None = None,
              clock: Clock = time.monotonic) -> Progress | None:
        """A bar when there is more than one item and stderr (or ``stream``) is a terminal; else None."""
        terminal = at_terminal(stream)
        if total >= MIN_ITEMS and terminal is not None:
            return cls(total, label, terminal, clock)
        return None

    def advance(self, step: int = 1) -> None:
        self.done = min(self.total, self.done + step)
        if not self.due():
            return
        self.drawn = True
        filled = WIDTH * self.done // max(self.total, 1)
        bar = "#" * filled + "-" * (WIDTH - filled)
        self.write(f"\r[{bar}] {self.done}/{self.total} {self.label}")

    def close(self) -> None:
        """End the bar's line, if one was drawn (the next line starts clean)."""
        if self.drawn:
            self.write("\n")


class RunningLine(_Delayed):
    """One line saying what a long wait is doing (``say(seconds so far)``), redrawn in place when its text
    changes, erased (not ended: no empty line is left) before anything else is written.

    :meth:`tick` may come from another thread than :meth:`paused` and :meth:`erase`: a lock keeps a redraw
    from landing between a prompt's erase and its question.
    """

    def __init__(self, say: Callable[[float], str], stream: TextIO, clock: Clock = time.monotonic) -> None:
        super().__init__(stream, clock)
        self.say = say
        self.shown = ""
        """The text on the terminal now; empty when none is."""
        self.held = 0
        """How many ``paused`` blocks are open: none is drawn while one is."""
        self.lock = threading.Lock()

    @classmethod
    def maybe(cls, say: Callable[[float], str], *, stream: TextIO | None = None,
              clock: Clock = time.monotonic) -> RunningLine | None:
        """A running line when stderr (or ``stream``) is a terminal; else None."""
        terminal = at_terminal(stream)
        return cls(say, terminal, clock) if terminal is not None else None

    def tick(self) -> None:
        """Draw what ``say`` says now, if it is time to and it differs from what is shown."""
        with self.lock:
            if self.held or not self.due():
                return
            text = safe_text(self.say(self.clock() - self.began), max_len=self._columns() - 1)
            if text != self.shown:
                self.write(f"\r{text}{CLEAR_TO_END}")
                self.shown, self.drawn = text, True

    def erase(self) -> None:
        """Clear the line, if one is shown: the cursor is back at its start, for whatever comes next."""
        with self.lock:
            self._erase()

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """The line erased for the block (a prompt, a warning); the next tick after it draws it again.

        The block's time is not the wait's: the seconds said leave it out (a person who typed a secret for
        twenty seconds is not told the server has been silent for twenty)."""
        with self.lock:
            self._erase()
            self.held += 1
        since = self.clock()
        try:
            yield
        finally:
            with self.lock:
                self.held -= 1
                if not self.held:  # the outermost pause's span holds the inner ones': counted once
                    self.began += self.clock() - since

    def close(self) -> None:
        """Erase the line for good: a tick still under way in another thread draws nothing after this."""
        with self.lock:
            self._erase()
            self.held += 1

    def _erase(self) -> None:
        if self.shown:
            self.write(f"\r{CLEAR_TO_END}")
            self.shown = ""

    def _columns(self) -> int:
        """The terminal's width: a text wider than it would wrap, and ``\\r`` returns to its last row only."""
        try:
            return os.get_terminal_size(self.stream.fileno()).columns or FALLBACK_COLUMNS
        except (OSError, ValueError, AttributeError):  # no descriptor (a test's stream), or not a terminal's
            return FALLBACK_COLUMNS

    def keep_drawn(self, stop: threading.Event, every: float = TICK) -> None:
        """Tick every ``every`` seconds until ``stop`` is set (a drawing thread's whole work)."""
        while not stop.wait(every):
            self.tick()


@contextlib.contextmanager
def running_line_shown(say: Callable[[float], str], *, stream: TextIO | None = None) -> Iterator[Paused]:
    """A :class:`RunningLine` kept drawn by a daemon thread while the block runs, erased as it ends however it
    ends (an answer, an error, Ctrl-C). Yields how to pause it; at no terminal, a pause that does nothing.

    The block (the work, its prompts, Ctrl-C) stays in the caller's thread: only the drawing moves out.
    """
    line = RunningLine.maybe(say, stream=stream)
    if line is None:
        yield contextlib.nullcontext
        return
    stop = threading.Event()
    drawer = threading.Thread(target=line.keep_drawn, args=(stop,), name="running-line", daemon=True)
    drawer.start()
    try:
        yield line.paused
    finally:
        line.close()
        stop.set()
        drawer.join(timeout=1.0)  # bounded: a tick takes microseconds, and a daemon never holds the exit anyway
