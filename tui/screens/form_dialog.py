"""The console's form dialogs: a title, fields or text, OK and Cancel; and the message dialog.

Every section uses them (the DMARC section's import, export and keep-longer dialogs, the
Directories' snapshot and apply dialogs, summaries), so they live with the other screens.
"""

from __future__ import annotations

from typing import TypeVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Label, Static

from tui.screens.dialog import Dialog
from tui.widgets import outside

T = TypeVar("T")

DIALOG_CSS = """
FormDialog {
    align: center middle;
}
FormDialog > Vertical {
    width: 76;
    height: auto;
    max-height: 90%;
    border: thick $primary;
    background: $surface;
    padding: 1 2;
}
FormDialog .dialog-title { text-style: bold; margin-bottom: 1; }
FormDialog .dialog-note { color: $text-muted; }
FormDialog .dialog-error { color: $error; }
FormDialog Horizontal.dialog-buttons { height: auto; margin-top: 1; align-horizontal: right; }
FormDialog Horizontal.dialog-buttons Button { margin-left: 2; }
"""


class FormDialog(Dialog[T]):
    """A dialog of a title, fields or text, and OK/Cancel buttons: Enter in a field or OK submits,
    Esc or Cancel answers None."""

    DEFAULT_CSS = DIALOG_CSS
    # The binding ids keep the names they had when only the DMARC section had these dialogs:
    # a [keys] remap in someone's config names them.
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dmarc.dialog.cancel")]

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "cancel":
            self.dismiss(None)
        elif event.button.id == "ok":
            self.submit()

    def on_input_submitted(self) -> None:
        self.submit()

    def submit(self) -> None:  # pragma: no cover - every dialog overrides it
        raise NotImplementedError

    @staticmethod
    def buttons(ok: str) -> Horizontal:
        return Horizontal(Button(ok, id="ok", variant="primary"), Button("Cancel", id="cancel"),
                          classes="dialog-buttons")


class MessageDialog(FormDialog[None]):
    """Lines of text to read, e.g. an import summary; enter or esc closes."""

    DEFAULT_CSS = """
    MessageDialog #message-scroll { height: auto; max-height: 45vh; }
    """

    BINDINGS = [Binding("enter", "cancel", "Close", id="dmarc.message.close")]

    def __init__(self, title: str, lines: list[str]) -> None:
        super().__init__()
        self.title_text = title
        self.lines = lines

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, classes="dialog-title")
            # A long summary scrolls inside the dialog, so Close always stays on screen.
            with VerticalScroll(id="message-scroll"):
                yield Static(outside.message("\n".join(self.lines)), id="message", markup=False)
            yield Horizontal(Button("Close", id="cancel", variant="primary"), classes="dialog-buttons")
