"""A one-line progress bar on stderr, shown only to a person at a terminal."""

from __future__ import annotations

import sys
from typing import TextIO

MIN_ITEMS = 10
"""Fewer files than this finish too fast for a bar to help."""
WIDTH = 30


class Progress:
    def __init__(self, total: int, label: str, stream: TextIO | None = None) -> None:
        self.total = total
        self.label = label
        self.done = 0
        self.stream = stream or sys.stderr

    @classmethod
    def maybe(cls, total: int, label: str) -> Progress | None:
        """A bar when there are many items and stderr is a terminal; else None."""
        if total >= MIN_ITEMS and sys.stderr.isatty():
            return cls(total, label)
        return None

    def advance(self, step: int = 1) -> None:
        self.done = min(self.total, self.done + step)
        filled = WIDTH * self.done // max(self.total, 1)
        bar = "#" * filled + "-" * (WIDTH - filled)
        self.stream.write(f"\r[{bar}] {self.done}/{self.total} {self.label}")
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")
        self.stream.flush()
