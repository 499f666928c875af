"""Textual's OptionList, and its command palette, surviving page keys pressed before the list is drawn.

Textual 8.2's ``OptionList._move_page`` looks the highlighted option up in a line map that is
empty until the list has been laid out, and raises ``KeyError`` (its other scrolling code
guards the same lookup). A burst such as ``:`` then page-up reaches the list that early. The
page move is simply dropped then: there is no page to move by yet.
"""

from __future__ import annotations

from textual.command import CommandPalette
from textual.widgets import OptionList


class PagedOptionList(OptionList):
    def _move_page(self, direction: int) -> None:
        try:
            super()._move_page(direction)  # type: ignore[arg-type]
        except KeyError:
            return


class SteadyCommandPalette(CommandPalette):
    """The command palette, with the same guard for its own list."""

    def _action_command_list(self, action: str) -> None:
        try:
            super()._action_command_list(action)
        except KeyError:
            return
