"""The cycle collector paused while a flow decodes many answers (the DMARC digest store's sync).

Fetching 10,000 reports decodes some 300,000 dicts and lists, which makes Python's cycle collector
run about 670 young passes, 60 middle ones and 5 full ones over every object of the process. In the
console (over twice a bare sync's objects: Textual, the inbox's pages) the collector took 0.58 s of
the 2.2 s of CPU of a first visit to 10,666 reports; in a bare sync 0.26 of 1.5 s. The answers are
trees freed by their reference counts; the fetch leaves little cyclic garbage (about 1,400 objects
for those 10,666 reports, collected later at once), so nothing piles up while it is paused.

Process-wide state, so the pause is counted: the collector runs again when the last pause ends,
and only if it was on when the first began (someone who runs with ``gc.disable()`` keeps it off).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_depth = 0
_turned_off = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cycle collector off within the block (a worker's ``await``s included), back as it was after."""
    global _depth, _turned_off
    if _depth == 0 and gc.isenabled():
        gc.disable()
        _turned_off = True
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0 and _turned_off:
            _turned_off = False
            gc.enable()
