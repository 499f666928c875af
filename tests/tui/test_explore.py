"""A bounded slice of the random exploration (``bench/explore.py`` is the long run).

Fixed seeds chosen so that the slice covers both stub profiles, the admin and the read-only
token, both first sections, hostile report and directory text and a 60×20 terminal (the
world each seed draws is checked below, so a change to the engine cannot quietly narrow it).
The whole slice stays under a minute; a crash fails with its seed and a replayable sequence.
"""

from __future__ import annotations

import time

from bench.explore_engine import Episode, binding_keys, explore

SEEDS = [2, 5, 6, 10, 11, 23]
STEPS = 40
BUDGET_S = 55.0


def test_the_seeds_cover_every_kind_of_world() -> None:
    worlds = [Episode.from_seed(seed, STEPS, ("a",)).world for seed in SEEDS]
    assert {w.profile for w in worlds} == {"spec", "stalwart"}
    assert {w.read_only for w in worlds} == {True, False}
    assert {w.section for w in worlds} == {"directories", "dmarc"}
    assert any(w.hostile for w in worlds) and any(w.size == (60, 20) for w in worlds)


def test_the_keys_come_from_the_bindings() -> None:
    keys = binding_keys()
    for key in ("colon", "ctrl+o", "ctrl+n", "slash", "question_mark", "n", "d", "i", "x", "e", "a", "s"):
        assert key in keys


async def test_exploration_slice_finds_no_crash() -> None:
    started = time.monotonic()
    report = await explore(SEEDS, STEPS, BUDGET_S)
    elapsed = time.monotonic() - started
    found = "\n\n".join(f"{name}\n{crash.episode.replay()}\n{crash.text}" for name, crash in report.crashes.items())
    assert not report.crashes, f"{len(report.crashes)} crash(es) after {report.steps} steps:\n{found}"
    assert report.steps >= STEPS * 2  # it really drove the console
    assert elapsed < 90
