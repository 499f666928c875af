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

The database is one file per server (owner-only, 0600); it remembers which server,
account and user filled it and starts empty when that changes.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import sqlite3
import stat
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

from jmapclient.dmarc.analytics import (
    DayStat,
    DomainRate,
    Hint,
    Overview,
    RecordDigest,
    ReportDigest,
    SourceStat,
    classify,
    digest_report,
)
from jmapclient.dmarc.figures import Figures as Figures  # the store's answer, named where it is used
from jmapclient.dmarc.figures import failing_record, figures_from_json, figures_json
from jmapclient.encoding import format_utc, parse_utc
from jmapclient.file_safety import NotAFile, NotRegular, make_private_folder, set_aside
from jmapclient.objects import ObjectApi
from jmapclient.paging import QueryPage, QueryPager

SCHEMA_VERSION = "3"
"""Raised whenever a column or a derived value (the hint) changes meaning: the store then starts empty."""
LIST_PAGE = 5_000
"""Ids per query request: the real server's cap on a query's ``limit`` (wire-notes)."""
PROBE = 100
"""Ids of the first page when a listing is kept: enough to find it unchanged, a fraction of a full page."""
GET_CHUNK = 250
"""Reports per get request; small enough that progress moves and memory stays flat."""
READ_CHUNK = 500
"""Stored reports read back per query (their records in one more): few queries, flat memory."""
MAX_COUNT = 2**40
"""A record's message count is clamped here, so sums over a million records fit SQLite's integers."""
OWNER_ONLY = 0o600
DECODED = 4096
"""Stored JSON lists remembered decoded: records repeat a few shapes (``[]``, one domain's pass), and
reading back tens of thousands of reports decoded each one again."""
MEMO_SIZE = 8
"""Figures remembered: every period of the view, for the latest listing."""
NEWEST_FIRST = ({"property": "id", "isAscending": False},)
"""Ids grow with arrival; both servers sort reports by id (wire-notes), so new reports come first."""
UNFILTERED = "{}"
"""The query (as JSON) of the listing of every report."""
UNRANKED = -1
"""The rank of an id listed where positions say nothing (a filter the client narrowed, a test's listing)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS reports(
    key INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    org TEXT NOT NULL, report_id TEXT NOT NULL, policy_domain TEXT NOT NULL,
    begin TEXT NOT NULL, end TEXT NOT NULL,
    day TEXT NOT NULL,
    p TEXT NOT NULL, sp TEXT NOT NULL, np TEXT NOT NULL, adkim TEXT NOT NULL, aspf TEXT NOT NULL,
    testing INTEGER NOT NULL,
    messages INTEGER NOT NULL DEFAULT 0, passed INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS reports_day ON reports(day);
CREATE TABLE IF NOT EXISTS records(
    report INTEGER NOT NULL REFERENCES reports(key) ON DELETE CASCADE,
    source_ip TEXT NOT NULL, count INTEGER NOT NULL, disposition TEXT NOT NULL,
    dkim TEXT NOT NULL, spf TEXT NOT NULL, header_from TEXT NOT NULL, envelope_from TEXT NOT NULL,
    overrides TEXT NOT NULL, dkim_auth TEXT NOT NULL, spf_auth TEXT NOT NULL,
    passes INTEGER NOT NULL, hint TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS records_report ON records(report);
CREATE TABLE IF NOT EXISTS listed(id TEXT PRIMARY KEY, rank INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS listed_rank ON listed(rank);
CREATE TABLE IF NOT EXISTS figures(
    generation INTEGER NOT NULL, first TEXT NOT NULL, last TEXT NOT NULL, lim INTEGER NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY(first, last, lim));
CREATE TEMP TABLE IF NOT EXISTS fresh(id TEXT PRIMARY KEY, rank INTEGER NOT NULL);
"""
_COLUMNS = ["key", "id", "org", "report_id", "policy_domain", "begin", "end", "day", "p", "sp", "np", "adkim", "aspf",
            "testing", "messages", "passed"]
"""The reports table's columns, as ``_SCHEMA`` declares them: a file with others is made again."""
UNREADABLE_DAY = ""
"""The day of a report this client could not read: kept so it is not fetched again, in no period."""

MAX_KEPT_FIGURES = 16 << 20
"""Bytes of one remembered figures entry read back: a period's lists are cut at their row limit, far below."""

