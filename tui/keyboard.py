"""Moving the keyboard at once, so keys typed ahead follow it.

``Widget.focus()`` defers the move until the app's queue reaches it, behind the keys already
typed: after ``/`` the next letters would still reach the list (and an Enter would open a
report) instead of the filter field. A move a key asks for goes through :func:`focus_now`.
"""

from __future__ import annotations

from textual.dom import NoScreen
from textual.keys import REPLACED_KEYS, key_to_character
from textual.widget import Widget


def focus_now(widget: Widget) -> None:
    """Focus ``widget`` before the next key is handled (nothing, if it has left the screen)."""
    try:
        widget.screen.set_focus(widget)
    except NoScreen:
        return


def typed_into(widget: Widget, key: str) -> bool:
    """True when ``key`` types a character into ``widget`` (a text field) instead of acting.

    Textual hides such keys from the footer, but it cannot name the character of every key:
    ``slash`` (and the other keys it renamed: ``minus``, ``plus``, ``at`` ...) has none, so
    "/ Filter" stayed in the footer while ``/`` typed a slash into the filter field.
    """
    character = key_to_character(REPLACED_KEYS.get(key, key))
    return character is not None and widget.check_consume_key(key, character)
