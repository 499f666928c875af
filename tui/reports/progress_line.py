"""A status line that follows a long fetch without laying the screen out at each step.

``Static.update`` lays the whole screen out again (Textual cannot know the new words keep the
line's height). Analytics' first visit of 10,000 reports tells its progress 20 times and more,
and each layout of the screen (the inbox under it, the view's tabs and tables) cost more CPU on
the loop the fetch shares than the step's own work: a line of one row that stays one row only
needs its own cells painted again.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.widgets import Static


def fits_one_row(line: Static, words: object) -> bool:
    """``words`` is plain text that fits one row of ``line`` as laid out now."""
    width = line.content_size.width
    return isinstance(words, str) and "\n" not in words and 0 < cell_len(words) <= width


def say_progress(line: Static, words: str) -> None:
    """Show ``words`` in ``line``; laid out again only when its height may change (one row to more, or back)."""
    if line.content == words:
        return
    line.update(words, layout=not (fits_one_row(line, line.content) and fits_one_row(line, words)))
