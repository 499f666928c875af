"""Unsaved edits: what the console would throw away, asked of everything on screen before it quits.

Anything that holds edits a person typed says so the same way, with ``unsaved_changes()``: the
section view (the directory form open in it) and any screen over the console (the profile form).
The shell asks every one of them before it quits or leaves (``SectionShell.may_leave``): only the
section was asked, and ctrl+q over the profile form threw a typed profile away without a word.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable


@runtime_checkable
class HoldsEdits(Protocol):
    """A section or screen that can hold edits not saved yet."""

    def unsaved_changes(self) -> str | None:
        """What would be lost now, named for the question (a directory's title, "the new profile"), or None."""
        ...


def unsaved_in(holders: Iterable[object]) -> list[str]:
    """What each of ``holders`` would lose, in their order; those holding nothing unsaved left out."""
    return [what for holder in holders if isinstance(holder, HoldsEdits) and (what := holder.unsaved_changes())]
