"""The DMARC section's dialogs: the files to import, the export, keeping reports longer."""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import cast, get_args

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Label, Select, Static

from jmapclient.dmarc.exporting import ExportFormat
from jmapclient.file_safety import NotAPath, local_path
from tui.screens.form_dialog import FormDialog
from tui.widgets import outside
from tui.widgets.line_paste import ShellWordsInput
from tui.widgets.select import SteadySelect


def import_paths(text: str) -> list[str]:
    """The files or folders the import dialog's ``text`` names: shell-style words (quotes keep spaces).

    Text that names one existing file or folder as typed is that one path: an unquoted path with
    spaces was split into bits that each named nothing. ValueError for an unclosed quote, or a
    word that is no path (``file_safety.NotAPath``).
    """
    whole = existing_path(text.strip())
    return [whole] if whole is not None else [str(local_path(path)) for path in shlex.split(text)]


def existing_path(text: str) -> str | None:
    """The file or folder ``text`` names as it is, if one is there; else None (no path, or nothing there)."""
    try:
        path = local_path(text)
    except NotAPath:
        return None
    return str(path) if os.path.exists(path) else None  # os.path.exists: False, never an OSError


class ImportDialog(FormDialog[list[str]]):
    """Asks for report files or folders (shell-style quoting for spaces; pasted lines are one path each)."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Import DMARC reports", classes="dialog-title")
            yield Static("Files or folders (.xml, .gz, .zip, .eml); separate several with spaces, "
                         "and quote a path that holds spaces.", classes="dialog-note")
            yield ShellWordsInput(placeholder="/path/to/reports", id="paths")
            yield Static("", id="error", classes="dialog-error")
            yield self.buttons("Import")

    def submit(self) -> None:
        text = self.query_one("#paths", Input).value
        try:
            # Parsed here, once: a NUL byte or ~nosuchuser stopped the console in the import's worker.
            paths = import_paths(text)
        except ValueError as error:  # shlex's unclosed quote, or file_safety.NotAPath
            self.query_one("#error", Static).update(outside.message(f"Cannot read the paths: {error}"))
            return
        if not paths:
            self.query_one("#error", Static).update("Give at least one file or folder.")
            return
        self.dismiss(paths)


@dataclass(frozen=True)
class ExportChoice:
    format: ExportFormat
    target: Path
    """The file typed (``file_safety.local_path``); the messages name it in full (``absolute``)."""


EXPORT_FORMATS: tuple[ExportFormat, ...] = get_args(ExportFormat)


class ExportDialog(FormDialog[ExportChoice]):
    # The keyboard starts in the file name, all of it selected: a path typed once the dialog is
    # up replaces the default (it went to the format list's type-to-search before).
    AUTO_FOCUS = "#path"

    def __init__(self, default_path: str, scope: str) -> None:
        super().__init__()
        self.default_path = default_path
        self.scope = scope

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Export reports", classes="dialog-title")
            yield Static(self.scope, classes="dialog-note")
            yield SteadySelect([(f.upper(), f) for f in EXPORT_FORMATS], value="csv", allow_blank=False, id="format")
            yield Input(value=self.default_path, id="path")
            yield Static("", id="error", classes="dialog-error")
            yield self.buttons("Export")

    def on_select_changed(self, event: Select.Changed) -> None:
        path_input = self.query_one("#path", Input)
        stem, dot, extension = path_input.value.rpartition(".")
        if dot and extension in EXPORT_FORMATS:
            path_input.value = f"{stem}.{event.value}"

    def on_input_changed(self, event: Input.Changed) -> None:
        # A file name typed with a format's extension chooses that format (the other way round too).
        extension = event.value.strip().rpartition(".")[2].lower()
        if event.input.id == "path" and extension in EXPORT_FORMATS:
            self.query_one("#format", Select).value = extension

    def submit(self) -> None:
        path = self.query_one("#path", Input).value.strip()
        if not path:
            self.query_one("#error", Static).update("Give a file name.")
            return
        try:
            target = local_path(path)  # parsed once: ~nosuchuser or a NUL byte stopped the console
        except NotAPath as error:
            self.query_one("#error", Static).update(outside.message(f"Cannot write there: {error}"))
            return
        # The select offers only EXPORT_FORMATS.
        chosen = cast(ExportFormat, self.query_one("#format", Select).value)
        self.dismiss_unless_kept(target, ExportChoice(chosen, target))


@dataclass(frozen=True)
class KeepChoice:
    expires: str
    tenant: str | None


class KeepDialog(FormDialog[KeepChoice]):
    """Edit when a report expires (and its tenant where the server has tenants)."""

    def __init__(self, describe: str | Text, expires: str, expires_label: str, tenant: str | None,
                 tenant_label: str | None, check_expiry: Callable[[str], str]) -> None:
        super().__init__()
        self.check_expiry = check_expiry
        """Typed text → wire UTC, or ValueError with the reason (shown here; the dialog stays open)."""
        self.describe = describe
        self.expires = expires
        self.expires_label = expires_label
        self.tenant = tenant
        self.tenant_label = tenant_label

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Keep this report longer", classes="dialog-title")
            yield Static(outside.cut(self.describe) if isinstance(self.describe, str) else self.describe,
                         classes="dialog-note", markup=False)
            yield Label(f"{self.expires_label} (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)")
            yield Input(value=self.expires, id="expires")
            if self.tenant_label is not None:
                yield Label(f"{self.tenant_label} (empty: none)")
                yield Input(value=self.tenant or "", id="tenant")
            yield Static("", id="error", classes="dialog-error")
            yield self.buttons("Save")

    def submit(self) -> None:
        try:
            expires = self.check_expiry(self.query_one("#expires", Input).value)
        except ValueError as error:
            self.show_error(str(error))
            return
        tenant: str | None = self.tenant
        if self.tenant_label is not None:
            tenant = self.query_one("#tenant", Input).value.strip() or None
        self.dismiss(KeepChoice(expires, tenant))

    def show_error(self, text: str) -> None:
        self.query_one("#error", Static).update(outside.message(text))
