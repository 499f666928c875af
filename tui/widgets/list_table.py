"""A row-cursor DataTable with vim keys and an `enter` that opens, shared by list views."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from rich.cells import cell_len
from textual.binding import Binding, BindingType
from textual.events import Resize
from textual.widgets import DataTable

from tui.widgets.outside import OutsideTable

SortedBy = tuple[str, bool]
"""The column a list is sorted by (its key) and whether the order is descending."""


def order_arrow(descending: bool) -> str:
    """The arrow of an order, one style in every header and sort line: ▼ descending, ▲ ascending."""
    return "▼" if descending else "▲"


def sort_label(title: str, key: str, sorted_by: SortedBy | None) -> str:
    """A column's header: its title, and the arrow of the order when the list is sorted by it."""
    if sorted_by is None or sorted_by[0] != key:
        return title
    return f"{title} {order_arrow(sorted_by[1])}"


def clicked(key: str, sorted_by: SortedBy | None, *, first_descending: bool = False) -> SortedBy:
    """The order after a click on ``key``'s header: the other way round if the list is sorted by it,
    else by it, ``first_descending`` or not."""
    if sorted_by is not None and sorted_by[0] == key:
        return key, not sorted_by[1]
    return key, first_descending


ROOM_MIN = 16
"""The least a column fitted by :func:`room_left` is given: a few words, even on a narrow screen."""


def room_left(table: DataTable[Any], others: Iterable[Sequence[str]]) -> int | None:
    """The cells one column's text may take so that the ``others`` (each a column's header and cells)
    show whole beside it; None while the table has no width yet.

    A column is as wide as its widest cell: one long directory description pushed the Kind column off
    the screen for every row, and the descriptions were cut at the screen's edge, with no ``…``."""
    width = table.scrollable_content_region.width
    if width <= 0:
        return None
    padding = 2 * table.cell_padding
    taken = sum(max(map(cell_len, column), default=0) + padding for column in others)
    return max(ROOM_MIN, width - taken - padding)


class ListTable(OutsideTable[str]):
    """``enter`` posts ``DataTable.RowSelected`` (the view opens the row)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Open", id="list.open"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._sized = False
        """Whether the table has had a size on screen yet."""

    def on_resize(self, event: Resize) -> None:
        # A cursor moved before the table had a size (mounted hidden, or before the first layout on a busy
        # machine) was scrolled into a window of no height: that offset stayed, and the records view opened
        # with its service's heading scrolled off (CI). No one has scrolled a table yet at its first size:
        # it starts at the top, the cursor scrolled into view of the real window.
        if self._sized or event.size.height <= 0:
            return
        self._sized = True
        self.scroll_to(y=0, animate=False, immediate=True)
        self.move_cursor(row=self.cursor_row)

    @property
    def selected_key(self) -> str | None:
        if not self.row_count:
            return None
        return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
