"""The inbox's filters and sort: the fields above the list, read into a new query.

Part of :class:`tui.reports.inbox.DmarcInbox`, split out by job. A new query starts the list over at
its first page, unmarked (:meth:`tui.reports.inbox_state.InboxState.invalidate`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rich.text import Text
from textual import on
from textual.containers import Vertical
from textual.widgets import DataTable, Input, Static

from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from tui.context import ConsoleContext
from tui.reports.inbox_state import KEPT_KEY, InboxState, KeptFilters
from tui.reports.inbox_table import COLUMNS, SORTED_COLUMNS, InboxTable
from tui.reports.pager import Page
from tui.reports.query import (
    FAILED,
    PASSED,
    InboxQuery,
    QueryInputError,
    parse_comparison,
    parse_day,
    parse_day_after,
)
from tui.widgets import outside
from tui.widgets.filter_bar import Debounce, esc_clears
from tui.widgets.list_table import SortedBy, clicked

FILTERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("f-domain", ("/ policy domain",)),
    # The server's totals count records by disposition, not messages; the names say so. Each field shows the
    # longest hint that fits it (tui.widgets.filter_bar.FilterField): the example, without its "e.g." where
    # room is short, without the example where shorter still; never a phrase cut in two.
    ("f-failed", (f"{FAILED.short} e.g. >=1", f"{FAILED.short} >=1", FAILED.short)),
    ("f-passed", (f"{PASSED.short} e.g. <10", f"{PASSED.short} <10", PASSED.short)),
    ("f-before", ("expires before",)),
    ("f-after", ("expires after",)),
    ("f-tenant", ("tenant id",)),
)

NOT_FILTERED = "Not filtered by these, the list is as it was: "


class InboxFilters(Vertical):
    """Filters and sort; :class:`tui.reports.inbox.DmarcInbox` sets the state and loads and shows pages."""

    state: InboxState
    list_wants_focus: bool
    context: ConsoleContext

    @property
    def page(self) -> Page | None:
        raise NotImplementedError

    def focus_list(self) -> None:
        raise NotImplementedError

    def load_page(self, index: int, cursor: str | int = "first") -> Any:
        raise NotImplementedError

    def show_page(self, page: Page, cursor: str | int = "first") -> None:
        raise NotImplementedError

    def update_bar(self) -> None:
        raise NotImplementedError

    @property
    def typing(self) -> Debounce:
        """Applies the filters once typing in them pauses (made on first use)."""
        debounce: Debounce | None = getattr(self, "_typing", None)
        if debounce is None:
            debounce = self._typing = Debounce(self, self.apply_typed)
        return debounce

    @on(Input.Changed, "#dmarc-filters Input")
    def filter_typed(self, event: Input.Changed) -> None:
        event.stop()
        self.typing.restart()

    def apply_typed(self) -> None:
        """The filters as typed so far, applied where they differ from the list's; the keyboard stays."""
        if not self.is_attached:
            return
        query = self.read_filters()
        if query is None:
            return
        if query != self.state.query:
            self.set_query(query)
        else:
            self.update_bar()  # a problem said while typing is gone

    def clear_filter_field(self) -> bool:
        """esc in a filter field holding text: it is emptied and the list shown without it. False when
        the keyboard is in no filter field, or in an empty one (esc then goes back as before)."""
        focused = self.screen.focused
        if not isinstance(focused, Input) or focused.parent is not self.query_one("#dmarc-filters") \
                or not esc_clears(focused):
            return False
        self.typing.cancel()
        self.apply_typed()
        return True

    @on(Input.Submitted, "#dmarc-filters Input")
    def apply_filter(self) -> None:
        self.typing.cancel()
        query = self.read_filters()
        if query is None:
            return
        self.list_wants_focus = True
        self.set_query(query)
        self.focus_list()

    def read_filters(self) -> InboxQuery | None:
        """The query the filter fields ask for; None, with the problems said and marked, if one cannot be used."""
        values = {widget_id: self.query_one(f"#{widget_id}", Input) for widget_id, _ in FILTERS}
        for widget in values.values():
            widget.remove_class("-invalid")
        parsed: dict[str, Any] = {}
        problems = []
        for field, widget_id, parse in (("failed", "f-failed", parse_comparison),
                                        ("passed", "f-passed", parse_comparison),
                                        ("expires_before", "f-before", parse_day),
                                        ("expires_after", "f-after", parse_day_after)):
            try:
                parsed[field] = parse(values[widget_id].value)
            except QueryInputError as error:
                values[widget_id].add_class("-invalid")
                problems.append(str(error))
        if problems:
            # Said as a filter not used: the list under a filter row reading ">=abc" looked filtered by it.
            self.show_note(outside.message(f"{NOT_FILTERED}{'; '.join(problems)}", "bold red"))
            return None
        return replace(self.state.query, domain=values["f-domain"].value.strip(),
                       tenant=values["f-tenant"].value.strip(), **parsed)

    def set_query(self, query: InboxQuery) -> None:
        self.state.invalidate(query)
        self.load_page(0)
        # Kept for the next visit on this connection: a hop to another section and back showed the whole inbox.
        typed = {widget_id: self.query_one(f"#{widget_id}", Input).value for widget_id, _ in FILTERS}
        self.context.kept[KEPT_KEY] = KeptFilters(query, typed)

    def show_note(self, text: Text) -> None:
        """The line under the position and the sort: what the server did otherwise than asked, or why a
        filter cannot be used. Wrapped, never cut; hidden when there is nothing to say."""
        note = self.query_one("#dmarc-note", Static)
        note.update(text)
        note.display = bool(text.plain)

    def action_sort(self) -> None:
        self.set_query(self.state.query.next_sort())

    def sorted_by(self) -> SortedBy | None:
        """The column whose header shows the order: none while the server sorts by another property."""
        query = self.state.query
        if query.sort in self.state.unsortable:
            return None
        key = SORTED_COLUMNS.get(query.sort)
        return (key, not query.ascending) if key is not None else None

    @on(DataTable.HeaderSelected, "#dmarc-table")
    def sort_by_header(self, event: DataTable.HeaderSelected) -> None:
        """A click on a header the server can sort by sorts by it (newest first); again: the other way."""
        event.stop()
        column = next(c for c in COLUMNS if c.key == str(event.column_key.value))
        if not column.sort or column.sort in self.state.unsortable:
            fallback = DMARC_EXTERNAL_REPORT.sort_fallback(column.sort) if column.sort else None
            why = fallback.note if fallback is not None else f"the server cannot sort reports by {column.title}"
            self.app.notify(f"Not sorted: {why}.", severity="warning", markup=False)
            return
        _, descending = clicked(column.key, self.sorted_by(), first_descending=True)
        self.set_query(replace(self.state.query, sort=column.sort, ascending=not descending))

    def action_columns(self) -> None:
        table = self.query_one(InboxTable)
        table.show_columns(not table.wide, self.sorted_by())
        if self.page is not None:
            self.show_page(self.page, table.cursor_row)
