"""Each hostile file becomes its own outcome, in bounded time and memory."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bench.hostile_corpus import CASES, FOUR_MB, Case, stray_ampersands, stray_tag_openings
from bench.hostile_measure import load_in_child
from jmapclient.dmarc import load_bytes, load_file
from jmapclient.dmarc.mapping import MAX_WIRE_INT
from jmapclient.models import DmarcExternalReport
from tests.support.clock import FROZEN_NOW

LIGHT = [case for case in CASES if not case.heavy]
HEAVY = [case for case in CASES if case.heavy]
PEAK_BOUND_MB = 250  # the target is ~200 MB; the bound leaves room for the interpreter's own variance
SECONDS_BOUND = 15  # generous: the slowest case (a million tiny elements) takes about 3 s


def assert_outcome(case: Case, status: str, reason: str | None) -> None:
    assert status == case.outcome, reason
    if case.outcome == "rejected":
        assert reason and case.reason in reason


@pytest.mark.parametrize("case", LIGHT, ids=lambda case: case.name)
def test_each_small_hostile_file_gets_its_outcome(case: Case, hostile_dir: Path) -> None:
    started = time.monotonic()
    result = load_file(hostile_dir / case.name, now=FROZEN_NOW)
    assert time.monotonic() - started < 2
    assert_outcome(case, result.status, result.reason)
    # Outside text is quoted cut short: one hostile value must not flood the summary.
    assert len(result.reason or "") < 400 and all(len(warning) < 400 for warning in result.warnings)
    if result.ok:
        assert result.wire is not None
        DmarcExternalReport.model_validate(result.wire)


@pytest.mark.parametrize("case", HEAVY, ids=lambda case: case.name)
def test_each_heavy_file_stays_within_time_and_memory(case: Case, hostile_dir: Path) -> None:
    measured = load_in_child(hostile_dir / case.name)
    assert_outcome(case, measured.status, measured.reason)
    assert measured.seconds < SECONDS_BOUND
    assert measured.peak_mb < PEAK_BOUND_MB


def _bait(build: Callable[[int], bytes], size: int) -> bytes:
    return build(size + 8192).replace(b"</feedback>", b"")  # broken twice over: repair and truncation


def _best_seconds(*files: bytes, runs: int = 5) -> list[float]:
    """The least CPU time of ``runs`` loads of each of ``files``, taken in turns. Wall time is whatever else the
    machine runs: two loads of each gave 9.9x once in CI (the small file's 40 ms twice disturbed), and the best of
    five 9.5x once with a console driven beside the suite, where the machine idle gives 3-4x. This thread's CPU time
    counts its own work only."""
    best = [float("inf")] * len(files)
    for _ in range(runs):
        for index, data in enumerate(files):
            started = time.thread_time()
            load_bytes(data, "bait.xml", now=FROZEN_NOW)
            best[index] = min(best[index], time.thread_time() - started)
    return best


@pytest.mark.parametrize("build", [stray_tag_openings, stray_ampersands], ids=["stray-lt", "stray-amp"])
def test_repair_bait_takes_time_in_proportion_to_its_size(build: Callable[[int], bytes]) -> None:
    # Once quadratic (minutes for 4 MB). A bound in seconds failed CI on a loaded machine (2.17 s for 2): the
    # four times larger file is measured against the smaller one in the same minutes, where linear work takes
    # 4x and quadratic 16x. bench/bench_hostile_files.py prints the seconds.
    big, small = _bait(build, FOUR_MB), _bait(build, FOUR_MB // 4)
    assert len(big) >= FOUR_MB
    result = load_bytes(big, "bait.xml", now=FROZEN_NOW)
    assert result.status in ("ok", "rejected") and (result.ok or result.reason)
    big_seconds, small_seconds = _best_seconds(big, small)
    ratio = big_seconds / small_seconds
    assert ratio < 8, f"four times the bait took {ratio:.1f} times as long"


def test_a_record_with_an_unsendable_count_is_skipped_and_the_rest_imported(hostile_dir: Path) -> None:
    result = load_file(hostile_dir / "big-count-beside-good.xml", now=FROZEN_NOW)
    assert result.ok and result.wire is not None
    counts = [r["count"] for r in result.wire["report"]["records"].values()]
    assert counts == [2] and all(c <= MAX_WIRE_INT for c in counts)
    assert any("2^53-1" in warning for warning in result.warnings)


def test_utf16_with_a_bom_reads_the_same_report_as_utf8(hostile_dir: Path) -> None:
    plain = load_file(hostile_dir / "utf-7.xml", now=FROZEN_NOW)
    for name in ("utf-16-bom.xml", "utf-16-be-bom.xml", "utf-16-no-bom.xml", "utf-32-bom.xml"):
        wide = load_file(hostile_dir / name, now=FROZEN_NOW)
        assert wide.ok and wide.wire == plain.wire, name
