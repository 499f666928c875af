"""The inbox's drill-down levels: a report, its records, a record, analytics, opened over the list.

Part of :class:`tui.reports.inbox.DmarcInbox`, split out by job (as its actions were): each Enter opens
one level over the one it was typed in, esc closes the innermost; the analytics level is kept hidden
between visits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import on
from textual.containers import Vertical
from textual.widget import AwaitMount

from tui.reports.detail import DmarcDetail, OpenLevel
from tui.section_view import Breadcrumb

if TYPE_CHECKING:
    from tui.reports.analytics_view import AnalyticsView


class InboxLevels(Vertical):
    """Levels over the list; :class:`tui.reports.inbox.DmarcInbox` sets the state and focuses the list."""

    levels: list[DmarcDetail]
    mounting: dict[DmarcDetail, AwaitMount]
    analytics: AnalyticsView | None
    clear_filter_field: Callable[[], bool]
    """From :class:`tui.reports.inbox_filters.InboxFilters` (after this class in the inbox's bases)."""

    def focus_list(self) -> None:
        raise NotImplementedError

    @on(OpenLevel)
    def open_level(self, event: OpenLevel) -> None:
        event.stop()
        self.push_level(event.level, event.opener)

    def push_level(self, level: DmarcDetail, opener: DmarcDetail | None = None) -> None:
        """Open ``level`` over ``opener`` (None: the list), only if that is what is on top.

        A burst of Enters reaches the opener again before the new level is drawn; opening
        once per level keeps Esc one step from where the person was.
        """
        if opener is not (self.levels[-1] if self.levels else None):
            return
        covered = self.levels[-1] if self.levels else self.query_one("#dmarc-list")
        if covered.has_focus_within:
            # Nothing holds the keyboard until the level is mounted and takes it (a level mounts
            # over several frames, longer on a loaded machine): the keys typed meanwhile wait in
            # the key path, and a dialog opened meanwhile gave the keyboard back to the hidden list.
            self.screen.set_focus(None)
        covered.display = False
        self.levels.append(level)
        if level is self.analytics and level.is_attached:
            level.display = True  # kept from an earlier visit (perhaps still mounting): shown again
            level.revisit()
        else:
            self.mounting[level] = self.mount(level)
        self.post_message(Breadcrumb(level.trail))
        self.refresh_bindings()

    def go_back(self) -> bool:
        """esc: close the innermost level; False at the list (the shell then focuses its menu)."""
        if not self.levels:
            if self.clear_filter_field():
                return True  # esc in a filter field holding text empties it; the next esc leaves it
            if self.query_one("#dmarc-filters").has_focus_within:
                self.focus_list()  # esc in an empty filter field leaves it for the list
                return True
            return False
        closed = self.levels.pop()
        closed.display = False
        if closed is self.analytics:
            closed.leave()  # kept for the next visit, its work stopped as if it were removed
        else:
            # A level closed in the same burst that opened it is removed once it has finished
            # mounting: removing it earlier leaves its widgets' queued mount handlers (Textual's
            # Select among them) running on children that are gone.
            self.run_worker(self._remove_level(closed), group="dmarc-levels")
        if self.levels:
            self.levels[-1].display = True
            self.levels[-1].focus()
            self.post_message(Breadcrumb(self.levels[-1].trail))
        else:
            self.query_one("#dmarc-list").display = True
            self.focus_list()
            self.post_message(Breadcrumb(()))
        self.refresh_bindings()
        return True

    async def _remove_level(self, level: DmarcDetail) -> None:
        mounting = self.mounting.pop(level, None)
        if mounting is not None:
            await mounting
        await level.remove()