_UNREADABLE = (ValueError, TypeError, KeyError, IndexError, OverflowError, RecursionError)
"""What decoding a stored value raises when it is not what this version writes (JSON errors are ValueErrors)."""


class DamagedStore(sqlite3.DatabaseError):
    """The file held values this version cannot read back: it has been emptied, and a sync fills it again.

    A file edited by hand, damaged on disk in a way SQLite cannot see (a row's bytes), or written
    by another version under the same schema number made ``dmarc-advice`` end in a traceback
    (JSONDecodeError, ``int('abc')``, ``int + str``). A sqlite3.Error, so whoever already copes with
    a broken file (the console's analytics: an error and a retry) copes with this one too.
    """


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


def _clean(value: str) -> str:
    """``value`` as SQLite can store it: a lone surrogate (valid in JSON) becomes U+FFFD."""
    try:
        value.encode()
    except UnicodeEncodeError:
        return value.encode("utf-8", "replace").decode()
    return value


@lru_cache(maxsize=DECODED)
def _pairs(value: str) -> tuple[tuple[str, str], ...]:
    return tuple((str(a), str(b)) for a, b in json.loads(value))


_utc = lru_cache(maxsize=DECODED)(parse_utc)
"""Report periods repeat too: a day's reports mostly share their begin and end."""


@lru_cache(maxsize=DECODED)
def _strings(value: str) -> tuple[str, ...]:
    return tuple(str(item) for item in json.loads(value))


