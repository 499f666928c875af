"""An Esc inside a bracketed paste is the paste's text, never the start of a key.

Textual's terminal parser reads an Esc inside a paste as the start of a key sequence and sends
what follows it as key presses, outside the paste (tester85): ``before<Esc>[31mafter`` pasted into
a Description stored ``^[31mafterbefore``, and ``ok<Esc><ctrl+s>`` saved the form. A paste copied
from coloured terminal output holds such bytes. The terminal's input is read through
:class:`PastedEscapes` before the parser sees it: between the paste's opening and closing
sequences each Esc becomes :data:`STAND_IN`, a control character the paste keeps, and the field
that takes the paste refuses it with the others (``line_paste.fit_paste``).
"""

from __future__ import annotations

ESCAPE = "\x1b"
PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
STAND_IN = "\x1a"
"""SUB, "substitute": the character put where one could not be kept."""


def _held_back(text: str, marker: str) -> int:
    """How many of ``text``'s last characters begin ``marker`` (0 when none): the rest of it may come in the
    next read."""
    for size in range(min(len(text), len(marker) - 1), 0, -1):
        if marker.startswith(text[-size:]):
            return size
    return 0


class PastedEscapes:
    """Reads the terminal's input in order, read by read, and gives it back with every Esc inside a paste
    replaced by :data:`STAND_IN`; everything else passes as it came, at once.

    Inside a paste, an end of a read that may begin the closing sequence is held until the next read (a
    terminal always closes its paste), and the paste ends at the read's last closing sequence: pasted text holding
    one is text (a read cut between it and the terminal's own cannot tell them apart). Outside one, nothing is
    held: an opening sequence cut between two reads is found by the last characters passed on.
    """

    def __init__(self) -> None:
        self.in_paste = False
        self._passed = ""
        """The last characters passed on outside a paste: an opening sequence they begin ends in the next read."""
        self._held = ""
        """The end of the last read inside a paste that may begin the closing sequence."""

    def kept(self, data: str) -> str:
        out: list[str] = []
        while data:
            data = self._in_paste(data, out) if self.in_paste else self._outside(data, out)
        return "".join(out)

    def _outside(self, data: str, out: list[str]) -> str:
        window = self._passed + data
        found = window.find(PASTE_START)
        if found < 0:
            out.append(data)
            self._passed = window[-(len(PASTE_START) - 1):]
            return ""
        opened = found + len(PASTE_START) - len(self._passed)  # where the paste's text begins in ``data``
        out.append(data[:opened])
        self.in_paste, self._passed = True, ""
        return data[opened:]

    def _in_paste(self, data: str, out: list[str]) -> str:
        text, self._held = self._held + data, ""
        # The last closing sequence of the read: one inside the pasted text is text too. A paste of
        # ``Z<Esc>[201~<ctrl+s>`` ended at its own and typed ctrl+s, which saved the form (tester88); the terminal's
        # own comes after it, in the same read as the rest of a paste of that size.
        found = text.rfind(PASTE_END)
        if found < 0:
            held = _held_back(text, PASTE_END)
            self._held = text[len(text) - held:] if held else ""
            out.append(text[:len(text) - held].replace(ESCAPE, STAND_IN))
            return ""
        out.append(text[:found].replace(ESCAPE, STAND_IN))
        out.append(PASTE_END)
        self.in_paste = False
        return text[found + len(PASTE_END):]
