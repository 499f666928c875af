"""A terminal squeezed to a few cells (a tmux pane being dragged) never stops the console.

Below about six columns Textual's option lists wrapped their text at width zero and the console
stopped (``ValueError: range() arg 3 must not be zero``, or its crash screen): the section jump
at 5×5, the command palette at 4×3. The console now lays itself out at 20×5 at the least
(``tui.terminal_size``) and draws itself whole again when the terminal grows. One profile: the
layout is the same on both.
"""

from __future__ import annotations

import pytest
from textual.screen import ModalScreen

from tests.support.console import make_world
from tests.support.textual_probe import exception_of
from tests.support.waiting import settle
from tui.terminal_size import MIN_SIZE


@pytest.mark.parametrize(("key", "size"), [("colon", (5, 5)), ("colon", (3, 3)), ("ctrl+p", (4, 3)), ("colon", (1, 1))])
async def test_a_dialog_open_as_the_terminal_shrinks_to_a_few_cells(key: str, size: tuple[int, int]) -> None:
    async with make_world().app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press(key)
        await settle(pilot)
        await pilot.resize_terminal(*size)
        await settle(pilot)
        assert exception_of(pilot.app) is None, repr(exception_of(pilot.app))
        assert pilot.app.screen.size == MIN_SIZE  # laid out at the least size, not the terminal's
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert exception_of(pilot.app) is None, repr(exception_of(pilot.app))
        assert isinstance(pilot.app.screen, ModalScreen) and pilot.app.screen.size == (80, 24)


async def test_a_console_started_in_a_few_cells_opens_its_dialogs() -> None:
    async with make_world().app().run_test(size=(4, 3)) as pilot:
        await settle(pilot)
        for key in ("colon", "escape", "ctrl+p", "escape"):
            await pilot.press(key)
            await settle(pilot)
            assert exception_of(pilot.app) is None, (key, repr(exception_of(pilot.app)))
        assert pilot.app.size == MIN_SIZE
