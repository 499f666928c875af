"""The whole JSON of one object, to read: a Directories entry or a DMARC report (``J``).

A report's JSON runs to many thousand characters; the message dialog cut it at 2,000. Here the
text is shown whole in a ``Log``: read-only, drawn line by line as it scrolls (a big report
does not lay out at once), and plain text, never markup, so ``[@click=app.quit]`` in a report
is shown as written. Its hidden characters are made visible first (``safe_text``). Only text
over ``JSON_VIEW_MAX`` is cut, and the view then says so and names ``Y``, which copies it whole.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, Log, Static

from jmapclient.display import safe_text
from tui.lifecycle import while_attached
from tui.screens.dialog import Dialog
from tui.widgets import outside

JSON_VIEW_MAX = 2_000_000
"""Characters shown at most; more is cut, and said to be (``Y`` copies it whole)."""


def shown_text(text: str) -> tuple[str, bool]:
    """The text as shown (hidden characters visible, cut at ``JSON_VIEW_MAX``), and whether it was cut."""
    cut = len(text) > JSON_VIEW_MAX
    return safe_text(text[:JSON_VIEW_MAX] if cut else text, single_line=False), cut


class JsonView(Dialog[None]):
    """Read-only JSON: arrows, PageUp/PageDown, Home/End and the mouse scroll; Esc, q or Enter close."""

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
            yield Log(highlight=False, auto_scroll=False, id="json-text")
            with Horizontal(classes="json-buttons"):
                yield Static("↑↓←→ PgUp/PgDn Home/End scroll · Esc/q/Enter close", classes="json-keys",
                             markup=False)
                yield Button("Close", id="json-close", variant="primary", compact=True)

    @while_attached
    def on_mount(self) -> None:
        log = self.query_one("#json-text", Log)
        log.write_lines(self.text.splitlines(), scroll_end=False)
        log.focus()

    @on(Button.Pressed, "#json-close")
    def _close_pressed(self) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
