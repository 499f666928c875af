"""Moving the keyboard at once, so keys typed ahead follow it.

``Widget.focus()`` defers the move until the app's queue reaches it, behind the keys already
typed: after ``/`` the next letters would still reach the list (and an Enter would open a
report) instead of the filter field. A move a key asks for goes through :func:`focus_now`.
"""

from __future__ import annotations

from textual.dom import NoScreen
from textual.widget import Widget


def focus_now(widget: Widget) -> None:
    """Focus ``widget`` before the next key is handled (nothing, if it has left the screen)."""
    try:
        widget.screen.set_focus(widget)
    except NoScreen:
        return
