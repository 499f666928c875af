"""The per-report digests of one server's DMARC reports, in SQLite, kept in step with the server.

Analytics (and anything else that reads every report: advice, trends) needs a few fields
of each report, never the whole report. A received report never changes, so a digest,
once stored, is good until the report is deleted. :meth:`DigestStore.sync` lists the ids
the server holds, newest first (ids only, a few thousand a request, through the one
pager), fetches only the reports not stored yet, and forgets the ones the server no
longer lists. The figures are then aggregated by SQL over the listed reports, so memory
does not grow with the number of reports.

The listing is kept too, each id with its rank counted from the oldest. Report ids grow
with arrival on the real server and on ours (wire-notes), so a report that arrives is
always newer than every listed one, and a deletion lowers the rank of every newer one.
A listing therefore stops at the first page whose oldest id still has the rank stored
for it: everything older is what was listed before. An unchanged server costs one
request, an arrival one page, and a deletion the pages down to it.

With ``since`` (the first day of the period asked for) a sync fetches only the reports that can
count in that period. No server offers a condition on a report's own dates (the real one filters
reports on the totals, ``text`` and ``expiresAt`` only, and an ``expiresAt`` moves when a report
is kept longer), but ids grow with arrival and a report arrives after its period began: the listed
reports not stored yet, newest first, are cut where they start to have arrived before the period
(less :data:`ARRIVAL_SLACK`), found by asking :data:`PROBES` of them, spread out, for their
``receivedAt`` in one get, then as many between the two around the cut (three small gets at 100,000
missing), and only the newer ones are fetched. Times follow the ids only where the server sets
them (:attr:`~jmapclient.session.Session.report_times_follow_ids`): elsewhere an imported e-mail's
``receivedAt`` is its ``Date:``, in whatever order the files came, so every listed report not stored is
asked for its time (ids and times only, a page's in one request) and the cut is no search. A
later sync of a wider period fetches the older ones it now needs. Reports are fetched a get per
:data:`GET_CHUNK`, up to the server's ``maxConcurrentRequests`` less one in flight (one is left for
whatever else the client asks meanwhile), each stored while the next ones are on their way; a
fetched report's rows are built straight from its wire form (:mod:`jmapclient.dmarc.digest_rows`).

A first visit (a listing read from the start, into a store that knows nothing settled) does not
wait for the whole listing: each page's reports not stored are cut at the period as above and
fetched while the next page is listed, the listing's request one of the requests in flight; once
the cut is found, the later pages are only listed. The progress keeps its two phases: the listing's
steps, then the fetch's, whose first step may already count reports fetched meanwhile.

The database is one file per server (owner-only, 0600); it remembers which server,
account and user filled it and starts empty when that changes.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import json
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from itertools import repeat
from pathlib import Path
from typing import Any

from jmapclient.collector import collector_paused
from jmapclient.dmarc.analytics import (
    COUNTED_WITHIN,
    ReportDigest,
    digest_report,
)
from jmapclient.dmarc.digest_file import DamagedStore as DamagedStore  # raised by the store; named where it is used
from jmapclient.dmarc.digest_reads import READ_CHUNK, DigestReads
from jmapclient.dmarc.digest_rows import MAX_COUNT as MAX_COUNT  # the clamp on a record's count, named by tests
from jmapclient.dmarc.digest_rows import Row, clean, digest_rows, wire_rows
from jmapclient.dmarc.figures import Figures as Figures  # the store's answer, named where it is used
from jmapclient.encoding import parse_utc, shifted
from jmapclient.objects import GetResult, ObjectApi
from jmapclient.paging import QueryPage, QueryPager
from jmapclient.session import Session

LIST_PAGE = 5_000
"""Ids per query request: the real server's cap on a query's ``limit`` (wire-notes)."""
PROBE = 100
"""Ids of the first page when a listing is kept: enough to find it unchanged, a fraction of a full page."""
GET_CHUNK = 500
"""Reports per get request (at most maxObjectsInGet): a few of them in flight keep memory flat."""
PROBES = 64
"""Listed reports asked for their arrival time in one get when a period's cut is looked for (the stub decodes
each whole report to answer, so a few dozen, not maxObjectsInGet)."""
ARRIVAL_SLACK = COUNTED_WITHIN
"""How long before the period's first day a report counting in it may have arrived: a report counts at most
two days after its period began (on its midpoint's day, or two days in for a longer period) and arrives after
its period began, so one counted on the first day arrived at most two days before. A report claiming a period
after its own arrival (a reporter's clock far ahead) is not fetched for the period."""
NEWEST_FIRST = ({"property": "id", "isAscending": False},)
"""Ids grow with arrival; both servers sort reports by id (wire-notes), so new reports come first."""
UNFILTERED = "{}"
"""The query (as JSON) of the listing of every report."""
UNRANKED = -1
"""The rank of an id listed where positions say nothing (a filter the client narrowed, a test's listing)."""

UNREADABLE_DAY = ""
"""The day of a report this client could not read: kept so it is not fetched again, in no period."""

Progress = Callable[["SyncProgress"], object]
"""Told each step; awaited when it returns an awaitable."""


@dataclass(frozen=True)
class SyncProgress:
    phase: str
    """``listing`` (reading ids) or ``fetching`` (getting reports not stored yet)."""
    done: int
    total: int | None
    cached: int = 0
    """Listed reports that were already stored."""


@dataclass(frozen=True)
class SyncResult:
    listed: int
    fetched: int
    forgotten: int
    """Stored reports the server no longer lists (deleted), dropped from the store."""
    unreadable: int


def store_file(server: str) -> Path:
    """The one store file of the server at this address, under the data directory (console and CLI share it).

    Named by a hash, so the address itself is not in a file name.
    """
    from jmapclient.config import data_dir  # read here: the environment may name another data directory

    name = hashlib.sha256(server.encode()).hexdigest()[:16]
    return data_dir() / "dmarc-digests" / f"{name}.sqlite"


_Build = Callable[[int, Any], tuple[Row, list[Row]]]
"""A report's rows under a key, from what it was given (its wire form, or its digest)."""


def _rows_of_wire(key: int, wire: Mapping[str, Any]) -> tuple[Row, list[Row]]:
    return wire_rows(key, wire) or digest_rows(key, digest_report(wire))


class DigestStore(DigestReads):
    """Report digests of one server, on disk (``path``) or in memory (``None``).

    Every method may be called from a worker thread; one lock serialises them, so a
    cancelled visit still computing in its thread cannot interleave with the next one.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self.set_aside: str | None = None
        """One line when the file found at ``path`` was unusable and was moved aside (shown by the CLI)."""
        self._db = self._open(path)
        self._memo: dict[tuple[Any, ...], Figures] = {}
        """Figures by (generation, period, limit): the generation moves with every change of what is counted."""
        self._whole: int | None = None
        """The generation at which every listed report was stored (a sync fetched all it listed). While it
        holds, a sync whose listing changed nothing has nothing to fetch: it skips looking for missing
        reports, a scan of the whole listing (0.1 s at 100,000 reports, in the console's event loop)."""
        self._older: tuple[int, datetime] | None = None
        """(generation, bound): at that generation every listed report not stored arrived before the bound,
        so a period starting on or after it has nothing to fetch while nothing changed."""

    # --- What is stored -----------------------------------------------------------------------

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM reports WHERE day != ''").fetchone()[0])

    def __contains__(self, report_id: object) -> bool:
        with self._lock:
            return self._db.execute("SELECT 1 FROM reports WHERE id=?", (str(report_id),)).fetchone() is not None

    def bind(self, identity: str) -> None:
        """Who fills the store (server, account, user): a different one empties it first."""
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key='identity'").fetchone()
            if row is not None and row[0] == identity:
                return
            self._reset(self._db)
            self._db.execute("INSERT INTO meta VALUES ('identity', ?)", (identity,))

    def put(self, digests: Sequence[ReportDigest], unreadable: Sequence[str] = ()) -> None:
        """Store digests (replacing any of the same id), and ids of reports this client cannot read."""
        self._write([(digest.id, digest_rows, digest) for digest in digests], unreadable)

    def put_wires(self, wires: Iterable[Mapping[str, Any]]) -> tuple[int, list[str]]:
        """Store reports as the server sent them (``id`` and ``report``): (how many, ids of those this
        client cannot read, kept so they are not fetched again). Rows are built straight from the wire
        form when it has the shape servers write (:func:`wire_rows`), else through a digest."""
        bad: list[str] = []
        readable: list[tuple[str, _Build, Any]] = []
        for wire in wires:
            report_id = wire.get("id")
            if type(report_id) is str:
                readable.append((report_id, _rows_of_wire, wire))
                continue
            try:  # an id that is no text: the long way writes it as text
                digest = digest_report(wire)
            except (ValueError, TypeError, KeyError, AttributeError):
                bad.append(str(report_id))
                continue
            readable.append((digest.id, digest_rows, digest))
        return self._write(readable, (), bad), bad

    def _write(self, made: Sequence[tuple[str, _Build, Any]], unreadable: Sequence[str],
               bad: list[str] | None = None) -> int:
        """Store the rows each of ``made`` (id, build, what it builds from) builds under the key it is given;
        ``bad``: where the ids of those that raise go (they are stored as unreadable), else they raise.
        Returns how many were stored."""
        with self._transaction() as db:
            self._changed(db)
            # A chunk at a time (three statements, not three a report): the last report of an id wins.
            latest = {clean(report_id): (build, item) for report_id, build, item in made}
            first = int(db.execute("SELECT coalesce(max(key), 0) + 1 FROM reports").fetchone()[0])
            reports: list[Row] = []
            records: list[Row] = []
            failed: list[str] = []
            for report_id, (build, item) in latest.items():
                key = first + len(reports)  # none taken by a report left out
                if bad is None:
                    report, rows = build(key, item)
                else:
                    try:
                        report, rows = build(key, item)
                    except (ValueError, TypeError, KeyError, AttributeError):
                        failed.append(report_id)  # a report this client cannot read is left out, not fatal
                        continue
                reports.append(report)
                records += rows
            if bad is not None:
                bad += failed
            db.executemany("DELETE FROM reports WHERE id=?", zip(latest))
            db.executemany("INSERT INTO reports(key, id, org, report_id, policy_domain, begin, end, day, p, sp, np,"
                           " adkim, aspf, testing, messages, passed) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", reports)
            db.executemany("INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", records)
            for report_id in (*unreadable, *failed):
                db.execute("INSERT OR REPLACE INTO reports(id, org, report_id, policy_domain, begin, end, day, p, sp,"
                           " np, adkim, aspf, testing) VALUES (?,'','','','','',?,'','','','','',0)",
                           (clean(report_id), UNREADABLE_DAY))
        return len(reports)

    def mark_listed(self, ids: Iterable[str]) -> None:
        """Count these reports, and only these, in the figures: a listing that says nothing of positions.

        The next :meth:`sync` lists everything again, as it does after a listing of another filter.
        """
        with self._transaction() as db:
            self._changed(db)
            db.execute("DELETE FROM listed")
            db.executemany("INSERT OR IGNORE INTO listed VALUES (?, ?)", [(clean(i), UNRANKED) for i in ids])
            db.execute("DELETE FROM meta WHERE key='listing'")

    def discard(self, ids: Iterable[str]) -> None:
        """Forget reports (deleted here, so the figures drop them without a visit).

        Every listed report newer than a forgotten one moves one rank down, as it does on
        the server, so the next listing still stops at its first page.
        """
        with self._transaction() as db:
            self._changed(db)
            for (report_id,) in {(clean(i),) for i in ids}:
                db.execute("DELETE FROM reports WHERE id=?", (report_id,))
                row = db.execute("DELETE FROM listed WHERE id=? RETURNING rank", (report_id,)).fetchone()
                if row is not None and row[0] != UNRANKED:
                    db.execute("UPDATE listed SET rank = rank - 1 WHERE rank > ?", (row[0],))

    # --- Keeping in step with the server -------------------------------------------------------

    async def sync(
        self, api: ObjectApi, filter: Mapping[str, Any] | None = None, progress: Progress | None = None,
        *, since: date | None = None,
    ) -> SyncResult:
        """List the ids ``filter`` matches, fetch the reports not stored, forget deleted ones.

        Only the listed reports count in the figures afterwards, so a report deleted on the
        server drops out of them even when a filter hides it from the listing. ``since``: only
        the reports that can count in a period from that day on are fetched (module doc); the
        others stay listed, and stored if they were. The cycle collector rests meanwhile
        (:mod:`jmapclient.collector`): it took a quarter of a bare sync's CPU, more in the console.
        """
        with collector_paused():
            session = await api.client.session()
            # The capability tells the real server from our stub's spec profile at one address.
            self.bind("\n".join((session.api_url, session.capability, session.account_id or "", session.username)))
            with self._filling():  # a first fill: the indexes reads use are built once, at its end
                return await self._sync(api, session, filter, progress, since=since)

    async def _sync(
        self, api: ObjectApi, session: Session, filter: Mapping[str, Any] | None, progress: Progress | None, *,
        since: date | None,
    ) -> SyncResult:

        async def report(step: SyncProgress) -> None:
            if progress is not None:
                result = progress(step)
                if inspect.isawaitable(result):
                    await result

        limits = session.limits
        bound = None if since is None else shifted(datetime.combine(since, time(), UTC), -ARRIVAL_SLACK)
        ordered = session.report_times_follow_ids
        arrivals = _Arrivals(api, bound, ordered=ordered, width=max(2, min(PROBES, limits.max_objects_in_get)))
        listing = _Listing(self, json.dumps(filter or {}, sort_keys=True, default=str))
        pager = QueryPager(api, filter, NEWEST_FIRST, ids_only=True, page_size=LIST_PAGE)
        fetch = _Fetch(self, api, max(1, min(GET_CHUNK, limits.max_objects_in_get)),
                       max(1, limits.max_concurrent_requests - 1))
        # A listing read from the start into a store that knows nothing settled: each page's reports not
        # stored are fetched while the next page is listed, those of the period only (the pages are newest
        # first). A continued listing stops at its first pages; what it misses is found after it, as before.
        overlap = not listing.continues and self._whole is None and self._older is None
        cut = False
        """A period's cut was found: every listed report not stored and not queued arrived before the bound."""
        try:
            async for page in pager.pages(first=PROBE if listing.continues else None):
                listing.add(page)
                joined = listing.joined(page)  # what is older than this page is what was listed before
                await report(SyncProgress("listing", pager.total if joined and pager.total else listing.count,
                                          pager.total))
                if overlap and not (cut and ordered):
                    # Where times do not follow the ids, every page's times are read, past a cut too.
                    candidates = [i for i in self._not_stored(page.ids) if i not in fetch.queued]
                    wanted = await arrivals.since(candidates)
                    fetch.add(wanted)
                    cut = cut or len(wanted) < len(candidates)
                if joined:
                    break
            forgotten = listing.commit(forget_unlisted=not filter)
            with self._lock:
                generation = self._generation(self._db)
                puts = fetch.puts  # what this sync wrote so far: in the generation already
                settled = generation == self._whole or (
                    bound is not None and self._older is not None and self._older[0] == generation
                    and self._older[1] <= bound)
                if cut:
                    # What is not stored is older than the period: only its number counts (46,667 ids at
                    # 100,000 read and set against the queued ones cost 0.1 s), with what this sync stored.
                    missing: list[str] = []
                    missing_before = int(self._db.execute(_MISSING_COUNT).fetchone()[0]) + fetch.fetched \
                        + fetch.unreadable
                else:
                    missing = [] if settled else [report_id for (report_id,) in self._db.execute(_MISSING)]
            rest = [] if cut else [report_id for report_id in missing if report_id not in fetch.queued]
            rest = await arrivals.since(rest)
            if not cut:
                missing_before = len(set(missing) | fetch.queued)  # fetched by this sync: not stored before it
            cached = listing.total - missing_before
            fetch.add(rest)
            fetch.close()
            shown = None
            while True:  # a step a chunk stored, as the fetch goes
                fetch.moved.clear()
                done = fetch.done
                if done != shown:
                    await report(SyncProgress("fetching", done, len(fetch.queued), cached))
                    shown = done
                if fetch.task.done() and fetch.done == shown:
                    fetch.task.result()  # raised what stopped it
                    break
                await fetch.moved.wait()
        finally:
            fetch.cancel()  # stopped (x, esc) or failed: the gets still out are not waited for
        with self._lock:
            # Settled only if every wanted report was stored (none gone by the time it was asked for),
            # and nothing but this sync wrote meanwhile (the inbox may forget a report between two gets).
            # Already settled, nothing was looked at: what was known stays as it was.
            generation += fetch.puts - puts
            if (not settled and not fetch.lost and fetch.fetched + fetch.unreadable == len(fetch.queued)
                    and self._generation(self._db) == generation):
                if len(fetch.queued) == missing_before:
                    self._whole = generation
                elif bound is not None:
                    self._older = (generation, bound)
        return SyncResult(listing.total, fetch.fetched, forgotten, fetch.unreadable)

    def _not_stored(self, ids: Sequence[str]) -> list[str]:
        """``ids`` (in order, each once) of the reports not stored, unreadable ones counted as stored."""
        wanted = list(dict.fromkeys(_cleaned_ids(ids)))
        stored: set[str] = set()
        with self._lock:
            for at in range(0, len(wanted), READ_CHUNK):  # bound variables a statement, far below SQLite's limit
                chunk = wanted[at:at + READ_CHUNK]
                stored.update(i for (i,) in self._db.execute(
                    f"SELECT id FROM reports WHERE id IN ({','.join('?' * len(chunk))})", chunk))
        return [i for i in wanted if i not in stored]


class _Fetch:
    """The gets of one sync: ids queued as they are found, a get per chunk, a few in flight, each answer
    stored while the next ones are on their way (in a task of its own, so the listing goes on meanwhile).

    Up to ``lanes`` requests in flight, the listing's one among them while it lasts: the server's
    ``maxConcurrentRequests`` less one, one left for whatever else the client asks meanwhile.
    """

    def __init__(self, store: DigestStore, api: ObjectApi, size: int, lanes: int) -> None:
        self.store, self.api, self.size, self.lanes = store, api, size, lanes
        self.queued: set[str] = set()
        """Every id queued by this sync (cleaned, as stored)."""
        self.pending: deque[str] = deque()
        self.in_flight: deque[asyncio.Task[GetResult]] = deque()
        self.listing = True
        """The listing still runs: it has a lane, and only whole chunks go (a short one waits for more ids)."""
        self.fetched = self.unreadable = self.lost = self.puts = 0
        self.moved = asyncio.Event()
        """Set after each answer stored, and when the task ends."""
        self.arrived = asyncio.Event()
        self.task = asyncio.create_task(self._run())

    @property
    def done(self) -> int:
        return self.fetched + self.unreadable + self.lost

    def add(self, ids: Iterable[str]) -> None:
        for report_id in ids:
            if report_id not in self.queued:
                self.queued.add(report_id)
                self.pending.append(report_id)
        self._send()

    def close(self) -> None:
        """No more ids: every lane is the fetch's, and a last short chunk goes too."""
        self.listing = False
        self._send()
        self.arrived.set()

    def _send(self) -> None:
        lanes = self.lanes - 1 if self.listing else self.lanes
        while len(self.in_flight) < lanes and (len(self.pending) >= self.size or (self.pending and not self.listing)):
            chunk = [self.pending.popleft() for _ in range(min(self.size, len(self.pending)))]
            self.in_flight.append(asyncio.create_task(self.api.get(chunk, properties=("id", "report"))))
        if self.in_flight:
            self.arrived.set()

    async def _run(self) -> None:
        try:
            while self.listing or self.in_flight:
                if not self.in_flight:
                    self.arrived.clear()
                    await self.arrived.wait()
                    continue
                got = await self.in_flight[0]
                self.in_flight.popleft()
                self._send()  # the server works on it while this answer is stored
                stored, bad = self.store.put_wires(got.raw)  # a report this client cannot read is left out
                self.puts += 1
                self.fetched += stored
                self.unreadable += len(bad)
                self.lost += len(got.not_found)
                self.moved.set()
        finally:
            self.moved.set()

    def cancel(self) -> None:
        self.task.cancel()
        for task in self.in_flight:
            task.cancel()
            task.add_done_callback(_settled)  # one that failed meanwhile is not reported as unretrieved


class _Arrivals:
    """Which listed reports (newest first) arrived at or after ``bound``: those a period's sync fetches."""

    def __init__(self, api: ObjectApi, bound: datetime | None, *, ordered: bool, width: int) -> None:
        self.api, self.bound, self.ordered, self.width = api, bound, ordered, width

    async def since(self, ids: Sequence[str]) -> list[str]:
        """The ids of ``ids`` that arrived since the bound (all without one), in their order."""
        if self.bound is None or not ids:
            return list(ids)
        if self.ordered:
            return list(ids[:await self._searched(ids, self.bound)])
        received = await self._received(ids)  # maxObjectsInGet a call, maxCallsInRequest calls a request
        return [i for i in ids if not _before(received.get(i), self.bound)]

    async def _searched(self, ids: Sequence[str], bound: datetime) -> int:
        """How many of ``ids`` arrived since ``bound``, times growing with the ids: a search ``width`` at a
        time, each get asking that many ids spread over the part not known yet; the first that arrived before
        ``bound`` ends the part that did. A report gone meanwhile, or whose time does not read, counts as
        arrived (its get finds out)."""
        width = self.width
        new, old = 0, len(ids)  # ids[:new] arrived since the bound, ids[old:] before it
        while new < old:
            span = old - new
            positions = range(new, old) if span <= width else sorted(
                {new + (span - 1) * n // (width - 1) for n in range(width)})
            arrived = await self._received([ids[p] for p in positions])
            for position in positions:
                if _before(arrived.get(ids[position]), bound):
                    old = position
                    break
                new = position + 1
        return new

    async def _received(self, ids: Sequence[str]) -> dict[str, object]:
        got = await self.api.get(ids, properties=("id", "receivedAt"))
        return {str(wire.get("id")): wire.get("receivedAt") for wire in got.raw}


def _cleaned_ids(ids: Sequence[str]) -> Sequence[str]:
    """:func:`clean` of each id; one test for a page of them when they are ASCII, as ids are."""
    return ids if "".join(ids).isascii() else [clean(i) for i in ids]


def _settled(task: asyncio.Task[GetResult]) -> None:
    if not task.cancelled():
        task.exception()


def _before(received: object, bound: datetime) -> bool:
    try:
        return parse_utc(received) < bound  # type: ignore[arg-type]
    except ValueError:
        return False


class _Listing:
    """One listing of a sync: its pages staged in the temp table ``fresh``, then laid over the stored one.

    Ranks count from the oldest report, so an arrival (always the newest) changes no rank
    and the stored ranks of the older reports stay true until one of them is deleted.
    """

    def __init__(self, store: DigestStore, query: str) -> None:
        self.store = store
        self.query = query
        self.count = 0
        """Ids listed by this sync."""
        self.server_total: int | None = 0
        self.ranked = True
        """Every page's positions are the server's own (no page narrowed by the client)."""
        self.stop: int | None = None
        """The rank from which the new pages replace the stored listing; None: they replace all of it."""
        self.total = 0
        """Ids listed after :meth:`commit`: the reports the figures count."""
        with store._lock:
            store._db.execute("DELETE FROM fresh")
            row = store._db.execute("SELECT value FROM meta WHERE key='listing'").fetchone()
        self.continues = query == UNFILTERED and row is not None and row[0] == query
        """The stored listing is of this query, complete, with every rank true when it was made.

        Only the listing of every report is continued: a filter's set of reports may also change
        by an update (a report kept longer leaves an ``expiresAt`` range, another enters it), and
        one leaving while another enters, both older, would leave every rank as it was.
        """

    def add(self, page: QueryPage) -> None:
        total = page.scanned_total
        self.ranked = self.ranked and not page.narrowed and total is not None
        self.server_total = total
        ids = _cleaned_ids(page.ids)
        top = total - 1 - page.position if total is not None and self.ranked else None
        # (id, rank) pairs made in C: a first visit lists every id (100,000 at the size).
        rows = zip(ids, range(top, top - len(ids), -1) if top is not None else repeat(UNRANKED),
                   strict=False)  # repeat: as many as the ids
        with self.store._transaction() as db:  # one transaction: row by row, a page costs 25× more
            db.executemany("INSERT OR IGNORE INTO fresh VALUES (?, ?)", rows)
        self.count += len(page.ids)

    def joined(self, page: QueryPage) -> bool:
        """Whether the oldest id of ``page`` still has its stored rank: then all older ones are as stored.

        Nothing that arrives is older than a listed report, and a deletion of an older one
        would have lowered the rank; so the server's older reports are the stored ones.
        """
        if not (self.continues and self.ranked and page.ids and page.scanned_total is not None):
            return False
        rank = page.scanned_total - page.position - len(page.ids)
        with self.store._lock:
            row = self.store._db.execute("SELECT rank FROM listed WHERE id=?", (clean(page.ids[-1]),)).fetchone()
        if row is None or row[0] != rank:
            return False
        self.stop = rank
        return True

    def commit(self, *, forget_unlisted: bool) -> int:
        """Lay the pages over the stored listing; returns how many stored reports were forgotten.

        ``forget_unlisted``: the listing had no filter, so a stored report it no longer
        holds was deleted on the server and leaves the store.
        """
        replaced, since = ("rank >= ?", (self.stop,)) if self.stop is not None else ("1", ())
        with self.store._transaction() as db:
            fresh = db.execute("SELECT count(*) FROM fresh").fetchone()[0]
            kept = db.execute("SELECT count(*) FROM fresh JOIN listed USING(id, rank)").fetchone()[0]
            stored = db.execute(f"SELECT count(*) FROM listed WHERE {replaced}", since).fetchone()[0]
            forgotten = 0
            if forget_unlisted and self.stop is None:
                forgotten = db.execute("DELETE FROM reports WHERE id NOT IN (SELECT id FROM fresh)").rowcount
            elif forget_unlisted:
                forgotten = db.execute(
                    "DELETE FROM reports WHERE id IN (SELECT id FROM listed WHERE rank >= ?"
                    " AND id NOT IN (SELECT id FROM fresh))", since).rowcount
            if forgotten or not fresh == kept == stored:
                db.execute(f"DELETE FROM listed WHERE {replaced}", since)
                # Ranked, in the order of listed's key (fresh's own index gives it): its pages fill one after
                # another instead of each id landing on a page of its own (100,000 ids: 0.15 -> 0.10 s).
                # Unranked, in the listing's order: the rowid is then the order the missing are fetched in.
                db.execute("INSERT OR REPLACE INTO listed SELECT id, rank FROM fresh"
                           + (" ORDER BY id" if self.ranked else ""))
                self.store._changed(db)
            db.execute("DELETE FROM fresh")
            self.total, top = db.execute("SELECT count(*), coalesce(max(rank), -1) FROM listed").fetchone()
            # A listing is continued next time only when it is whole: a report that arrived or left
            # between two of its pages shifts the positions, and then the count or the top rank is off.
            if self.ranked and self.total == self.server_total and top == self.total - 1:
                db.execute("INSERT OR REPLACE INTO meta VALUES ('listing', ?)", (self.query,))
            else:
                db.execute("DELETE FROM meta WHERE key='listing'")
        return int(forgotten)


_MISSING = ("SELECT listed.id FROM listed WHERE NOT EXISTS (SELECT 1 FROM reports WHERE reports.id = listed.id)"
            " ORDER BY listed.rank DESC, listed.rowid")
"""The listed reports not stored, newest first (ids grow with arrival; an unranked listing is in its own order)."""
_MISSING_COUNT = "SELECT count(*) FROM listed WHERE NOT EXISTS (SELECT 1 FROM reports WHERE reports.id = listed.id)"
"""How many listed reports are not stored."""
