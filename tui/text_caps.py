"""How long a text field may get: declared once, applied to every field, so a paste cannot defeat it.

A paste of a few megabytes holding one non-ASCII character or a tab made every later key take
seconds (one paste: 22.9 s; 10 M characters: over 90 s): the field measured its whole value in
cells on every key. Nothing a person types into this console is that long: a path is at most
PATH_MAX (4096 bytes on Linux), a URL or a description far less. Textual's ``max_length`` refuses
an edit that would pass the cap, a paste included, so the value never grows past it.

Fields built from a model take its bounds where it declares them (a number's digits);
every other field gets room for :data:`TEXT_MAX` more than it holds before the first paste or key
reaches it (:func:`cap_field`, called by the app, which hands every paste and key to the focused
widget), so a field added later is capped without a line of its own.
"""

from __future__ import annotations

from math import inf
from weakref import WeakKeyDictionary

from textual import events
from textual.widget import Widget
from textual.widgets import Input

from jmapclient.encoding import MAX_UNSIGNED_INT

TEXT_MAX = 4096
"""Characters a text field takes: a Linux path (PATH_MAX), a URL, a token, a description."""


def number_cap(minimum: int | None, maximum: int | None) -> int:
    """Characters a number field needs for its declared bounds (the wire's own where none is declared).

    Room is left for a fraction and an exponent (``1.5e3``): the bound itself is checked as typed.
    """
    widest = max(len(str(bound)) for bound in (minimum, maximum, -MAX_UNSIGNED_INT) if bound is not None)
    return widest + 8


def cap_field(widget: Widget) -> None:
    """Give a text field with no cap of its own the console's: room for :data:`TEXT_MAX` characters on top of
    what it holds. A value stored longer by another client (the command line takes 70,000 characters) took no
    key at all under a cap of its own length or less: every edit, Backspace too, left it past the cap."""
    if isinstance(widget, Input) and not widget.max_length:
        widget.max_length = len(widget.value) + TEXT_MAX


def room_left(field: Input) -> float:
    """Characters ``field`` takes before its cap, the selection typed over counted free (inf: no cap)."""
    start, end = sorted(field.selection)
    return (field.max_length or inf) - (len(field.value) - (end - start))


class CapNotices:
    """Text refused at a field's cap is said, once for each value the field holds.

    Textual's ``Input`` refuses an edit past ``max_length`` with a bell alone: a 5,000-key burst was saved cut to
    4,096 characters, and a 5,000-character paste did nothing, with no word (tester85). The keys of a burst past
    the cap are refused one by one; the warning is said for the first only, and again once the value changed. Each
    paste refused is said (a second one said nothing: tester88).
    """

    def __init__(self) -> None:
        self._said: WeakKeyDictionary[Widget, str] = WeakKeyDictionary()

    def refused(self, field: Widget | None, event: events.Event) -> bool:
        """True when ``event`` (a printable key or a paste) would take ``field`` past its cap: it is not handed on,
        and a bell and a warning say so."""
        if not isinstance(field, Input) or not field.max_length:
            return False
        if isinstance(event, events.Paste):
            text = event.text
        elif isinstance(event, events.Key) and event.character is not None and event.character.isprintable():
            text = event.character
        else:
            return False
        if len(text) <= room_left(field):
            return False
        field.app.bell()
        pasted = isinstance(event, events.Paste)
        if pasted or self._said.get(field) != field.value:  # each paste is said: one is a deliberate act
            self._said[field] = field.value
            cap = f"the field takes at most {field.max_length:,} characters"
            field.app.notify(f"Not pasted: {cap}, and the paste ({len(text):,}) would pass that." if
                             pasted else f"Not typed: {cap}; the keys past that were dropped.",
                             severity="warning")
        return True
