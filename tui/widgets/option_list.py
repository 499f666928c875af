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

from textual import on, work
from textual.app import App
from textual.command import CommandList, CommandPalette
from textual.events import Mount
from textual.widget import AwaitMount
from textual.widgets import Button, Input, OptionList

from tui.lifecycle import gone
from tui.screens.dialog import AnswersOnce


class PageGuard:
    """The guard for any OptionList (mixed in before it): a page move before the first layout is dropped.

    A Select's overlay is one too: it is hidden, so never laid out, until the Select opens it
    and gives it the keyboard at once; a page key reaching it before the next refresh (a
    loaded machine, fast fingers) met the empty line map.
    """

    def _move_page(self, direction: int) -> None:
        try:
            super()._move_page(direction)  # type: ignore[misc]
        except KeyError:
            return


class PagedOptionList(PageGuard, OptionList):
    pass


class SteadyCommandPalette(CommandPalette, AnswersOnce[None]):
    """The command palette, with the same guard for its own list, answering once."""

    @on(Input.Submitted)
    @on(Button.Pressed)
    def _select_or_command(self, event: Input.Submitted | Button.Pressed | None = None) -> None:
        if event is not None:
            event.prevent_default()  # Textual's own handler is this one, unguarded
        if self.answered or gone(self):
            if event is not None:
                event.stop()
            return
        super()._select_or_command(event)

    def _on_mount(self, event: Mount) -> None:
        # Runs before Textual's own handler, which reads the screen under the palette: a palette
        # taken down before it mounted (ctrl+p, then Esc or q in one burst) has none.
        stack = self.app.screen_stack
        if gone(self) or self not in stack or stack.index(self) < 1:
            event.prevent_default()

    def _action_command_list(self, action: str) -> None:
        try:
            super()._action_command_list(action)
        except KeyError:
            return

    @work(exclusive=True, group=CommandPalette._GATHER_COMMANDS_GROUP)
    async def _gather_commands(self, search_value: str) -> None:
        if gone(self):
            return
        if not self.query(CommandList):  # a letter typed before the list was mounted
            self.call_after_refresh(self._gather_commands, search_value)
            return
        # Textual's own search, undecorated: this worker already runs in its group.
        await CommandPalette._gather_commands.__wrapped__(self, search_value)  # type: ignore[attr-defined]


def open_palette(app: App[Any], **options: Any) -> AwaitMount:
    """Push a palette that answers once: Textual's ``search_themes`` and ``search_commands`` push its
    plain ``CommandPalette``, whose Enter Enter (or double click) answered twice and popped the
    console's last screen (``ScreenStackError``). The app routes both here."""
    return app.push_screen(SteadyCommandPalette(**options))
