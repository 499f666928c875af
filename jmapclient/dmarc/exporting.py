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

from jmapclient.config import write_private
from jmapclient.dmarc.export import export_rows, write_csv, write_json
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
    """The reports ``filter`` selects, in ``sort`` order, at most ``cap`` of them.

    A report the server sent in a shape that cannot be read is left out, with a note saying why.
    """
    pager = QueryPager(api, filter, sort, properties=EXPORT_PROPERTIES)
    fetched = FetchedReports()
    read = 0
    unreadable: list[str] = []
    async for page in pager.pages(cap=cap):
        read += len(page.items)
        for item in page.items:
            if (problem := report_problem(item)) is None:
                fetched.reports.append(item)
            else:
                unreadable.append(unreadable_note(item, problem))
        if progress:
            expected = page.total if cap is None or page.total is None else min(page.total, cap)
            progress(read, expected)
    fetched.total = pager.total
    fetched.capped = cap is not None and (pager.total or 0) > cap
    if len(unreadable) > UNREADABLE_NOTES:
        unreadable[UNREADABLE_NOTES:] = [f"{len(unreadable) - UNREADABLE_NOTES:,} more reports left out"]
    fetched.notes = [*pager.notes, *unreadable]
    return fetched


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

