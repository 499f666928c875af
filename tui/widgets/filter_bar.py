"""The `/` filter line above a list: hidden until asked for, esc clears it, and esc again hides it; and
:class:`Debounce`, for a filter that costs a request and applies when typing pauses."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.cells import cell_len
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input

from jmapclient.display import ELLIPSIS
from tui.keyboard import focus_now


class FilterBar(Input):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "clear", "Clear filter", id="filter.clear"),
        Binding("enter", "done", "Done", show=False, id="filter.done"),
    ]

    class Done(Message):
        """The person finished typing; the list takes focus back."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(placeholder="Filter: type words to keep matching rows; esc clears", id=id, compact=True)
        self.display = False

    def open(self) -> None:
        self.display = True
        focus_now(self)

    def action_clear(self) -> None:
        """The first esc empties the filter and keeps the keyboard here; the next one leaves, as in the DMARC
        inbox. Clearing and leaving at once sent the next letters typed to the list, as commands
        ("/sql esc" then "n" opened a new directory)."""
        if esc_clears(self):
            return
        self.display = False
        self.post_message(self.Done())

    def action_done(self) -> None:
        if not self.value:
            self.display = False
        self.post_message(self.Done())


def esc_clears(field: Input) -> bool:
    """Esc on a filter holding text, wherever the keyboard is: the filter is emptied, and True (the keyboard
    stays, and the next esc leaves); False with nothing to clear. The one rule of the console's filters: the
    directory filter's field and the list under it, the DMARC inbox's filter fields."""
    if not field.value:
        return False
    field.value = ""
    return True


class FilterField(Input):
    """A filter field whose placeholder is the longest of its hints that fits its width, fitted again as the width
    changes. Input wraps a long placeholder at a space and drops the rest: at 120 columns with the menu shown the
    DMARC inbox read "recs not pass" (its example gone) and "recs pass e.g." (the example after it lost)."""

    def __init__(self, value: str = "", *, hints: Sequence[str], id: str | None = None,
                 tooltip: str | None = None) -> None:
        """``hints`` longest first, each whole phrases: the shorter ones leave a part out, never cut one."""
        super().__init__(value, placeholder=hints[0], id=id, compact=True, tooltip=tooltip)
        self.hints = tuple(hints)

    def on_resize(self, event: events.Resize) -> None:
        self.placeholder = fitting_hint(self.hints, self.scrollable_content_region.width)


def fitting_hint(hints: Sequence[str], width: int) -> str:
    """The first of ``hints`` (longest first) that fits ``width`` cells; narrower than all of them, the last
    one cut with an ellipsis, so what is left is seen to be cut."""
    for hint in hints:
        if cell_len(hint) <= width:
            return hint
    last = hints[-1]
    while last and cell_len(last + ELLIPSIS) > width:
        last = last[:-1]
    return last.rstrip() + ELLIPSIS if width > 0 else ""


TYPING_PAUSE = 0.35
"""Seconds without a key after which a filter typed is applied."""


class Debounce:
    """Calls ``apply`` once keys stop coming for ``delay`` seconds: a filter that asks the server is
    applied as it is typed, one request per pause rather than one per key."""

    def __init__(self, owner: Widget, apply: Callable[[], object], delay: float = TYPING_PAUSE) -> None:
        self.owner = owner
        self.apply = apply
        self.delay = delay
        self.timer: Timer | None = None

    def restart(self) -> None:
        """A key came: apply ``delay`` seconds from now, unless another comes first."""
        self.cancel()
        self.timer = self.owner.set_timer(self.delay, self._fire)

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.stop()
            self.timer = None

    @property
    def pending(self) -> bool:
        return self.timer is not None

    def _fire(self) -> None:
        self.timer = None
        self.apply()


def matches(words: str, *cells: str) -> bool:
    """Every word of the filter occurs in one of the cells (case-insensitive)."""
    haystack = " ".join(cells).lower()
    return all(word in haystack for word in words.lower().split())
