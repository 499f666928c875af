"""``import-dmarc`` and ``export-dmarc``: report files in, record rows out.

Parsing, duplicate keys, the summary and the row writers are :mod:`jmapclient.dmarc`'s;
this module only moves the results over the wire. Reports are created in batches that
fit the session's maxObjectsInSet and maxSizeRequest. Reports already on the server
count as duplicates, like repeats within the files.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TextIO

from jmapclient import encoding
from jmapclient.cli.failures import REFUSAL_HINT, emit_error
from jmapclient.cli.filters import parse_where
from jmapclient.cli.outcome import EXIT_FAILED, EXIT_OK, out
from jmapclient.cli.progress import Progress
from jmapclient.client import JmapClient
from jmapclient.dmarc import (
    DuplicateKey,
    ImportSummary,
    ParsedFile,
    dedupe,
    export_rows,
    iter_report_files,
    load_file,
    write_csv,
    write_json,
)
from jmapclient.dmarc.upload import Uploader, existing_keys
from jmapclient.errors import LocalValidationError
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from jmapclient.paging import pages_of_objects

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


async def import_reports(args: argparse.Namespace, client: JmapClient | None) -> int:
    retain = parse_retention(args.retain)
    files = list(iter_report_files(args.paths))
    summary = ImportSummary()
    uploader: Uploader | None = None
    seen: set[DuplicateKey] = set()
    if client is not None:
        api = client.objects(DMARC_EXTERNAL_REPORT)
        uploader = await Uploader.for_api(api, summary)
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
