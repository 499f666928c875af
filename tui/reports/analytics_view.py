"""Analytics across every report the inbox filter shows, for a chosen period.

A worker keeps the digest store in step with the server (ids only for what is stored,
the reports only for what is not: :meth:`DigestStore.sync`), then has the figures
computed by SQL in a thread. It reports by messages (progress, figures, failure) and
never touches a widget itself; the view's handlers do. Changing the period recomputes
from the store without fetching. The work stops when the view goes (esc) or on **x**.
"""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import date, timedelta

from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Button, DataTable, ProgressBar, Select, Static, TabbedContent, TabPane

from jmapclient.dmarc.analytics import format_rate
from jmapclient.dmarc.digest_store import DigestStore, Figures, SyncProgress
from jmapclient.errors import JmapError
from jmapclient.models.dmarc import DmarcReport, DmarcReportRecord
from tui.context import ConsoleContext
from tui.lifecycle import while_attached
from tui.reports import fmt
from tui.reports.access import learn
from tui.reports.chart import bar_chart
from tui.reports.detail import DETAIL_CSS, DmarcDetail, label
from tui.reports.query import InboxQuery
from tui.widgets import outside
from tui.widgets.outside import OutsideTable

WORK_GROUP = "dmarc-analytics"
PERIODS = ((7, "last 7 days"), (14, "last 14 days"), (30, "last 30 days"), (90, "last 90 days"),
           (365, "last 365 days"))
DEFAULT_PERIOD = 30
LIST_LIMIT = 200
"""Rows per analytics table; the busiest come first."""


class SyncStep(Message):
    def __init__(self, step: SyncProgress) -> None:
        super().__init__()
        self.step = step


class FiguresReady(Message):
    def __init__(self, figures: Figures, note: str) -> None:
        super().__init__()
        self.figures = figures
        self.note = note


class SyncFailed(Message):
    def __init__(self, error: JmapError | sqlite3.Error) -> None:
        super().__init__()
        self.error = error


ANALYTICS_CSS = DETAIL_CSS.replace("DmarcDetail", "AnalyticsView") + """
AnalyticsView #controls { height: auto; padding: 0 1; }
AnalyticsView #period { width: 24; }
AnalyticsView #progress { width: 1fr; height: 2; padding: 1 0 0 2; }  /* its own height is 1: the padding ate the bar */
AnalyticsView #overview { height: auto; padding: 0 1; }
AnalyticsView TabbedContent { height: 1fr; }
AnalyticsView TabPane { padding: 0; }
"""


