"""Analytics across the reports the inbox filter shows.

A worker fetches the reports (bounded: the newest ``ANALYTICS_CAP``, in pages), keeps
a digest of each in the :class:`DigestCache` (reports never change, so a digest is
fetched once), and the figures are computed in the client from the digests with
:mod:`jmapclient.dmarc.analytics`. Changing the period recomputes without fetching.
"""

from __future__ import annotations

from datetime import date, timedelta

from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, DataTable, ProgressBar, Select, Static, TabbedContent, TabPane

from jmapclient.dmarc.analytics import (
    ReportDigest,
    daily,
    digest_report,
    domain_rates,
    failing_records,
    format_rate,
    in_period,
    overview,
    sources,
)
from jmapclient.errors import JmapError
from jmapclient.models.dmarc import DmarcReport, DmarcReportRecord
from jmapclient.paging import QueryPager
from tui.context import ConsoleContext
from tui.lifecycle import while_attached
from tui.reports import fmt
from tui.reports.access import learn
from tui.reports.cache import DigestCache
from tui.reports.chart import bar_chart
from tui.reports.detail import DETAIL_CSS, DmarcDetail, label
from tui.reports.query import InboxQuery
from tui.widgets import outside
from tui.widgets.outside import OutsideTable

ANALYTICS_CAP = 5_000
"""At most this many reports (the newest the filter shows) enter the figures."""
ID_PAGE = 1_000
GET_CHUNK = 250
"""Reports per get request; small enough that the progress bar moves."""
PERIODS = ((7, "last 7 days"), (14, "last 14 days"), (30, "last 30 days"), (90, "last 90 days"))
DEFAULT_PERIOD = 30
LIST_LIMIT = 200
"""Rows per analytics table; the busiest come first."""

ANALYTICS_CSS = DETAIL_CSS.replace("DmarcDetail", "AnalyticsView") + """
AnalyticsView #controls { height: auto; padding: 0 1; }
AnalyticsView #period { width: 24; }
AnalyticsView #progress { width: 1fr; padding: 1 0 0 2; }
AnalyticsView #overview { height: auto; padding: 0 1; }
AnalyticsView TabbedContent { height: 1fr; }
AnalyticsView TabPane { padding: 0; }
"""


class AnalyticsView(DmarcDetail):
    DEFAULT_CSS = ANALYTICS_CSS
    HELP = """\
### DMARC analytics

Figures across the reports the inbox filter shows (the newest 5,000 at most), for the
chosen period, computed here from a local cache (reports never change):

- **Domains**: the DMARC pass rate per policy domain, weighted by messages;
- **Sources**: each sending IP, its messages, the domains it sent as and who saw it;
- **Daily**: messages and pass rate per day;
- **Failures**: only the records failing DMARC, busiest first, with a hint
  (likely forwarded, mailing list, spoofing).

**r** fetches again, **esc** goes back to the inbox.
"""

    def __init__(self, context: ConsoleContext, query: InboxQuery, cache: DigestCache) -> None:
        super().__init__(context, ("Analytics",))
        self.inbox_query = query
        self.cache = cache
        self.digests: list[ReportDigest] = []
        self.capped_note = ""

    def compose(self) -> ComposeResult:
        with Horizontal(id="controls"):
            yield Select([(text, days) for days, text in PERIODS], value=DEFAULT_PERIOD, allow_blank=False,
                         id="period")
            yield ProgressBar(id="progress", show_eta=False)
        yield Static("Fetching reports…", id="status", classes="status")
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
        if self.digests:
            self.show_figures()

    # --- Fetching -----------------------------------------------------------------------------

    @work(exclusive=True, group="dmarc-analytics")
    @while_attached
    async def fetch(self) -> None:
        status = self.query_one("#status", Static)
        progress = self.query_one("#progress", ProgressBar)
        progress.display = True
        self.query_one("#retry").display = False
        api = self.context.client.dmarc_reports
        query = self.inbox_query
        # Newest first; where the server cannot sort by receivedAt the object API falls back
        # to the order the type declares (ObjectType.sort_fallbacks).
        pager = QueryPager(api, query.filter(), [{"property": "receivedAt", "isAscending": False}],
                           ids_only=True, page_size=ID_PAGE)
        try:
            ids: list[str] = []
            status.update("Listing reports…")
            async for page in pager.pages(cap=ANALYTICS_CAP):
                ids.extend(page.ids)
            total = pager.total
            missing = self.cache.missing(ids)
            progress.update(total=len(ids), progress=len(ids) - len(missing))
            status.update(f"Fetching {len(missing):,} reports ({len(ids) - len(missing):,} already cached)…")
            for start in range(0, len(missing), GET_CHUNK):
                got = await api.get(missing[start:start + GET_CHUNK], properties=("id", "report"))
                for wire in got.raw:
                    try:
                        self.cache.put(digest_report(wire))
                    except (ValueError, TypeError, KeyError):
                        continue  # a report this client cannot read is left out, not fatal
                progress.advance(len(got.raw) + len(got.not_found))
        except JmapError as error:
            learn(self.context, "list", error)
            progress.display = False
            status.update(outside.message(f"Could not fetch the reports: {error}", "bold red"))
            self.query_one("#retry").display = True
            return
        try:
            self.cache.save()
        except OSError as error:
            self.app.notify(f"The analytics cache could not be saved: {error}", severity="warning")
        self.digests = [d for d in (self.cache.get(i) for i in ids) if d is not None]
        progress.display = False
        if total is not None and total > len(ids):
            self.capped_note = f" · only the newest {len(ids):,} of {total:,} reports are counted"
        else:
            self.capped_note = ""
        self.show_figures()

    # --- Figures ------------------------------------------------------------------------------

    def period(self) -> tuple[date, date]:
        days = self.query_one("#period", Select).value
        last = self.context.now().date()
        return last - timedelta(days=int(days) - 1), last  # type: ignore[arg-type]

    def show_figures(self) -> None:
        first, last = self.period()
        chosen = in_period(self.digests, first, last)
        summary = overview(chosen)
        self.query_one("#status", Static).update(
            f"{first:%Y-%m-%d} to {last:%Y-%m-%d}: {summary.reports:,} reports, {summary.messages:,} messages, "
            f"DMARC pass {format_rate(summary.rate)} (weighted by messages){self.capped_note}"
        )
        domains = self.query_one("#domains", DataTable)
        domains.clear()
        for entry in domain_rates(chosen)[:LIST_LIMIT]:
            domains.add_row(entry.domain, _num(entry.reports), _num(entry.messages), _num(entry.passed),
                            _num(entry.failed), _rate(entry.rate))
        source_table = self.query_one("#sources", DataTable)
        source_table.clear()
        for source in sources(chosen)[:LIST_LIMIT]:
            hint = source.main_hint
            source_table.add_row(source.source_ip or "–", _num(source.messages), _num(source.passed),
                                 _num(source.failed), _rate(source.rate), ", ".join(sorted(source.domains)),
                                 ", ".join(sorted(source.reporters)), hint.value if hint else "")
        failures = self.query_one("#failures", DataTable)
        failures.clear()
        for item in failing_records(chosen)[:LIST_LIMIT]:
            record = item.record
            failures.add_row(record.source_ip or "–", _num(record.count), record.header_from, record.dkim,
                             record.spf, record.disposition, item.report.reporter,
                             item.hint.value if item.hint else "")
        self.query_one("#chart", Static).update(self.chart(first, last, chosen))

    def chart(self, first: date, last: date, chosen: list[ReportDigest]) -> Group:
        series = daily(chosen, first, last)
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
