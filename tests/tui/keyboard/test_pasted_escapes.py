"""An Esc inside a bracketed paste stays the paste's, however the terminal's reads cut the input
(tui/pasted_escapes.PastedEscapes; the console in a PTY: tests/pty/test_typed_ahead.py)."""

from __future__ import annotations

import pytest

from tui.pasted_escapes import PASTE_END, PASTE_START, STAND_IN, PastedEscapes
from tui.textual_compat import escape_kept_parser

STREAM = "\x1b[A" + "x" + PASTE_START + "before\x1b[31mafter\x1b\x13" + PASTE_END + "\x1bj"
KEPT = "\x1b[A" + "x" + PASTE_START + f"before{STAND_IN}[31mafter{STAND_IN}\x13" + PASTE_END + "\x1bj"
AFTER = "x" + PASTE_START + "\x1b[20" + PASTE_END + "\x1b[201"
AFTER_KEPT = "x" + PASTE_START + f"{STAND_IN}[20" + PASTE_END + "\x1b[201"


def kept_in_reads(reads: list[str]) -> str:
    escapes = PastedEscapes()
    return "".join(escapes.kept(read) for read in reads)


def test_escapes_inside_a_paste_only_are_replaced() -> None:
    assert kept_in_reads([STREAM]) == KEPT
    assert kept_in_reads([AFTER]) == AFTER_KEPT  # the start of a closing sequence inside, and one begun after


@pytest.mark.parametrize("cut", range(1, len(STREAM)))
def test_a_read_cut_anywhere_gives_the_same(cut: int) -> None:
    """Cut in two reads at every place: inside the opening or the closing sequence too."""
    assert kept_in_reads([STREAM[:cut], STREAM[cut:]]) == KEPT


def test_one_character_a_read_gives_the_same() -> None:
    assert kept_in_reads(list(STREAM)) == KEPT
    assert kept_in_reads([STREAM, AFTER]) == KEPT + AFTER_KEPT  # a second paste in a later read


def test_a_closing_sequence_inside_the_pasted_text_is_text() -> None:
    # tester88: a paste of Z<Esc>[201~<ctrl+s> ended at its own closing sequence, and ctrl+s saved the form.
    forged = PASTE_START + "Z" + PASTE_END + "\x13" + PASTE_END + "j"
    assert kept_in_reads([forged]) == PASTE_START + f"Z{STAND_IN}[201~\x13" + PASTE_END + "j"


def test_outside_a_paste_nothing_is_held_back() -> None:
    """A lone Esc typed, or the start of a sequence, reaches the parser at once (it waits itself)."""
    escapes = PastedEscapes()
    assert escapes.kept("\x1b") == "\x1b"
    assert escapes.kept("[20") == "[20"


def test_the_parser_hands_the_paste_whole_and_no_key_from_it() -> None:
    parser = escape_kept_parser()()
    events = list(parser.feed("\r" + PASTE_START + "ok\x1b\x13" + PASTE_END + "j"))
    assert [type(e).__name__ for e in events] == ["Key", "Paste", "Key"]
    assert events[1].text == f"ok{STAND_IN}\x13"  # type: ignore[attr-defined]
