"""The one door to Textual's internals: the private Textual names the console relies on are used here.

Textual (pinned ``textual==8.2.8``) has no public hook for what follows; each entry says why.
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen

# --- Key path (kbd, issue #32) --------------------------------------------------------------------
# The app's key path (tui/keyboard.py) hands a key over only once the console has caught up with
# the one before. Textual's public flow covers all of it but one thing: whether callbacks are
# waiting for the screen's next refresh (``call_after_refresh``, as a form focuses its first
# field once built). ``Screen._callbacks`` holds them until the refresh runs them.


def refresh_callbacks_pending(screen: Screen[Any]) -> bool:
    """True while callbacks wait for ``screen``'s next refresh (``call_after_refresh``)."""
    return bool(getattr(screen, "_callbacks", ()))
