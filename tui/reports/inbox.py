"""Management › Reports › Inbox › DMARC: the paged inbox list and its actions.

The list holds one server page at a time (see :mod:`tui.reports.pager`); moving past
the first or last row, or pressing page up/down, loads the neighbouring page in a
worker. Every network call runs in a worker, with a loading indicator, and a failure
is shown in words with a retry.
"""

from __future__ import annotations

import asyncio
import io
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, DataTable, Input, ProgressBar, Static

from jmapclient.config import write_private
from jmapclient.dmarc import ImportSummary, dedupe, export_rows, iter_report_files, load_file, write_csv, write_json
from jmapclient.dmarc.analytics import format_rate, pass_rate
from jmapclient.dmarc.upload import Uploader, existing_keys
from jmapclient.encoding import normalise_utc, parse_utc
from jmapclient.errors import JmapError, LocalValidationError, SetFailed
from jmapclient.models.dmarc import DmarcExternalReport, DmarcReport, DmarcReportRecord
from jmapclient.paging import pages_of_objects
from jmapclient.patch import compute_patch
from tui.context import ConsoleContext
from tui.reports import fmt
from tui.reports.access import ReportAction, allowed, learn, permission
from tui.reports.cache import DigestCache, cache_file
from tui.reports.detail import DmarcDetail, OpenLevel, ReportView, label
from tui.reports.dialogs import (
    ExportChoice,
    ExportDialog,
    ImportDialog,
    KeepChoice,
    KeepDialog,
    MessageDialog,
)
from tui.reports.pager import LIST_PROPERTIES, InboxPager, InboxRow, Page, position_text
from tui.reports.query import InboxQuery, QueryInputError, parse_comparison, parse_day
from tui.screens.confirm import ConfirmScreen
from tui.section_view import Breadcrumb, SectionView
from tui.widgets.list_table import ListTable

HELP = """\
### DMARC reports

Aggregate reports received from other mail systems, newest first, one server page at a time.

- **enter** opens a report (then its records, then one record); **esc** goes back a level.
- **/** edits the filters: policy domain, failed / passing messages with =, >, >=, <, <=
  (e.g. `>= 1`), expiry before / after a date, tenant. **enter** applies them.
- **s** cycles the sort (received, expires; newest or oldest first), **c** shows From, Subject and Expires.
- **n** / **p** (page down / up) turn pages; moving past the last row does too; **g** / **G** first / last page.
- **space** marks reports, **d** deletes the marked ones (or the highlighted one) after a y/n question.
- **i** imports report files, **x** exports what the filter shows as CSV or JSON,
  **e** keeps the highlighted report longer (edits its expiry).
- **a** opens analytics: pass rates per domain, sources, a daily chart, failures first.
"""

IMPORT_FILE_CAP = 10_000
EXPORT_CAP = 20_000
"""Bounds an export's memory and time; the summary says when it was reached."""

INBOX_CSS = """
DmarcInbox { layout: vertical; height: 1fr; }
DmarcInbox #dmarc-filters { height: auto; }
DmarcInbox #dmarc-filters Input { width: 1fr; margin-right: 1; }
DmarcInbox #dmarc-filters Input.-invalid { border: tall $error; }
DmarcInbox #dmarc-bar { height: 1; padding: 0 1; background: $panel; }
DmarcInbox #dmarc-position { width: auto; text-style: bold; }
DmarcInbox #dmarc-sort { width: auto; margin-left: 2; }
DmarcInbox #dmarc-note { width: 1fr; margin-left: 2; color: $text-muted; }
DmarcInbox #dmarc-table { height: 1fr; }
DmarcInbox #dmarc-empty { height: 1fr; content-align: center middle; color: $text-muted; }
DmarcInbox #dmarc-error { height: 1fr; padding: 1 2; }
DmarcInbox #dmarc-error-text { color: $error; height: auto; margin-bottom: 1; }
DmarcInbox #dmarc-progress { height: 1; padding: 0 1; }
DmarcInbox #dmarc-denied { height: auto; padding: 0 1; color: $warning; }
"""


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    views: str = "figures mail"
    """The views that show the column: ``figures`` (the default) and ``mail`` (c toggles it),
    which trades the figures for From, Subject and Expires: all do not fit beside a menu."""


