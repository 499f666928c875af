"""Management › Reports › Inbox › DMARC: the paged inbox list, its filters and its drill-down.

The list holds one server page at a time (see :mod:`tui.reports.pager`); moving past
the first or last row, or pressing page up/down, loads the neighbouring page in a
worker. Every network call runs in a worker, with a loading indicator, and a failure
is shown in words with a retry. The table is :mod:`tui.reports.inbox_table`, what it
shows is :mod:`tui.reports.inbox_state`, and what is done to reports is
:mod:`tui.reports.inbox_actions`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widget import AwaitMount
from textual.widgets import Button, DataTable, Input, ProgressBar, Static

from jmapclient.display import domain_text, name_text
from jmapclient.dmarc.digest_store import store_file
from jmapclient.errors import JmapError
from tui.context import ConsoleContext
from tui.keyboard import done_loading, focus_now, in_background
from tui.lifecycle import gone, while_attached
from tui.reports import fmt
from tui.reports.access import learn
from tui.reports.cache import DigestCache
from tui.reports.detail import DmarcDetail, ReportGone, ReportView
from tui.reports.inbox_actions import InboxActions
from tui.reports.inbox_display import InboxDisplay
from tui.reports.inbox_filters import FILTERS, InboxFilters
from tui.reports.inbox_json import InboxJson
from tui.reports.inbox_levels import InboxLevels
from tui.reports.inbox_state import KEPT_KEY, InboxState, KeptFilters
from tui.reports.inbox_table import InboxTable
from tui.reports.pager import InboxPager, InboxRow, Page
from tui.reports.query import DOMAIN, FAILED, PASSED
from tui.section_view import SectionView
from tui.widgets.filter_bar import FilterField

if TYPE_CHECKING:
    from tui.reports.analytics_view import AnalyticsView

HELP = """\
### DMARC reports

Aggregate reports received from other mail systems, newest first, one server page at a time.

