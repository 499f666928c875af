"""The importer's parser thread hands files over in runs, in order, and a failure where it happened (issue #33).

Handing each file over alone (a thread's turn, a future, the loop woken) cost a third as much as parsing it.
"""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bench.hostile_corpus import feedback
from jmapclient.dmarc import importing
from jmapclient.dmarc.importing import import_reports

NOW = datetime(2026, 3, 1, tzinfo=UTC)
FILES = 20
WAIT = 30.0
"""Seconds a test waits for the parser's thread at most (it takes milliseconds)."""


def _files(folder: Path) -> list[Path]:
    paths = [folder / f"r{index:02}.xml" for index in range(FILES)]
    for index, path in enumerate(paths):
        path.write_bytes(feedback(report_id=f"run-{index}"))
    return paths


def _counted_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many files each run the parser's thread handed over held, in order."""
    runs: list[int] = []
    real = importing.parse_run

    def counted(*args: Any) -> list[importing.Parsed]:
        run = real(*args)
        runs.append(len(run))
        return run

    monkeypatch.setattr(importing, "parse_run", counted)
    return runs


async def test_the_parser_thread_hands_files_over_a_run_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _files(tmp_path)
    monkeypatch.setattr(importing, "RUN_SECONDS", 60.0)  # runs cut by count only: the same on any machine
    runs = _counted_runs(monkeypatch)
    seen: list[int] = []
    outcome = await import_reports(None, [tmp_path], now=NOW, progress=lambda done, total: seen.append(done))
    assert outcome.summary.imported == paths  # every file, in order
    assert seen == list(range(FILES + 1))  # progress after each file, as before
    assert runs == [8, 8, 4]  # a run of RUN_FILES at a time


async def test_a_run_ends_once_it_has_taken_its_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A large file ends its run: parsed files wait in memory until handed on, so a run of them is never held."""
    _files(tmp_path)
    monkeypatch.setattr(importing, "RUN_SECONDS", 0.0)
    runs = _counted_runs(monkeypatch)
    outcome = await import_reports(None, [tmp_path], now=NOW)
    assert len(outcome.summary.imported) == FILES
    assert runs == [1] * FILES


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


async def test_the_parser_parses_ahead_while_the_loop_is_busy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The thread does not wait for the loop between runs: while the loop is held up with the first file (here
    its progress step blocks it), the next runs are parsed, up to PARSED_AHEAD not yet taken. A thread's turn
    a run, started by the loop, parsed at most the one run after it meanwhile."""
    _files(tmp_path)
    monkeypatch.setattr(importing, "RUN_FILES", 1)
    runs = _counted_runs(monkeypatch)
    ahead = threading.Event()
    parsed_while_held: list[int] = []

    def parse_run(*args: Any) -> list[importing.Parsed]:
        run = real(*args)
        if len(runs) >= 1 + importing.PARSED_AHEAD:
            ahead.set()
        return run

    real = importing.parse_run
    monkeypatch.setattr(importing, "parse_run", parse_run)

    def progress(done: int, total: int) -> None:
        if done == 1:  # the loop is held here, with the first file handed on
            ahead.wait(WAIT)
            parsed_while_held.append(len(runs))

    outcome = await import_reports(None, [tmp_path], now=NOW, progress=progress)
    assert len(outcome.summary.imported) == FILES
    # The first run was taken (its room freed); PARSED_AHEAD more parsed meanwhile, and no more.
    assert parsed_while_held == [1 + importing.PARSED_AHEAD]


async def test_an_import_stopped_early_stops_its_parser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure while a file is handed on (here its progress step) ends the import, and the thread with it:
    no file after the runs already parsed is read."""
    _files(tmp_path)
    monkeypatch.setattr(importing, "RUN_FILES", 1)
    runs = _counted_runs(monkeypatch)

    def progress(done: int, total: int) -> None:
        if done == 2:
            raise RuntimeError("stopped")

    with pytest.raises(RuntimeError, match="stopped"):
        await import_reports(None, [tmp_path], now=NOW, progress=progress)
    parser = [thread for thread in threading.enumerate() if thread.name == "dmarc-parser"]
    for thread in parser:
        thread.join(WAIT)
    assert not any(thread.is_alive() for thread in parser)
    assert len(runs) <= 2 + importing.PARSED_AHEAD  # the two taken, and those parsed ahead of them


class _SlowProbe:
    """An uploader whose probe waits (bounded) until the parser has parsed a run: the server's probe answering
    only once the parser has begun. It stores nothing."""

    stored, refused, refused_reports, error, coming = 0, None, False, None, None

    def __init__(self, runs: list[int]) -> None:
        self.runs = runs
        self.parsed_during_probe = False

    async def probe(self) -> None:
        for _ in range(int(WAIT / 0.01)):
            if self.runs:
                self.parsed_during_probe = True
                return
            await asyncio.sleep(0.01)

    async def add(self, parsed: Any) -> None:
        pass

    async def flush(self) -> None:
        pass

    def cancel(self) -> None:
        pass


async def test_parsing_begins_while_the_server_is_probed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first runs are parsed while the server's limits and its refusal of reports are asked: those round trips
    no longer come before the first parse."""
    _files(tmp_path)
    runs = _counted_runs(monkeypatch)
    uploader = _SlowProbe(runs)

    async def for_api(api: Any, summary: Any) -> _SlowProbe:
        return uploader

    monkeypatch.setattr(importing.Uploader, "for_api", for_api)
    monkeypatch.setattr(importing, "StoredKeys", lambda api: None)
    outcome = await import_reports(object(), [tmp_path], now=NOW)  # type: ignore[arg-type]
    assert len(outcome.summary.imported) == FILES
    assert uploader.parsed_during_probe
