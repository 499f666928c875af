"""`:` jump: type part of a section's path, pick it, go there."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input
from textual.widgets.option_list import Option

from tui.lifecycle import while_attached
from tui.screens.dialog import Dialog
from tui.sections import Section
from tui.widgets.option_list import PagedOptionList


class JumpScreen(Dialog[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="jump.cancel"),
        Binding("down", "next", show=False, id="jump.next"),
        Binding("up", "previous", show=False, id="jump.previous"),
    ]

    def __init__(self, sections: Sequence[Section]) -> None:
        super().__init__()
        self.sections = sections

    def compose(self) -> ComposeResult:
        with Vertical(id="jump-box", classes="dialog"):
            yield Input(placeholder="Jump to section…", id="jump-input", compact=True)
            yield PagedOptionList(id="jump-options")

    @while_attached
    def on_mount(self) -> None:
        self._fill("")

    def _fill(self, text: str) -> None:
        options = self.query_one(PagedOptionList)
        options.clear_options()
        words = text.lower().split()
        for section in self.sections:
            haystack = section.breadcrumb.lower()
            if all(word in haystack for word in words):
                options.add_option(Option(section.breadcrumb, id=section.id))
        if options.option_count:
            options.highlighted = 0

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        self._fill(event.value)

    @on(Input.Submitted)
    def _submitted(self) -> None:
        options = self.query_one(PagedOptionList)
        if options.highlighted is not None:
            self.dismiss(options.get_option_at_index(options.highlighted).id)

    @on(PagedOptionList.OptionSelected)
    def _selected(self, event: PagedOptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_next(self) -> None:
        self.query_one(PagedOptionList).action_cursor_down()

    def action_previous(self) -> None:
        self.query_one(PagedOptionList).action_cursor_up()

    def action_cancel(self) -> None:
        self.dismiss(None)
