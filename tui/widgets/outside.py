"""Outside text in the console: what servers, report files and other administrators wrote.

Every such string is shown through these helpers, which turn it into a ``rich.text.Text``
(never a markup string) after :func:`jmapclient.display.safe_text` made its hidden
characters visible. Our own words around it are joined with ``Text.assemble``, which does
not read markup either, so ``[/x]`` or ``[@click=...]`` in a report is shown, never run.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.binding import BindingType
from textual.widgets import DataTable
from textual.widgets.data_table import CellType, ColumnKey, RowKey

from jmapclient.display import LIST_MAX, MESSAGE_MAX, safe_text
from tui.textual_compat import FreshWidths
from tui.widgets.plain_cell import PlainCell
from tui.widgets.vim_keys import vim_bindings


def cut(value: Any, style: str = "", *, justify: Any = None, max_len: int = LIST_MAX) -> Text:
    """One line, cut with an ellipsis: table cells, headers, dialogs, lists."""
    return Text(safe_text(value, max_len=max_len), style=style, justify=justify)


def whole(value: Any, style: str = "", *, multi_line: bool = False, max_len: int | None = None) -> Text:
    """A detail view's value: whole and wrapped (cut at ``max_len``); a line break shows as ``\\n`` unless
    ``multi_line``."""
    return Text(safe_text(value, single_line=not multi_line, max_len=max_len), style=style, overflow="fold")


def message(value: Any, style: str = "") -> Text:
    """A sentence holding outside text (an error, a summary): line breaks kept, cut when huge."""
    return Text(safe_text(value, single_line=False, max_len=MESSAGE_MAX), style=style)


def plain(value: Any) -> str:
    """A message as a plain string for APIs that take one (toasts): visible, cut, to be shown unmarked."""
    return safe_text(value, single_line=False, max_len=MESSAGE_MAX)


def cell(value: Any) -> Any:
    """A table cell: a string becomes a safe :class:`PlainCell` (one line, drawn for less than ``Text``), and so
    does a ``Text`` of one line and one style (outside text :func:`cut` made safe), both cut at the cell cap;
    anything else already renderable is ours and kept."""
    if isinstance(value, str):
        return PlainCell(value)
    if isinstance(value, Text):
        return PlainCell.drawn_as(value) or value
    return value


class OutsideTable(FreshWidths, DataTable[CellType]):
    """A DataTable whose string cells are outside text: never markup, hidden characters shown.

    DataTable reads a ``str`` cell as markup; here every one is turned into ``Text`` first.
    j / k / g / G move as the arrows do; Home and End as g and G; in every table (the README's promise).
    """

    # Home and End as g and G: DataTable's own scroll sideways, which a row cursor never needs (Home in the
    # profile list and the directory list left the cursor where it was).
    BINDINGS: ClassVar[list[BindingType]] = vim_bindings("cursor_down", "cursor_up", "scroll_top", "scroll_bottom",
                                                         home_and_end=True)

    def action_scroll_top(self) -> None:
        self.move_cursor(row=0)

    def action_scroll_bottom(self) -> None:
        self.move_cursor(row=max(self.row_count - 1, 0))

    def add_row(self, *cells: Any, height: int | None = 1, key: str | None = None,
                label: Any = None) -> RowKey:
        return super().add_row(*(cell(c) for c in cells), height=height, key=key,
                               label=cell(label) if label is not None else None)

    def update_cell(self, row_key: RowKey | str, column_key: ColumnKey | str, value: Any, *,
                    update_width: bool = False) -> None:
        super().update_cell(row_key, column_key, cell(value), update_width=update_width)
