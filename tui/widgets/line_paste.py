"""What a paste into a one-line field does with its line breaks: one rule, for every field.

Textual's ``Input`` keeps a paste's first line and drops the rest without a word: a token wrapped
over two lines was stored cut short (unseen: the field is masked), and the second of two paths
pasted into the DMARC import was never read. The app hands every paste to the focused widget
through :func:`fit_paste` (beside ``text_caps.cap_field``), so a field added later follows the rule
without a line of its own:

- the paste's trailing line breaks are dropped (copying a line often carries one);
- a paste still of several lines goes into a field that declares how it takes lines (a
  :class:`TakesLines`), as that field joins them; into any other one-line field it is not pasted at
  all, with a bell and a warning: nothing half pasted, nothing lost unseen;
- a paste holding a control character other than a tab (an Esc of a terminal's colours, kept as the
  paste's by ``tui.pasted_escapes``) is not pasted either, with a bell and a warning.

A multi-line field (``TextArea``) is no ``Input``: its pastes pass as they are.
"""

from __future__ import annotations

import shlex
import unicodedata

from textual import events
from textual.widget import Widget
from textual.widgets import Input

from tui.pasted_escapes import STAND_IN


class TakesLines(Input):
    """A one-line field that takes a paste of several lines: :meth:`join_lines` makes them its one line.

    A field declares it takes lines by being one (a subclass that says how it joins them); every
    other ``Input`` refuses such a paste (:func:`fit_paste`).
    """

    def join_lines(self, lines: list[str]) -> str:  # pragma: no cover - every kind overrides it
        raise NotImplementedError


class ShellWordsInput(TakesLines):
    """A field of shell-style words (the caller splits it with ``shlex``): each pasted line is one word.

    A line is quoted as it is (a path with spaces stays one path); blank lines name nothing.
    """

    def join_lines(self, lines: list[str]) -> str:
        words = shlex.join(line for line in lines if line.strip())
        # Set apart from words typed around the cursor: "/a" then a paste must not make "/a/b".
        start, end = sorted(self.selection)
        before, after = self.value[:start], self.value[end:]
        lead = " " if words and before and not before[-1].isspace() else ""
        trail = " " if words and after and not after[0].isspace() else ""
        return f"{lead}{words}{trail}"


def pasted_lines(text: str) -> list[str]:
    """The lines of a paste, its trailing line breaks dropped (Textual's own split: ``splitlines``), and
    after a first line any last lines of blanks only: a selection dragged past a line's end in a terminal
    picks up the next line's indent, which is no second line of text."""
    lines = text.splitlines()
    while lines and not lines[-1]:
        lines.pop()
    while len(lines) > 1 and lines[-1].isspace():
        lines.pop()
    return lines


def fit_paste(field: Widget | None, paste: events.Event) -> events.Event | None:
    """``paste`` as the focused ``field`` takes it, or None when refused (said with a bell and a warning).

    Any other event (a key) passes as it is.
    """
    if not isinstance(paste, events.Paste) or not isinstance(field, Input):
        return paste
    lines = pasted_lines(paste.text)
    if control := next((c for line in lines for c in line if c != "\t" and unicodedata.category(c) == "Cc"), None):
        field.app.bell()
        # Named by its code point, never with the text: the field may be a masked token.
        named = "Esc" if control == STAND_IN else f"U+{ord(control):04X}"  # an Esc comes as its stand-in
        field.app.notify(f"Not pasted: the paste held a control character ({named}), which no field takes;"
                         " copied from a terminal, it may carry its colours.", severity="warning")
        return None
    if len(lines) > 1 and isinstance(field, TakesLines):
        text = field.join_lines(lines)
    elif len(lines) > 1:
        field.app.bell()
        # The count only, never the text: the field may be a masked token.
        field.app.notify(f"Not pasted: the paste held {len(lines)} lines, and a one-line field takes one.",
                         severity="warning")
        return None
    else:
        text = lines[0] if lines else ""
    return paste if text == paste.text else events.Paste(text)
