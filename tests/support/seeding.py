"""Demo data for a fresh test store, seeded once per process and copied after that.

Hundreds of tests each start from the same demo data: ``seed_store`` with the same arguments
writes the same rows every time (a fixed seed and clock), so the rows are made once per test
process and every later store is a page copy of them (``Store.copy_from``), 0.2 ms instead of
the 14-40 ms of building and indexing the reports again. ``seed_store`` itself stays under
test in ``tests/stub/test_demo_data.py``; this only skips repeating it.
"""

from __future__ import annotations

from datetime import datetime

from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT
from server_stub import ranks, tallies
from server_stub.demo_data import DemoSummary, seed_store
from server_stub.store import MEMORY, Store

_SEEDED: dict[tuple[object, ...], tuple[Store, DemoSummary]] = {}
"""Stores seeded once, by everything that decides their rows."""


def _key(reports: int, directories: bool, seed: int | None, now: datetime | None) -> tuple[object, ...]:
    # Tests may narrow the tally buckets (tests/stub/test_query_paths.py) before seeding: the
    # counts stored then differ, so the settings in effect are part of what the rows depend on.
    settings = (tuple(sorted(tallies.RANK_LEVELS.items())), tallies.RANGE_LENGTHS, tallies.PREFIX_LENGTHS,
                ranks.RANGE_LENGTHS)
    return reports, directories, seed, now, settings


def seed_fresh(store: Store, *, reports: int, directories: bool = True, seed: int | None = None,
               now: datetime | None = None) -> DemoSummary:
    """``seed_store(store, ...)`` for a new in-memory store, from a copy when the same was seeded before."""
    if store.path != MEMORY or store.count(DIRECTORY) or store.count(DMARC_EXTERNAL_REPORT):
        return seed_store(store, reports=reports, directories=directories, seed=seed, now=now)
    key = _key(reports, directories, seed, now)
    if key not in _SEEDED:
        template = Store()
        _SEEDED[key] = template, seed_store(template, reports=reports, directories=directories, seed=seed, now=now)
    template, summary = _SEEDED[key]
    store.copy_from(template)
    return summary
