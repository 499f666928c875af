"""The console's one-line header: app, profile, server, user, and the breadcrumb of what is open.

The breadcrumb's end says where the person is, so when the line is too narrow it is the
start that gives way: "… › Reports › Inbox › DMARC", never "Management › Reports › In".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.widgets import Static

from jmapclient.display import ELLIPSIS, LIST_MAX
from tui.widgets import outside

SEPARATOR = " › "
PROFILE_SHOWN_MAX = 32
"""A profile's name in the header is cut past this: the person typed it, and the server and the trail need the rest."""
READ_ONLY_BADGE = " read-only "


def fit_trail(crumbs: Sequence[str], width: int) -> str:
    """The breadcrumb in at most ``width`` cells, shortened from the left."""
    trail = SEPARATOR.join(crumbs)
    if cell_len(trail) <= width:
        return trail
    for start in range(1, len(crumbs)):
        shortened = SEPARATOR.join((ELLIPSIS, *crumbs[start:]))
        if cell_len(shortened) <= width:
            return shortened
    # Even the last crumb alone is too long: keep its end, which is what tells it apart.
    if width <= 0:
        return ""
    last = crumbs[-1] if crumbs else ""
    tail = last
    while tail and cell_len(ELLIPSIS + tail) > width:
        tail = tail[1:]
    return ELLIPSIS + tail if tail else ELLIPSIS[:width]


class ShellHeader(Static):
    """One line: app, profile, server, user and the breadcrumb, fitted again whenever the width changes."""

    _shown: tuple[str, str, tuple[str, ...], str, str, bool] = ("", "", (), "", "", False)

    def show(self, server: str, user: str, crumbs: Iterable[str], warning: str = "", *,
             profile: str = "", read_only: bool = False) -> None:
        # Server, user, profile and crumbs (a reporter's name) come from outside: Text, never markup.
        self._shown = (server, user, tuple(outside.cut(crumb).plain for crumb in crumbs), warning, profile, read_only)
        self._paint()

    def _paint(self) -> None:
        server, user, crumbs, warning, profile, read_only = self._shown
        # An unsafe connection is said first, before the server, for as long as it lasts: after a
        # long URL it was cut off at 80 columns, the very width an SSH session often has.
        alarm = ((f" {warning} ", "bold white on red"), (" ", "")) if warning else ()
        head = Text.assemble(("mailadmin", "bold"), " │ ", *alarm, *profile_part(profile, read_only),
                             outside.cut(server), " │ ", outside.cut(user))
        if crumbs:
            room = self.content_region.width - head.cell_len - len(" │ ") if self.size.width else LIST_MAX * 2
            head.append_text(Text.assemble(" │ ", fit_trail(crumbs, min(room, LIST_MAX * 2))))
        self.update(head, layout=not self._height_fixed())

    def _height_fixed(self) -> bool:
        # Static.update lays the whole screen out again by default (it cannot know the new words keep
        # the line's height): each breadcrumb change, a visit to analytics among them, paid a layout of
        # every widget on screen. The shell's stylesheet fixes the header's height in cells; a header
        # whose height follows its content (none in the console) is laid out as before.
        height = self.styles.height
        return height is not None and height.is_cells

    def on_resize(self, event: events.Resize) -> None:
        self._paint()


def profile_part(profile: str, read_only: bool) -> tuple[Text | tuple[str, str] | str, ...]:
    """The profile the console works through, and whether it is read-only, before the server: an admin with
    a prod and a staging profile (or two on one URL, one read-only) saw the same header for both. Empty when
    no profile is in effect (a URL and a token given as flags, the demo)."""
    if not profile and not read_only:
        return ()
    name = (outside.cut(profile, "bold", max_len=PROFILE_SHOWN_MAX), " ") if profile else ()
    badge = ((READ_ONLY_BADGE, "bold black on yellow"), " ") if read_only else ()
    return (*name, *badge, "│ ")
