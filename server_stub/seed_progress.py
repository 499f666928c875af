"""How far a large demo seed has got, on the terminal, before anything else can show it.

``mailadmin serve`` and ``mailadmin demo`` seed before their server answers (and the demo
before its console shows reports): 20,000 reports take seconds, which a bare "Starting…"
would leave unexplained. On a terminal the line is redrawn in place; otherwise (a log, a
pipe) a line is written per tenth, so the output stays short.
"""

from __future__ import annotations

import sys
from typing import TextIO

from server_stub.seed_sizes import SEED_BATCH, Progress

STEPS = 10


def seeding_progress(total: int, stream: TextIO | None = None) -> Progress | None:
    """A callback printing ``seeding demo reports: done/total (n%)``; None when one batch does it all."""
    if total <= SEED_BATCH:
        return None
    out = stream or sys.stderr
    interactive = out.isatty()
    shown = [-1]

    def report(done: int, asked: int) -> None:
        percent = done * 100 // max(asked, 1)
        line = f"seeding demo reports: {done:,}/{asked:,} ({percent}%)"
        if interactive:
            out.write(f"\r{line}" + ("\n" if done >= asked else ""))
        elif percent // STEPS != shown[0] or done >= asked:
            shown[0] = percent // STEPS
            out.write(line + "\n")
        out.flush()

    return report
