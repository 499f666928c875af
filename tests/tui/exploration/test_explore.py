"""A bounded slice of the random exploration (``bench/explore.py`` is the long run).

Fixed seeds chosen so that the slice covers both stub profiles, the admin and the read-only
token, both first sections, hostile report and directory text and a 60×20 terminal (the
world each seed draws is checked below, so a change to the engine cannot quietly narrow it).
Each seed is one test and stays well under a minute; a crash fails with its seed and a replayable sequence.
"""

from __future__ import annotations

import time

import pytest

from bench.explore_engine import Episode, Step, World, binding_keys, explore, run_episode

SEEDS = [2, 5, 6, 10, 11, 23]
STEPS = 40
BUDGET_S = 55.0
MIN_STEPS = 5
"""Steps an episode must have run: seed 2 presses ctrl+q, which ends it, at its 13th of 40."""


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


@pytest.mark.parametrize("seed", SEEDS)
async def test_exploration_slice_finds_no_crash(seed: int) -> None:
    # One test per seed, so that parallel workers share the slice instead of one running it all.
    started = time.monotonic()
    report = await explore([seed], STEPS, BUDGET_S)
    elapsed = time.monotonic() - started
    found = "\n\n".join(f"{name}\n{crash.episode.replay()}\n{crash.text}" for name, crash in report.crashes.items())
    assert not report.crashes, f"{len(report.crashes)} crash(es) after {report.steps} steps:\n{found}"
    assert report.steps >= MIN_STEPS  # it really drove the console (an episode may end by quitting)
    assert elapsed < 90


# Crashes a 20-minute exploration found on a loaded machine, shrunk to their few steps; each
# crashed 5 runs of 5 before its fix and none after.
FOUND = {
    # The palette's "Go to" ran a section switch, and ctrl+q arrived while it was under way:
    # the switch mounted the new section into a shell already taken down (MountError).
    "quit-during-a-palette-switch": Episode(
        seed=70011, world=World(profile="stalwart", section="dmarc", reports=3, size=(100, 30)), steps=(
            Step("burst", ("f", "f1", "down", "ctrl+home", "ctrl+shift+left", "i")),
            Step("press", ("ctrl+p",)),
            Step("burst", ("up", "up", "enter", "ctrl+y")),
            Step("burst", ("backspace", "ctrl+d", "left", "ctrl+end")),
            Step("press", ("ctrl+q",)),
        )),
    # A palette taken down before it mounted: Textual's mount read the screen under it (IndexError).
    "palette-taken-down-before-it-mounted": Episode(
        seed=70081, world=World(profile="spec", section="dmarc", reports=0, size=(200, 50)), steps=(
            Step("burst", ("o", "ctrl+e", "ctrl+p", "f6", "ctrl+z")),
            Step("resize", (200, 50)),
            Step("burst", ("enter", "ctrl+s", "a", "ctrl+p")),
            Step("type", ("2026-12-31",)),
            Step("press", ("ctrl+p",)),
        )),
}


@pytest.mark.parametrize("name", list(FOUND))
async def test_the_crashes_found_by_exploring_stay_fixed(name: str) -> None:
    outcome = await run_episode(FOUND[name])
    assert outcome.crash is None, outcome.crash.text


def test_episodes_use_the_mouse_paste_and_resize() -> None:
    # The explorer pressed keys, clicked and resized; a wider exploration found what it missed
    # with double clicks, wheel scrolls, pastes (huge ones, hostile paths).
    kinds = {step.kind for seed in range(40) for step in Episode.from_seed(seed, 60, ("a",)).steps}
    assert {"press", "burst", "type", "click", "double", "scroll", "paste", "resize"} <= kinds
    pasted = {step.args[0] for seed in range(200) for step in Episode.from_seed(seed, 60, ("a",)).steps
              if step.kind == "paste"}
    assert "~nosuchuser/x.csv" in pasted and any(len(text) > 10_000 for text in pasted)


def test_the_explorer_runs_as_a_script() -> None:
    # `python bench/explore.py --help` failed: `bench` was no module when run as a script.
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[3] / "bench" / "explore.py"
    done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=60,
                          check=False, cwd="/")
    assert done.returncode == 0 and "--minutes" in done.stdout
