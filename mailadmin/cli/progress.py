"""A one-line progress bar on stderr, shown only to a person at a terminal, and only when it helps.

A pipe or a file never gets one (stderr is no terminal): scripts and cron keep clean output.
At a terminal the bar waits :data:`SHOW_AFTER`: a quick run draws nothing, while a slow one shows
how far it got however few its items (it once needed ten files, so three large ones ran silent).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

MIN_ITEMS = 2
"""A single item's bar says nothing its end does not."""
SHOW_AFTER = 0.5
"""Seconds before the bar is first drawn: a run that ends sooner draws nothing (no flicker)."""
WIDTH = 30

Clock = Callable[[], float]


class Progress:
    def __init__(self, total: int, label: str, stream: TextIO | None = None,
                 clock: Clock = time.monotonic) -> None:
        self.total = total
        self.label = label
        self.done = 0
        self.stream = stream or sys.stderr
        self.clock = clock
        self.began = clock()
        self.drawn = False

    @classmethod
    def maybe(cls, total: int, label: str, *, stream: TextIO | None = None,
              clock: Clock = time.monotonic) -> Progress | None:
        """A bar when there is more than one item and stderr (or ``stream``) is a terminal; else None."""
        stream = stream or sys.stderr
        if total >= MIN_ITEMS and stream.isatty():
            return cls(total, label, stream, clock)
        return None

    def advance(self, step: int = 1) -> None:
        self.done = min(self.total, self.done + step)
        if not self.drawn and self.clock() - self.began < SHOW_AFTER:
            return
        self.drawn = True
        filled = WIDTH * self.done // max(self.total, 1)
        bar = "#" * filled + "-" * (WIDTH - filled)
        self.stream.write(f"\r[{bar}] {self.done}/{self.total} {self.label}")
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line, if one was drawn (the next line starts clean)."""
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
