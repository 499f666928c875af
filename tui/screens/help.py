"""Help for the focused view: its own text, then the keys active there with their binding ids."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Markdown

from tui.screens.dialog import Dialog
from tui.widgets.vim_keys import VimScroll


class HelpScreen(Dialog[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,f1", "dismiss", "Close", id="help.close"),
    ]

    def __init__(self, text: str, keys: Sequence[tuple[str, str, str]]) -> None:
        super().__init__()
        self.text = text
        self.keys = keys

    def compose(self) -> ComposeResult:
        rows = "\n".join(f"- **{key}** {what} (id {binding_id})" for key, what, binding_id in self.keys)
        table = f"\n\n### Keys here\n\n{rows}\n" if rows else ""
        with VimScroll(id="help-box", classes="dialog"):
            yield Markdown(self.text + table)
