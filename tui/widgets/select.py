"""Selects that survive keys and removals that come before they are built.

:class:`SteadySelect`: Textual's Select builds its overlay (an OptionList) hidden, so it has no
line map until it is first shown; the Select gives it the keyboard as it opens, and a page
key that reaches it before the next refresh raised ``KeyError`` (found by the exploration on a
loaded machine). Its overlay carries the same guard as every OptionList here.

:class:`FormSelect`, a form's SteadySelect. Any of them may be taken down while still mounting:
Textual's Select sets its first value in its mount handler, through its current-value
display and its overlay. When the app quits (or the form is removed) in the turns between
mounting the Select and mounting those parts, they are gone and that handler fails with
``NoMatches``: a crash at quit for someone who pressed a key right after opening a form.
A Select without its parts has nothing to show, so its mount is skipped.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Select

from tui.lifecycle import gone
from tui.textual_compat import MountGuardedSelect, PageGuard, SelectCurrent, SelectOverlay, type_to_search


class SteadyOverlay(PageGuard, SelectOverlay):
    pass


class SteadySelect(MountGuardedSelect):
    def compose(self) -> ComposeResult:
        # Textual's Select.compose, with the guarded overlay.
        yield SelectCurrent(self.prompt)
        yield SteadyOverlay(type_to_search=type_to_search(self)).data_bind(compact=Select.compact)

    def may_mount(self) -> bool:
        # Asked by a mount handler Textual calls before Select's own (tui.textual_compat). Every Select, not
        # only a form's: analytics' period, taken down by the palette as it mounted, crashed the same way
        # (NoMatches '#label' on SelectCurrent, the exploration at load 8).
        return not gone(self) and bool(self.query("SelectOverlay") and self.query("SelectCurrent #label"))


class FormSelect(SteadySelect):
    """A form's Select (the guard is every Select's now; the name keeps the forms' selectors and tests)."""
