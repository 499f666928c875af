"""Directories as code in the console: "Snapshot…" writes the file, "Apply a file…" shows the
plan and applies it on confirmation, if the plan is still the same then (else it shows the new one).
The flows and their words are :mod:`jmapclient.ascode`'s, the same as ``mailadmin snapshot`` and
``mailadmin apply`` (the plan reads the same here).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Static

from jmapclient.ascode.plan import Plan
from jmapclient.file_safety import NotAPath, local_path
from tui.keyboard import AsksFirst
from tui.screens.form_dialog import FormDialog
from tui.widgets import outside
from tui.widgets.vim_keys import VimScroll

DEFAULT_FILE = "directories.ndjson"
CHANGED_NOTE = ("The directories on the server changed since the plan was shown, so nothing was applied: "
                "this is the plan now.")

PATH_CSS = """
PathDialog #as-code-error { height: auto; }
PlanDialog #plan-scroll { height: auto; max-height: 60vh; }
"""


class PathDialog(FormDialog[Path]):
    """Asks for one file: the snapshot to write, or the file to apply."""

    AUTO_FOCUS = "#as-code-path"
    DEFAULT_CSS = FormDialog.DEFAULT_CSS + PATH_CSS

    def __init__(self, title: str, note: str, ok: str, *, must_exist: bool) -> None:
        super().__init__()
        self.title_text = title
        self.note = note
        self.ok = ok
        self.must_exist = must_exist

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, classes="dialog-title")
            yield Static(self.note, classes="dialog-note")
            yield Input(value=DEFAULT_FILE, id="as-code-path")
            yield Static("", id="as-code-error", classes="dialog-error")
            yield self.buttons(self.ok)

    def submit(self) -> None:
        text = self.query_one("#as-code-path", Input).value.strip()
        if not text:
            self.query_one("#as-code-error", Static).update("Give a file name.")
            return
        try:
            path = local_path(text)  # the one parser of typed paths: ~nosuchuser or a NUL byte stopped the console
        except NotAPath as error:
            self.query_one("#as-code-error", Static).update(outside.message(f"Cannot use that file: {error}."))
            return
        problem = ""
        if self.must_exist and not path.is_file():
            problem = f"There is no file {text}."
        elif not self.must_exist and not path.parent.is_dir():
            problem = f"The folder {path.parent} does not exist."
        if problem:
            self.query_one("#as-code-error", Static).update(outside.message(problem))
            return
        if self.must_exist:
            self.dismiss(path)
        else:  # the snapshot to write: the default name is the same every time, and may be the one to roll back to
            self.dismiss_unless_kept(path, path)


class PlanDialog(FormDialog[bool], AsksFirst):
    """The plan, line by line; Apply runs it (only offered when it changes something).

    Apply has the focus, so an Enter answers: only one typed once the plan is on screen
    (:class:`tui.keyboard.AsksFirst`). ``a`` PATH Enter Enter in one burst applied the file unseen,
    the second Enter landing on Apply; keys typed before the plan appeared are dropped, with a bell.
    """

    DEFAULT_CSS = FormDialog.DEFAULT_CSS + PATH_CSS

    def __init__(self, source: str, plan: Plan, lines: list[str], *, changed: bool = False) -> None:
        super().__init__()
        self.source = source
        self.plan = plan
        self.lines = lines
        self.changed = changed
        """The plan shown before was confirmed, and the server had changed since: this is the new one."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"Apply {self.source}", classes="dialog-title")
            if self.changed:
                yield Static(CHANGED_NOTE, id="plan-changed", classes="dialog-error")
            with VimScroll(id="plan-scroll"):
                yield Static(outside.message("\n".join(self.lines)), id="plan-lines", markup=False)
            buttons = [Button("Cancel", id="cancel")]
            if self.plan.changes:
                count = len(self.plan.changes)
                label = f"Apply {count} change{'' if count == 1 else 's'}"
                buttons.insert(0, Button(label, id="ok", variant="warning"))
            yield Horizontal(*buttons, classes="dialog-buttons")

    def on_mount(self) -> None:
        self.query_one("#ok" if self.plan.changes else "#cancel", Button).focus()

    def submit(self) -> None:
        self.dismiss(True)


def write_file(path: Path, text: str) -> None:
    """The snapshot, 0600 (it names servers and accounts, if not their secrets)."""
    from jmapclient.config import write_private

    write_private(path, text.encode(), create_parent=False)


async def read_file(path: Path) -> str:
    return await asyncio.to_thread(path.read_text, encoding="utf-8")
