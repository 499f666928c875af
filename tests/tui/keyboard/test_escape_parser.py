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
    (ESCAPE, ["escape"]),
    (ESCAPE + "[A" + ESCAPE + "OP", ["up", "f1"]),  # sequences keep their meaning
    (ESCAPE + "b", ["ctrl+left"]),  # Textual's own pair (macOS's Option+Left)
    (ESCAPE + "\x7f", ["ctrl+w"]),
    (ESCAPE + "[<0;10;5M", ["MouseDown"]),
    (ESCAPE + "[200~a b" + ESCAPE + "[201~", ["Paste"]),
])
def test_what_textual_reads_as_one_key_or_event_stays_so(data: str, keys: list[str]) -> None:
    assert keys_read(data) == keys
