"""The console's sections: where each sits in the navigation tree and how it is built.

A section is a widget made by ``factory(context)`` and mounted in the shell's main area.

Messages a section may post (they bubble up to the shell):

- :class:`Breadcrumb` ``(trail)``: the path shown in the header after the section's own
  path, e.g. ``("Corporate LDAP", "Edit")`` when a form is open; ``()`` to clear it.
- :class:`Status` ``(text, severity)``: a one-line status under the main area
  (``"information"``, ``"warning"`` or ``"error"``); an empty text clears it.

Optional methods the shell calls on the mounted section, when present:

- ``reload()``: the ``r`` key (binding id ``app.refresh``);
- ``start_filter()``: the ``/`` key (binding id ``list.filter``);
- ``help_text() -> str``: Markdown for ``?`` / F1 (binding id ``app.help``);
- ``go_back() -> bool``: ``esc`` (binding id ``app.back``); return True if handled
  (e.g. a drill-down level closed), False to let the shell focus the navigation tree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from tui.context import ConsoleContext

Severity = Literal["information", "warning", "error"]


class Breadcrumb(Message):
    """The trail inside a section (after the section's path), for the header."""

    def __init__(self, trail: tuple[str, ...]) -> None:
        super().__init__()
        self.trail = trail


class Status(Message):
    """A one-line status for the shell's status bar."""

    def __init__(self, text: str, severity: Severity = "information") -> None:
        super().__init__()
        self.text = text
        self.severity = severity


@dataclass(frozen=True)
class Section:
    id: str
    path: tuple[str, ...]
    title: str
    factory: Callable[[ConsoleContext], Widget]

    @property
    def breadcrumb(self) -> str:
        return " › ".join(self.path)


class NotYetAvailable(Static):
    """Placeholder for a section whose module is not in this build."""

    def __init__(self, title: str, reason: str) -> None:
        super().__init__(f"[b]{title}[/b]\n\nNot yet available in this build: {reason}", classes="not-available")


def _directories(context: ConsoleContext) -> Widget:
    from tui.directories.section import DirectoriesSection

    return DirectoriesSection(context)


def _dmarc(context: ConsoleContext) -> Widget:
    try:
        from tui.reports.inbox import DmarcInbox  # built on branch tui-dmarc
    except ImportError as error:
        return NotYetAvailable("DMARC reports", f"the DMARC inbox module is missing ({error.name})")
    return DmarcInbox(context)


SECTIONS: tuple[Section, ...] = (
    Section("directories", ("Settings", "Authentication", "Directories"), "Directories", _directories),
    Section("dmarc", ("Management", "Reports", "Inbox", "DMARC"), "DMARC", _dmarc),
)


def section(section_id: str) -> Section:
    for candidate in SECTIONS:
        if candidate.id == section_id:
            return candidate
    raise KeyError(section_id)
