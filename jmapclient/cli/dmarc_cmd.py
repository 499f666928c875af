"""``import-dmarc`` and ``export-dmarc``: report files in, record rows out.

Parsing, duplicate keys, the summary and the row writers are :mod:`jmapclient.dmarc`'s;
this module only moves the results over the wire. Reports are created in batches that
fit the session's maxObjectsInSet and maxSizeRequest. Reports already on the server
count as duplicates, like repeats within the files.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TextIO

from jmapclient import encoding
from jmapclient.cli.failures import REFUSAL_HINT, emit_error, is_report_refusal, set_error_lines
from jmapclient.cli.filters import parse_where
from jmapclient.cli.outcome import EXIT_FAILED, EXIT_OK, out
from jmapclient.cli.paging import pages_of_objects
from jmapclient.cli.progress import Progress
from jmapclient.client import JmapClient
from jmapclient.dmarc import (
    DuplicateKey,
    ImportSummary,
    ParsedFile,
    dedupe,
    duplicate_key,
    export_rows,
    iter_report_files,
    load_file,
    write_csv,
    write_json,
)
from jmapclient.errors import LocalValidationError, MethodError
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from jmapclient.objects import ObjectApi

REQUEST_SIZE_SHARE = 0.8
"""Leave room in maxSizeRequest for the envelope around the create objects."""


def parse_retention(text: str) -> timedelta:
    try:
        return timedelta(milliseconds=encoding.parse_duration(text))
    except ValueError as error:
        raise LocalValidationError({"--retain": str(error)}) from None


def _loaded(files: list[Path], retain: timedelta) -> Iterator[ParsedFile]:
    now = datetime.now(UTC)
    progress = Progress.maybe(len(files), "files")
    try:
        for path in files:
            yield load_file(path, now=now, retain=retain)
            if progress:
                progress.advance()
    finally:
        if progress:
            progress.close()


async def existing_keys(api: ObjectApi) -> set[DuplicateKey]:
    keys: set[DuplicateKey] = set()
    async for page in pages_of_objects(api, None, properties=["id", "report"]):
        keys.update(duplicate_key(wire) for wire in page if isinstance(wire.get("report"), dict))
    return keys


class Uploader:
    """Collects parsed reports and creates them a batch at a time."""

    def __init__(self, api: ObjectApi, summary: ImportSummary, max_objects: int, max_bytes: int) -> None:
        self.api = api
        self.summary = summary
        self.max_objects = max_objects
        self.max_bytes = int(max_bytes * REQUEST_SIZE_SHARE)
        self.pending: list[ParsedFile] = []
        self.pending_bytes = 0
        self.refused: str | None = None
        """Set when the server refuses the creation call or report creation as such: later batches are not sent."""
        self.refused_reports = False
        """True when the refusal is the real server's policy of never creating reports."""

    async def add(self, parsed: ParsedFile) -> None:
        size = len(json.dumps(parsed.wire, separators=(",", ":")))
        if self.pending and (len(self.pending) >= self.max_objects or self.pending_bytes + size > self.max_bytes):
            await self.flush()
        self.pending.append(parsed)
        self.pending_bytes += size

    async def flush(self) -> None:
        batch, self.pending, self.pending_bytes = self.pending, [], 0
        if not batch:
            return
        if self.refused:
            self._reject(batch, self.refused)
            return
        try:
            result = await self.api.set(create={f"r{index}": item.wire for index, item in enumerate(batch)})
        except MethodError as error:
            self.refused = str(error)
            self._reject(batch, self.refused)
            return
        for key, error in result.not_created.items():
            reason = "; ".join(set_error_lines(error))
            if is_report_refusal(error):
                self.refused, self.refused_reports = reason, True
            self.summary.reject(batch[int(key[1:])].path, reason)

    def _reject(self, batch: Iterable[ParsedFile], reason: str) -> None:
        for item in batch:
            self.summary.reject(item.path, reason)


async def import_reports(args: argparse.Namespace, client: JmapClient | None) -> int:
    retain = parse_retention(args.retain)
    files = list(iter_report_files(args.paths))
    summary = ImportSummary()
    uploader: Uploader | None = None
    seen: set[DuplicateKey] = set()
    if client is not None:
        api = client.objects(DMARC_EXTERNAL_REPORT)
        session = await client.session()
        uploader = Uploader(api, summary, session.limits.max_objects_in_set, session.limits.max_size_request)
        seen = await existing_keys(api)
    for parsed in dedupe(_loaded(files, retain), seen=seen):
        summary.add(parsed)
        if uploader is not None and parsed.ok:
            await uploader.add(parsed)
    if uploader is not None:
        await uploader.flush()
    for line in summary.lines():
        out(line)
    if uploader is not None and uploader.refused:
        emit_error(uploader.refused)
        if uploader.refused_reports:
            emit_error(REFUSAL_HINT)
    if summary.rejected:
        emit_error(f"{len(summary.rejected)} of {len(files)} files were not imported")
        return EXIT_FAILED
    return EXIT_OK


async def export_records(args: argparse.Namespace, client: JmapClient) -> int:
    where = parse_where(DMARC_EXTERNAL_REPORT, args.where)
    reports = []
    async for page in pages_of_objects(client.objects(DMARC_EXTERNAL_REPORT), where):
        reports.extend(page)
    rows = list(export_rows(reports))
    writer = write_csv if args.format == "csv" else write_json
    with ExitStack() as stack:
        target: TextIO = sys.stdout
        if args.output:
            target = stack.enter_context(open(args.output, "w", newline="", encoding="utf-8"))
        written = writer(rows, target)
    where_to = f" to {args.output}" if args.output else ""
    print(f"exported {written} records from {len(reports)} reports{where_to}", file=sys.stderr)
    return EXIT_OK
