"""The inbox's list as shown: a page in the table, the position, sort and note lines, the error.
Part of :class:`tui.reports.inbox.DmarcInbox`, split out by job (the inbox loads the pages).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual.containers import Vertical
from textual.widgets import Static

from tui.reports.inbox_state import InboxState
from tui.reports.inbox_table import InboxTable
from tui.reports.pager import InboxPager, Page, position_text
from tui.widgets import outside

if TYPE_CHECKING:
    from tui.widgets.list_table import SortedBy


class InboxDisplay(Vertical):
    """Shows what the inbox loaded; first in :class:`tui.reports.inbox.DmarcInbox`'s bases, so the
    other parts' stubs of these methods give way to it."""

    state: InboxState

    if TYPE_CHECKING:  # provided by the inbox and its other parts (declared here for the types only)
        @property
        def pager(self) -> InboxPager: ...
        @property
        def page(self) -> Page | None: ...
        @property
        def year(self) -> int: ...
        def sorted_by(self) -> SortedBy | None: ...
        def show_note(self, text: Text) -> None: ...
        def show_permissions(self) -> None: ...

    def show_page(self, page: Page, cursor: str | int = "first") -> None:
        self.state.show(page)
        table = self.query_one(InboxTable)
        if table.sorted_by != self.sorted_by():
            table.show_columns(table.wide, self.sorted_by())
        self.query_one("#dmarc-error").display = False
        table.show_rows(page.rows, self.state.marked, self.year)
        empty = not page.rows
        shown_before, table.display = table.display, not empty
        if shown_before == empty:
            self.refresh_bindings()  # the keys that act on a highlighted report come or go (check_action)
        empty_text = self.query_one("#dmarc-empty", Static)
        empty_text.display = empty
        if empty:
            empty_text.update(
                "None of this page's word matches has that policy domain; page on, or change the filter with /."
                if page.narrowed else
                "No reports match the filter. Change it with / (empty fields match everything)."
                if self.state.query.is_filtered else
                "No DMARC reports yet. Import report files with i, or wait for reporters to send some."
            )
        elif cursor == "last":
            table.move_cursor(row=len(page.rows) - 1)
        elif isinstance(cursor, int):
            table.move_cursor(row=min(cursor, len(page.rows) - 1))
        else:
            table.move_cursor(row=0)
        self.update_bar()

    def update_bar(self) -> None:
        page = self.page
        self.update_position()
        self.query_one("#dmarc-sort", Static).update(f"sort: {self.state.sort_text()} (s)")
        notes = [self.pager.note, page.problem_note if page is not None else ""]
        self.show_note(outside.message("; ".join(n for n in notes if n)))

    def update_position(self) -> None:
        """The position line alone (what a mark changes: its count), the other lines left as they are."""
        page = self.page
        text = position_text(page)
        if page is not None and page.narrowed:
            # The page count comes from the server's word matches, not the reports shown: no "of N".
            text += f"  page {page.index + 1:,}"
        elif page is not None and self.pager.page_count:
            text += f"  page {page.index + 1:,}/{self.pager.page_count:,}"
        if self.state.marked:
            text += f"  {len(self.state.marked)} marked"
        # Its width follows its text: a layout only when that width changes, not at every mark
        # (the screen's layout took half the time of a mark).
        shown = self.query_one("#dmarc-position", Static)
        shown.update(text, layout=cell_len(text) != cell_len(str(shown.content)))

    def show_error(self, text: str) -> None:
        self.query_one(InboxTable).display = False
        self.query_one("#dmarc-empty").display = False
        self.query_one("#dmarc-error").display = True
        self.query_one("#dmarc-error-text", Static).update(outside.message(text))
        self.query_one("#dmarc-position", Static).update("")
        # The note spoke of the list, now gone ("the list is as it was" stayed over the error, the tester's).
        self.query_one("#dmarc-note").display = False
        self.show_permissions()
