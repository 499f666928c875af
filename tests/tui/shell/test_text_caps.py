"""Every text field has a length cap a paste cannot defeat (#32.4).

After a large paste holding a non-ASCII character or a tab, every key took seconds (one paste:
22.9 s; 10 M characters: over 90 s): no field capped its length.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input

from tests.support.console import Console
from tests.support.textual_probe import notifications, post_from_terminal
from tests.support.waiting import settle
from tui.text_caps import TEXT_MAX, number_cap

HUGE = ("é\tx" * 40_000)[:100_000]


def paste(app, text: str) -> None:  # type: ignore[no-untyped-def]
    """As a terminal delivers it: to the app, which hands it to the focused widget."""
    post_from_terminal(app, events.Paste(text))


async def test_a_huge_paste_into_a_field_without_a_cap_of_its_own_is_refused(console: Console) -> None:
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash")  # the list's filter field: an Input with no cap of its own
        await settle(pilot)
        field = pilot.app.focused
        assert isinstance(field, Input)
        paste(pilot.app, HUGE)
        await settle(pilot)
        assert field.value == ""  # refused whole, as Textual refuses an edit past max_length
        paste(pilot.app, "jane")
        await settle(pilot)
        assert field.value == "jane" and field.max_length == TEXT_MAX
        paste(pilot.app, "x" * TEXT_MAX)
        await settle(pilot)
        assert field.value == "jane"  # it would pass the cap: refused
        # Said, not a bell alone (tester85: a 5,000-character paste did nothing, with no word).
        said = f"Not pasted: the field takes at most {TEXT_MAX:,} characters, and the paste (100,000) would pass that."
        assert notifications(pilot.app).count(said) == 1
        paste(pilot.app, HUGE)
        await settle(pilot)
        assert notifications(pilot.app).count(said) == 2  # each paste is said, the value unchanged or not


async def test_keys_typed_past_the_cap_are_dropped_and_said_once(console: Console) -> None:
    # tester85: a 5,000-key burst was saved cut to 4,096 characters, with no word.
    async with console.app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await settle(pilot)
        field = pilot.app.focused
        assert isinstance(field, Input)
        paste(pilot.app, "x" * (TEXT_MAX - 2))
        await settle(pilot)
        for character in "abcdef":
            post_from_terminal(pilot.app, events.Key(character, character))
        await settle(pilot)
        assert field.value == "x" * (TEXT_MAX - 2) + "ab"
        said = f"Not typed: the field takes at most {TEXT_MAX:,} characters; the keys past that were dropped."
        assert notifications(pilot.app).count(said) == 1
        await pilot.press("backspace")
        post_from_terminal(pilot.app, events.Key("y", "y"))
        post_from_terminal(pilot.app, events.Key("z", "z"))
        await settle(pilot)
        assert field.value.endswith("ay") and notifications(pilot.app).count(said) == 2  # said again: it changed


def test_a_number_field_takes_the_digits_of_its_bounds() -> None:
    assert number_cap(0, 100) == len(str(-(2**53 - 1))) + 8  # the wire's own bound is the widest
    assert number_cap(None, 10**30) == 31 + 8
