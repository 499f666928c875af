"""The console's sections: which there are, where each sits in the menu, and how each is built.

What a section is, and the messages it posts, is said in :mod:`tui.section_view`; this
module only lists them. A section's place in the web UI is declared once, on the object
type it manages (``ObjectType.section``); it is read from there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from tui.context import ConsoleContext
from tui.section_view import SectionView

PATH_SEPARATOR = " › "


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    object_type: str
    """The name of the object type the section manages, whose declaration gives its path."""
    factory: Callable[[ConsoleContext], SectionView]

    @cached_property
    def path(self) -> tuple[str, ...]:
        # Imported on first use: the models load after the console's first frame.
        from jmapclient.models.objects import object_type

        return tuple(object_type(self.object_type).section.split(PATH_SEPARATOR))

    @property
    def breadcrumb(self) -> str:
        return PATH_SEPARATOR.join(self.path)


# The factories import their section on first use, so the first frame waits for none of them.

def _directories(context: ConsoleContext) -> SectionView:
    from tui.directories.section import DirectoriesSection

    return DirectoriesSection(context)


def _dmarc(context: ConsoleContext) -> SectionView:
    from tui.reports.inbox import DmarcInbox

    return DmarcInbox(context)


SECTIONS: tuple[Section, ...] = (
    Section("directories", "Directories", "Directory", _directories),
    Section("dmarc", "DMARC", "DmarcExternalReport", _dmarc),
)
