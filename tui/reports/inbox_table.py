"""The inbox's table: which columns it shows, how a report becomes a row, and paging at its edges."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets.data_table import ColumnKey, RowKey

from jmapclient.display import domain_text, name_text
from jmapclient.dmarc.analytics import format_rate, pass_rate
from jmapclient.models.dmarc import DmarcExternalReport, DmarcReport, DmarcReportRecord
from tui.reports import fmt
from tui.reports.detail import label
from tui.reports.pager import InboxRow
from tui.textual_compat import replace_cell_quietly
from tui.widgets.list_table import ListTable, SortedBy, sort_label
from tui.widgets.outside import cell


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    views: str = "figures mail"
    """The views that show the column: ``figures`` (the default) and ``mail`` (c toggles it),
    which trades the figures for From, Subject and Expires: all do not fit beside a menu."""
    sort: str = ""
    """The report property the server sorts the column by; "" when it cannot sort by it."""


def _columns() -> tuple[Column, ...]:
    report = DmarcExternalReport
    return (
        # What a person scans for comes first: at 80 columns, beside the menu, the main area
        # holds about 59 cells, and the columns past them are cut off.
        Column("received", label(report, "receivedAt"), sort="receivedAt"),
        Column("domain", label(DmarcReport, "policyDomain")),
        # Computed here from messages: apart from the server's record totals the filters use.
        Column("pass", "Msg pass %", "figures"),
        Column("messages", label(DmarcReportRecord, "count"), "figures"),
        Column("reporter", label(DmarcReport, "orgName"), "figures"),
        Column("period", "Period", "figures"),
        Column("records", label(DmarcReport, "records"), "figures"),
        Column("from", label(report, "from"), "mail"),
        Column("subject", label(report, "subject"), "mail"),
        Column("expires", label(report, "expiresAt"), "mail", sort="expiresAt"),
    )


COLUMNS = _columns()
SORTED_COLUMNS = {c.sort: c.key for c in COLUMNS if c.sort}
"""The column of each property the list can be sorted by."""
REPORTER_WIDTH = 16
DOMAIN_WIDTH = 18
SUBJECT_WIDTH = 60
MARK = "●"
UNCOUNTED = Text("?", justify="right")
"""The figures of a report whose records cannot be read (the note above the list says why)."""


def row_cells(row: InboxRow, marked: bool, wide: bool, year: int) -> list[Any]:
    rate = pass_rate(row.passed, row.messages)
    cells: dict[str, Any] = {
        # The mark rides in the first cell: a column of its own costs width the 94-column main area lacks.
        "received": f"{MARK if marked else ' '}{fmt.when_short(row.received, year)}",
        "reporter": fmt.clip(name_text(row.reporter), REPORTER_WIDTH),
        "domain": fmt.clip(domain_text(row.policy_domain), DOMAIN_WIDTH),
        "period": fmt.period(row.begin, row.end, year),
        "records": Text(fmt.figure(row.records), justify="right"),
        "messages": Text(fmt.figure(row.messages), justify="right"),
        "pass": Text(format_rate(rate), style=fmt.rate_style(rate), justify="right"),
        **({"records": UNCOUNTED, "messages": UNCOUNTED} if row.problem else {}),
        "from": row.sender,
        "subject": fmt.clip(row.subject, SUBJECT_WIDTH),
        "expires": fmt.day(row.expires),
    }
    return [cells[c.key] for c in visible_columns(wide)]


def visible_columns(wide: bool) -> list[Column]:
    view = "mail" if wide else "figures"
    return [c for c in COLUMNS if view in c.views.split()]


class InboxTable(ListTable):
    """A page of the inbox; at its edges it asks for the neighbouring page.

    j/k/g/G come from :class:`ListTable`; here g and G go to the first and last page.
    """

    BINDINGS: ClassVar = [
        Binding("pagedown,n", "page_down", "Next page", show=False, id="dmarc.next_page"),
        Binding("pageup,p", "page_up", "Previous page", show=False, id="dmarc.previous_page"),
    ]

    class Turn(Message):
        """Load another page: ``step`` pages on (±1), or ``to`` = "first"/"last"."""

        def __init__(self, step: int = 0, to: str | None = None) -> None:
            super().__init__()
            self.step = step
            self.to = to

    wide = False
    """Which view the columns show: From, Subject and Expires (True) or the figures."""
    sorted_by: SortedBy | None = None
    """The column whose header shows the order's arrow; None when the list is in an order no column has."""

    def show_columns(self, wide: bool, sorted_by: SortedBy | None = None) -> None:
        """The columns of a view, emptied (the rows are shown again after)."""
        self.wide = wide
        self.sorted_by = sorted_by
        self.clear(columns=True)
        for column in visible_columns(wide):
            self.add_column(sort_label(column.title, column.key, sorted_by), key=column.key)

    def show_rows(self, rows: Iterable[InboxRow], marked: set[str], year: int) -> None:
        self.clear()
        for row in rows:
            self.add_row(*row_cells(row, row.id in marked, self.wide, year), key=row.id)

    def show_mark(self, row: InboxRow, marked: bool, year: int) -> None:
        # Only the first cell carries the mark, and it is the same in both views.
        self.replace_cell(RowKey(row.id), ColumnKey("received"), cell(row_cells(row, marked, False, year)[0]))

    def replace_cell(self, row_key: RowKey, column_key: ColumnKey, value: Any) -> None:
        """``update_cell`` for a value of the same width, re-rendering that one row only.

        DataTable's own bumps the table's update count, which every cached cell and row is keyed
        on: each mark rendered every visible cell again (twice the cost of a cursor move).
        """
        replace_cell_quietly(self, row_key, column_key, value)

    def action_cursor_down(self) -> None:
        if self.row_count and self.cursor_row >= self.row_count - 1:
            self.post_message(self.Turn(step=1))
        else:
            super().action_cursor_down()

    def action_cursor_up(self) -> None:
        if self.cursor_row <= 0:
            self.post_message(self.Turn(step=-1))
        else:
            super().action_cursor_up()

    def action_page_down(self) -> None:
        self.post_message(self.Turn(step=1))

    def action_page_up(self) -> None:
        self.post_message(self.Turn(step=-1))

    def action_scroll_top(self) -> None:
        self.post_message(self.Turn(to="first"))

    def action_scroll_bottom(self) -> None:
        self.post_message(self.Turn(to="last"))
