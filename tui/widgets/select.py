"""A Select that may be taken down while it is still mounting.

Textual's Select sets its first value in its mount handler, through its current-value
display and its overlay. When the app quits (or the form is removed) in the turns between
mounting the Select and mounting those parts, they are gone and that handler fails with
``NoMatches``: a crash at quit for someone who pressed a key right after opening a form.
A Select without its parts has nothing to show, so its mount is skipped.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.widgets import Select

from tui.lifecycle import gone


class FormSelect(Select[Any]):
    def _on_mount(self, event: events.Mount) -> None:
        # Textual calls each class's mount handler in turn, this one before Select's own.
        if gone(self) or not (self.query("SelectOverlay") and self.query("SelectCurrent #label")):
            event.prevent_default()
