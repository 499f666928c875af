"""A y/n confirmation that says exactly what will happen."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from tui.keyboard import AsksFirst
from tui.lifecycle import while_attached
from tui.screens.dialog import Dialog
from tui.widgets import outside


class ConfirmScreen(Dialog[bool], AsksFirst):
    """Dismisses with True on y / Yes, False on n / No / esc. Keys typed before the question
    appeared are dropped, not answers (:class:`tui.keyboard.AsksFirst`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, question: str | Text, *, yes: str = "Yes", no: str = "No") -> None:
        super().__init__()
        self.question = question
        self.yes = yes
        self.no = no

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box", classes="dialog"):
            # The question quotes outside names: built as Text by the caller, a string is shown plain.
            yield Static(self.question if isinstance(self.question, Text) else outside.message(self.question),
                         id="confirm-question", markup=False)
            with Horizontal(classes="buttons"):
                yield Button(f"{self.yes} (y)", variant="error", id="confirm-yes", compact=True)
                yield Button(f"{self.no} (n)", id="confirm-no", compact=True)

    @while_attached
    def on_mount(self) -> None:
        self.query_one("#confirm-no", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
