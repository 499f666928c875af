"""The importer's parser thread hands files over in runs, in order, and a failure where it happened (issue #33).

Handing each file over alone (a thread's turn, a future, the loop woken) cost a third as much as parsing it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest

from bench.hostile_corpus import feedback
from jmapclient.dmarc import importing
from jmapclient.dmarc.importing import import_reports

NOW = datetime(2026, 3, 1, tzinfo=UTC)
FILES = 20
T = TypeVar("T")


def _files(folder: Path) -> list[Path]:
    paths = [folder / f"r{index:02}.xml" for index in range(FILES)]
    for index, path in enumerate(paths):
        path.write_bytes(feedback(report_id=f"run-{index}"))
    return paths


def _counted_thread_turns(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times the importer enters the parser's thread, and how many files each turn parsed."""
    turns: list[int] = []
    real = asyncio.to_thread

    async def counted(function: Callable[..., T], *args: Any) -> T:
        result = await real(function, *args)
        turns.append(len(result) if isinstance(result, list) else 1)
        return result

    monkeypatch.setattr(importing.asyncio, "to_thread", counted)
    return turns


async def test_the_parser_thread_hands_files_over_a_run_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _files(tmp_path)
    monkeypatch.setattr(importing, "RUN_SECONDS", 60.0)  # runs cut by count only: the same on any machine
    turns = _counted_thread_turns(monkeypatch)
    seen: list[int] = []
    outcome = await import_reports(None, [tmp_path], now=NOW, progress=lambda done, total: seen.append(done))
    assert outcome.summary.imported == paths  # every file, in order
    assert seen == list(range(FILES + 1))  # progress after each file, as before
    # The list of files is read in the thread too (one turn); then a turn a run of RUN_FILES.
    assert turns[1:] == [8, 8, 4]


async def test_a_run_ends_once_it_has_taken_its_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A large file ends its run: parsed files wait in memory until handed on, so a run of them is never held."""
    _files(tmp_path)
    monkeypatch.setattr(importing, "RUN_SECONDS", 0.0)
    turns = _counted_thread_turns(monkeypatch)
    outcome = await import_reports(None, [tmp_path], now=NOW)
    assert len(outcome.summary.imported) == FILES
    assert turns[1:] == [1] * FILES


async def test_a_file_that_fails_to_parse_is_raised_after_the_files_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _files(tmp_path)
    monkeypatch.setattr(importing, "RUN_SECONDS", 60.0)
    real = importing.load_file

    def failing(path: Path, **options: Any) -> Any:
        if path == paths[11]:
            raise MemoryError("this one file")
        return real(path, **options)

    monkeypatch.setattr(importing, "load_file", failing)
    seen: list[int] = []
    with pytest.raises(MemoryError, match="this one file"):
        await import_reports(None, [tmp_path], now=NOW, progress=lambda done, total: seen.append(done))
    assert seen == list(range(12))  # the eleven before it were handed on, in order; none after it
