"""What the analytics view's worker reports, drawn: progress steps, a failure, the figures' headline first,
then the whole figures.

Part of :class:`tui.reports.analytics_view.AnalyticsView`, split out by job (as its judging is, in
:mod:`tui.reports.analytics_insight`): the worker only computes and posts these messages; the handlers
here are the only code that puts them on screen.
"""

from __future__ import annotations

import time
from datetime import date

from textual import on
from textual.widgets import DataTable, ProgressBar, Static

from jmapclient.display import domain_text
from jmapclient.dmarc.analytics import format_rate
from jmapclient.dmarc.digest_store import Figures, SyncProgress
from jmapclient.dmarc.figures import Headline
from jmapclient.errors import JmapError
from tui.lifecycle import while_attached
from tui.reports import fmt
from tui.reports.access import learn
from tui.reports.analytics_insight import AnalyticsInsight, SyncFailed, ViewMessage
from tui.reports.analytics_tabs import DailyChart, draw_chart, draw_failures
from tui.reports.insight_render import num as _num
from tui.reports.insight_render import rate as _rate
from tui.reports.progress_line import say_progress
from tui.widgets import outside

STEP_EVERY = 0.5
"""Seconds between two progress steps drawn within a phase: each paints the status line and the bar
again (a first visit of 10,000 reports posts a step a chunk, 20 and more, on the loop its own fetch
shares: every frame drawn is CPU the digesting waits for); the line is laid out only when its height
may change (:func:`say_progress`). Two a second still move visibly; a phase's first and last show."""


class SyncStep(ViewMessage):
    def __init__(self, step: SyncProgress) -> None:
        super().__init__()
        self.step = step


class FiguresReady(ViewMessage):
    def __init__(self, figures: Figures, note: str, run: int) -> None:
        super().__init__()
        self.figures = figures
        self.note = note
        self.run = run


class HeadlineReady(ViewMessage):
    """The headline of figures still being added up (posted from their thread), from the run ``run``."""

    def __init__(self, headline: Headline, note: str, run: int) -> None:
        super().__init__()
        self.headline = headline
        self.note = note
        self.run = run


class AnalyticsFigures(AnalyticsInsight):
    """The handlers of the worker's messages (the view's ``__init__`` sets the state declared here)."""

    step_drawn: tuple[str, float]
    """The phase of the progress step drawn last, and when (monotonic)."""
    figures_run: int
    """Counts the figures' computations: a headline from one cut short is dropped."""
    said_run: int
    """The computation whose headline the status line says."""
    headline: Headline | None
    drawn: Figures | None
    status_note: str = ""
    """What the status line says after the totals (a fetch's note)."""
    left_out: tuple[tuple[date, date], int] | None = None
    """The period the advice last judged, and how many of its reports it left out (repeated or implausible)."""

    def compute(self, note: str) -> object:
        """The figures of the period computed again (the view's worker)."""
        raise NotImplementedError

    def set_fetching(self, fetching: bool) -> None:
        raise NotImplementedError

    @on(SyncStep)
    @while_attached
    def show_step(self, message: SyncStep) -> None:
        step = message.step
        now = time.monotonic()
        phase, drawn_at = self.step_drawn
        if step.phase == phase and now - drawn_at < STEP_EVERY and step.done != step.total:
            return  # the next one, or the figures, say it soon: a phase's first and last steps always show
        self.step_drawn = (step.phase, now)
        progress = self.query_one("#progress", ProgressBar)
        status = self.query_one("#status", Static)
        if step.phase == "listing":
            progress.update(total=step.total, progress=step.done)
            of = f" of {step.total:,}" if step.total is not None else ""
            say_progress(status, f"Listing reports: {step.done:,}{of}…")
            return
        total = (step.total or 0) + step.cached
        progress.update(total=total or 1, progress=step.cached + step.done if total else 1)
        if not step.total:  # a visit that finds nothing new: "Fetching 0 reports" said what was not done
            say_progress(status, f"Nothing new to fetch: {step.cached:,} reports cached…")
            return
        say_progress(status, f"Fetching {step.total:,} reports ({step.cached:,} already cached): {step.done:,} done…")

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

    @on(HeadlineReady)
    @while_attached
    def show_headline(self, message: HeadlineReady) -> None:
        """The figures' headline, before they are whole: the visit ends here for what is on screen."""
        headline = message.headline
        if message.run != self.figures_run or (headline.first, headline.last) != self.period():
            return  # from a computation cut short; or the period changed: its figures recompute
        self.said_run = message.run
        self.say_headline(headline, message.note)

    @on(FiguresReady)
    @while_attached
    def show_figures(self, message: FiguresReady) -> None:
        figures = self.figures = message.figures
        if (figures.first, figures.last) != self.period():
            self.compute(message.note)  # the period changed while these were computed
            return
        if message.run != self.said_run:  # no headline came first (remembered figures): said now
            self.said_run = message.run
            self.say_headline(figures.headline, message.note)
        if figures is not self.drawn:  # the store answers an unchanged period with the figures it gave
            self.drawn = figures
            if failures := self.built("failures", DataTable):
                draw_failures(failures, figures)
        if figures is not self.judged:
            self.judge(figures)

    def say_headline(self, headline: Headline, note: str) -> None:
        """The fetch over: the status line says the period's totals, the Domains table and the chart show
        ``headline`` (drawn again only when it changed: a table drawn again loses its cursor)."""
        self.query_one("#progress", ProgressBar).display = False
        self.set_fetching(False)
        self.status_note = note
        self.say_totals(headline)
        if headline != self.headline:
            self.draw(headline)

    def say_totals(self, headline: Headline) -> None:
        summary = headline.overview
        left_out = self.left_out[1] if self.left_out and self.left_out[0] == (headline.first, headline.last) else 0
        # Reports are unauthenticated mail: the totals are the reports' own word, a forged count of 2^53
        # included, while the advice leaves such reports out. Said, so the two never read as one figure.
        warning = (f" · the totals include {left_out:,} report{'' if left_out == 1 else 's'} the advice leaves"
                   " out (repeated, or implausible for its reporter)" if left_out else "")
        self.query_one("#status", Static).update(
            f"{headline.first:%Y-%m-%d} to {headline.last:%Y-%m-%d}: {summary.reports:,} reports, "
            f"{fmt.summed(summary.messages)} messages, DMARC pass {format_rate(summary.rate)} (weighted by messages)"
            f"{self.status_note}{warning}"
        )

    def say_left_out(self, period: tuple[date, date], count: int) -> None:
        self.left_out = (period, count)
        if self.headline is not None and (self.headline.first, self.headline.last) == period:
            self.say_totals(self.headline)

    def draw(self, headline: Headline) -> None:
        """The headline into the Domains table and the chart, if built (the Daily tab takes it when built)."""
        self.headline = headline
        domains = self.query_one("#domains", DataTable)
        domains.clear()
        for entry in headline.domains:
            domains.add_row(domain_text(entry.domain), _num(entry.reports), _num(entry.messages), _num(entry.passed),
                            _num(entry.failed), _rate(entry.rate))
        if chart := self.built("chart", DailyChart):
            draw_chart(chart, headline)
