"""The DMARC import flow, once, for ``mailadmin import-dmarc`` and the console's import.

Files are listed; one probe asks whether the server accepts reports at all (the real
server never does) before anything is read from it; each file is parsed, repeats and
reports the server already holds count as duplicates, and the rest are created in batches within the server's limits
(:class:`~jmapclient.dmarc.upload.Uploader`). Progress is reported through a callback,
so the CLI draws its bar and the console its widget; the outcome carries the summary.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from os import PathLike
from pathlib import Path

from jmapclient.collector import collector_paused
from jmapclient.compact_json import compact_json
from jmapclient.dmarc.batch import DuplicateKey, Earlier, ImportSummary, as_duplicate, dedupe, said_otherwise
from jmapclient.dmarc.folders import iter_report_files
from jmapclient.dmarc.loader import ParsedFile, load_file
from jmapclient.dmarc.parser_thread import Parsed, ParserThread
from jmapclient.dmarc.retention import DEFAULT_RETENTION, check_retention
from jmapclient.dmarc.upload import HELD_OTHER, HELD_SAME, StoredKeys, Uploader
from jmapclient.errors import MethodError
from jmapclient.objects import ObjectApi

ImportProgress = Callable[[int, int], None]
"""(files done, files in all): called once before the first file, then after each."""


@dataclass
class ImportOutcome:
    summary: ImportSummary = field(default_factory=ImportSummary)
    files: int = 0
    capped: bool = False
    """True when only the first ``file_cap`` files were read."""
    refused: str | None = None
    """The server's refusal that stopped the uploads; the files after it are rejected with it."""
    refused_reports: bool = False
    """True when the refusal is the real server's rule of never creating reports."""
    error: MethodError | None = None
    """The method error behind ``refused`` (e.g. ``forbidden``), for callers that learn from it."""
    stored: int | None = None
    """Reports the server said it created (None for a dry run): set as the import ends or is stopped."""

    def lines(self, *, dry_run: bool = False) -> list[str]:
        """The summary's lines, where a file the refusal stopped says so without its words: the caller says
        ``refused`` once, beside them (the CLI as its error, the console above the list)."""
        return self.summary.lines(dry_run=dry_run, said_apart=self.refused)


def list_report_files(paths: Iterable[str | PathLike[str]], cap: int | None = None) -> list[Path]:
    """The files under ``paths`` (directories expanded, sorted), the first ``cap`` when given."""
    return list(itertools.islice(iter_report_files(paths), cap))


async def import_reports(
    api: ObjectApi | None,
    paths: Sequence[str | PathLike[str]],
    *,
    now: datetime,
    retain: timedelta = DEFAULT_RETENTION,
    file_cap: int | None = None,
    progress: ImportProgress | None = None,
    outcome: ImportOutcome | None = None,
) -> ImportOutcome:
    """Import the report files under ``paths``; ``api`` None parses only (a dry run).

    A retention that is not in the future raises ValueError before anything is read.
    A :class:`~jmapclient.errors.JmapError` before the first upload (reading the
    session or the reports already held) propagates; later refusals land in the outcome.
    ``outcome``, when given, is filled as the import goes: a caller stopped midway (Ctrl-C)
    still says what was done.
    """
    check_retention(retain)
    with collector_paused():  # see YOUNG_PASS_FILES
        return await _import(api, paths, now=now, retain=retain, file_cap=file_cap, progress=progress,
                             outcome=ImportOutcome() if outcome is None else outcome)


async def _import(api: ObjectApi | None, paths: Sequence[str | PathLike[str]], *, now: datetime, retain: timedelta,
                  file_cap: int | None, progress: ImportProgress | None, outcome: ImportOutcome) -> ImportOutcome:
    listed = await asyncio.to_thread(list_report_files, paths, None if file_cap is None else file_cap + 1)
    files = listed[:file_cap] if file_cap is not None else listed
    outcome.files, outcome.capped = len(files), len(listed) > len(files)
    taker = _Taker(outcome.summary)
    # Parsing starts at once: the first runs are parsed while the server is asked for its limits and probed.
    parser = ParserThread(files, lambda run: parse_run(run, now, retain), run_files=RUN_FILES,
                          ahead=PARSED_AHEAD).start()
    try:
        if api is not None:
            taker.uploader = uploader = await Uploader.for_api(api, outcome.summary)
            await uploader.probe()
            if uploader.refused is None:  # only a server that takes reports is worth asking about duplicates
                taker.stored = StoredKeys(api)
        if progress:
            progress(0, len(files))
        await _read_all(files, parser, taker, progress=progress)
        if taker.uploader is not None:
            await taker.uploader.flush()
    finally:
        parser.stop()  # stopped early: the files after this one are not read
        if taker.uploader is not None:
            taker.uploader.cancel()  # stopped early: no batch goes on in the background
            # Said also when stopped midway (Ctrl-C): what was stored, and whether the server refused.
            outcome.stored, outcome.refused, outcome.refused_reports, outcome.error = (
                taker.uploader.stored, taker.uploader.refused, taker.uploader.refused_reports, taker.uploader.error
            )
    return outcome


