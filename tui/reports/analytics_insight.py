"""The analytics view's insight: sources judged, their names as they arrive, the advice per domain.

Part of :class:`tui.reports.analytics_view.AnalyticsView`, split out by job (as the inbox was). The
workers only compute and post messages; the handlers here draw what they say.
"""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import date, timedelta
from typing import TypeVar

from textual import on, work
from textual.message import Message
from textual.widget import Widget
from textual.widgets import DataTable, Select, Static, TabbedContent

from jmapclient.dmarc.digest_store import DigestStore, Figures
from jmapclient.dmarc.insight.advice import DomainAdvice, advise
from jmapclient.dmarc.insight.judge import SourceBound, source_bound
from jmapclient.dmarc.insight.names import NameStatus, SourceName
from jmapclient.errors import JmapError
from tui.keyboard import in_background
from tui.lifecycle import while_attached
from tui.reports.detail import DmarcDetail
from tui.reports.insight_render import (
    NAME_COLUMNS,
    advice_group,
    group_row,
    grouped,
    name_cells,
    source_key,
    source_row,
)
from tui.reports.owned_senders import senders_of, toggle_provider
from tui.reports.source_names import names_of, say_set_aside, set_offline

W = TypeVar("W", bound=Widget)

JUDGE_GROUP = in_background("dmarc-analytics-judge")
NAMES_GROUP = in_background("dmarc-analytics-names")
NAMES_BATCH = 0.25
"""Seconds names gather before the table is told: a hundred answers make a few redraws, not a hundred."""
DEFAULT_PERIOD = 30
"""Days of the period a visit opens with."""
LIST_LIMIT = 200
"""Rows per analytics table; the busiest come first."""


class ViewMessage(Message, bubble=False):
    """A message of the view's own workers to the view: handled there, never by its ancestors.

    Textual bubbles a message up to the app by default: a first visit's progress went through six
    message queues (the view's row, the inbox's levels, the inbox, the screen, the app) a step, each a
    task woken on the loop the fetch shares, for handlers none of them has. (Textual sets ``bubble`` at
    each subclass's definition, True unless told: hence the default here, not a class attribute.)
    """

    def __init_subclass__(cls, bubble: bool | None = False, verbose: bool = False, no_dispatch: bool | None = False,
                          namespace: str | None = None) -> None:
        super().__init_subclass__(bubble=bubble, verbose=verbose, no_dispatch=no_dispatch, namespace=namespace)


class AdviceReady(ViewMessage):
    def __init__(self, advice: list[DomainAdvice], figures: Figures, names_pending: bool) -> None:
        super().__init__()
        self.advice = advice
        self.figures = figures
        self.names_pending = names_pending
        """Names are still being looked up: a judgement with them follows."""

    @property
    def period(self) -> tuple[date, date]:
        return self.figures.first, self.figures.last


class NamesArrived(ViewMessage):
    def __init__(self, names: list[SourceName], done: bool) -> None:
        super().__init__()
        self.names = names
        self.done = done


class SyncFailed(ViewMessage):
    def __init__(self, error: JmapError | sqlite3.Error) -> None:
        super().__init__()
        self.error = error


