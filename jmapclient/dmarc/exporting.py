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
from jmapclient.objects import ObjectApi
from jmapclient.paging import QueryPager

ExportFormat = Literal["csv", "json"]
ExportProgress = Callable[[int, int | None], None]
"""(reports read, reports to read or None when unknown): called after each page."""

EXPORT_PROPERTIES = ("id", "report")
"""All a row needs; asking for named properties also skips typed parsing of each report."""


@dataclass
class FetchedReports:
    reports: list[dict[str, Any]] = field(default_factory=list)
    total: int | None = None
    capped: bool = False
    """True when the filter selects more than the cap and only the first ``cap`` were read."""
    notes: list[str] = field(default_factory=list)
    """Set when the server could not filter or sort as asked (see :attr:`QueryPager.notes`)."""


async def fetch_reports(
    api: ObjectApi,
    filter: Mapping[str, Any] | None,
    sort: Sequence[Mapping[str, Any]] | None = None,
    *,
    cap: int | None = None,
    progress: ExportProgress | None = None,
) -> FetchedReports:
    """The reports ``filter`` selects, in ``sort`` order, at most ``cap`` of them."""
    pager = QueryPager(api, filter, sort, properties=EXPORT_PROPERTIES)
    fetched = FetchedReports()
    async for page in pager.pages(cap=cap):
        fetched.reports.extend(page.items)
        if progress:
            expected = page.total if cap is None or page.total is None else min(page.total, cap)
            progress(len(fetched.reports), expected)
    fetched.total = pager.total
    fetched.capped = cap is not None and (pager.total or 0) > cap
    fetched.notes = pager.notes
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