class AnalyticsView(DmarcDetail):
    DEFAULT_CSS = ANALYTICS_CSS
    BINDINGS = [Binding("x", "stop", "Stop fetching", id="dmarc.analytics.stop")]
    HELP = """\
### DMARC analytics

Figures across every report the inbox filter shows, for the chosen period, computed
here from a local cache (reports never change, so each is fetched once; a report
deleted on the server leaves the figures at the next visit):

- **Domains**: the DMARC pass rate per policy domain, weighted by messages;
- **Sources**: each sending IP, its messages, the domains it sent as and who saw it;
- **Daily**: messages and pass rate per day;
- **Failures**: only the records failing DMARC, busiest first, with a hint
  (likely forwarded, mailing list, spoofing).

**x** stops fetching (the figures then cover what was fetched), **r** fetches again,
**esc** goes back to the inbox.
"""

    def __init__(self, context: ConsoleContext, query: InboxQuery, cache: DigestStore) -> None:
        super().__init__(context, ("Analytics",))
        self.inbox_query = query
        self.cache = cache
        self.figures: Figures | None = None
        self.fetching = False

    def compose(self) -> ComposeResult:
        with Horizontal(id="controls"):
            yield Select([(text, days) for days, text in PERIODS], value=DEFAULT_PERIOD, allow_blank=False,
                         id="period")
            yield ProgressBar(id="progress", show_eta=False)
        yield Static("Listing reports…", id="status", classes="status")
        yield Static("", id="overview")
        yield Button("Retry", id="retry")
        with TabbedContent(id="tabs"):
            with TabPane("Domains", id="tab-domains"):
                yield OutsideTable(id="domains", cursor_type="row", zebra_stripes=True)
            with TabPane("Sources", id="tab-sources"):
                yield OutsideTable(id="sources", cursor_type="row", zebra_stripes=True)
            with TabPane("Daily", id="tab-daily"), VerticalScroll():
                yield Static(id="chart")
            with TabPane("Failures", id="tab-failures"):
                yield OutsideTable(id="failures", cursor_type="row", zebra_stripes=True)

    @while_attached
    def on_mount(self) -> None:
        self.query_one("#retry").display = False
        self.query_one("#domains", DataTable).add_columns(
            label(DmarcReport, "policyDomain"), "Reports", label(DmarcReportRecord, "count"), "Pass", "Fail",
            "DMARC pass")
        self.query_one("#sources", DataTable).add_columns(
            label(DmarcReportRecord, "sourceIp"), label(DmarcReportRecord, "count"), "Pass", "Fail", "DMARC pass",
            "Sent as (header From)", "Seen by", "Hint")
        self.query_one("#failures", DataTable).add_columns(
            label(DmarcReportRecord, "sourceIp"), label(DmarcReportRecord, "count"),
            label(DmarcReportRecord, "headerFrom"), label(DmarcReportRecord, "evaluatedDkim"),
            label(DmarcReportRecord, "evaluatedSpf"), label(DmarcReportRecord, "evaluatedDisposition"),
            label(DmarcReport, "orgName"), "Hint")
        self.query_one("#domains", DataTable).focus()
        self.fetch()

    def reload(self) -> None:
        self.fetch()

    @on(Button.Pressed, "#retry")
    def retry(self) -> None:
        self.fetch()

    @on(Select.Changed, "#period")
    def period_changed(self) -> None:
        if self.figures is not None:
            self.compute("")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "stop":
            return self.fetching  # shown only while there is something to stop
        return True

    def set_fetching(self, fetching: bool) -> None:
        self.fetching = fetching
        self.refresh_bindings()

    @while_attached
    def action_stop(self) -> None:
        """Stop the fetch; the figures then cover the reports listed and fetched so far."""
        if not self.fetching:
            return
        self.workers.cancel_group(self, WORK_GROUP)
        self.set_fetching(False)
        self.compute(" · stopped: only the reports fetched so far are counted (r fetches again)")

    # --- The worker: it only computes and posts messages --------------------------------------

    @work(exclusive=True, group=WORK_GROUP)
    @while_attached
    async def fetch(self) -> None:
        progress = self.query_one("#progress", ProgressBar)
        progress.display = True
        progress.update(total=None, progress=0)
        self.query_one("#retry").display = False
        self.set_fetching(True)
        try:
            await self.cache.sync(self.context.client.dmarc_reports, self.inbox_query.filter(),
                                  lambda step: self.post_message(SyncStep(step)))
        except (JmapError, sqlite3.Error) as error:
            self.post_message(SyncFailed(error))
            return
        await self.compute_figures("")

    @work(exclusive=True, group="dmarc-analytics-figures")
    @while_attached
    async def compute(self, note: str) -> None:
        await self.compute_figures(note)

    async def compute_figures(self, note: str) -> None:
        """Aggregate in a thread (SQL over every listed report), then hand the figures to the handler."""
        first, last = self.period()
        try:
            figures = await asyncio.to_thread(self.cache.figures, first, last, LIST_LIMIT)
        except sqlite3.Error as error:  # the cache file broke under us (disk full, removed)
            self.post_message(SyncFailed(error))
            return
        self.post_message(FiguresReady(figures, note))

    # --- What the worker reports ------------------------------------------------------------------

    @on(SyncStep)
    @while_attached
    def show_step(self, message: SyncStep) -> None:
        step = message.step
        progress = self.query_one("#progress", ProgressBar)
        status = self.query_one("#status", Static)
        if step.phase == "listing":
            progress.update(total=step.total, progress=step.done)
            of = f" of {step.total:,}" if step.total is not None else ""
            status.update(f"Listing reports: {step.done:,}{of}…")
            return
        total = (step.total or 0) + step.cached
        progress.update(total=total or 1, progress=step.cached + step.done if total else 1)
        status.update(f"Fetching {step.total or 0:,} reports ({step.cached:,} already cached): {step.done:,} done…")

    @on(SyncFailed)
    @while_attached
    def show_failure(self, message: SyncFailed) -> None:
        if isinstance(message.error, JmapError):
            learn(self.context, "list", message.error)
            what = "Could not fetch the reports"
        else:
            what = "The analytics cache failed (r tries again)"
        self.set_fetching(False)
        self.query_one("#progress", ProgressBar).display = False
        self.query_one("#status", Static).update(outside.message(f"{what}: {message.error}", "bold red"))
        self.query_one("#retry").display = True

    def period(self) -> tuple[date, date]:
        days = self.query_one("#period", Select).value
        last = self.context.now().date()
        return last - timedelta(days=int(days) - 1), last  # type: ignore[arg-type]

    @on(FiguresReady)
    @while_attached
    def show_figures(self, message: FiguresReady) -> None:
        figures = self.figures = message.figures
        if (figures.first, figures.last) != self.period():
            self.compute(message.note)  # the period changed while these were computed
            return
        self.query_one("#progress", ProgressBar).display = False
        self.set_fetching(False)
        summary = figures.overview
        self.query_one("#status", Static).update(
            f"{figures.first:%Y-%m-%d} to {figures.last:%Y-%m-%d}: {summary.reports:,} reports, "
            f"{summary.messages:,} messages, DMARC pass {format_rate(summary.rate)} (weighted by messages)"
            f"{message.note}"
        )
        domains = self.query_one("#domains", DataTable)
        domains.clear()
        for entry in figures.domains:
            domains.add_row(entry.domain, _num(entry.reports), _num(entry.messages), _num(entry.passed),
                            _num(entry.failed), _rate(entry.rate))
        source_table = self.query_one("#sources", DataTable)
        source_table.clear()
        for source in figures.sources:
            hint = source.main_hint
            source_table.add_row(source.source_ip or "–", _num(source.messages), _num(source.passed),
                                 _num(source.failed), _rate(source.rate), ", ".join(sorted(source.domains)),
                                 ", ".join(sorted(source.reporters)), hint.value if hint else "")
        failures = self.query_one("#failures", DataTable)
        failures.clear()
        for item in figures.failing:
            record = item.record
            failures.add_row(record.source_ip or "–", _num(record.count), record.header_from, record.dkim,
                             record.spf, record.disposition, item.report.reporter,
                             item.hint.value if item.hint else "")
        self.query_one("#chart", Static).update(self.chart(figures))

    def chart(self, figures: Figures) -> Group:
        series = figures.daily
        days = [d.day for d in series]
        volume = [d.messages for d in series]
        compliance = [None if d.rate is None else d.rate * 100 for d in series]
        return Group(
            Text("Messages per day", style="bold"),
            bar_chart(volume, height=8, style="cyan", days=days),
            Text(""),
            Text("DMARC pass % per day (weighted by messages; · = no report for that day)", style="bold"),
            bar_chart(compliance, height=6, style="green", days=days, maximum=100, unit="%"),
        )


def _num(value: int) -> Text:
    return Text(f"{value:,}", justify="right")


def _rate(rate: float | None) -> Text:
    return Text(format_rate(rate), style=fmt.rate_style(rate), justify="right")
