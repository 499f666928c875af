"""A one-line table cell of outside text, drawn and measured for less than ``rich.text.Text``.

A records table draws each of its 14 columns for every row on screen, the columns scrolled out of
view too: at 120×40, 490 cells, the largest part of the CPU its first frame took once a big
report's records stopped costing (0.06 ms a cell as ``Text``, wrapped, justified and joined line by
line, against 0.04 ms here). A cell is one line of one style, so it is drawn as one segment, cut or
padded to the column's width, as ``Text`` would draw it, and measured as its width. The value passes
:func:`jmapclient.display.safe_text` first and is never read as markup. Every table of outside text
makes its string cells this way (:func:`tui.widgets.outside.cell`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rich.cells import cell_len, set_cell_size
from rich.console import Console, ConsoleOptions
from rich.measure import Measurement
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from jmapclient.display import ELLIPSIS, LIST_MAX, safe_text

CELL_MAX = 48
"""Terminal cells a cell's text may take, its ellipsis included: one long value (a hostile policy domain of
3,000 letters) made its column as wide as the screen, and every figure beside it scrolled out of view."""


class PlainCell:
    """``value`` as safe text on one line, in ``style`` (a style name or definition of our own), cut with an
    ellipsis at :data:`CELL_MAX` cells."""

    __slots__ = ("style", "text")

    def __init__(self, value: Any, style: str | Style = "") -> None:
        self.text = _capped(safe_text(value, max_len=LIST_MAX))
        self.style = style

    @classmethod
    def drawn_as(cls, text: Text) -> PlainCell | None:
        """A cell drawn as ``text`` is, when it is one line of one style (no spans, tabs, justify or
        overflow of its own), else None. Its words were made safe when ``text`` was made: kept as they are."""
        if text.spans or text.justify or text.overflow or text.no_wrap or "\n" in text.plain or "\t" in text.plain:
            return None
        cell = cls.__new__(cls)
        cell.text, cell.style = _capped(text.plain), text.style
        return cell

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"PlainCell({self.text!r}, {self.style!r})"

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        yield from self.line(console, options.max_width)

    def line(self, console: Console, width: int) -> list[Segment]:
        """The cell drawn ``width`` cells wide (a table draws it so without Rich's rendering around it:
        :class:`tui.textual_compat.PlainCellLines`)."""
        text = self.text
        if cell_len(text) > width:
            text = set_cell_size(text, width)  # cut, as Text folds a line that may not wrap
        line = [Segment(text, console.get_style(self.style) if self.style else None)]
        if cell_len(text) < width:
            line.append(Segment(" " * (width - cell_len(text))))  # padded unstyled, as Text pads its line
        return line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        width = cell_len(self.text)
        return Measurement(width, width)


def _capped(text: str) -> str:
    """``text`` cut with an ellipsis at :data:`CELL_MAX` cells."""
    if len(text) > CELL_MAX // 2 and cell_len(text) > CELL_MAX:  # a character takes at most two cells
        return set_cell_size(text, CELL_MAX - 1).rstrip() + ELLIPSIS
    return text
