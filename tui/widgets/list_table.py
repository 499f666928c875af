"""A row-cursor DataTable with vim keys and an `enter` that opens, shared by list views."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey


def as_text(cell: Any) -> Any:
    """A plain string cell as Text (DataTable would parse it as markup); rich cells as they are."""
    return Text(cell) if isinstance(cell, str) else cell


class ListTable(DataTable[str]):
    """``enter`` posts ``DataTable.RowSelected`` (the view opens the row)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Open", id="list.open"),
        Binding("j", "cursor_down", "Down", show=False, id="list.down"),
        Binding("k", "cursor_up", "Up", show=False, id="list.up"),
        Binding("g", "scroll_top", "Top", show=False, id="list.top"),
        Binding("G", "scroll_bottom", "Bottom", show=False, id="list.bottom"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)

    def add_row(self, *cells: Any, height: int | None = 1, key: str | None = None,
                label: Any = None) -> RowKey:
        # Rows show what servers and people wrote (a "[/" in a description is text, not markup).
        return super().add_row(*map(as_text, cells), height=height, key=key, label=label)

    def update_cell(self, row_key: Any, column_key: Any, value: Any, *, update_width: bool = False) -> None:
        super().update_cell(row_key, column_key, as_text(value), update_width=update_width)

    def action_scroll_top(self) -> None:
        self.move_cursor(row=0)

    def action_scroll_bottom(self) -> None:
        self.move_cursor(row=max(self.row_count - 1, 0))

    @property
    def selected_key(self) -> str | None:
        if not self.row_count:
            return None
        return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