YOUNG_PASS_FILES = 256
"""The cycle collector rests during an import (the listing too), as during a sync (``jmapclient.collector``),
and only what was made since the last such pass is looked at, once every this many files. A parse leaves no
cyclic garbage (its trees are freed by their reference counts), the requests a little (about 900 objects in
a 1,000-file import). The collector's own passes, moving the listed paths and a batch's pending reports on
to be looked at again and again, then over the whole heap, took about 50 µs a file, a fifth of the client's
CPU beyond parsing. A pass every 256 files keeps what could pile up bounded, however many files there are."""

PARSED_AHEAD = 3
"""Runs of files parsed and not yet handed on (the one being parsed among them): while a file waits for its
duplicate check or for a free request, the next ones parse, so the parser never waits for the server. Few:
each parsed file is held in memory until it is handed on."""

RUN_FILES = 8
RUN_SECONDS = 0.005
"""A run of files parsed in one go in the parser's thread: at most this many, and the run ends once it has taken
this long (a large file ends it, so a run of large files is never held at once). Handing each file over
alone (a thread's turn, a future, the loop woken) cost a third as much as parsing it; a run shares that."""


def parse_for_upload(path: Path, now: datetime, retain: timedelta) -> ParsedFile:
    """One file parsed, its report encoded as the upload's request carries it (``encoded``), in the parser's
    thread: the uploader then measures, checks and sends those bytes, where it encoded the report three times.

    A report JSON cannot carry (NaN, infinity) stays without ``encoded``: the uploader refuses it, as before.
    """
    parsed = load_file(path, now=now, retain=retain)
    if parsed.ok and parsed.wire is not None:
        # A ValueError (NaN) leaves it unencoded. wire_json's bytes (ASCII-safe, no NaN), written faster: a
        # report has nothing spliced into it. Set on the result just made, which no one else holds: a copy
        # by ``replace`` cost 1.6 µs a file.
        with contextlib.suppress(ValueError):
            parsed.encoded = compact_json(parsed.wire, ensure_ascii=True, allow_nan=False)
    return parsed


def parse_run(paths: Sequence[Path], now: datetime, retain: timedelta) -> list[Parsed]:
    """The first of ``paths`` parsed one after the other (at least one; :data:`RUN_FILES` and :data:`RUN_SECONDS`
    at most), ending at the first that raises, which is handed on in its place."""
    began = time.monotonic()
    run: list[Parsed] = []
    for path in paths[:RUN_FILES]:
        try:
            run.append(parse_for_upload(path, now, retain))
        except Exception as error:
            run.append(error)
            break
        if time.monotonic() - began >= RUN_SECONDS:
            break
    return run


async def _read_all(files: Sequence[Path], parser: ParserThread, taker: _Taker, *,
                    progress: ImportProgress | None) -> None:
    """Hand on each file as ``parser`` parsed it (in its thread, ahead of the one handed on, while earlier batches
    upload)."""
    # A copy that needed XML recovery may have lost content: it waits until every file
    # is read, so a clean copy of the same report wins whatever the file order.
    recovered: list[ParsedFile] = []
    done = 0
    while done < len(files):  # every run holds at least one file
        for parsed in await parser.next_run():
            if isinstance(parsed, BaseException):
                raise parsed
            done += 1
            if done % YOUNG_PASS_FILES == 0:
                gc.collect(1)  # the young generations only: what was made since the last pass
            if parsed.ok and parsed.recovered:
                recovered.append(parsed)
            else:
                await taker.take(parsed, coming=len(files) - done + len(recovered))
            if progress:
                progress(done, len(files))
    parser.stop()
    for index, parsed in enumerate(recovered, 1):
        await taker.take(parsed, coming=len(recovered) - index)


@dataclass
class _Taker:
    """Where each parsed file goes: repeats and reports the server holds become duplicates, the rest uploads."""

    summary: ImportSummary
    uploader: Uploader | None = None
    stored: StoredKeys | None = None
    seen: set[DuplicateKey] = field(default_factory=set)
    earlier: Earlier = field(default_factory=dict)

    async def take(self, parsed: ParsedFile, *, coming: int | None = None) -> None:
        """``coming``: how many files are still to come after this one (the uploader's last batches shrink)."""
        if self.uploader is not None:
            self.uploader.coming = coming
        for result in dedupe([parsed], seen=self.seen, earlier=self.earlier):
            if result.ok and result.wire is not None and self.stored:
                held = await self.stored.held(result.wire, by_totals=not result.recovered, repaired=result.recovered)
                if held == HELD_SAME:
                    result = as_duplicate(result)
                elif held == HELD_OTHER:  # stored beside it, and said, as a copy in this import is
                    result = said_otherwise(result, "a report the server holds")
            self.summary.add(result)
            if self.uploader is not None and result.ok:
                await self.uploader.add(result)
