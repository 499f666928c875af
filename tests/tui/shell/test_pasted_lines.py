"""A paste of several lines into a one-line field is never cut to its first line unseen.

Textual's Input kept a paste's first line and dropped the rest without a word: a token wrapped over
two lines was stored as ``sttok-`` (unseen: the field is masked). The console's one rule
(``tui.widgets.line_paste``): trailing line breaks are dropped; a paste still of several lines is
refused whole, with a bell and a warning, by every field that does not declare it takes lines.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
from textual.widgets import Input

from jmapclient.config import Config
from tests.support.textual_probe import notifications, post_from_terminal
from tests.support.waiting import settle, wait_until
from tui.app import MailAdminApp
from tui.screens.connect import ProfileScreen
from tui.widgets.line_paste import pasted_lines

FORM = {"profile-name": "lab", "profile-url": "https://mail.example"}


async def _token_field(app: MailAdminApp, pilot) -> Input:  # type: ignore[no-untyped-def]
    """The Add form (from the connection screen), its name and URL filled, the keyboard in the token."""
    await pilot.press("a")
    await settle(pilot)
    assert isinstance(app.screen, ProfileScreen)
    for widget_id, value in FORM.items():
        app.screen.query_one(f"#{widget_id}", Input).value = value
    field = app.screen.query_one("#profile-token", Input)
    field.focus()
    await settle(pilot)
    return field


async def test_a_two_line_paste_into_the_token_leaves_it_unchanged_with_a_bell_and_a_warning(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = MailAdminApp(config=Config(path=tmp_path / "config.toml"), connector=None)  # type: ignore[arg-type]
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        field = await _token_field(app, pilot)
        rang: list[bool] = []
        monkeypatch.setattr(app, "bell", lambda: rang.append(True))
        post_from_terminal(app, events.Paste("sttok-\nSECRET2"))
        await settle(pilot)
        assert field.value == ""  # nothing half pasted
        assert rang == [True]
        said = [text for text in notifications(app) if "2 lines" in text]
        assert said and "one-line field takes one" in said[0] and "SECRET2" not in said[0]


async def test_a_one_line_paste_into_the_token_goes_in_without_its_trailing_line_break(tmp_path: Path) -> None:
    config_file = tmp_path / "config.toml"
    app = MailAdminApp(config=Config(path=config_file), connector=None)  # type: ignore[arg-type]
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        field = await _token_field(app, pilot)
        post_from_terminal(app, events.Paste("sttok-SECRET2\r\n"))
        await settle(pilot)
        assert field.value == "sttok-SECRET2"
        assert not [text for text in notifications(app) if "lines" in text]
        await pilot.click("#profile-save")
        await wait_until(pilot, lambda: not isinstance(app.screen, ProfileScreen), "the form to close")
    assert Config.load(config_file).profiles["lab"].token == "sttok-SECRET2"


@pytest.mark.parametrize(("paste", "lines"), [
    ("sttok-SECRET2\n   ", ["sttok-SECRET2"]),  # a selection dragged into the next line's indent
    ("sttok-SECRET2\r\n \t\n\n", ["sttok-SECRET2"]),
    ("   ", ["   "]),  # blanks alone are what was pasted: the field decides
    ("/a\n  \n/b", ["/a", "  ", "/b"]),  # a blank line between two is still a paste of several lines
    ("\n\n", []),
])
def test_a_paste_loses_its_trailing_line_breaks_and_blank_last_lines_only(paste: str, lines: list[str]) -> None:
    assert pasted_lines(paste) == lines
