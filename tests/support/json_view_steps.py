"""Reading an object's JSON in the console's JSON view (``J``), as a person at the terminal would."""

from __future__ import annotations

from textual.geometry import Region
from textual.pilot import Pilot
from textual.widgets import Button, Log

from tests.support.hostile import screen_lines
from tests.support.waiting import settle, wait_until
from tui.screens.json_view import JsonView


async def open_json_view(pilot: Pilot[object]) -> JsonView:
    """``J`` pressed: the view on top, its text written."""
    await pilot.press("J")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, JsonView), "the JSON view")
    view = pilot.app.screen
    assert isinstance(view, JsonView)
    await wait_until(pilot, lambda: view.query_one(Log).line_count > 0, "the JSON written")
    await settle(pilot)
    return view


def shown(pilot: Pilot[object]) -> str:
    """The screen as drawn, one string (what the terminal shows)."""
    return "\n".join(screen_lines(pilot.app))


def close_button_on_screen(pilot: Pilot[object]) -> bool:
    """The Close button lies wholly within the terminal."""
    button = pilot.app.screen.query_one("#json-close", Button)
    width, height = pilot.app.size
    return Region(0, 0, width, height).contains_region(button.region) and button.region.area > 0


async def read_to_the_end(pilot: Pilot[object], last_field: str) -> None:
    """``last_field`` (the line before the closing brace) is not on screen at first; End scrolls to
    it, and to the brace under it: the whole text was reached."""
    assert last_field not in shown(pilot)
    await pilot.press("end")
    await settle(pilot)
    lines = screen_lines(pilot.app)
    at = next((i for i, line in enumerate(lines) if last_field in line), None)
    assert at is not None, f"{last_field} not on screen"
    assert "}" in lines[at + 1].split()


async def close_with(pilot: Pilot[object], key: str) -> None:
    await pilot.press(key)
    await settle(pilot)
    assert not isinstance(pilot.app.screen, JsonView)
