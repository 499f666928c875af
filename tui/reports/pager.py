"""The inbox, one server page at a time.

Each page is ONE request: a query and a get of its ids by result reference
(``ObjectApi.query_and_get``). Only a few pages are kept, so memory stays flat however
many reports the server holds. No textual here: the widget drives it from a worker.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from jmapclient.counted import counted
from jmapclient.dmarc.counting import iter_records, pass_messages, total_messages
from jmapclient.dmarc.wireshape import report_problem, unreadable_note
from jmapclient.models.objects import SortFallback
from jmapclient.objects import ObjectApi
from jmapclient.paging import QueryPager
from tui.reports.query import InboxQuery

PAGE_SIZE = 50
PAGES_KEPT = 5
LIST_PROPERTIES = ("id", "report", "from", "subject", "receivedAt", "expiresAt", "memberTenantId")
"""Everything but ``to``; asking for named properties also skips typed parsing of each report."""


@dataclass(frozen=True)
class InboxRow:
    """One report as the list shows it; the full report is fetched again when opened."""

    id: str
    received: str
    reporter: str
    policy_domain: str
    begin: str
    end: str
    records: int
    messages: int
    passed: int
    sender: str
    subject: str
    expires: str
    tenant: str | None
    problem: str | None = None
    """Why the report's records cannot be counted (the server sent them in a shape that cannot
    be read): the row still shows, with no figures, and opening it says what is wrong."""

    @classmethod
    def from_wire(cls, wire: Mapping[str, Any]) -> InboxRow:
        report = wire.get("report") if isinstance(wire.get("report"), Mapping) else {}
        assert isinstance(report, Mapping)
        tenant = wire.get("memberTenantId")
        problem = report_problem(wire)
        counted = problem is None
        return cls(
            id=str(wire.get("id")),
            received=str(wire.get("receivedAt") or ""),
            reporter=str(report.get("orgName") or ""),
            policy_domain=str(report.get("policyDomain") or ""),
            begin=str(report.get("dateRangeBegin") or ""),
            end=str(report.get("dateRangeEnd") or ""),
            records=sum(1 for _ in iter_records(wire)) if counted else 0,
            messages=total_messages(wire) if counted else 0,
            passed=pass_messages(wire) if counted else 0,
            sender=str(wire.get("from") or ""),
            subject=str(wire.get("subject") or ""),
            expires=str(wire.get("expiresAt") or ""),
            tenant=str(tenant) if tenant else None,
            problem=problem,
        )


@dataclass
class Page:
    index: int
    position: int
    total: int | None
    rows: list[InboxRow] = field(default_factory=list)
    narrowed: bool = False
    """The server searched words; the rows are the ones whose policy domain is the one asked for."""

    @property
    def problem_note(self) -> str:
        """Which rows' reports cannot be read: the first named with its reason, the others counted."""
        unreadable = [r for r in self.rows if r.problem]
        if not unreadable:
            return ""
        first = unreadable_note({"id": unreadable[0].id}, unreadable[0].problem or "", "has no figures")
        more = len(unreadable) - 1
        return first if not more else f"{first} (and {counted(more, 'more report')} on this page)"

    @property
    def first(self) -> int:
        """1-based number of the first row, as the position indicator shows it."""
        return self.position + 1 if self.rows else 0

    @property
    def last(self) -> int:
        return self.position + len(self.rows)


def position_text(page: Page | None) -> str:
    """``1–50 of 100,000``; ``0 of 0`` when empty; no total when the client narrowed the rows."""
    if page is None:
        return ""
    if page.narrowed:
        return f"{len(page.rows):,} on this page · total unknown"
    total = f"{page.total:,}" if page.total is not None else "?"
    if not page.rows:
        return f"0 of {total}"
    return f"{page.first:,}–{page.last:,} of {total}"


class InboxPager:
    """Pages of one query as inbox rows, the few last used kept; a new query means a new pager.

    The paging itself, and the server's sort quirks, are :class:`~jmapclient.paging.QueryPager`'s.
    """

    def __init__(self, api: ObjectApi, query: InboxQuery, *, page_size: int = PAGE_SIZE, keep: int = PAGES_KEPT):
        self.query = query
        self.page_size = page_size
        self.keep = keep
        self.total: int | None = None
        self.scanned_total: int | None = None
        """The server's total; counts word matches, not reports shown, when the rows are narrowed."""
        self._query_pages = QueryPager(
            api, query.filter(), query.sort_spec(), properties=LIST_PROPERTIES, page_size=page_size
        )
        self._pages: OrderedDict[int, Page] = OrderedDict()

    @property
    def note(self) -> str:
        """Set when the server cannot filter or sort as asked and the pager fell back."""
        return "; ".join(self._query_pages.notes)

    @property
    def sort_fallbacks(self) -> tuple[SortFallback, ...]:
        """The sorts the server refused for this query, each with the order it was sorted by instead."""
        return self._query_pages.sort_fallbacks

    @property
    def page_count(self) -> int | None:
        """Pages of the server's results: with narrowed rows, pages of its word matches."""
        if self.scanned_total is None:
            return None
        return max(1, -(-self.scanned_total // self.page_size))

    def cached(self, index: int) -> Page | None:
        page = self._pages.get(index)
        if page is not None:
            self._pages.move_to_end(index)
        return page

    def forget(self) -> None:
        """Drop the kept pages and the total: the next page fetches both afresh."""
        self.drop_pages()
        self.total = None
        self.scanned_total = None

    def drop_pages(self) -> None:
        """Drop the kept pages only: the next page is fetched, and the total still says there is one."""
        self._pages.clear()

    async def page(self, index: int) -> Page:
        """Page ``index`` (0-based), from the few kept or with one request."""
        if (page := self.cached(index)) is not None:
            return page
        got = await self._query_pages.page_at(index * self.page_size)
        self.total = got.total
        self.scanned_total = got.scanned_total if got.scanned_total is not None else got.total
        rows = [InboxRow.from_wire(w) for w in got.items]
        page = Page(index, got.position, self.total, rows, narrowed=got.narrowed)
        if not rows and index > 0 and (count := self.page_count) is not None and index >= count:
            # Past the end: reports were deleted elsewhere since the list stood here (the real server answers a
            # position past the end with no ids). The last page there is, not an empty page 14 of 13 that
            # r and the paging keys could not leave (the tester's).
            return await self.page(count - 1)
        self._pages[index] = page
        while len(self._pages) > self.keep:
            self._pages.popitem(last=False)
        return page