class DigestStore:
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

    def _open(self, path: Path | None) -> sqlite3.Connection:
        """The database at ``path``; a damaged one is set aside, and one that cannot be had is kept in memory.

        The cache only saves fetching: no state of the file may keep the console from working.
        """
        if path is None:
            return DigestStore._prepare(sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None))
        for _ in range(2):
            try:
                return DigestStore._prepare(DigestStore._connect(path))
            except (OSError, sqlite3.Error, NotAFile) as damage:
                # Moved aside, with its log: a new file must not replay the old one's pages. A link is
                # moved, never followed: its target (another program's database) stays as it was.
                self.set_aside = set_aside(path, "DMARC cache", str(damage))
                if os.path.lexists(path):
                    break  # a folder, or it could not be moved: kept in memory
                try:
                    for log in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
                        log.unlink(missing_ok=True)
                except OSError:
                    break
        return self._open(None)

    @staticmethod
    def _connect(path: Path) -> sqlite3.Connection:
        make_private_folder(path.parent)
        # Created owner-only before SQLite writes a byte: report contents name the organisation's
        # mail sources. Never through a symlink (its target was chmod'ed, and if it was another
        # SQLite database, its `meta` table emptied), and never a FIFO or device (O_NONBLOCK: no wait).
        descriptor = os.open(path, os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, OWNER_ONLY)
        try:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                raise NotRegular("it is not a regular file")
            os.fchmod(descriptor, OWNER_ONLY)
        finally:
            os.close(descriptor)
        db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        try:
            # A write-ahead log: a console killed in the middle of a write (a dropped SSH session)
            # leaves the last committed state, never a half-written file whose figures would be
            # wrong. SQLite gives the -wal and -shm files the database's own mode (0600), and
            # removes them on the last close. NORMAL: a commit does not wait for the disk.
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.Error:
            db.close()
            raise
        return db

    @staticmethod
    def _prepare(db: sqlite3.Connection) -> sqlite3.Connection:
        try:
            db.execute("PRAGMA foreign_keys=ON")
            db.executescript(_SCHEMA)
            version = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            columns = [row[1] for row in db.execute("PRAGMA table_info(reports)")]
            if version is None or version[0] != SCHEMA_VERSION or columns != _COLUMNS:
                # Another layout: the tables are made again, empty.
                db.executescript("DROP TABLE records; DROP TABLE reports; DROP TABLE meta; DROP TABLE listed;"
                                 " DROP TABLE figures;")
                db.executescript(_SCHEMA)
                DigestStore._reset(db)
        except sqlite3.Error:
            db.close()
            raise
        return db

    @staticmethod
    def _reset(db: sqlite3.Connection) -> None:
        db.execute("BEGIN")
        db.execute("DELETE FROM records")
        db.execute("DELETE FROM reports")
        db.execute("DELETE FROM listed")
        db.execute("DELETE FROM figures")
        generation = DigestStore._generation(db) + 1  # figures remembered for what was here are not these
        db.execute("DELETE FROM meta")
        db.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        db.execute("INSERT INTO meta VALUES ('generation', ?)", (str(generation),))
        db.execute("COMMIT")

    @staticmethod
    def _generation(db: sqlite3.Connection) -> int:
        row = db.execute("SELECT value FROM meta WHERE key='generation'").fetchone()
        text = str(row[0]) if row is not None else ""
        return int(text) if text.isascii() and text.isdigit() else 0  # a damaged value counts from 0 again

    @contextmanager
    def _readable(self) -> Iterator[None]:
        """Values read back that cannot be decoded empty the store (with the lock held) and say so."""
        try:
            yield
        except _UNREADABLE as error:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            self._reset(self._db)
            self._memo.clear()
            self._whole = None
            raise DamagedStore(f"the DMARC cache {self.path or '(in memory)'} held a value this version cannot"
                               f" read ({type(error).__name__}); it has been emptied") from None

    @staticmethod
    def _changed(db: sqlite3.Connection) -> None:
        """What the figures count changed (inside the change's transaction): remembered figures no longer hold."""
        db.execute("INSERT OR REPLACE INTO meta VALUES ('generation', ?)", (str(DigestStore._generation(db) + 1),))

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()

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
        with self._transaction() as db:
            self._changed(db)
            for digest in digests:
                db.execute("DELETE FROM reports WHERE id=?", (_clean(digest.id),))
                key = db.execute(
                    "INSERT INTO reports(id, org, report_id, policy_domain, begin, end, day, p, sp, np, adkim, aspf,"
                    " testing, messages, passed) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (_clean(digest.id), _clean(digest.reporter), _clean(digest.report_id),
                     _clean(digest.policy_domain), format_utc(digest.begin), format_utc(digest.end),
                     digest.day.isoformat(), _clean(digest.p), _clean(digest.sp), _clean(digest.np),
                     _clean(digest.adkim), _clean(digest.aspf), int(digest.testing),
                     sum(min(r.count, MAX_COUNT) for r in digest.records),
                     sum(min(r.count, MAX_COUNT) for r in digest.records if r.passes)),
                ).lastrowid
                db.executemany(
                    "INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    [(key, _clean(r.source_ip), min(r.count, MAX_COUNT), _clean(r.disposition), _clean(r.dkim),
                      _clean(r.spf), _clean(r.header_from), _clean(r.envelope_from),
                      _clean(json.dumps(list(r.overrides))), _clean(json.dumps(r.dkim_auth)),
                      _clean(json.dumps(r.spf_auth)), int(r.passes), str(classify(r) or ""))
                     for r in digest.records],
                )
            for report_id in unreadable:
                db.execute("INSERT OR REPLACE INTO reports(id, org, report_id, policy_domain, begin, end, day, p, sp,"
                           " np, adkim, aspf, testing) VALUES (?,'','','','','',?,'','','','','',0)",
                           (_clean(report_id), UNREADABLE_DAY))

    def mark_listed(self, ids: Iterable[str]) -> None:
        """Count these reports, and only these, in the figures: a listing that says nothing of positions.

        The next :meth:`sync` lists everything again, as it does after a listing of another filter.
        """
        with self._transaction() as db:
            self._changed(db)
            db.execute("DELETE FROM listed")
            db.executemany("INSERT OR IGNORE INTO listed VALUES (?, ?)", [(_clean(i), UNRANKED) for i in ids])
            db.execute("DELETE FROM meta WHERE key='listing'")

    def discard(self, ids: Iterable[str]) -> None:
        """Forget reports (deleted here, so the figures drop them without a visit).

        Every listed report newer than a forgotten one moves one rank down, as it does on
        the server, so the next listing still stops at its first page.
        """
        with self._transaction() as db:
            self._changed(db)
            for (report_id,) in {(_clean(i),) for i in ids}:
                db.execute("DELETE FROM reports WHERE id=?", (report_id,))
                row = db.execute("DELETE FROM listed WHERE id=? RETURNING rank", (report_id,)).fetchone()
                if row is not None and row[0] != UNRANKED:
                    db.execute("UPDATE listed SET rank = rank - 1 WHERE rank > ?", (row[0],))

    def get(self, report_id: str) -> ReportDigest | None:
        with self._lock:
            row = self._db.execute(f"SELECT {_REPORT_COLUMNS} FROM reports r WHERE id=? AND day != ''",
                                   (report_id,)).fetchone()
            with self._readable():
                return None if row is None else self._digests([row])[0]

    def digests(self, first: date, last: date) -> Iterator[ReportDigest]:
        """Every listed report of the period, a chunk at a time (for figures this module does not compute)."""
        key = 0
        while True:
            with self._lock:
                rows = self._db.execute(
                    f"SELECT {_REPORT_COLUMNS} FROM reports r JOIN listed USING(id)"
                    " WHERE r.day BETWEEN ? AND ? AND r.key > ? ORDER BY r.key LIMIT ?",
                    (first.isoformat(), last.isoformat(), key, READ_CHUNK)).fetchall()
                with self._readable():
                    batch = self._digests(rows)
            if not batch:
                return
            yield from batch
            key = rows[-1][0]

    def source_ips(self, first: date, last: date) -> list[str]:
        """The sources of the listed reports of the period, sorted (without reading the reports back)."""
        with self._lock:
            return [ip for (ip,) in self._db.execute(
                "SELECT DISTINCT records.source_ip FROM reports r JOIN listed USING(id)"
                " JOIN records ON records.report=r.key WHERE r.day BETWEEN ? AND ? ORDER BY 1",
                (first.isoformat(), last.isoformat()))]

    def seen_before(self, first: date, ips: Iterable[str] | None = None) -> set[tuple[str, str]]:
        """(policy domain, source IP) of the listed reports whose day is before ``first``.

        What tells a source new in a period from one seen before; ``ips`` narrows the
        answer to these sources, so its size follows the period, not the history.
        """
        with self._lock:
            rows = self._db.execute(
                "SELECT DISTINCT r.policy_domain, records.source_ip FROM reports r JOIN listed USING(id)"
                " JOIN records ON records.report=r.key WHERE r.day != '' AND r.day < ?",
                (first.isoformat(),)).fetchall()
        wanted = None if ips is None else set(ips)
        return {(domain, ip) for domain, ip in rows if wanted is None or ip in wanted}

    def _digests(self, rows: Sequence[Sequence[Any]]) -> list[ReportDigest]:
        """The digests of these report rows, their records read in one query."""
        records: dict[int, list[RecordDigest]] = {row[0]: [] for row in rows}
        if records:
            marks = ",".join("?" * len(records))
            for (key, ip, count, disposition, dkim, spf, header_from, envelope_from, overrides, dkim_auth,
                 spf_auth) in self._db.execute(
                    "SELECT report, source_ip, count, disposition, dkim, spf, header_from, envelope_from, overrides,"
                    f" dkim_auth, spf_auth FROM records WHERE report IN ({marks}) ORDER BY rowid", tuple(records)):
                if type(count) is not int:  # SQLite keeps whatever a damaged row holds; sums need integers
                    raise TypeError("a record's count is not an integer")
                records[key].append(RecordDigest(
                    source_ip=ip, count=count, disposition=disposition, dkim=dkim, spf=spf, header_from=header_from,
                    envelope_from=envelope_from, overrides=_strings(overrides),
                    dkim_auth=_pairs(dkim_auth), spf_auth=_pairs(spf_auth)))
        return [
            ReportDigest(id=report_id, reporter=org, report_id=rid, policy_domain=domain, begin=_utc(begin),
                         end=_utc(end), records=tuple(records[key]), p=p, sp=sp, np=np, adkim=adkim, aspf=aspf,
                         testing=bool(testing))
            for key, report_id, org, rid, domain, begin, end, p, sp, np, adkim, aspf, testing in rows
        ]

    # --- Keeping in step with the server -------------------------------------------------------

    async def sync(
        self, api: ObjectApi, filter: Mapping[str, Any] | None = None, progress: Progress | None = None
    ) -> SyncResult:
        """List the ids ``filter`` matches, fetch the reports not stored, forget deleted ones.

        Only the listed reports count in the figures afterwards, so a report deleted on the
        server drops out of them even when a filter hides it from the listing.
        """
        session = await api.client.session()
        # The capability tells the real server from our stub's spec profile at one address.
        self.bind("\n".join((session.api_url, session.capability, session.account_id or "", session.username)))

        async def report(step: SyncProgress) -> None:
            if progress is not None:
                result = progress(step)
                if inspect.isawaitable(result):
                    await result

        listing = _Listing(self, json.dumps(filter or {}, sort_keys=True, default=str))
        pager = QueryPager(api, filter, NEWEST_FIRST, ids_only=True, page_size=LIST_PAGE)
        async for page in pager.pages(first=PROBE if listing.continues else None):
            listing.add(page)
            joined = listing.joined(page)  # what is older than this page is what was listed before
            await report(SyncProgress("listing", pager.total if joined and pager.total else listing.count,
                                      pager.total))
            if joined:
                break
        forgotten = listing.commit(forget_unlisted=not filter)
        with self._lock:
            generation = self._generation(self._db)
            missing = 0 if generation == self._whole else int(
                self._db.execute(_MISSING.replace("{columns}", "count(*)"), (-1,)).fetchone()[0])
        cached = listing.total - missing
        fetched = unreadable = lost = 0
        await report(SyncProgress("fetching", 0, missing, cached))
        after = -1
        while fetched + unreadable < missing:  # with nothing missing, no scan of the whole listing
            with self._lock:
                rows = self._db.execute(_MISSING.replace("{columns}", "listed.rowid, listed.id")
                                        + " ORDER BY listed.rowid LIMIT ?", (after, GET_CHUNK)).fetchall()
            if not rows:
                break
            after = rows[-1][0]
            got = await api.get([i for _, i in rows], properties=("id", "report"))
            digests, bad = [], []
            for wire in got.raw:
                try:
                    digests.append(digest_report(wire))
                except (ValueError, TypeError, KeyError, AttributeError):
                    bad.append(str(wire.get("id")))  # a report this client cannot read is left out, not fatal
            self.put(digests, bad)
            generation += 1  # what put() did; anything else changing the store meanwhile moves it further
            fetched += len(digests)
            unreadable += len(bad)
            lost += len(got.not_found)
            await report(SyncProgress("fetching", fetched + unreadable + len(got.not_found), missing, cached))
        with self._lock:
            # Whole only if every missing report was stored (none gone by the time it was asked for),
            # and nothing but this sync wrote meanwhile (the inbox may forget a report between two gets).
            if not lost and fetched + unreadable == missing and self._generation(self._db) == generation:
                self._whole = generation
        return SyncResult(listing.total, fetched, forgotten, unreadable)

    # --- Figures --------------------------------------------------------------------------------

    def figures(self, first: date, last: date, limit: int) -> Figures:
        """The figures of the listed reports whose day is in the period; lists cut at ``limit`` rows.

        Remembered (in memory, and in the file for a console started again) until what is
        stored or listed changes: a visit that fetched nothing new costs no aggregation,
        however many reports there are.
        """
        with self._lock:
            generation = self._generation(self._db)
            key = (generation, first, last, limit)
            known = self._memo.get(key)
            if known is None:
                with self._readable():
                    known = self._kept(*key) or self._aggregate(first, last, limit)
                self._keep(generation, known, limit)
                if len(self._memo) >= MEMO_SIZE:
                    self._memo.pop(next(iter(self._memo)))
                self._memo[key] = known
            return known

    def _kept(self, generation: int, first: date, last: date, limit: int) -> Figures | None:
        """The figures kept in the file for this state of the store, if any (a console started again)."""
        # Bounded: an entry made huge by hand is not read into memory, only aggregated again.
        row = self._db.execute("SELECT body FROM figures WHERE generation=? AND first=? AND last=? AND lim=?"
                               " AND length(CAST(body AS BLOB)) <= ?",
                               (generation, first.isoformat(), last.isoformat(), limit, MAX_KEPT_FIGURES)).fetchone()
        try:
            return None if row is None else figures_from_json(row[0])
        except _UNREADABLE:
            return None  # not what this version writes (a deeply nested entry crashed the console): aggregated again

    def _keep(self, generation: int, figures: Figures, limit: int) -> None:
        """Keep ``figures`` in the file, with those of the same state only (older ones no longer hold).

        Only a saving for later: figures that cannot be kept (a full disk) are still shown.
        """
        try:
            self._db.execute("BEGIN")
            self._db.execute("DELETE FROM figures WHERE generation != ?", (generation,))
            self._db.execute("INSERT OR REPLACE INTO figures VALUES (?,?,?,?,?)",
                             (generation, figures.first.isoformat(), figures.last.isoformat(), limit,
                              figures_json(figures)))
            self._db.execute("COMMIT")
        except sqlite3.Error:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")

    def _aggregate(self, first: date, last: date, limit: int) -> Figures:
        db = self._db
        db.execute("DROP TABLE IF EXISTS temp.chosen")
        db.execute("CREATE TEMP TABLE chosen AS SELECT r.key, r.id, r.org, r.policy_domain, r.day, r.messages,"
                   " r.passed FROM reports r JOIN listed USING(id) WHERE r.day BETWEEN ? AND ?",
                   (first.isoformat(), last.isoformat()))
        db.execute("CREATE INDEX temp.chosen_key ON chosen(key)")
        summary = Overview(*db.execute(f"SELECT count(*), {_REPORT_TALLY} FROM chosen").fetchone())
        domains = [
            DomainRate(domain, messages=messages, passed=passed, reports=count)
            for domain, count, messages, passed in db.execute(
                f"SELECT policy_domain, count(*), {_REPORT_TALLY} FROM chosen GROUP BY policy_domain"
                " ORDER BY 3 DESC, 1 LIMIT ?", (limit,))
        ]
        totals = {
            date.fromisoformat(day): (messages, passed)
            for day, messages, passed in db.execute(f"SELECT day, {_REPORT_TALLY} FROM chosen GROUP BY day")
        }
        top = [
            SourceStat(ip, messages=messages, passed=passed)
            for ip, messages, passed in db.execute(
                f"SELECT source_ip, {_RECORD_TALLY} FROM chosen c JOIN records ON records.report=c.key"
                " GROUP BY source_ip ORDER BY 2 DESC, 1 LIMIT ?", (limit,))
        ]
        by_ip = {source.source_ip: source for source in top}
        if by_ip:
            # Who sent as what, who saw it and the hints, for the busiest sources only.
            marks = ",".join("?" * len(by_ip))
            for ip, header_from, org, hint, count in db.execute(
                "SELECT source_ip, header_from, c.org, hint, sum(count) FROM chosen c"
                f" JOIN records ON records.report=c.key WHERE source_ip IN ({marks}) GROUP BY 1, 2, 3, 4",
                tuple(by_ip)):
                source = by_ip[ip]
                if header_from:
                    source.domains.add(header_from)
                source.reporters.add(org)
                if hint:
                    source.hints[Hint(hint)] = source.hints.get(Hint(hint), 0) + count
        failing = [
            failing_record(report_id, org, domain,
                           RecordDigest(source_ip=ip, count=count, disposition=disposition, dkim=dkim, spf=spf,
                                        header_from=header_from, envelope_from=envelope_from), hint)
            for ip, count, disposition, dkim, spf, header_from, envelope_from, hint, report_id, org, domain
            in db.execute(
                "SELECT source_ip, count, disposition, dkim, spf, header_from, envelope_from, hint, c.id, c.org,"
                " c.policy_domain FROM chosen c JOIN records ON records.report=c.key WHERE NOT passes"
                " ORDER BY count DESC, source_ip, c.id LIMIT ?", (limit,))
        ]
        db.execute("DROP TABLE temp.chosen")
        days = [first + timedelta(days=n) for n in range(max(0, (last - first).days + 1))]
        series = [DayStat(day, *totals.get(day, (0, 0))) for day in days]
        return Figures(first, last, summary, domains, top, series, failing)


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
        rows = [(_clean(report_id), total - 1 - (page.position + n) if total is not None and self.ranked else UNRANKED)
                for n, report_id in enumerate(page.ids)]
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
            row = self.store._db.execute("SELECT rank FROM listed WHERE id=?", (_clean(page.ids[-1]),)).fetchone()
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
                db.execute("INSERT OR REPLACE INTO listed SELECT id, rank FROM fresh")
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


_REPORT_COLUMNS = ("r.key, r.id, r.org, r.report_id, r.policy_domain, r.begin, r.end, r.p, r.sp, r.np, r.adkim,"
                   " r.aspf, r.testing")
_RECORD_TALLY = "coalesce(sum(count), 0), coalesce(sum(CASE WHEN passes THEN count ELSE 0 END), 0)"
_REPORT_TALLY = "coalesce(sum(messages), 0), coalesce(sum(passed), 0)"
_MISSING = ("SELECT {columns} FROM listed WHERE listed.rowid > ?"
            " AND NOT EXISTS (SELECT 1 FROM reports WHERE reports.id = listed.id)")
