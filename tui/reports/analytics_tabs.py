"""Analytics' tabs: the first one built with the view, each other built the first time it is shown.

A first visit fills only what is on screen: the Domains tab. The other four (Sources, Advice,
Daily, Failures) were a third of the view's widgets, composed, styled and mounted on the loop
the fetch shares, though hidden until chosen. Each is built when it first becomes the active
tab, however it got there (a click, the keys on the tabs, a pane focused, ``active`` set), and
filled then from what the view holds: the headline and figures drawn, the judged sources, the names known.
Built in the same call that makes it active (a watcher of ``active``), so it is in the DOM
before the next frame, and a query right after the switch finds it.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.widget import Widget
from textual.widgets import DataTable, Static, TabbedContent

from jmapclient.dmarc.digest_store import Figures
from jmapclient.dmarc.figures import Headline
from jmapclient.models.dmarc import DmarcReport, DmarcReportRecord
from tui.reports.chart import daily_chart
from tui.reports.detail import label
from tui.reports.insight_render import SOURCE_COLUMNS, SOURCE_KEYS
from tui.reports.insight_render import num as _num
from tui.widgets.outside import OutsideTable
from tui.widgets.vim_keys import VimScroll

FIRST_TAB = "tab-domains"
"""The tab shown as a visit opens, composed with the view."""
LATER_TABS = ("tab-sources", "tab-advice", "tab-daily", "tab-failures")
"""Built when first shown (:class:`LazyTabs`)."""
TAB_ORDER = (FIRST_TAB, *LATER_TABS)
"""The tabs left to right, as ``[`` and ``]`` go through them."""
ADVICE_PENDING = "Working out the advice…"


class LazyTabs(TabbedContent):
    """Tabbed content whose panes listed in :data:`LATER_TABS` get their widgets when first shown."""

    def __init__(self, build: Callable[[str], None], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._build = build
        self.built: set[str] = {FIRST_TAB}
        """The panes whose widgets are there (the first from the start)."""

    def turn(self, step: int) -> None:
        """Show the tab ``step`` places to the right (left when negative), round from the last to the first:
        as the tab bar's own arrows go, which only a keyboard already on the tab bar could reach."""
        at = TAB_ORDER.index(self.active) if self.active in TAB_ORDER else 0
        self.active = TAB_ORDER[(at + step) % len(TAB_ORDER)]

    def watch_active(self, active: str) -> None:
        # Called with every change of ``active``, after TabbedContent's own watcher switched the pane.
        if active in LATER_TABS and active not in self.built:
            self.built.add(active)
            self._build(active)


def later_pane(tab: str) -> tuple[list[Widget], dict[str, Widget]]:
    """The widgets of ``tab``, empty, and its parts the view fills by id (from what it holds, then as its
    figures change): a part inside a container is not in the DOM until the container is mounted."""
    if tab == "tab-sources":
        sources: OutsideTable = OutsideTable(id="sources", cursor_type="row", zebra_stripes=True)
        for title, key in zip(SOURCE_COLUMNS, SOURCE_KEYS, strict=True):
            sources.add_column(title, key=key)
        return [Static("", classes="names-status"), sources], {"sources": sources}
    if tab == "tab-advice":
        advice = Static(ADVICE_PENDING, id="advice")
        return [Static("", classes="names-status"), VimScroll(advice, id="advice-scroll")], {"advice": advice}
    if tab == "tab-daily":
        chart = DailyChart(id="chart")
        return [VimScroll(chart, id="daily-scroll")], {"chart": chart}
    failures: OutsideTable = OutsideTable(id="failures", cursor_type="row", zebra_stripes=True)
    failures.add_columns(
        label(DmarcReportRecord, "sourceIp"), label(DmarcReportRecord, "count"),
        label(DmarcReportRecord, "headerFrom"), label(DmarcReportRecord, "evaluatedDkim"),
        label(DmarcReportRecord, "evaluatedSpf"), label(DmarcReportRecord, "evaluatedDisposition"),
        label(DmarcReport, "orgName"), "Hint")
    return [failures], {"failures": failures}


def domain_columns(table: DataTable[object]) -> None:
    table.add_columns(
        label(DmarcReport, "policyDomain"), "Reports", label(DmarcReportRecord, "count"), "Pass", "Fail",
        "DMARC pass")


def draw_failures(table: DataTable[object], figures: Figures) -> None:
    table.clear()
    for item in figures.failing:
        record = item.record
        table.add_row(record.source_ip or "–", _num(record.count), record.header_from, record.dkim,
                      record.spf, record.disposition, item.report.reporter,
                      item.hint.value if item.hint else "")


class DailyChart(Static):
    """The Daily tab's chart, drawn to its width (again as that changes): a period whose days do not fit shows a
    few days a column, not its first days alone."""

    headline: Headline | None = None
    _drawn_width: int | None = None

    def show(self, headline: Headline) -> None:
        self.headline = headline
        self._draw()

    def on_resize(self) -> None:
        if self.size.width != self._drawn_width:
            self._draw()

    def _draw(self) -> None:
        if self.headline is not None:
            self._drawn_width = self.size.width
            self.update(daily_chart(self.headline, self.size.width or None))


def draw_chart(chart: DailyChart, headline: Headline) -> None:
    chart.show(headline)
