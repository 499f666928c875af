"""The base of every modal dialog: it answers once.

Keys arrive in bursts: two Enters, or Enter and Esc, can reach a dialog before it has left
the screen. A second ``dismiss`` would pop whatever screen lies beneath (the connection
screen, or nothing at all: ``ScreenStackError``), and run the caller's callback twice. A dialog
that has answered, or is not the screen on top, ignores further answers.
"""

from __future__ import annotations

from typing import TypeVar

from textual import on
from textual.await_complete import AwaitComplete
from textual.events import Mount
from textual.screen import ModalScreen, Screen

from tui.widgets.footer import ShellFooter

ResultType = TypeVar("ResultType")


class AnswersOnce(Screen[ResultType]):
    """A screen whose ``dismiss`` takes effect once, and only while it is the screen on top."""

    answered: bool = False

    def dismiss(self, result: ResultType | None = None) -> AwaitComplete:
        if self.answered or not self.is_active:
            return AwaitComplete.nothing()
        self.answered = True
        return super().dismiss(result)


class Dialog(ModalScreen[ResultType], AnswersOnce[ResultType]):
    """The base of every modal dialog. ModalScreen comes first: Textual's CSS type names follow
    the first base only, and the stylesheet styles ``ModalScreen``.

    A dialog has a footer of its own, with its keys: the screen's beneath, seen through, offered keys
    that act only there ("a Add e Edit d Remove" over the profile form, whose fields took them as text).
    """

    @on(Mount)
    async def _footer_of_its_own(self) -> None:
        await self.mount(ShellFooter())
