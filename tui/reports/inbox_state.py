"""What the inbox list shows: its query, the pager serving it, the page on screen and the marks.

No textual here. Every change that makes kept pages stale (reload, delete, import, keep
longer, a new filter or sort) goes through :meth:`InboxState.invalidate`, so no caller
pokes at the pager's cache or total itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from jmapclient.models.objects import SortFallback
from jmapclient.objects import ObjectApi
from tui.reports.pager import InboxPager, InboxRow, Page
from tui.reports.query import InboxQuery

KEPT_KEY = "dmarc-inbox"
"""The inbox's key in :attr:`tui.context.ConsoleContext.kept`."""


@dataclass(frozen=True)
class KeptFilters:
    """The inbox's query and its filter fields as typed, kept for its next visit on the same connection."""

    query: InboxQuery
    typed: dict[str, str]
    """Each filter field's text, by its id (a value not yet usable included: it is shown again, as left)."""


class InboxState:
    def __init__(self, api: ObjectApi, query: InboxQuery | None = None) -> None:
        self.api = api
        self.query = query or InboxQuery()
        self.pager = InboxPager(api, self.query)
        self.page: Page | None = None
        """The page on screen (None until the first one is shown)."""
        self.page_index = 0
        self.marked: set[str] = set()
        """Ids of the reports marked for deletion."""

    def invalidate(self, query: InboxQuery | None = None) -> None:
        """The kept pages are stale: fetch again. A new ``query`` starts over at its first page, unmarked,
        with no row to act on until that page is shown."""
        if query is None:
            self.pager.forget()
            return
        self.query = query
        self.pager = InboxPager(self.api, query, page_size=self.pager.page_size)
        self.page_index = 0
        self.marked.clear()
        # The old query's rows stay on screen until the new first page arrives, but they are no
        # longer the list: a space typed meanwhile marked one of them, and `d` then deleted a
        # report the new filter does not show.
        self.page = None

    def show(self, page: Page) -> None:
        self.page = page
        self.page_index = page.index

    @property
    def unsortable(self) -> set[str]:
        """Properties the server refused to sort reports by: the client's memory of its refusals, the one
        place that keeps them for the connection (across queries, ``r`` and visits)."""
        return {name for kind, name in self.api.client.refused_sorts if kind == self.api.type.name}

    @property
    def sort_fallback(self) -> SortFallback | None:
        """The order the server used instead of the query's, when it refused that one."""
        return next((f for f in self.pager.sort_fallbacks if f.name == self.query.sort), None)

    def sort_text(self) -> str:
        """The order the list is in, as it is: the server's fallback's when it refused the sort asked for."""
        return self.query.describe_sort(self.sort_fallback)

    @property
    def rows(self) -> list[InboxRow]:
        return self.page.rows if self.page is not None else []

    def row(self, report_id: str) -> InboxRow | None:
        return next((row for row in self.rows if row.id == report_id), None)
