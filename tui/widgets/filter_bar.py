"""The `/` filter line above a list: hidden until asked for, esc clears and hides it."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Input

from tui.keyboard import focus_now


class FilterBar(Input):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "clear", "Clear filter", id="filter.clear"),
        Binding("enter", "done", "Done", show=False, id="filter.done"),
    ]

    class Done(Message):
        """The person finished typing; the list takes focus back."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(placeholder="Filter: type words to keep matching rows; esc clears", id=id, compact=True)
        self.display = False

    def open(self) -> None:
        self.display = True
        focus_now(self)

    def action_clear(self) -> None:
        self.value = ""
        self.display = False
        self.post_message(self.Done())

    def action_done(self) -> None:
        if not self.value:
            self.display = False
        self.post_message(self.Done())


def matches(words: str, *cells: str) -> bool:
    """Every word of the filter occurs in one of the cells (case-insensitive)."""
    haystack = " ".join(cells).lower()
    return all(word in haystack for word in words.lower().split())
