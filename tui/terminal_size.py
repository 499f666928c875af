"""The smallest terminal the console lays itself out in.

A tmux pane being dragged, or a terminal squeezed to a corner, can be a few cells across.
Below about six columns Textual's option lists (the section jump, the command palette) wrap
their text at width zero and stop the console (``ValueError: range() arg 3 must not be zero``
in Rich), taking unsaved edits with it. Nothing is usable at that size anyway, so the console
lays itself out as if the terminal were ``MIN_SIZE``: the terminal shows its top-left corner
until it grows again, when the whole screen is drawn anew.
"""

from __future__ import annotations

from textual import events
from textual.geometry import Size

MIN_SIZE = Size(20, 5)
"""Columns and rows the layout never goes below (every view and dialog was tried at 20×5)."""


def at_least_min(size: Size) -> Size:
    """``size``, widened and heightened to ``MIN_SIZE`` where it falls short."""
    return Size(max(size.width, MIN_SIZE.width), max(size.height, MIN_SIZE.height))


def resize_at_least_min(event: events.Resize) -> events.Resize:
    """The same resize, or one to the smallest size the console lays out when the terminal is smaller."""
    size = at_least_min(event.size)
    if size == event.size:
        return event
    return events.Resize(size, at_least_min(event.virtual_size), at_least_min(event.container_size),
                         event.pixel_size)
