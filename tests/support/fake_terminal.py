"""A stream that says it is a terminal, and a clock a test moves: for what is drawn only at a terminal, and only
once a wait has lasted (mailadmin.cli.progress)."""

from __future__ import annotations

import io


class TtyStream(io.StringIO):
    """Text written to it is kept (``getvalue``), as a terminal would receive it."""

    def isatty(self) -> bool:
        return True


class Clock:
    """``now`` moves only when the test moves it."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now