class AnalyticsInsight(DmarcDetail):
    """Judging, naming and advising over the figures of :class:`~tui.reports.analytics_view.AnalyticsView`
    (whose ``__init__`` sets the state declared here)."""

    cache: DigestStore
    figures: Figures | None
    advice: list[DomainAdvice]
    names: dict[str, SourceName]
    rows_by_ip: dict[str, list[str]]
    looked_up: int
    to_look_up: int
    names_note: str
    judged: Figures | None
    advised: list[DomainAdvice] | None
    """The advice shown last (None before the first): a tab built later is filled with it."""
    parts: dict[str, Widget]
    """The parts of the tabs built later, by id, as each is built."""

    def built(self, part: str, kind: type[W]) -> W | None:
        """The part of a tab built so far (by id: :mod:`tui.reports.analytics_tabs`), else None."""
        widget = self.parts.get(part)
        return widget if isinstance(widget, kind) else None

    def period(self) -> tuple[date, date]:
        chosen = self.query("#period")
        days = chosen.first(Select).value if chosen else DEFAULT_PERIOD
        if not isinstance(days, int):  # not composed yet, or not mounted (no value yet): the default
            days = DEFAULT_PERIOD
        last = self.context.now().date()
        return last - timedelta(days=days - 1), last

    @work(exclusive=True, group=JUDGE_GROUP)
    @while_attached
    async def judge(self, figures: Figures) -> None:
        """Judge the period's sources with the names known now (never waiting for DNS), in a thread."""
        first, last = figures.first, figures.last
        names = names_of(self.context)
        try:
            bound = await asyncio.to_thread(source_bound, self.cache, first, last)
            # In the thread too: what is known of 50,000 addresses (each parsed, its network found) froze the screen.
            known = await asyncio.to_thread(lambda: {ip: self.names.get(ip) or names.known(ip) for ip in bound.ips})
            advice = await asyncio.to_thread(self._advise, first, last, known, bound)
        except sqlite3.Error as error:
            self.post_message(SyncFailed(error))
            return
        pending = [ip for ip, name in known.items() if name.status is NameStatus.PENDING]
        if pending:
            self.to_look_up, self.looked_up = len(pending), 0  # said with the sources, before any answer
        self.post_message(AdviceReady(advice, figures, bool(pending)))
        if pending:
            self.look_up(pending)

    def _advise(self, first: date, last: date, known: dict[str, SourceName], bound: SourceBound
                ) -> list[DomainAdvice]:
        seen = self.cache.seen_before(first, known)
        return advise(self.cache.digests(first, last), first, last, names=known, seen_before=seen,
                      senders=senders_of(self.context), bound=bound)

    @work(exclusive=True, group=NAMES_GROUP)
    @while_attached
    async def look_up(self, ips: list[str]) -> None:
        """Stream names in, a batch at a time; when all are in, judge again (a name may tell the service)."""
        gathered: list[SourceName] = []
        loop = asyncio.get_running_loop()
        sent_at = loop.time()
        async for name in names_of(self.context).resolver().stream(ips):
            gathered.append(name)
            if loop.time() - sent_at >= NAMES_BATCH:
                self.post_message(NamesArrived(gathered, done=False))
                gathered, sent_at = [], loop.time()
        self.post_message(NamesArrived(gathered, done=True))

    @on(NamesArrived)
    @while_attached
    def show_names(self, message: NamesArrived) -> None:
        table = self.built("sources", DataTable)
        for name in message.names:
            self.names[name.ip] = name
            self.looked_up += 1
            if table is None:
                continue  # the Sources tab not built yet: it shows the names it finds here when built
            for key in self.rows_by_ip.get(name.ip, ()):
                service = str(table.get_cell(key, "service"))
                for column, value in zip(NAME_COLUMNS, name_cells(name, service), strict=True):
                    table.update_cell(key, column, value)
        if message.done:
            self.to_look_up = 0
            if self.figures is not None:
                self.judge(self.figures)
        self.show_names_status()

    @on(AdviceReady)
    @while_attached
    def show_advice(self, message: AdviceReady) -> None:
        if message.period != self.period():
            return  # the period changed: its own judgement follows
        say_set_aside(self.context, self)
        self.advice = self.advised = message.advice
        self.judged = None if message.names_pending else message.figures
        self.fill_advice(message.advice)
        self.say_left_out(message.period, sum(len(advice.left_out) for advice in message.advice))

    def say_left_out(self, period: tuple[date, date], count: int) -> None:
        """Say that the period's totals include ``count`` reports its advice leaves out (the figures' status line)."""
        raise NotImplementedError

    def fill_advice(self, advice: list[DomainAdvice], parts: tuple[str, ...] = ("sources", "advice")) -> None:
        """The judged sources and the advice into those of ``parts`` built so far, the note on both tabs.

        A tab built later is filled alone: the other keeps its rows and its cursor."""
        sources = sorted((s for a in advice for s in a.sources), key=lambda s: -s.messages)
        if "sources" in parts and (table := self.built("sources", DataTable)):
            self.rows_by_ip = {}
            table.clear()
            for service, members in grouped(sources[:LIST_LIMIT]):
                table.add_row(*group_row(service, members), key=f"group\x00{service}")
                for source in members:
                    key = source_key(source)
                    name = self.names.get(source.ip) or source.name
                    table.add_row(*source_row(source, name), key=key)
                    self.rows_by_ip.setdefault(source.ip, []).append(key)
        if "advice" in parts and (shown_advice := self.built("advice", Static)):
            shown_advice.update(advice_group(advice))
        shown = min(len(sources), LIST_LIMIT)
        notes = [f"{shown:,} of {len(sources):,} sources (the busiest)"] if len(sources) > shown else []
        if any(source.new is None for source in sources):
            # Only the period's reports were fetched, or none is older: a source the cache never saw may be old.
            notes.append("none marked new: the reports before the period are not all held to compare with (a longer"
                         " period fetches any the server has)")
        self.names_note = " · ".join(notes)
        self.show_names_status()

    def show_names_status(self) -> None:
        names = names_of(self.context)
        if names.offline:
            words = "Names: offline, no DNS lookups (o: look names up)"
        elif self.to_look_up:
            words = f"Names: {self.looked_up:,} of {self.to_look_up:,} looked up… (o: offline)"
        else:
            words = "Names: reverse DNS confirmed by forward lookup (o: offline)"
        if self.names_note:
            words += f" · {self.names_note}"
        for status in self.query(".names-status").results(Static):
            status.update(words)

    @while_attached
    def action_toggle_offline(self) -> None:
        """Turn name lookups off (none at all) or on again; kept in the config for the next start."""
        offline = not names_of(self.context).offline
        note = set_offline(self.context, offline, getattr(self.app, "config", None))
        if offline:
            self.workers.cancel_group(self, NAMES_GROUP)
            self.to_look_up = 0
        if note:
            self.notify(f"Offline names{note}", severity="warning")
        self.show_names_status()
        if self.figures is not None:
            self.judge(self.figures)

    @while_attached
    def action_toggle_provider(self) -> None:
        """The highlighted source's provider sends for the owner's domains, or no longer; judged again."""
        table = self.built("sources", DataTable)
        if self.query_one(TabbedContent).active != "tab-sources" or table is None or not table.row_count:
            self.notify("In the Sources tab, p on a source says its provider sends for your domains",
                        severity="warning")
            return
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value or ""
        source = next((s for a in self.advice for s in a.sources if source_key(s) == key), None)
        service = source.service if source is not None else None
        if service is None:
            self.notify("Pick a source of a known provider in the Sources tab", severity="warning")
            return
        owned, note = toggle_provider(self.context, service, getattr(self.app, "config", None))
        words = "sends for your domains" if owned else "no longer counted as yours"
        self.notify(f"{service.name} {words}{note}", severity="warning" if note else "information")
        if self.figures is not None:
            self.judge(self.figures)
