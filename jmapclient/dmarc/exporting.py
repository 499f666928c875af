"""The DMARC export flow, once, for ``mailadmin export-dmarc`` and the console's export.

The reports a filter selects are read a page at a time (:class:`~jmapclient.paging.QueryPager`),
turned into one row per record, and written as CSV or JSON. A file is created with mode
0600 and atomically: reports name the organisation's senders and their addresses.
"""

from __future__ import annotations

import errno
import io
import os
import stat
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
    if is_stream(path):
        write_stream(path, buffer.getvalue().encode())
    else:
        write_private(path, buffer.getvalue().encode(), create_parent=False)  # a path the person typed
    return count


def is_stream(path: Path) -> bool:
    """True for an existing target that is no regular file: ``/dev/null``, ``/dev/stdout``, a FIFO.

    The atomic write renames a new file over its target: run by root, ``-o /dev/null`` replaced
    the machine's ``/dev/null`` with a regular 0600 file (every other user's ``> /dev/null`` then
    failed), and ``-o /dev/full`` said "exported" having written nothing to it. Such a target is
    written into, as a shell's ``>`` would.
    """
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def write_stream(path: Path, content: bytes) -> None:
    """Write ``content`` into the device or FIFO at ``path``; OSError says why it could not.

    A disk (a block device) or a socket is refused. A FIFO is opened without waiting: with no
    reader, the export fails at once (ENXIO) instead of hanging the command or the console.
    """
    mode = path.stat().st_mode
    if stat.S_ISBLK(mode) or stat.S_ISSOCK(mode):
        raise OSError(errno.EINVAL, "it is a disk device or a socket, not a file")
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        if error.errno == errno.ENXIO and stat.S_ISFIFO(mode):
            raise OSError(errno.ENXIO, "it is a FIFO that nothing reads from") from None
        raise
    with os.fdopen(descriptor, "wb") as handle:
        os.set_blocking(descriptor, True)
        handle.write(content)
