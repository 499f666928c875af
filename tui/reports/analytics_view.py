"""Analytics across every report the inbox filter shows, for a chosen period.

A worker keeps the digest store in step with the server (ids only for what is stored,
the reports only for what is not: :meth:`DigestStore.sync`), then has the figures
computed by SQL in a thread: their headline (totals, domains, days: all a visit shows at
first) is drawn as soon as it is added up, while the sources and failing records still are.
Only the reports that can count in the chosen period are fetched (``since``); a wider period
chosen later fetches the older ones it needs, a narrower one recomputes from the store. It
reports by messages (progress, figures, failure) and never touches a widget itself; the
view's handlers do. Changing the period recomputes from the store without fetching. The work
stops when the view goes (esc) or on **x**.

The inbox keeps the view after esc, hidden (:meth:`AnalyticsView.leave`): building it
again (three tables, five tabs, the chart) was most of a second visit. The next visit
(:meth:`AnalyticsView.revisit`) shows the figures it had at once, and syncs as ever: the
store then answers with the same figures when nothing arrived or left, and the tables,
the chart and the judged sources are left as drawn; anything else is drawn again.
"""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import date

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Button, DataTable, ProgressBar, Select, Static, TabbedContent, TabPane, Tabs

from jmapclient.counted import counted
from jmapclient.dmarc.digest_store import DigestStore, Figures
from jmapclient.dmarc.figures import Headline
from jmapclient.dmarc.insight.advice import DomainAdvice
from jmapclient.dmarc.insight.names import SourceName
from jmapclient.errors import JmapError
from tui.context import ConsoleContext
from tui.keyboard import focus_now, in_background
from tui.lifecycle import while_attached
from tui.reports.analytics_figures import AnalyticsFigures, FiguresReady, HeadlineReady, SyncStep
from tui.reports.analytics_insight import (
    DEFAULT_PERIOD,
    JUDGE_GROUP,
    LIST_LIMIT,
    NAMES_GROUP,
    SyncFailed,
)
from tui.reports.analytics_tabs import (
    FIRST_TAB,
    LATER_TABS,
    DailyChart,
    LazyTabs,
    domain_columns,
    draw_chart,
    draw_failures,
    later_pane,
)
from tui.reports.detail import DETAIL_CSS
from tui.reports.query import InboxQuery
from tui.widgets.outside import OutsideTable
from tui.widgets.select import SteadySelect
from tui.widgets.vim_keys import VimScroll

WORK_GROUP = in_background("dmarc-analytics")
PERIODS = ((7, "last 7 days"), (14, "last 14 days"), (30, "last 30 days"), (90, "last 90 days"),
           (365, "last 365 days"))
ANALYTICS_CSS = DETAIL_CSS.replace("DmarcDetail", "AnalyticsView") + """
AnalyticsView #controls { height: auto; padding: 0 1; }
AnalyticsView #period { width: 24; }
AnalyticsView #progress { width: 1fr; height: 2; padding: 1 0 0 2; }  /* its own height is 1: the padding ate the bar */
AnalyticsView #overview { height: auto; padding: 0 1; }
AnalyticsView TabbedContent { height: 1fr; }
AnalyticsView TabPane { padding: 0; }
"""


