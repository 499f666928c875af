"""What a console section is: the widget the shell mounts, the calls it answers, the messages it posts.

The shell (:mod:`tui.app`) talks to the mounted section only through :class:`SectionView`'s
methods; a section talks back only through the messages below, which bubble up to the shell.
The registry of sections (:mod:`tui.sections`) only lists them.

Shell → section (each with a default, so a section overrides only what it has):

- ``reload()``: the ``r`` key (binding id ``app.refresh``); ``can_reload()`` says whether it acts now;
- ``start_filter()``: the ``/`` key (binding id ``list.filter``); ``can_filter()`` likewise;
- ``help_text() -> str``: Markdown for ``?`` / F1 (binding id ``app.help``); ``""`` shows the
  shell's own help;
- ``go_back() -> bool``: ``esc`` (binding id ``app.back``); True if handled (e.g. a
  drill-down level closed), False to let the shell focus the navigation tree;
- ``unsaved_changes() -> str | None``: what quitting would lose, named for the quit question (the
  protocol every screen holding edits answers too: :mod:`tui.unsaved`).

Section → shell: :class:`Breadcrumb` and :class:`Status`. Inside a section, an editor asks
its owner to close it with :class:`EditorDone` rather than reaching for its parent.
"""

from __future__ import annotations

from typing import Literal

from textual.containers import Vertical
from textual.message import Message

from tui.keyboard import is_text_field
from tui.lifecycle import gone

Severity = Literal["information", "warning", "error"]


class Breadcrumb(Message):
    """The trail inside a section (after the section's path) for the header, e.g.
    ``("Corporate LDAP", "Edit")``; ``()`` clears it."""

    def __init__(self, trail: tuple[str, ...]) -> None:
        super().__init__()
        self.trail = trail


class Status(Message):
    """A one-line status for the shell's status bar; an empty text clears it."""

    def __init__(self, text: str, severity: Severity = "information") -> None:
        super().__init__()
        self.text = text
        self.severity = severity


class EditorDone(Message):
    """An editor is finished: its owner closes it, and reloads with ``saved_id`` selected if one was saved
    (or found changed on the server meanwhile). ``said``: the editor said what it saved on the status line, which
    the reload keeps."""

    def __init__(self, saved_id: str | None = None, *, said: bool = False) -> None:
        super().__init__()
        self.saved_id = saved_id
        self.said = said


class SectionView(Vertical):
    """The base of every section: the shell mounts one and calls only these methods on it."""

    def reload(self) -> None:
        """``r``: fetch again what is shown."""

    def start_filter(self) -> None:
        """``/``: put the keyboard on the section's filter, if it has one."""

    def can_reload(self) -> bool:
        """Whether ``r`` fetches anything in what is shown now; the footer hides it otherwise."""
        return True

    def can_filter(self) -> bool:
        """Whether ``/`` has a filter to go to in what is shown now; the footer hides it otherwise."""
        return True

    def help_text(self) -> str:
        """Markdown for ``?``; empty for the shell's own help."""
        return ""

    def go_back(self) -> bool:
        """``esc``: close an inner level and return True, or False at the top."""
        return False

    def unsaved_changes(self) -> str | None:
        """What quitting now would throw away (named for the question), or None."""
        return None

    def settle_focus(self) -> None:
        """After a load: the keyboard goes to the section (``focus()``) unless the person put it
        elsewhere on purpose, in the menu or in a field they type in. A load's overlay takes the
        focus from the list, so "nowhere" and "on something of this section" both count as free.
        Decided after the next refresh, with the focus as it is then (a key may have moved it)."""
        self.call_after_refresh(self._settle_focus)

    def _settle_focus(self) -> None:
        if gone(self):  # switched away before the refresh
            return
        focused = self.screen.focused
        if focused is None or (self in focused.ancestors and not is_text_field(focused)):
            self.focus()
