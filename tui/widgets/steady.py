"""Updating a line of text only when what it says changes.

``Static.update`` lays the whole screen out again, even for the same words. A form's lines
(a field's warning, its error, what saving sends, the rule panel beside it) follow every key
typed, so each character typed into a field of a big form laid the form out four or five
times over: 37 keys typed ahead into a directory form took 3.6 s to show on a loaded machine.
"""

from __future__ import annotations

from textual.visual import VisualType
from textual.widgets import Static


def update_steadily(line: Static, content: VisualType, *, display: bool | None = None) -> None:
    """Show ``content`` in ``line`` (and show or hide it) unless it shows just that already."""
    if line.content != content:
        line.update(content)
    if display is not None and line.display != display:
        line.display = display
