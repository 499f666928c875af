"""The DMARC export flow, once, for ``mailadmin export-dmarc`` and the console's export.

The reports a filter selects are read a page at a time (:class:`~jmapclient.paging.QueryPager`),
turned into one row per record, and written as CSV or JSON. A file is created with mode
0600 and atomically: reports name the organisation's senders and their addresses.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

from jmapclient.config import open_private, write_private
from jmapclient.dmarc.export import CsvRows, JsonRows, export_rows, write_csv, write_json
from jmapclient.dmarc.wireshape import report_problem, unreadable_note
from jmapclient.objects import ObjectApi
from jmapclient.paging import QueryPager

ExportFormat = Literal["csv", "json"]
ExportProgress = Callable[[int, int | None], None]
"""(reports read, reports to read or None when unknown): called after each page."""

EXPORT_PROPERTIES = ("id", "report")
"""All a row needs; asking for named properties also skips typed parsing of each report."""
UNREADABLE_NOTES = 20
"""Reports left out that are named one by one; past them, a count (a lying server may send many)."""


@dataclass
class FetchedReports:
    reports: list[dict[str, Any]] = field(default_factory=list)
    total: int | None = None
    capped: bool = False
    """True when the filter selects more than the cap and only the first ``cap`` were read."""
    notes: list[str] = field(default_factory=list)
    """Set when the server could not filter or sort as asked (see :attr:`QueryPager.notes`), and
    one per report left out because its shape cannot be read (the rest are exported)."""


async def fetch_reports(
    api: ObjectApi,
    filter: Mapping[str, Any] | None,
    sort: Sequence[Mapping[str, Any]] | None = None,
    *,
    cap: int | None = None,
    progress: ExportProgress | None = None,
) -> FetchedReports:
    """The reports ``filter`` selects, in ``sort`` order, at most ``cap`` of them, all kept.

    A report the server sent in a shape that cannot be read is left out, with a note saying why.
    """
    fetched = FetchedReports()
    await _read_pages(api, filter, sort, cap, progress, fetched, fetched.reports.extend)
    return fetched


async def _read_pages(
    api: ObjectApi,
    filter: Mapping[str, Any] | None,
    sort: Sequence[Mapping[str, Any]] | None,
    cap: int | None,
    progress: ExportProgress | None,
    fetched: FetchedReports,
    take: Callable[[list[dict[str, Any]]], object],
) -> int:
    """Hand each page's readable reports to ``take`` as it comes (none kept here); the reports read."""
    pager = QueryPager(api, filter, sort, properties=EXPORT_PROPERTIES)
    read = readable = 0
    unreadable: list[str] = []
    async for page in pager.pages(cap=cap):
        read += len(page.items)
        reports = []
        for item in page.items:
            if (problem := report_problem(item)) is None:
                reports.append(item)
            else:
                unreadable.append(unreadable_note(item, problem))
        readable += len(reports)
        take(reports)
        if progress:
            expected = page.total if cap is None or page.total is None else min(page.total, cap)
            progress(read, expected)
    fetched.total = pager.total
    fetched.capped = cap is not None and (pager.total or 0) > cap
    if len(unreadable) > UNREADABLE_NOTES:
        unreadable[UNREADABLE_NOTES:] = [f"{len(unreadable) - UNREADABLE_NOTES:,} more reports left out"]
    fetched.notes = [*pager.notes, *unreadable]
    return readable


@dataclass
class Exported(FetchedReports):
    """What :func:`export_reports` wrote: ``reports`` stays empty, the counts say how many."""

    report_count: int = 0
    rows: int = 0


async def export_reports(
    api: ObjectApi,
    filter: Mapping[str, Any] | None,
    sort: Sequence[Mapping[str, Any]] | None,
    format: ExportFormat,
    *,
    path: Path | None = None,
    out: TextIO | None = None,
    cap: int | None = None,
    progress: ExportProgress | None = None,
) -> Exported:
    """Write one row per record of the reports ``filter`` selects, page by page as they are read.

    Into ``path`` (created 0600, replacing it only once all is written) or into ``out``. Memory
    stays that of a page, whatever the number of reports (an export of 100,000 held them all).
    """
    exported = Exported()

    async def write(into: TextIO) -> None:
        writer = JsonRows(into) if format == "json" else CsvRows(into)
        exported.report_count = await _read_pages(
            api, filter, sort, cap, progress, exported, lambda reports: writer.write(export_rows(reports)))
        exported.rows = writer.close()
        into.flush()

    if path is None:
        assert out is not None, "a path or a stream to write to"
        await write(out)
        return exported
    with open_private(path, create_parent=False) as raw:  # a path the person typed
        text = io.TextIOWrapper(raw, encoding="utf-8", newline="")
        try:
            await write(text)
        finally:
            text.detach()  # the file is open_private's to close and put in place
    return exported


def write_reports(reports: Sequence[Mapping[str, Any]], format: ExportFormat, out: TextIO) -> int:
    """Write one row per record to ``out`` (opened with newline=""); return the number of rows."""
    writer = write_json if format == "json" else write_csv
    return writer(export_rows(reports), out)


def save_reports(reports: Sequence[Mapping[str, Any]], format: ExportFormat, path: Path) -> int:
    """Write the rows to ``path``, created 0600 and replaced atomically; return the number of rows."""
    buffer = io.StringIO(newline="")
    count = write_reports(reports, format, buffer)
    write_private(path, buffer.getvalue().encode(), create_parent=False)  # a path the person typed
    return count
