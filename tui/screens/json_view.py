"""The whole JSON of one object, to read: a Directories entry or a DMARC report (``J``).

A report's JSON runs to many thousand characters; the message dialog cut it at 2,000. Here the
text is shown whole in a ``Log``: read-only, drawn line by line as it scrolls (a big report
does not lay out at once), and plain text, never markup, so ``[@click=app.quit]`` in a report
is shown as written. Long lines (an LDAP filter, a forged 5,000-character org name) wrap at the
view's width, their continuation indented under their start, and wrap again when the terminal
is resized, keeping the line at the top in view: nothing is read by scrolling sideways. Its
hidden characters are made visible first (``safe_text``). Only text over ``JSON_VIEW_MAX`` is
cut, and the view then says so and names ``Y``, which copies it whole.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from typing import ClassVar

from rich.cells import cell_len, chop_cells
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.widgets import Button, Label, Log, Static

from jmapclient.display import safe_text
from tui.lifecycle import while_attached
from tui.screens.dialog import Dialog
from tui.widgets import outside
from tui.widgets.vim_keys import SCROLL_KEYS

JSON_VIEW_MAX = 2_000_000
"""Characters shown at most; more is cut, and said to be (``Y`` copies it whole)."""


def shown_text(text: str) -> tuple[str, bool]:
    """The text as shown (hidden characters visible, cut at ``JSON_VIEW_MAX``), and whether it was cut."""
    cut = len(text) > JSON_VIEW_MAX
    return safe_text(text[:JSON_VIEW_MAX] if cut else text, single_line=False), cut


CONTINUATION_INDENT = 2
"""A wrapped line's continuation starts this much further in than the line itself."""


def wrapped(line: str, width: int) -> Iterator[str]:
    """``line`` cut into rows of at most ``width`` cells, after a space where one falls in a row's
    second half (words stay whole), else at the width; rows after the first indented under it.

    Linear in the line's length: a report's 2 MB org name is 19,000 rows, each cut from a window of
    at most ``width`` characters at a moving start (cutting the whole rest for each row took minutes).
    """
    if width < 2 or cell_len(line) <= width:
        yield line
        return
    indent = " " * min(len(line) - len(line.lstrip(" ")) + CONTINUATION_INDENT, width // 2)
    start, prefix = 0, ""
    while start < len(line):
        room = width - len(prefix)
        window = line[start:start + room]  # a character takes at least one cell, unless it takes none
        row = chop_cells(window, room)[0] if cell_len(window) > room else window
        row = row or window[:1]  # a character wider than the room left: it overflows, it is not lost
        if start + len(row) < len(line):
            space = row.rfind(" ")
            if space >= len(row) // 2:
                row = row[: space + 1]
        yield prefix + row
        start, prefix = start + len(row), indent


class WrappedLog(Log):
    """A ``Log`` of lines wrapped at its width, wrapped again when the width changes."""

    DEFAULT_CSS = """
    WrappedLog { overflow-x: hidden; overflow-y: scroll; }
    """
    BINDINGS: ClassVar[list[BindingType]] = SCROLL_KEYS
    # A vertical scrollbar always shown keeps the width the same before and after writing.

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(highlight=False, auto_scroll=False, id=id)
        self.source: Sequence[str] = ()
        self.starts: list[int] = []
        """The row each source line starts at, for the current width."""
        self.wrapped_at = 0

    def show(self, lines: Sequence[str]) -> None:
        self.source = lines
        self.wrapped_at = 0
        self._wrap()

    def on_resize(self, event: Resize) -> None:
        self._wrap()

    def _wrap(self) -> None:
        width = self.scrollable_content_region.width
        if width <= 0 or width == self.wrapped_at:
            return
        top_line = self._source_line_at(round(self.scroll_y))
        self.wrapped_at = width
        rows: list[str] = []
        self.starts = []
        for line in self.source:
            self.starts.append(len(rows))
            rows.extend(wrapped(line, width))
        self.clear()
        self.write_lines(rows, scroll_end=False)
        if self.starts:
            self.scroll_to(y=self.starts[top_line], animate=False, immediate=True)

    def _source_line_at(self, row: int) -> int:
        """The source line shown on wrapped ``row`` (0 before anything is written)."""
        return max(bisect_right(self.starts, row) - 1, 0)


class JsonView(Dialog[None]):
    """Read-only JSON: up/down, PageUp/PageDown, Home/End and the mouse scroll; Esc, q or Enter close."""

    DEFAULT_CSS = """
    JsonView { align: center middle; }
    JsonView > Vertical {
        width: 100%;
        max-width: 120;
        height: 100%;
        border: thick $primary;
        background: $surface;
        padding: 0 1;
    }
    JsonView #json-title { text-style: bold; width: 100%; }
    JsonView #json-cut { color: $warning; }
    JsonView #json-text { height: 1fr; border: none; background: $surface; }
    JsonView #json-text:focus { background-tint: $foreground 4%; }
    JsonView Horizontal.json-buttons { height: auto; align-horizontal: right; }
    JsonView .json-keys { color: $text-muted; width: 1fr; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,enter", "close", "Close", id="json.close"),
    ]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text, self.cut = shown_text(text)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(outside.cut(self.title_text), id="json-title")
            if self.cut:
                yield Static(f"Only the first {JSON_VIEW_MAX:,} characters are shown; Y copies it whole.",
                             id="json-cut", markup=False)
            yield WrappedLog(id="json-text")
            with Horizontal(classes="json-buttons"):
                yield Static("↑↓ PgUp/PgDn Home/End scroll · Esc/q/Enter close", classes="json-keys",
                             markup=False)
                yield Button("Close", id="json-close", variant="primary", compact=True)

    @while_attached
    def on_mount(self) -> None:
        log = self.query_one("#json-text", WrappedLog)
        log.show(self.text.splitlines())
        log.focus()

    @on(Button.Pressed, "#json-close")
    def _close_pressed(self) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