def _columns() -> tuple[Column, ...]:
    report = DmarcExternalReport
    return (
        Column("received", label(report, "receivedAt")),
        Column("reporter", label(DmarcReport, "orgName"), "figures"),
        Column("domain", label(DmarcReport, "policyDomain")),
        Column("period", "Period", "figures"),
        Column("records", label(DmarcReport, "records"), "figures"),
        Column("messages", label(DmarcReportRecord, "count"), "figures"),
        Column("pass", "DMARC pass", "figures"),
        Column("from", label(report, "from"), "mail"),
        Column("subject", label(report, "subject"), "mail"),
        Column("expires", label(report, "expiresAt"), "mail"),
    )


COLUMNS = _columns()
REPORTER_WIDTH = 16
DOMAIN_WIDTH = 18
SUBJECT_WIDTH = 60
MARK = "●"


def row_cells(row: InboxRow, marked: bool, wide: bool, year: int) -> list[Any]:
    rate = pass_rate(row.passed, row.messages)
    cells: dict[str, Any] = {
        # The mark rides in the first cell: a column of its own costs width the 94-column main area lacks.
        "received": f"{MARK if marked else ' '}{fmt.when_short(row.received, year)}",
        "reporter": fmt.clip(row.reporter, REPORTER_WIDTH),
        "domain": fmt.clip(row.policy_domain, DOMAIN_WIDTH),
        "period": fmt.period(row.begin, row.end, year),
        "records": Text(fmt.count(row.records), justify="right"),
        "messages": Text(fmt.count(row.messages), justify="right"),
        "pass": Text(format_rate(rate), style=fmt.rate_style(rate), justify="right"),
        "from": row.sender,
        "subject": fmt.clip(row.subject, SUBJECT_WIDTH),
        "expires": fmt.day(row.expires),
    }
    return [cells[c.key] for c in visible_columns(wide)]


def visible_columns(wide: bool) -> list[Column]:
    view = "mail" if wide else "figures"
    return [c for c in COLUMNS if view in c.views.split()]


class InboxTable(ListTable):
    """A page of the inbox; at its edges it asks for the neighbouring page.

    j/k/g/G come from :class:`ListTable`; here g and G go to the first and last page.
    """

    BINDINGS: ClassVar = [
        Binding("pagedown,n", "page_down", "Next page", show=False, id="dmarc.next_page"),
        Binding("pageup,p", "page_up", "Previous page", show=False, id="dmarc.previous_page"),
    ]

    class Turn(Message):
        """Load another page: ``step`` pages on (±1), or ``to`` = "first"/"last"."""

        def __init__(self, step: int = 0, to: str | None = None) -> None:
            super().__init__()
            self.step = step
            self.to = to

    def action_cursor_down(self) -> None:
        if self.row_count and self.cursor_row >= self.row_count - 1:
            self.post_message(self.Turn(step=1))
        else:
            super().action_cursor_down()

    def action_cursor_up(self) -> None:
        if self.cursor_row <= 0:
            self.post_message(self.Turn(step=-1))
        else:
            super().action_cursor_up()

    def action_page_down(self) -> None:
        self.post_message(self.Turn(step=1))

    def action_page_up(self) -> None:
        self.post_message(self.Turn(step=-1))

    def action_scroll_top(self) -> None:
        self.post_message(self.Turn(to="first"))

    def action_scroll_bottom(self) -> None:
        self.post_message(self.Turn(to="last"))


FILTERS: tuple[tuple[str, str], ...] = (
    ("f-domain", "/ policy domain"),
    ("f-failed", "failed e.g. >=1"),
    ("f-passed", "passed e.g. <10"),
    ("f-before", "expires before"),
    ("f-after", "expires after"),
    ("f-tenant", "tenant id"),
)

LIST_ACTIONS = frozenset({"sort", "columns", "mark", "delete", "import_files", "export", "keep", "analytics"})
ACTION_NAMES: dict[str, ReportAction] = {
    "delete": "delete", "import_files": "import", "keep": "keep",
}