class AnalyticsView(AnalyticsFigures):
    DEFAULT_CSS = ANALYTICS_CSS
    # The tabs' own keys (left/right) act only on the tab bar, which Tab never reaches from a table:
    # these work from anywhere in the view. Plain characters, as SSH carries them (not ctrl+pageup),
    # bound nowhere else here; first, so at 80 columns the footer keeps both.
    BINDINGS = [Binding("left_square_bracket", "turn_tab(-1)", "Previous tab", id="dmarc.analytics.previous_tab"),
                Binding("right_square_bracket", "turn_tab(1)", "Next tab", id="dmarc.analytics.next_tab"),
                Binding("t", "choose_period", "Period", id="dmarc.analytics.period"),
                Binding("x", "stop", "Stop fetching", id="dmarc.analytics.stop"),
                Binding("o", "toggle_offline", "Offline names", id="dmarc.analytics.offline"),
                Binding("p", "toggle_provider", "Provider is mine", id="dmarc.analytics.provider")]
    HELP = """\
### DMARC analytics

Figures across every report the inbox filter shows, for the chosen period, computed
here from a local cache (reports never change, so each is fetched once, and only
those of the period: a longer period fetches the older ones then; a report deleted on
the server leaves the figures at the next visit):

- **Domains**: the DMARC pass rate per policy domain, weighted by messages;
- **Sources**: each sending IP with its name (reverse DNS confirmed by the forward
  lookup), base domain and service, grouped by service, and its class with the reason
  (authorised and aligned, authorised but misaligned, forwarded, via a shared provider
  not yours, unknown or spoofing);
  sources first seen in the period are marked new. Names fill in as they arrive;
- **Advice**: per policy domain, the published policy, what the next step would
  affect by source class, and a verdict with its evidence and the reporters it rests on
  (a repeated report counts once; an implausible one is left out and named);
- **Daily**: messages and pass rate per day;
- **Failures**: only the records failing DMARC, busiest first, with a hint
  (likely forwarded, mailing list, spoofing).

**[** and **]** show the previous and the next tab (round from the last to the first),
**t** opens the period's list (up and down, then enter; or shift+tab to it),
**x** stops fetching (the figures then cover what was fetched), **r** fetches again,
**o** turns name lookups off or on (kept in the config), **p** on a Sources row says its
shared provider (Amazon SES, SendGrid...) sends for your domains, or takes that back (kept in
the config's `[dmarc] senders`): until then mail authenticated only as the provider is "via a
shared provider, not yours". **esc** goes back to the inbox.
"""

    def __init__(self, context: ConsoleContext, query: InboxQuery, cache: DigestStore) -> None:
        super().__init__(context, ("Analytics",))
        self.inbox_query = query
        self.cache = cache
        self.figures: Figures | None = None
        self.fetching = True
        """A fetch is under way (x stops it). From the start: the view fetches as it is composed, and the
        inbox's refresh of the keys as it opens the view then says x at once, without a second one."""
        self.started = False
        """A fetch was started and not stopped by esc (as the view is composed; else once it is mounted)."""
        self.advice: list[DomainAdvice] = []
        self.names: dict[str, SourceName] = {}
        """Names this view got from the lookups (a timeout is kept here, not in the cache)."""
        self.rows_by_ip: dict[str, list[str]] = {}
        self.looked_up = 0
        self.to_look_up = 0
        self.names_note = ""
        self.visiting = True
        """On screen (not kept hidden by the inbox between visits): only then does it fetch."""
        self.drawn: Figures | None = None
        """The figures whose failing records the Failures tab shows (and whose headline is drawn)."""
        self.headline: Headline | None = None
        """The headline the status line, the Domains table and the chart show: a first visit draws it
        before the figures are whole."""
        self.figures_run = 0
        """Counts the figures' computations: a headline from one cut short (x, esc, another period)
        comes from its thread all the same, and is dropped."""
        self.said_run = 0
        """The computation whose headline the status line says (its figures need not say it again)."""
        self.judged: Figures | None = None
        """The figures whose sources and advice are judged with every name there is to look up."""
        self.advised: list[DomainAdvice] | None = None
        self.parts: dict[str, Widget] = {}
        self.synced_since: date | None = None
        """The first day of the widest period whose reports were fetched (a narrower one needs no fetch)."""
        self.step_drawn: tuple[str, float] = ("", 0.0)
        """The phase of the progress step drawn last, and when (monotonic)."""
        self.display = False
        """Shown once mounted whole (:meth:`on_mount`): its parts mount over a dozen frames, and each
        frame laid the whole screen out again around the parts mounted so far."""

    def compose(self) -> ComposeResult:
        if self.visiting:
            self.fetch()  # first: the listing is on its way while the view is built (a tenth of a second)
        with Horizontal(id="controls"):
            # A page key reaching the list as it opens, before its first layout, stopped the console.
            yield SteadySelect([(text, days) for days, text in PERIODS], value=DEFAULT_PERIOD, allow_blank=False,
                               id="period")
            yield ProgressBar(id="progress", show_eta=False)
        yield Static("Listing reports…", id="status", classes="status")
        yield Static("", id="overview")
        retry = Button("Retry", id="retry")
        retry.display = False
        yield retry
        with LazyTabs(self.build_tab, id="tabs"):
            with TabPane("Domains", id=FIRST_TAB):
                yield OutsideTable(id="domains", cursor_type="row", zebra_stripes=True)
            for title, tab in zip(("Sources", "Advice", "Daily", "Failures"), LATER_TABS, strict=True):
                yield TabPane(title, id=tab)  # built when first shown: :mod:`tui.reports.analytics_tabs`

    @while_attached
    def on_mount(self) -> None:
        self.display = self.visiting  # not when esc came before the mount
        domain_columns(self.query_one("#domains", DataTable))
        self.query_one("#domains", DataTable).focus()
        if self.visiting and not self.started:  # esc, then a, came before the mount
            self.fetch()
        elif not self.visiting:  # esc came before the mount: the visit is over
            self.set_fetching(False)

    def revisit(self) -> None:
        """Shown again by the inbox: the figures it had stay on screen while the store checks the server."""
        self.visiting = True
        if not self.is_mounted:
            return  # still mounting from the visit before: on_mount fetches
        # At once: the figures on screen are being checked, and x stops that. Said in the footer by
        # the inbox's refresh of the keys right after this: one more would rebuild the footer again.
        self.fetching = True
        self.focus()
        self.fetch()

    @while_attached
    def leave(self) -> None:
        """Hidden by the inbox (esc): its work stops, as when the view went."""
        self.visiting = False
        self.figures_run += 1  # a headline still on its way is not drawn into the hidden view
        stopped = [worker for worker in self.workers.cancel_node(self) if not worker.is_finished]
        if any(worker.group in (JUDGE_GROUP, NAMES_GROUP) for worker in stopped):
            self.judged = None  # the judgement or its names were cut short: judged again next time
            self.to_look_up = 0
        if any(worker.group == WORK_GROUP for worker in stopped):
            self.started = False  # cut short before the mount: the mount of the next visit fetches
        if stopped and self.is_mounted:
            self.set_fetching(False)
            self.query_one("#progress", ProgressBar).display = False

    def focus(self, scroll_visible: bool = True) -> AnalyticsView:
        """The keyboard on the table of the tab shown (a kept view may be on any), else on the tabs."""
        if self.is_mounted:
            self._keyboard_place().focus(scroll_visible)
        return self

    def _keyboard_place(self) -> Widget:
        """The table of the tab shown, else its text that scrolls (Advice, Daily), else the tab bar. On the tab
        bar the arrows, j and PageDown did nothing on Advice and Daily, whose text runs past an 80x24 screen,
        until Tab was found (a tester's finding)."""
        pane = self.query_one(TabbedContent).active_pane
        places = [*pane.query(DataTable), *pane.query(VimScroll)] if pane is not None else []
        return places[0] if places else self.query_one(TabbedContent).query_one(Tabs)

    @while_attached
    def action_turn_tab(self, step: int) -> None:
        """The tab ``step`` places on (``[``: -1, ``]``: 1), with the keyboard in it: j and k typed right after
        move its rows, not the hidden tab's."""
        self.query_one(LazyTabs).turn(step)
        focus_now(self._keyboard_place())

    def reload(self) -> None:
        self.fetch()

    @on(Button.Pressed, "#retry")
    def retry(self) -> None:
        self.fetch()

    @on(Select.Changed, "#period")
    def period_changed(self) -> None:
        if self.figures is None:
            return
        if self.synced_since is None or self.period()[0] < self.synced_since:
            self.fetch()  # a wider period: its older reports are not fetched yet
        else:
            self.compute("")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "stop":
            return self.fetching  # shown only while there is something to stop
        return True

    def set_fetching(self, fetching: bool) -> None:
        if fetching != self.fetching:  # each refresh rebuilds the footer's keys
            self.fetching = fetching
            self.refresh_bindings()

    def action_choose_period(self) -> None:
        """The period's list, open and holding the keyboard: two testers found no way to it by key (it is
        shift+tab away from the tables, and its focus is faint)."""
        period = self.query_one("#period", Select)
        focus_now(period)
        period.action_show_overlay()

    @while_attached
    def action_stop(self) -> None:
        """Stop the fetch; the figures then cover the reports listed and fetched so far."""
        if not self.fetching:
            return
        self.workers.cancel_group(self, WORK_GROUP)
        self.set_fetching(False)
        self.compute(" · stopped: only the reports fetched so far are counted (r fetches again)")

    def fetch(self) -> None:
        """Fetch the period's reports the store lacks, then the figures: the progress shows, x stops it."""
        self.started = True
        self.step_drawn = ("", 0.0)  # this fetch's first step shows at once
        self.set_fetching(True)
        if self.is_mounted:  # else still as composed: the bar shown, waiting, Retry hidden
            progress = self.query_one("#progress", ProgressBar)
            progress.display = True
            progress.update(total=None, progress=0)
            self.query_one("#retry").display = False
        self.keep_in_step(self.period()[0])

    # --- The worker: it only computes and posts messages --------------------------------------

    @work(exclusive=True, group=WORK_GROUP)
    @while_attached
    async def keep_in_step(self, since: date) -> None:
        try:
            await self.cache.sync(self.context.client.dmarc_reports, self.inbox_query.filter(),
                                  lambda step: self.post_message(SyncStep(step)), since=since)
        except (JmapError, sqlite3.Error) as error:
            self.post_message(SyncFailed(error))
            return
        self.synced_since = since if self.synced_since is None else min(since, self.synced_since)
        unreadable = await asyncio.to_thread(self.cache.unreadable_listed)
        # A report too large for the server to send counts nowhere: said beside the totals, not left unsaid.
        await self.compute_figures(f" · {counted(unreadable, 'listed report')} could not be read: in no figure"
                                   " (the inbox names it)" if unreadable else "")

    @work(exclusive=True, group="dmarc-analytics-figures")
    @while_attached
    async def compute(self, note: str) -> None:
        await self.compute_figures(note)

    async def compute_figures(self, note: str) -> None:
        """Aggregate in a thread (SQL over every listed report), then hand the figures to the handler; their
        headline as soon as it is added up (posted from the thread: the loop draws it while the records are
        added up)."""
        first, last = self.period()
        self.figures_run += 1
        run = self.figures_run

        def early(headline: Headline) -> None:
            self.post_message(HeadlineReady(headline, note, run))  # post_message is safe from a thread

        try:
            figures = await asyncio.to_thread(self.cache.figures, first, last, LIST_LIMIT, early)
        except sqlite3.Error as error:  # the cache file broke under us (disk full, removed)
            self.post_message(SyncFailed(error))
            return
        self.post_message(FiguresReady(figures, note, run))

    def build_tab(self, tab: str) -> None:
        """Build ``tab``, shown for the first time (:class:`LazyTabs`), and fill it from what this view holds."""
        widgets, parts = later_pane(tab)
        self.parts.update(parts)
        self.query_one(f"#{tab}", TabPane).mount_all(widgets)
        if tab in ("tab-sources", "tab-advice"):
            self.show_names_status()
            if self.advised is not None:
                self.fill_advice(self.advised, tuple(parts))
        elif tab == "tab-failures":  # the figures drawn into the new tab alone: Domains keeps its cursor
            if self.drawn is not None:
                draw_failures(self.query_one("#failures", DataTable), self.drawn)
        elif self.headline is not None and (chart := self.built("chart", DailyChart)):
            draw_chart(chart, self.headline)