- **enter** opens a report (then its records, then one record); **esc** goes back a level.
- **/** edits the filters: policy domain, records not marked pass / records marked pass (the
  server's totals: one per record, by its disposition, not messages) with =, >, >=, <, <=
  (e.g. `>= 1`), expiry before / after a date, tenant. They apply as you type (once typing pauses);
  **enter** applies them and goes to the list; **esc** empties the field, a second esc leaves it.
  Where the server has no policy-domain filter it searches words, and the console keeps only that
  domain's reports.
- **s** cycles the sort (received, expires; newest or oldest first), **c** shows From, Subject and Expires.
  Click the header of a column the server can sort by (Received, Expires) to sort by it (again: the
  other way); the arrow shows the order. A server that cannot sort by received lists reports in arrival order.
- **n** / **p** (page down / up) turn pages; moving past the last row does too; **g** / **G** (Home / End)
  first / last page.
- **space** marks reports, **d** deletes the marked ones (or the highlighted one) after a y/n question.
- **i** imports report files, **x** exports what the filter shows as CSV or JSON,
  **e** keeps the highlighted report longer (edits its expiry).
- **a** opens analytics: pass rates per domain, sources, a daily chart, failures first.
- **y** copies the highlighted report's id, **Y** the report as JSON (the terminal's clipboard escape,
  over SSH too), **J** shows its JSON.
- Actions this login may not take (the server's account answer, a read-only profile) are not offered;
  the line under the list says why.
"""

INBOX_CSS = """
DmarcInbox { layout: vertical; height: 1fr; }
DmarcInbox #dmarc-filters { height: auto; }
DmarcInbox #dmarc-filters Input { width: 1fr; margin-right: 1; }
DmarcInbox #dmarc-filters Input.-invalid { border: tall $error; }
DmarcInbox #dmarc-bar { height: auto; padding: 0 1; background: $panel; }
DmarcInbox #dmarc-position { width: auto; text-style: bold; }
DmarcInbox #dmarc-sort { width: 1fr; margin-left: 2; }
DmarcInbox #dmarc-note { height: auto; padding: 0 1; color: $text-muted; background: $panel; }
DmarcInbox #dmarc-table { height: 1fr; }
DmarcInbox #dmarc-empty { height: 1fr; content-align: center middle; color: $text-muted; }
DmarcInbox #dmarc-error { height: 1fr; padding: 1 2; }
DmarcInbox #dmarc-error-text { color: $error; height: auto; margin-bottom: 1; }
DmarcInbox #dmarc-progress, DmarcInbox #dmarc-export-progress { height: 1; padding: 0 1; }
DmarcInbox #dmarc-denied { height: auto; padding: 0 1; color: $warning; }
"""

FILTER_TIPS = {widget_id: f"{c.label}: {c.note}" for widget_id, c in
               (("f-domain", DOMAIN), ("f-failed", FAILED), ("f-passed", PASSED))}
"""Each filter field's full name, from the condition's declaration."""

LIST_ACTIONS = frozenset({"sort", "columns", "mark", "delete", "import_files", "export", "keep", "analytics",
                          "yank_id", "yank_json", "show_json"})
ROW_ACTIONS = frozenset({"mark", "keep", "yank_id", "yank_json", "show_json", "delete"})
"""Keys that act on the highlighted report: not offered while the list shows none (no match, a failed load),
where they did nothing. ``delete`` acts on the marked reports too, so it stays while some are marked."""
PREFETCH_GROUP = in_background("dmarc-prefetch")
"""The next page, fetched ahead of the cursor: keys are never held for it."""
HIDDEN_AT_START = ("#dmarc-note", "#dmarc-empty", "#dmarc-error", "#dmarc-progress", "#dmarc-export-progress")


class DmarcInbox(InboxDisplay, InboxLevels, InboxFilters, InboxActions, InboxJson, SectionView):
    """The DMARC section: built by the shell with the console context."""

    DEFAULT_CSS = INBOX_CSS
    BINDINGS: ClassVar = [
        # Most used first: the footer shows as many as fit, in this order (tui.widgets.footer).
        Binding("d,delete", "delete", "Delete", id="dmarc.delete"),
        Binding("x", "export", "Export", id="dmarc.export"),
        Binding("e", "keep", "Keep longer", id="dmarc.keep"),
        Binding("a", "analytics", "Analytics", id="dmarc.analytics"),
        Binding("i", "import_files", "Import", id="dmarc.import"),
        Binding("space", "mark", "Mark", id="dmarc.mark"),
        Binding("s", "sort", "Sort", id="dmarc.sort"),
        Binding("c", "columns", "From/Subject", id="dmarc.columns"),
        # As the Directories' y, Y and J (tui.directories.raw): the clipboard by OSC 52, over SSH too.
        Binding("y", "yank_id", "Copy the id", id="dmarc.yank_id", show=False),
        Binding("Y", "yank_json", "Copy as JSON", id="dmarc.yank_json", show=False),
        Binding("J", "show_json", "Show the JSON", id="dmarc.json", show=False),
    ]

    def __init__(self, context: ConsoleContext, *, prefetch: bool = True, persist_cache: bool = True,
                 id: str | None = "dmarc-inbox") -> None:
        super().__init__(id=id)
        self.levels: list[DmarcDetail] = []
        """Drill-down levels open over the list, innermost last."""
        self.context = context
        kept = context.kept.get(KEPT_KEY)
        self.kept_filters = kept if isinstance(kept, KeptFilters) else None
        """The filter and sort the inbox had when the console last left it (for another section)."""
        self.state = InboxState(context.client.dmarc_reports, self.kept_filters.query if self.kept_filters else None)
        self.prefetch = prefetch
        path = store_file(context.client.base_url) if persist_cache else None
        self.digests = DigestCache(path)
        self.list_wants_focus = False
        self.mounting: dict[DmarcDetail, AwaitMount] = {}
        """Levels still being mounted (see ``go_back``)."""
        """Set when a filter is applied: the keyboard goes to the list once its page is shown."""
        self.analytics: AnalyticsView | None = None
        """The analytics level, kept (hidden, its work stopped) after esc: the next visit of the same
        filter shows its figures at once and only checks the server for what changed, instead of
        building the view and its tables again."""

    # What the list shows, read through the state (which alone changes it).

    @property
    def pager(self) -> InboxPager:
        return self.state.pager

    @property
    def page(self) -> Page | None:
        return self.state.page

    @property
    def page_index(self) -> int:
        return self.state.page_index

    # --- Layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical(id="dmarc-list"):
            with Horizontal(id="dmarc-filters"):
                typed = self.kept_filters.typed if self.kept_filters else {}
                for widget_id, hints in FILTERS:
                    yield FilterField(typed.get(widget_id, ""), hints=hints, id=widget_id,
                                      tooltip=FILTER_TIPS.get(widget_id))
            with Horizontal(id="dmarc-bar"):
                yield Static("", id="dmarc-position")
                yield Static("", id="dmarc-sort")
            # A line of its own, wrapped: beside the position and the sort it was cut at 120 columns.
            yield Static("", id="dmarc-note")
            yield InboxTable(id="dmarc-table")
            yield Static("", id="dmarc-empty")
            with Vertical(id="dmarc-error"):
                yield Static("", id="dmarc-error-text")
                yield Button("Retry (r)", id="dmarc-retry", variant="primary")
            yield ProgressBar(id="dmarc-progress", show_eta=False)
            yield ProgressBar(id="dmarc-export-progress", show_eta=False)
            yield Static("", id="dmarc-denied")

    # --- Shell contract: r, /, ? (levels and esc: tui.reports.inbox_levels) ----------------------

    def reload(self) -> None:
        if self.levels:
            if self.levels[-1].is_mounted:  # a level still opening loads on its own
                self.levels[-1].reload()
        else:
            self.action_refresh()

    def start_filter(self) -> None:
        if not self.levels:
            focus_now(self.query_one("#f-domain", Input))

    def can_reload(self) -> bool:
        # A level that shows what the list already holds (records, one record) has nothing to fetch.
        return not self.levels or type(self.levels[-1]).reload is not DmarcDetail.reload

    def can_filter(self) -> bool:
        return not self.levels

    def focus_list(self) -> None:
        """The keyboard on the list: its table, or the line saying why there is none (which
        answers the list's keys, such as i in an empty inbox)."""
        for widget_id in ("#dmarc-table", "#dmarc-empty", "#dmarc-retry"):
            widget = self.query_one(widget_id)
            if widget.display and (widget_id != "#dmarc-retry" or self.query_one("#dmarc-error").display):
                focus_now(widget)
                return

    def help_text(self) -> str:
        return self.levels[-1].help_text() if self.levels else HELP

    def focus(self, scroll_visible: bool = True) -> DmarcInbox:
        if gone(self):
            return self
        if self.levels:
            self.levels[-1].focus(scroll_visible)
        else:
            self.focus_list()
        return self

    @while_attached
    def on_mount(self) -> None:
        self.query_one(InboxTable).show_columns(wide=False, sorted_by=self.sorted_by())
        for widget_id in HIDDEN_AT_START:
            self.query_one(widget_id).display = False
        self.query_one("#dmarc-empty").can_focus = True
        self.show_permissions()
        self.query_one(InboxTable).focus()
        self.load_page(0)
        if self.digests.set_aside:  # a damaged cache file was moved aside: said once, as text
            self.notify(self.digests.set_aside, severity="warning", markup=False)

    @property
    def year(self) -> int:
        """Dates in this year are shown without it."""
        return self.context.now().year

    # --- Loading ------------------------------------------------------------------------------

    @work(exclusive=True, group="dmarc-page")
    @while_attached
    async def load_page(self, index: int, cursor: str | int = "first") -> None:
        table = self.query_one(InboxTable)
        table.loading = True
        try:
            page = await self.pager.page(max(0, index))
        except JmapError as error:
            done_loading(table)
            learn(self.context, "list", error)
            self.show_error(f"Could not load the reports: {error}")
            self.settle_focus()
            return
        done_loading(table)
        self.show_page(page, cursor)
        if self.list_wants_focus:
            # The filter was applied with enter: typing is done, whatever the page shows.
            self.list_wants_focus = False
            self.focus_list()
        else:
            self.settle_focus()
        if self.prefetch and self.pager.page_count and page.index + 1 < self.pager.page_count:
            self.prefetch_page(page.index + 1)

    @work(exclusive=True, group=PREFETCH_GROUP)
    @while_attached
    async def prefetch_page(self, index: int) -> None:
        # The next page is usually wanted next; fetching it now makes paging feel instant.
        # A failure here is not shown: the real load will report it.
        try:
            await self.pager.page(index)
        except JmapError:
            return

    def list_changed(self, cursor: str | int = "first") -> None:
        self.state.invalidate()
        self.load_page(self.page_index, cursor)

    @on(ReportGone)
    def report_gone(self, event: ReportGone) -> None:
        event.stop()
        self.state.marked.discard(event.report_id)
        self.list_changed(cursor=self.query_one(InboxTable).cursor_row)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.levels and action in LIST_ACTIONS:
            return False  # the list's keys do nothing while a report or analytics is open
        if action in ROW_ACTIONS and self.current_row() is None and not (action == "delete" and self.state.marked):
            return False
        return self.action_allowed(action)

    @on(InboxTable.Turn)
    def turn(self, event: InboxTable.Turn) -> None:
        count = self.pager.page_count or 1
        if event.to == "first":
            self.load_page(0)
        elif event.to == "last":
            self.load_page(count - 1, "last")
        else:
            target = self.page_index + event.step
            if 0 <= target < count:
                self.load_page(target, "first" if event.step > 0 else "last")

    @on(Button.Pressed, "#dmarc-retry")
    def retry(self) -> None:
        self.action_refresh()

    def action_refresh(self) -> None:
        self.list_changed()

    # --- Selection ----------------------------------------------------------------------------

    def current_row(self) -> InboxRow | None:
        table = self.query_one(InboxTable)
        rows = self.state.rows
        if not rows or not table.display:
            return None
        return rows[min(table.cursor_row, len(rows) - 1)]

    def action_mark(self) -> None:
        row = self.current_row()
        if row is None:
            return
        self.state.marked.symmetric_difference_update({row.id})
        table = self.query_one(InboxTable)
        table.show_mark(row, row.id in self.state.marked, self.year)
        self.update_position()
        table.action_cursor_down()

    @on(DataTable.RowSelected, "#dmarc-table")
    def open_report(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if self.levels:
            return  # a burst of Enters: the report is already open
        row = self.current_row()
        if row is None:
            return
        named = [part for part in (name_text(row.reporter), domain_text(row.policy_domain), fmt.day(row.begin)) if part]
        # A report that could not be read has no names: "DMARC ›  ·  ·" said nothing of which it was.
        title = " · ".join(named) if named else f"report {row.id}"
        self.push_level(ReportView(self.context, row.id, title))

    def action_analytics(self) -> None:
        from tui.reports.analytics_view import AnalyticsView

        kept = self.analytics
        if kept is not None and kept.inbox_query.filter() != self.state.query.filter():
            # Another filter counts other reports: a new view, not the old figures shown first.
            self.analytics = None
            self.run_worker(self._remove_level(kept), group="dmarc-levels")
        if self.analytics is None:
            self.analytics = AnalyticsView(self.context, self.state.query, self.digests)
        self.push_level(self.analytics)
