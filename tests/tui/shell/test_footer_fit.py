"""The footer shows a key that fits to the last cell, and leaves out one that would be cut by one cell."""

from __future__ import annotations

import pytest

from tui.textual_compat import FooterKey
from tui.widgets.footer import fitting, key_width


def keys() -> list[FooterKey]:
    return [FooterKey("question_mark", "?", "Help", "help"), FooterKey("q", "q", "Quit", "quit"),
            FooterKey("r", "r", "Refresh", "refresh")]


@pytest.mark.parametrize("compact", [True, False])
def test_a_key_that_fits_to_the_cell_is_shown_and_one_cell_less_drops_it(compact: bool) -> None:
    exact = sum(key_width(key, compact) for key in keys())
    assert [key.action for key in fitting(keys(), exact, compact)] == ["help", "quit", "refresh"]
    assert [key.action for key in fitting(keys(), exact - 1, compact)] == ["help", "quit"]
