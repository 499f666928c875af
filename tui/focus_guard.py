"""The keyboard is always on a widget the person can see: one guard, owned by the app.

Found by the exploration, each leaving the keys typed next lost:
- ctrl+n (hide the menu) then Esc sent the keyboard to the hidden menu;
- a double click on the export dialog's format list left it on the list's closed overlay;
- Esc Esc over a dialog (help, jump) opened in a report's records: the second Esc closed the records
  while the dialog was leaving, the base screen's focused list went with them, and nothing was
  focused once the dialog was gone (the footer lost its keys too).

Two places catch every case: before the app hands a key on (:func:`keyboard_to_visible`, from
``MailAdminApp.on_event``), and when the console's own screen comes back on top
(:class:`ShellScreen`, its default screen). A hidden focus moves to the nearest shown ancestor
that takes the keyboard (a Select for its overlay), else to the section; no focus on the console's
screen goes to the section, or the menu.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.screen import Screen
from textual.widget import Widget

from tui.keyboard import focus_now


def shown(widget: Widget) -> bool:
    """True when ``widget`` and everything holding it is displayed and visible."""
    return all(node.display and node.visible for node in widget.ancestors_with_self if isinstance(node, Widget))


def keyboard_to_visible(app: App[Any]) -> None:
    """Move the keyboard off a hidden widget, or onto the console's screen when nothing there has it."""
    screen = app.screen
    focused = screen.focused
    if focused is not None and shown(focused):
        return
    if focused is not None:
        for holder in focused.ancestors:
            if isinstance(holder, Widget) and not isinstance(holder, Screen) and holder.focusable and shown(holder):
                focus_now(holder)
                return
    if isinstance(screen, ShellScreen):
        screen.give_keyboard()
    elif focused is not None:
        screen.set_focus(None)
        screen.focus_next()


class ShellScreen(Screen[None]):
    """The console's default screen: when it comes back on top with no shown widget focused, its
    section (or, without one, the menu) takes the keyboard."""

    def on_screen_resume(self) -> None:
        # After Textual's own resume, which gives back the focus it remembered, if still there.
        self.call_after_refresh(self._check_focus)

    def watch_focused(self, focused: Widget | None) -> None:
        # The focused widget removed while a dialog covers this screen (a records level closed by
        # an Esc typed behind the dialog's): checked once the removal is done, and again when this
        # screen is back on top. On top, no focus is left as it is (a tab switched in code), and
        # the next key finds the keyboard a place (keyboard_to_visible).
        if focused is None and not self.is_current:
            self.call_after_refresh(self._check_focus)

    def _check_focus(self) -> None:
        if self.is_current and (self.focused is None or not shown(self.focused)):
            self.give_keyboard()

    def give_keyboard(self) -> None:
        """The section takes the keyboard its own way (its current level's table); where that finds
        nothing to focus (a level without a table), its first shown focusable widget; else the menu."""
        view = getattr(self.app, "section_view", None)
        if isinstance(view, Widget) and shown(view):
            view.focus()
            self.call_after_refresh(self._fall_back, view)
            return
        self._fall_back(None)

    def _fall_back(self, view: Widget | None) -> None:
        if not self.is_current or (self.focused is not None and shown(self.focused)):
            return
        from tui.widgets.nav import NavTree

        places = [] if view is None else list(view.query("*"))
        for widget in [*places, *self.query(NavTree)]:
            if isinstance(widget, Widget) and widget.focusable and shown(widget):
                focus_now(widget)
                return
