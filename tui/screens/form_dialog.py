"""The console's form dialogs: a title, fields or text, OK and Cancel; and the message dialog.

Every section uses them (the DMARC section's import, export and keep-longer dialogs, the
Directories' snapshot and apply dialogs, summaries), so they live with the other screens.
"""

from __future__ import annotations

import os
import stat
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, Static

from jmapclient.display import LIST_MAX, safe_text
from jmapclient.file_safety import is_stream
from tui.screens.confirm import ConfirmScreen
from tui.screens.dialog import Dialog
from tui.widgets import outside
from tui.widgets.vim_keys import VimScroll

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

    def dismiss_unless_kept(self, target: Path, result: T) -> None:
        """Answer ``result``, which writes ``target``; if a file is there, only once the person said to
        overwrite it (No is the default, and keeps this dialog open for another name).

        The one flow of every dialog that writes a file the person names (the Directories' snapshot,
        the DMARC export): they replaced a file without a word, the snapshot to roll back to among them.
        """
        question = overwrite_question(target)
        if question is None:
            self.dismiss(result)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.dismiss(result)

        self.app.push_screen(ConfirmScreen(question, yes="Overwrite", no="No"), answered)

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
            with VimScroll(id="message-scroll"):
                yield Static(outside.message("\n".join(self.lines)), id="message", markup=False)
            yield Horizontal(Button("Close", id="cancel", variant="primary"), classes="dialog-buttons")


def overwrite_question(target: Path) -> str | None:
    """What to ask before writing ``target``; None when no file's contents would be lost: nothing there,
    a stream such as ``/dev/null`` (written into, not replaced), or a folder (the write says why not).
    A symbolic link the write replaces is asked about as a link (:func:`_link_question`). The file is named in
    full: "dmarc-reports.csv exists" did not say in which folder."""
    target = target.absolute()
    if target.is_symlink() and not is_stream(target):  # is_stream: the write's own test of what it writes into
        return _link_question(target)
    try:
        found = target.stat()
    except OSError:  # nothing there (or nothing this login may see: the write will say so)
        return None
    if not stat.S_ISREG(found.st_mode):
        return None
    # The write replaces the file by a new one, owner-only like every file the console writes.
    return (f"{target} exists ({found.st_size:,} bytes, changed {_when(found.st_mtime)}). Overwrite it? "
            "The new file is readable by you only (0600).")


def _link_question(target: Path) -> str:
    """The question for a symbolic link at ``target``, with the link's own date and where it points (outside
    text: one line, escaped, cut). Its target's size and date were given as the link's (``stat`` follows it),
    and nothing said that saving replaces the link, not the file it points to (tester81)."""
    try:
        made, points = _when(target.lstat().st_mtime), safe_text(os.readlink(target), max_len=LIST_MAX)
    except OSError:  # gone meanwhile: the write says what it finds
        made, points = "?", "?"
    return (f"{target} is a symbolic link (changed {made}) to {points}. Overwrite it? Saving replaces the link "
            "itself, not the file it points to, with a new file readable by you only (0600).")


def _when(moment: float) -> str:
    return datetime.fromtimestamp(moment).strftime("%Y-%m-%d %H:%M")
