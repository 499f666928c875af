"""Textual's OptionList, and its command palette, surviving keys that arrive before they are built.

Textual 8.2's ``OptionList._move_page`` looks the highlighted option up in a line map that is
empty until the list has been laid out, and raises ``KeyError`` (its other scrolling code
guards the same lookup). A burst such as ``:`` then page-up reaches the list that early. The
page move is simply dropped then: there is no page to move by yet.

The palette's search worker looks its command list up as soon as a letter is typed; ctrl+p
then a letter at once can get there before the list is mounted (``NoMatches``). The search
then waits for the next refresh, when the list is there.

Its Enter answers once, like every dialog (:class:`tui.screens.dialog.AnswersOnce`): two
Enters in a burst would otherwise run the chosen command twice and pop the screen beneath.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.widget import AwaitMount
from textual.widgets import OptionList

from tui.lifecycle import gone
from tui.screens.dialog import AnswersOnce
from tui.textual_compat import PageGuard, PaletteHooks

__all__ = ["PageGuard", "PagedOptionList", "SteadyCommandPalette"]


class PagedOptionList(PageGuard, OptionList):
    pass


class SteadyCommandPalette(PaletteHooks, AnswersOnce[None]):
    """The command palette, with the same guard for its own list, answering once."""

    def may_answer(self) -> bool:
        return not (self.answered or gone(self))

    def may_mount(self) -> bool:
        # Textual's own mount handler reads the screen under the palette: a palette taken down
        # before it mounted (ctrl+p, then Esc or q in one burst) has none.
        stack = self.app.screen_stack
        return not gone(self) and self in stack and stack.index(self) >= 1

    def may_search(self) -> bool:
        return not gone(self)


def open_palette(app: App[Any], **options: Any) -> AwaitMount:
    """Push a palette that answers once: Textual's ``search_themes`` and ``search_commands`` push its
    plain ``CommandPalette``, whose Enter Enter (or double click) answered twice and popped the
    console's last screen (``ScreenStackError``). The app routes both here."""
    return app.push_screen(SteadyCommandPalette(**options))
