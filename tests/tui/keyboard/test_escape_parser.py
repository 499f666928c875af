"""Esc and the keys behind it in one read are read as keys, in order (tui/textual_compat.escape_kept_parser).

Over SSH a burst arrives in one read; Esc then a key are the bytes of Alt and the key. Textual's
parser typed a long burst's Esc as ``^`` and dropped it before a key with no Alt name.
"""

from __future__ import annotations

import time

import pytest
from textual import events

from tui.textual_compat import ESCAPE, escape_kept_parser


def keys_read(data: str) -> list[str]:
    """The keys (or other events) a terminal's ``data`` reads as, once the Esc delay has passed."""
    parser = escape_kept_parser()()
    read = list(parser.feed(data))
    time.sleep(0.15)  # past ESCDELAY (0.1 s): what was waiting for more is read as it stands
    read += list(parser.tick())
    return [event.key if isinstance(event, events.Key) else type(event).__name__ for event in read]


@pytest.mark.parametrize(("data", "keys"), [
    # a burst from an open form: Esc, then n (new), Enter, and 40 characters
    (ESCAPE + "n\r" + "x" * 40, ["escape", "n", "enter", *["x"] * 40]),
    (ESCAPE + "n", ["escape", "n"]),
    (ESCAPE + "N", ["escape", "N"]),
    (ESCAPE + ESCAPE + "/ex", ["escape", "escape", "slash", "e", "x"]),  # leave the records, then filter
    (ESCAPE + "\x10", ["escape", "ctrl+p"]),  # leave, then the palette
    (ESCAPE + ":", ["escape", "colon"]),
    (ESCAPE + "[", ["escape", "left_square_bracket"]),  # a sequence begun, then nothing: two keys
])
def test_esc_and_the_key_behind_it_are_two_keys(data: str, keys: list[str]) -> None:
    assert keys_read(data) == keys


@pytest.mark.parametrize(("data", "keys"), [
    (ESCAPE + "1", ["escape", "1"]),  # not "¡": the tester's Description
    (ESCAPE + "2", ["escape", "2"]),  # not "™"
    (ESCAPE + "0", ["escape", "0"]),
    (ESCAPE + "§", ["escape", "section_sign"]),
    (ESCAPE + "=", ["escape", "equals_sign"]),
    ("abc" + ESCAPE + "-z", ["a", "b", "c", "escape", "minus", "z"]),  # not "abc–z" in a filter
    (ESCAPE + "9999-12-31", ["escape", *"9999", "minus", "1", "2", "minus", "3", "1"]),  # not "ª999-12-31"
    (ESCAPE + "1" + "x" * 40, ["escape", "1", *["x"] * 40]),  # a long burst behind it
])
def test_esc_and_a_key_textual_reads_as_an_option_character_are_two_keys(data: str, keys: list[str]) -> None:
    """Textual's table reads Esc then a digit, ``-``, ``=`` or ``§`` as the character macOS's Option
    gives with it (WezTerm sends Option+1 as Esc 1): typed fast, Esc was lost and ``¡`` typed."""
    assert keys_read(data) == keys


@pytest.mark.parametrize(("data", "keys"), [
    (ESCAPE, ["escape"]),
    (ESCAPE + "[A" + ESCAPE + "OP", ["up", "f1"]),  # sequences keep their meaning
    (ESCAPE + "b", ["ctrl+left"]),  # Textual's own pair (macOS's Option+Left)
    (ESCAPE + "f", ["ctrl+right"]),
    (ESCAPE + "\x7f", ["ctrl+w"]),  # Option+Backspace: delete a word
    (ESCAPE + "\t", ["shift+tab"]),  # the Linux console's shift+tab
    (ESCAPE + "[127;3u", ["alt+backspace"]),  # a real Alt key (kitty's protocol), bound by the tag field
    (ESCAPE + "[49;3u", ["alt+1"]),
    (ESCAPE + "[<0;10;5M", ["MouseDown"]),
    (ESCAPE + "[200~a b" + ESCAPE + "[201~", ["Paste"]),
    (ESCAPE + "[200~1-2=§" + ESCAPE + "[201~", ["Paste"]),
])
def test_what_textual_reads_as_one_key_or_event_stays_so(data: str, keys: list[str]) -> None:
    assert keys_read(data) == keys


def test_a_paste_of_digits_and_signs_is_one_paste_of_that_text() -> None:
    parser = escape_kept_parser()()
    read = list(parser.feed(ESCAPE + "[200~0000-01-01 a=1 §" + ESCAPE + "[201~"))
    assert [(type(event).__name__, getattr(event, "text", None)) for event in read] == [
        ("Paste", "0000-01-01 a=1 §")]