class DmarcInbox(SectionView):
    """The DMARC section: built by the shell with the console context."""

    DEFAULT_CSS = INBOX_CSS
    BINDINGS: ClassVar = [
        Binding("s", "sort", "Sort", id="dmarc.sort"),
        Binding("c", "columns", "From/Subject", id="dmarc.columns"),
        Binding("space", "mark", "Mark", id="dmarc.mark"),
        Binding("d,delete", "delete", "Delete", id="dmarc.delete"),
        Binding("i", "import_files", "Import", id="dmarc.import"),
        Binding("x", "export", "Export", id="dmarc.export"),
        Binding("e", "keep", "Keep longer", id="dmarc.keep"),
        Binding("a", "analytics", "Analytics", id="dmarc.analytics"),
    ]

    def __init__(self, context: ConsoleContext, *, prefetch: bool = True, persist_cache: bool = True,
                 id: str | None = "dmarc-inbox") -> None:
        super().__init__(id=id)
        self.levels: list[DmarcDetail] = []
        """Drill-down levels open over the list, innermost last."""
        self.context = context
        self.query_state = InboxQuery()
        self.pager = InboxPager(context.client.dmarc_reports, self.query_state)
        self.page_index = 0
        self.page: Page | None = None
        self.marked: set[str] = set()
        self.wide = False
        self.prefetch = prefetch
        self.updates_refused: str | None = None
        """The server's own refusal of report updates (the real server refuses them all)."""
        path = cache_file(context.client.base_url) if persist_cache else None
        self.digests = DigestCache(path)

    # --- Layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical(id="dmarc-list"):
            with Horizontal(id="dmarc-filters"):
                for widget_id, placeholder in FILTERS:
                    yield Input(placeholder=placeholder, id=widget_id, compact=True)
            with Horizontal(id="dmarc-bar"):
                yield Static("", id="dmarc-position")
                yield Static("", id="dmarc-sort")
                yield Static("", id="dmarc-note")
            yield InboxTable(id="dmarc-table")
            yield Static("", id="dmarc-empty")
            with Vertical(id="dmarc-error"):
                yield Static("", id="dmarc-error-text")
                yield Button("Retry (r)", id="dmarc-retry", variant="primary")
            yield ProgressBar(id="dmarc-progress", show_eta=False)
            yield Static("", id="dmarc-denied")

    # --- Shell contract: levels, esc, r, /, ? --------------------------------------------------

    @on(OpenLevel)
    def open_level(self, event: OpenLevel) -> None:
        event.stop()
        self.push_level(event.level)

    def push_level(self, level: DmarcDetail) -> None:
        (self.levels[-1] if self.levels else self.query_one("#dmarc-list")).display = False
        self.levels.append(level)
        self.mount(level)
        self.post_message(Breadcrumb(level.trail))
        self.refresh_bindings()

    def go_back(self) -> bool:
        """esc: close the innermost level; False at the list (the shell then focuses its menu)."""
        if not self.levels:
            return False
        self.levels.pop().remove()
        if self.levels:
            self.levels[-1].display = True
            self.levels[-1].focus()
            self.post_message(Breadcrumb(self.levels[-1].trail))
        else:
            self.query_one("#dmarc-list").display = True
            self.query_one(InboxTable).focus()
            self.post_message(Breadcrumb(()))
        self.refresh_bindings()
        return True

    def reload(self) -> None:
        if self.levels:
            self.levels[-1].reload()
        else:
            self.action_refresh()

    def start_filter(self) -> None:
        if not self.levels:
            self.query_one("#f-domain", Input).focus()

    def help_text(self) -> str:
        return self.levels[-1].help_text() if self.levels else HELP

    def focus(self, scroll_visible: bool = True) -> DmarcInbox:
        if self.levels:
            self.levels[-1].focus(scroll_visible)
        else:
            self.query_one(InboxTable).focus(scroll_visible)
        return self

    def on_mount(self) -> None:
        self.build_columns()
        for widget_id in ("#dmarc-empty", "#dmarc-error", "#dmarc-progress"):
            self.query_one(widget_id).display = False
        self.show_permissions()
        self.query_one(InboxTable).focus()
        self.load_page(0)

    def build_columns(self) -> None:
        table = self.query_one(InboxTable)
        table.clear(columns=True)
        for column in visible_columns(self.wide):
            table.add_column(column.title, key=column.key)

    @property
    def year(self) -> int:
        """Dates in this year are shown without it."""
        return self.context.now().year

    # --- Loading ------------------------------------------------------------------------------

    @work(exclusive=True, group="dmarc-page")
    async def load_page(self, index: int, cursor: str = "first") -> None:
        table = self.query_one(InboxTable)
        table.loading = True
        try:
            page = await self.pager.page(max(0, index))
        except JmapError as error:
            table.loading = False
            learn(self.context, "list", error)
            self.show_error(f"Could not load the reports: {error}")
            return
        table.loading = False
        self.show_page(page, cursor)
        if self.prefetch and self.pager.page_count and page.index + 1 < self.pager.page_count:
            self.prefetch_page(page.index + 1)

    @work(exclusive=True, group="dmarc-prefetch")
    async def prefetch_page(self, index: int) -> None:
        # The next page is usually wanted next; fetching it now makes paging feel instant.
        # A failure here is not shown: the real load will report it.
        try:
            await self.pager.page(index)
        except JmapError:
            return

    def show_page(self, page: Page, cursor: str | int = "first") -> None:
        self.page = page
        self.page_index = page.index
        table = self.query_one(InboxTable)
        self.query_one("#dmarc-error").display = False
        table.clear()
        for row in page.rows:
            table.add_row(*row_cells(row, row.id in self.marked, self.wide, self.year), key=row.id)
        empty = not page.rows
        table.display = not empty
        empty_text = self.query_one("#dmarc-empty", Static)
        empty_text.display = empty
        if empty:
            empty_text.update(
                "No reports match the filter. Change it with / (empty fields match everything)."
                if self.query_state.is_filtered else
                "No DMARC reports yet. Import report files with i, or wait for reporters to send some."
            )
        elif cursor == "last":
            table.move_cursor(row=len(page.rows) - 1)
        elif isinstance(cursor, int):
            table.move_cursor(row=min(cursor, len(page.rows) - 1))
        else:
            table.move_cursor(row=0)
        self.update_bar()

    def update_bar(self) -> None:
        page = self.page
        text = position_text(page)
        if page is not None and self.pager.page_count:
            text += f"  page {page.index + 1:,}/{self.pager.page_count:,}"
        if self.marked:
            text += f"  {len(self.marked)} marked"
        self.query_one("#dmarc-position", Static).update(text)
        self.query_one("#dmarc-sort", Static).update(f"sort: {self.query_state.describe_sort()} (s)")
        self.query_one("#dmarc-note", Static).update(self.pager.sort_note)

    def show_error(self, text: str) -> None:
        self.query_one(InboxTable).display = False
        self.query_one("#dmarc-empty").display = False
        self.query_one("#dmarc-error").display = True
        self.query_one("#dmarc-error-text", Static).update(text)
        self.query_one("#dmarc-position", Static).update("")
        self.show_permissions()

    def show_permissions(self) -> None:
        lines = []
        for action, title in (("delete", "Delete"), ("import", "Import"), ("keep", "Keep longer")):
            ok, reason = allowed(self.context, action)  # type: ignore[arg-type]
            if not ok:
                lines.append(f"{title} unavailable: {reason}")
        if self.updates_refused:
            lines.append(f"Keep longer unavailable: {self.updates_refused}")
        denied = self.query_one("#dmarc-denied", Static)
        denied.update("\n".join(lines))
        denied.display = bool(lines)
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.levels and action in LIST_ACTIONS:
            return False  # the list's keys do nothing while a report or analytics is open
        name = ACTION_NAMES.get(action)
        if name is None:
            return True
        if name == "keep" and self.updates_refused:
            return None
        return True if allowed(self.context, name)[0] else None

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
        self.pager.forget()
        self.load_page(self.page_index)

    # --- Filter and sort ----------------------------------------------------------------------

    @on(Input.Submitted, "#dmarc-filters Input")
    def apply_filter(self) -> None:
        values = {widget_id: self.query_one(f"#{widget_id}", Input) for widget_id, _ in FILTERS}
        for widget in values.values():
            widget.remove_class("-invalid")
        parsed: dict[str, Any] = {}
        problems = []
        for field, widget_id, parse in (("failed", "f-failed", parse_comparison),
                                        ("passed", "f-passed", parse_comparison),
                                        ("expires_before", "f-before", parse_day),
                                        ("expires_after", "f-after", parse_day)):
            try:
                parsed[field] = parse(values[widget_id].value)
            except QueryInputError as error:
                values[widget_id].add_class("-invalid")
                problems.append(str(error))
        if problems:
            self.query_one("#dmarc-note", Static).update(Text("; ".join(problems), style="bold red"))
            return
        query = replace(self.query_state, domain=values["f-domain"].value.strip(),
                        tenant=values["f-tenant"].value.strip(), **parsed)
        self.set_query(query)
        self.query_one(InboxTable).focus()

    def set_query(self, query: InboxQuery) -> None:
        self.query_state = query
        self.pager = InboxPager(self.context.client.dmarc_reports, query, page_size=self.pager.page_size)
        self.marked.clear()
        self.load_page(0)

    def action_sort(self) -> None:
        self.set_query(self.query_state.next_sort())

    def action_columns(self) -> None:
        self.wide = not self.wide
        self.build_columns()
        if self.page is not None:
            self.show_page(self.page, self.query_one(InboxTable).cursor_row)

    # --- Selection ----------------------------------------------------------------------------

    def current_row(self) -> InboxRow | None:
        table = self.query_one(InboxTable)
        if self.page is None or not self.page.rows or not table.display:
            return None
        return self.page.rows[min(table.cursor_row, len(self.page.rows) - 1)]

    def action_mark(self) -> None:
        row = self.current_row()
        if row is None:
            return
        self.marked.symmetric_difference_update({row.id})
        table = self.query_one(InboxTable)
        table.update_cell(row.id, "received", row_cells(row, row.id in self.marked, False, self.year)[0])
        self.update_bar()
        table.action_cursor_down()

    @on(DataTable.RowSelected, "#dmarc-table")
    def open_report(self, event: DataTable.RowSelected) -> None:
        event.stop()
        row = self.current_row()
        if row is None:
            return
        title = f"{row.reporter} · {row.policy_domain} · {fmt.day(row.begin)}"
        self.push_level(ReportView(self.context, row.id, title))

    def action_analytics(self) -> None:
        from tui.reports.analytics_view import AnalyticsView

        self.push_level(AnalyticsView(self.context, self.query_state, self.digests))

    # --- Delete -------------------------------------------------------------------------------

    def action_delete(self) -> None:
        if not self.permitted("delete"):
            return
        ids = sorted(self.marked) if self.marked else [r.id for r in [self.current_row()] if r is not None]
        if not ids:
            return
        if len(ids) == 1 and (row := self._row(ids[0])) is not None:
            question = (f"Delete the report from {row.reporter} for {row.policy_domain} "
                        f"({fmt.period(row.begin, row.end)})? This cannot be undone.")
        else:
            question = f"Delete {len(ids)} marked reports? This cannot be undone."

        def answered(yes: bool | None) -> None:
            if yes:
                self.delete_reports(ids)

        self.app.push_screen(ConfirmScreen(question, yes="Delete", no="Keep"), answered)

    def _row(self, report_id: str) -> InboxRow | None:
        return next((r for r in (self.page.rows if self.page else []) if r.id == report_id), None)

    @work(exclusive=True, group="dmarc-action")
    async def delete_reports(self, ids: list[str]) -> None:
        table = self.query_one(InboxTable)
        table.loading = True
        try:
            result = await self.context.client.dmarc_reports.destroy(ids)
        except JmapError as error:
            table.loading = False
            self.report_failure("delete", "Could not delete", error)
            return
        table.loading = False
        self.digests.discard(result.destroyed)
        self.marked.difference_update(result.destroyed)
        if result.not_destroyed:
            reasons = "; ".join(f"{i}: {e.message}" for i, e in result.not_destroyed.items())
            self.app.notify(f"Deleted {len(result.destroyed)}, not deleted {len(result.not_destroyed)}: {reasons}",
                            severity="warning", timeout=8)
        else:
            self.app.notify(f"Deleted {len(result.destroyed)} report{'s' if len(result.destroyed) != 1 else ''}.")
        self.pager.forget()
        self.pager.total = None
        self.load_page(self.page_index)

    # --- Import -------------------------------------------------------------------------------

    def action_import_files(self) -> None:
        if not self.permitted("import"):
            return

        def chosen(paths: list[str] | None) -> None:
            if paths:
                self.import_reports(paths)

        self.app.push_screen(ImportDialog(), chosen)

    @work(exclusive=True, group="dmarc-action")
    async def import_reports(self, paths: list[str]) -> None:
        progress = self.query_one("#dmarc-progress", ProgressBar)
        files = await asyncio.to_thread(_list_files, paths)
        progress.update(total=len(files), progress=0)
        progress.display = True
        summary = ImportSummary()
        api = self.context.client.dmarc_reports
        now = self.context.now()
        try:
            # The same uploader as `mailadmin import-dmarc`: the server's limits, and the
            # reports it already holds, count as duplicates.
            uploader = await Uploader.for_api(api, summary)
            seen = await existing_keys(api)
        except JmapError as error:
            progress.display = False
            learn(self.context, "import", error)
            self.show_permissions()
            self.app.push_screen(MessageDialog("Import stopped", [f"Stopped: {error}"]))
            return
        for path in files:
            parsed = await asyncio.to_thread(load_file, path, now=now)
            for result in dedupe([parsed], seen=seen):
                summary.add(result)
                if result.ok:
                    await uploader.add(result)
            progress.advance(1)
            if uploader.refused:
                break
        await uploader.flush()
        progress.display = False
        if uploader.error is not None:
            learn(self.context, "import", uploader.error)
            self.show_permissions()
        lines = summary.lines()
        if len(files) >= IMPORT_FILE_CAP:
            lines.insert(0, f"Only the first {IMPORT_FILE_CAP:,} files were read; import the rest separately.")
        if uploader.refused:
            lines.insert(0, f"Stopped: {uploader.refused}")
        self.app.push_screen(MessageDialog("Import stopped" if uploader.refused else "Import finished", lines))
        self.pager.forget()
        self.pager.total = None
        self.load_page(self.page_index)

    # --- Export -------------------------------------------------------------------------------

    def action_export(self) -> None:
        total = self.pager.total
        scope = (f"Exports the {total:,} reports the current filter shows" if total is not None
                 else "Exports the reports the current filter shows")
        scope += f" (at most {EXPORT_CAP:,}), one row per record."

        def chosen(choice: ExportChoice | None) -> None:
            if choice is not None:
                self.export_reports(choice)

        self.app.push_screen(ExportDialog("dmarc-reports.csv", scope), chosen)

    @work(exclusive=True, group="dmarc-action")
    async def export_reports(self, choice: ExportChoice) -> None:
        progress = self.query_one("#dmarc-progress", ProgressBar)
        progress.update(total=None, progress=0)
        progress.display = True
        api = self.context.client.dmarc_reports
        reports: list[dict[str, Any]] = []
        capped = False
        try:
            pages = pages_of_objects(
                api, self.query_state.filter(), self.query_state.sort_spec(self.pager_sort()), LIST_PROPERTIES
            )
            async for page in pages:
                reports.extend(page)
                progress.update(total=self.pager.total and min(self.pager.total, EXPORT_CAP), progress=len(reports))
                if len(reports) >= EXPORT_CAP:
                    capped = len(reports) > EXPORT_CAP or (self.pager.total or 0) > EXPORT_CAP
                    reports = reports[:EXPORT_CAP]
                    break
            progress.update(progress=len(reports))
            count = await asyncio.to_thread(_write_export, Path(choice.path), choice.format, reports)
        except (JmapError, OSError) as error:
            progress.display = False
            self.app.notify(f"Export failed: {error}", severity="error", timeout=10)
            return
        progress.display = False
        note = f" (stopped at {EXPORT_CAP:,} reports)" if capped else ""
        self.app.notify(f"Exported {len(reports):,} reports, {count:,} records, to {choice.path}{note}.", timeout=8)

    def pager_sort(self) -> str | None:
        # Reuse the sort the pager settled on (it may have fallen back to id).
        return "id" if self.pager.sort_note else None

    # --- Keep longer --------------------------------------------------------------------------

    def action_keep(self) -> None:
        if not self.permitted("keep"):
            return
        row = self.current_row()
        if row is None:
            return
        has_tenants = any(r.tenant for r in (self.page.rows if self.page else []))
        tenant_label = label(DmarcExternalReport, "memberTenantId") if has_tenants else None
        dialog = KeepDialog(
            f"{row.reporter} · {row.policy_domain} · {fmt.period(row.begin, row.end)}",
            fmt.day(row.expires), label(DmarcExternalReport, "expiresAt"), row.tenant, tenant_label,
            check_expiry=lambda text: _expiry(text, row.expires, self.context.now()),
        )

        def chosen(choice: KeepChoice | None) -> None:
            if choice is not None:
                self.keep_report(row, choice)

        self.app.push_screen(dialog, chosen)

    @work(exclusive=True, group="dmarc-action")
    async def keep_report(self, row: InboxRow, choice: KeepChoice) -> None:
        expires = choice.expires  # checked by the dialog (_expiry)
        before = {"expiresAt": row.expires, "memberTenantId": row.tenant}
        after = {"expiresAt": expires, "memberTenantId": choice.tenant}
        try:
            patch = compute_patch(before, after)
        except LocalValidationError as error:
            self.app.notify(str(error), severity="error")
            return
        if not patch:
            self.app.notify("Nothing changed.")
            return
        try:
            await self.context.client.dmarc_reports.update(row.id, patch)
        except SetFailed as error:
            refusal = next((f.description for f in error.failures.values()
                            if f.description and "cannot" in f.description.lower()), None)
            if refusal:
                self.updates_refused = f"this server does not let received reports be changed ({refusal})"
                self.show_permissions()
                self.app.notify(f"The server refused: {refusal}. Received reports are read-only there; "
                                "they are deleted when they expire.", severity="error", timeout=10)
                return
            self.report_failure("keep", "Could not change the report", error)
            return
        except JmapError as error:
            self.report_failure("keep", "Could not change the report", error)
            return
        self.app.notify(f"The report now expires {fmt.when(expires)}.")
        self.pager.forget()
        self.load_page(self.page_index, cursor=self.query_one(InboxTable).cursor_row)  # type: ignore[arg-type]

    # --- Permissions --------------------------------------------------------------------------

    def permitted(self, action: ReportAction) -> bool:
        ok, reason = allowed(self.context, action)
        if action == "keep" and self.updates_refused:
            ok, reason = False, self.updates_refused
        if not ok:
            self.app.notify(f"Not available: {reason}", severity="warning")
        return ok

    def report_failure(self, action: ReportAction, what: str, error: Exception) -> None:
        if learn(self.context, action, error):
            self.show_permissions()
            self.app.notify(f"{what}: the token lacks {permission(action)} ({error})", severity="error", timeout=10)
        else:
            self.app.notify(f"{what}: {error}", severity="error", timeout=10)


def _list_files(paths: list[str]) -> list[Path]:
    files = []
    for path in iter_report_files(paths):
        files.append(path)
        if len(files) >= IMPORT_FILE_CAP:
            break
    return files


def _write_export(path: Path, format_: str, reports: list[dict[str, Any]]) -> int:
    buffer = io.StringIO(newline="")
    writer = write_json if format_ == "json" else write_csv
    count = writer(export_rows(reports), buffer)
    write_private(path.expanduser(), buffer.getvalue().encode())
    return count


def _expiry(text: str, current: str, now: datetime) -> str:
    """A typed expiry as wire UTC; a bare date keeps the current time of day.

    A moment that has passed is refused: the server would delete the report at once,
    the opposite of keeping it longer.
    """
    value = text.strip()
    if not value:
        raise ValueError("Give an expiry date.")
    try:
        if len(value) == 10:
            time_of_day = parse_utc(current).strftime("%H:%M:%S") if current else "00:00:00"
            expires = normalise_utc(f"{value}T{time_of_day}Z")
        else:
            expires = normalise_utc(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a date: write YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ") from None
    if parse_utc(expires) <= now:
        raise ValueError(f"{fmt.when(expires)} has already passed; the server would delete the report at once.")
    return expires

