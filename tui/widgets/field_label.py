"""A field's label: a click on it puts the keyboard in its field, as a web form's label does.

Textual focuses what a click lands on only when that is focusable; a label is not, so the
keyboard stayed where it was (a button, the list) and the next letters typed as the field's
value ran commands instead (``q`` opened Quit).
"""

from __future__ import annotations

from textual import events
from textual.widget import Widget
from textual.widgets import Label

from tui.keyboard import focus_now


def first_focusable(widget: Widget) -> Widget | None:
    """``widget`` itself when it takes the keyboard, else the first of its descendants that does."""
    if widget.focusable:
        return widget
    return next((w for w in widget.query("*") if isinstance(w, Widget) and w.focusable), None)


class FieldLabel(Label):
    """Labels the field with id ``field``, or (none given) the first focusable widget after it."""

    def __init__(self, text: str, *, field: str | None = None, classes: str | None = None) -> None:
        super().__init__(text, classes=classes)
        self.field = field

    def target(self) -> Widget | None:
        parent = self.parent
        if not isinstance(parent, Widget):
            return None
        if self.field is not None:
            named = self.screen.query(f"#{self.field}")
            return first_focusable(named.first()) if named else None
        after = parent.children[parent.children.index(self) + 1:]
        return next((found for sibling in after if (found := first_focusable(sibling)) is not None), None)

    def on_click(self, event: events.Click) -> None:
        target = self.target()
        if target is not None:
            event.stop()
            focus_now(target)
