"""The vim keys beside the arrows, declared once: j / k / g / G (down / up / top / bottom), the README's promise.

Every list and every text that scrolls takes them with the same binding ids (``list.down``, ``list.up``,
``list.top``, ``list.bottom``), so one ``[keys]`` remap moves them everywhere. A text that scrolls is a
:class:`VimScroll`: the help, a DMARC report, one record and analytics' Advice and Daily tabs took the
arrows, PageDown, Home and End but not j, k, g or G (a tester's finding).
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll


def vim_bindings(down: str, up: str, top: str, bottom: str, *, home_and_end: bool = False) -> list[BindingType]:
    """j, k, g and G bound to the widget's own actions; ``home_and_end`` binds Home and End with g and G (a
    widget whose own Home and End do something else: a table's scroll sideways)."""
    return [
        Binding("j", down, "Down", show=False, id="list.down"),
        Binding("k", up, "Up", show=False, id="list.up"),
        Binding("g,home" if home_and_end else "g", top, "Top", show=False, id="list.top"),
        Binding("G,end" if home_and_end else "G", bottom, "Bottom", show=False, id="list.bottom"),
    ]


SCROLL_KEYS = vim_bindings("scroll_down", "scroll_up", "scroll_home", "scroll_end")
"""For a widget that scrolls text (no cursor): its own Home and End already go to the top and the bottom."""


class VimScroll(VerticalScroll):
    """A vertical scroll of text that j / k / g / G move as the arrows, Home and End do."""

    BINDINGS: ClassVar[list[BindingType]] = SCROLL_KEYS
