"""Reading the stored digests back: a report, a period's reports, their totals, sources and history.

Split out of :class:`~jmapclient.dmarc.digest_store.DigestStore` by job: the store writes and keeps in
step with the server, this reads what it wrote.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from datetime import date, datetime
from functools import lru_cache
from operator import itemgetter
from typing import Any, NamedTuple

from jmapclient.dmarc.analytics import RecordDigest, ReportDigest, new_record, new_report
from jmapclient.dmarc.digest_figures import DigestFigures
from jmapclient.dmarc.digest_rows import DECODED
from jmapclient.encoding import parse_utc

READ_CHUNK = 500
"""Stored reports read back per query (their records in one more): few queries, flat memory."""

_REPORT_COLUMNS = ("r.key, r.id, r.org, r.report_id, r.policy_domain, r.begin, r.end, r.p, r.sp, r.np, r.adkim,"
                   " r.aspf, r.testing")
_ANY_MISSING = "SELECT 1 FROM listed WHERE NOT EXISTS (SELECT 1 FROM reports WHERE reports.id = listed.id) LIMIT 1"


@lru_cache(maxsize=DECODED)
def _pairs(value: str) -> tuple[tuple[str, str], ...]:
    return tuple((str(a), str(b)) for a, b in json.loads(value))


@lru_cache(maxsize=DECODED)
def _strings(value: str) -> tuple[str, ...]:
    return tuple(str(item) for item in json.loads(value))


_utc = lru_cache(maxsize=DECODED)(parse_utc)
"""Report periods repeat too: a day's reports mostly share their begin and end."""
_day = lru_cache(maxsize=DECODED)(date.fromisoformat)


class StoredReport(NamedTuple):
    """A listed report of a period as its stored row holds it, records aside (their sums kept with it).

    What the advice counts per report; its records are read by ``key`` (:meth:`DigestReads.records_of`).
    """

    key: int
    id: str
    reporter: str
    report_id: str
    policy_domain: str
    day: date
    end: datetime
    p: str
    sp: str
    np: str
    adkim: str
    aspf: str
    testing: bool
    messages: int
    passed: int


StoredRecord = tuple[int, str, int, str, str, str, Any, Any, Any]
"""A record as :meth:`DigestReads.records_of` reads it: (report key, source IP, count, dkim, spf, header From,
overrides, DKIM and SPF results), the fields of a
:class:`~jmapclient.dmarc.analytics.RecordDigest` that judge it, as plain values (no object a record). The last
three as the store holds them (:func:`stored_lists` reads them; a digest's own tuples serve as well)."""

StoredLists = tuple[tuple[str, ...], tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]
"""A record's overrides and its DKIM and SPF results, read."""


def stored_lists(overrides: str, dkim_auth: str, spf_auth: str) -> StoredLists:
    """A stored record's lists as values: records repeat a few shapes, each read once (remembered)."""
    return _strings(overrides), _pairs(dkim_auth), _pairs(spf_auth)


_COUNT, _OVERRIDES, _DKIM_AUTH, _SPF_AUTH = itemgetter(2), itemgetter(6), itemgetter(7), itemgetter(8)
"""A :data:`StoredRecord`'s count and lists as stored."""


class DigestReads(DigestFigures):
    """The store's digests read back (the figures of :class:`DigestFigures` add them up in SQL)."""

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

    def unreadable_listed(self) -> int:
        """How many listed reports this client could not read (stored without a day): in no period's figures. Said
        on every run, not only the one that fetched them: a report too large for the server to send was imported,
        and the advice said "No DMARC reports" with no word of it (the tester's)."""
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM reports r JOIN listed USING(id) WHERE r.day = ''")
                       .fetchone()[0])

    def period_reports(self, first: date, last: date) -> list[StoredReport]:
        """Every listed report of the period, in the order :meth:`digests` gives them, without their records."""
        with self._lock:
            rows = self._db.execute(
                "SELECT r.key, r.id, r.org, r.report_id, r.policy_domain, r.day, r.end, r.p, r.sp, r.np,"
                " r.adkim, r.aspf, r.testing, r.messages, r.passed FROM reports r JOIN listed USING(id)"
                " WHERE r.day BETWEEN ? AND ? ORDER BY r.key", (first.isoformat(), last.isoformat())).fetchall()
            with self._readable():
                return [_stored_report(row) for row in rows]

    def records_of(self, keys: Sequence[int]) -> Iterator[StoredRecord]:
        """The records of the reports of these keys (ascending, as :meth:`period_reports` gives them), in the
        order :meth:`digests` gives them; a chunk of reports a query.

        The rows as SQLite gives them, their lists as stored: a reader that groups records (the advice's
        tallies) reads each shape once (:func:`stored_lists`), not a record's three lists a record, which cost
        half of reading them. A chunk's counts and its distinct lists are checked here, so a value this version
        cannot read still empties the store (:meth:`_readable`)."""
        for at in range(0, len(keys), READ_CHUNK):
            chunk = keys[at:at + READ_CHUNK]
            with self._lock:
                # The index records_report (report, rowid) gives this order without a sort.
                rows: list[StoredRecord] = self._db.execute(
                    "SELECT report, source_ip, count, dkim, spf, header_from, overrides, dkim_auth, spf_auth"
                    f" FROM records WHERE report IN ({','.join('?' * len(chunk))}) ORDER BY report, rowid",
                    chunk).fetchall()
                with self._readable():
                    if any(kind is not int for kind in set(map(type, map(_COUNT, rows)))):
                        _count(None)  # SQLite keeps whatever a damaged row holds; sums need integers
                    for overrides in set(map(_OVERRIDES, rows)):  # a column at a time: the strings' hashes
                        _strings(overrides)                          # are kept for the tallies' look-ups
                    for results in set(map(_DKIM_AUTH, rows)).union(map(_SPF_AUTH, rows)):
                        _pairs(results)
            yield from rows

    def busiest_sources(self, first: date, last: date, domain: str | None, *, per_domain: int,
                        in_all: int) -> tuple[list[tuple[str, str]], dict[str, int]]:
        """The (policy domain, source IP) of the listed reports of the period with the most messages, at most
        ``per_domain`` of a domain and ``in_all`` in all, the most messages first (then domain and IP); and each
        domain's number of distinct sources. ``domain`` keeps one policy domain.

        Ranked here, in SQL, so that what the advice judges one by one is bounded without the period's every
        source held in this process (a flood of forged reports named 400,000)."""
        where = "r.day BETWEEN ? AND ?" + ("" if domain is None else " AND r.policy_domain = ?")
        arguments: tuple[object, ...] = (first.isoformat(), last.isoformat()) + (() if domain is None else (domain,))
        with self._lock:
            chosen = self._db.execute(
                "WITH totals AS (SELECT r.policy_domain AS d, records.source_ip AS ip, SUM(records.count) AS n"
                " FROM reports r JOIN listed USING(id) JOIN records ON records.report=r.key"
                f" WHERE {where} GROUP BY 1, 2),"
                " ranked AS (SELECT d, ip, n, ROW_NUMBER() OVER (PARTITION BY d ORDER BY n DESC, ip) AS k FROM totals)"
                " SELECT d, ip FROM ranked WHERE k <= ? ORDER BY n DESC, d, ip LIMIT ?",
                (*arguments, per_domain, in_all)).fetchall()
            sources = self._db.execute(
                "SELECT r.policy_domain, COUNT(DISTINCT records.source_ip) FROM reports r JOIN listed USING(id)"
                f" JOIN records ON records.report=r.key WHERE {where} GROUP BY 1", arguments).fetchall()
        return [(d, ip) for d, ip in chosen], {d: int(n) for d, n in sources}

    def seen_before(self, first: date, ips: Iterable[str] | None = None) -> dict[tuple[str, str], int] | None:
        """(policy domain, source IP) of the listed reports whose day is before ``first``, each with its messages
        there that failed DMARC (one forged "seed" report of one message made a source known, and one of 5,000
        passing messages hid 49,999 failing ones after it: tester81, tester84).

        What tells a source new in a period from one seen before; ``ips`` narrows the
        answer to these sources, so its size follows the period, not the history. None while
        a listed report is not stored (a sync for a period fetches only what that period needs):
        a source absent from the history held is then not known to be new. None too when no listed
        report is older than ``first`` (a period as long as the history): every source would be "new",
        and a daily check would call each failing one a new source failing, every day.
        """
        with self._lock:
            if self._db.execute(_ANY_MISSING).fetchone() is not None or self._db.execute(
                    "SELECT 1 FROM reports r JOIN listed USING(id) WHERE r.day != '' AND r.day < ? LIMIT 1",
                    (first.isoformat(),)).fetchone() is None:
                return None
            rows = self._db.execute(
                "SELECT r.policy_domain, records.source_ip,"
                " SUM(CASE WHEN records.dkim = 'pass' OR records.spf = 'pass' THEN 0 ELSE records.count END)"
                " FROM reports r JOIN listed USING(id)"
                " JOIN records ON records.report=r.key WHERE r.day != '' AND r.day < ?"
                " GROUP BY r.policy_domain, records.source_ip",
                (first.isoformat(),)).fetchall()
        wanted = None if ips is None else set(ips)
        return {(domain, ip): int(messages) for domain, ip, messages in rows if wanted is None or ip in wanted}

    def _digests(self, rows: Sequence[Sequence[Any]]) -> list[ReportDigest]:
        """The digests of these report rows, their records read in one query."""
        records: dict[int, list[RecordDigest]] = {row[0]: [] for row in rows}
        if records:
            marks = ",".join("?" * len(records))
            for (key, ip, count, disposition, dkim, spf, header_from, envelope_from, overrides, dkim_auth,
                 spf_auth) in self._db.execute(
                    "SELECT report, source_ip, count, disposition, dkim, spf, header_from, envelope_from, overrides,"
                    f" dkim_auth, spf_auth FROM records WHERE report IN ({marks}) ORDER BY rowid", tuple(records)):
                records[key].append(new_record(
                    ip, _count(count), disposition, dkim, spf, header_from, envelope_from, _strings(overrides),
                    _pairs(dkim_auth), _pairs(spf_auth)))
        return [
            new_report(report_id, org, rid, domain, _utc(begin), _utc(end), tuple(records[key]), p, sp, np, adkim,
                       aspf, bool(testing))
            for key, report_id, org, rid, domain, begin, end, p, sp, np, adkim, aspf, testing in rows
        ]


def _count(count: object) -> int:
    if type(count) is not int:  # SQLite keeps whatever a damaged row holds; sums need integers
        raise TypeError("a record's count is not an integer")
    return count


def _stored_report(row: Sequence[Any]) -> StoredReport:
    key, report_id, org, rid, domain, day, end, p, sp, np, adkim, aspf, testing, messages, passed = row
    return StoredReport(key, report_id, org, rid, domain, _day(day), _utc(end), p, sp, np, adkim, aspf, bool(testing),
                        _count(messages), _count(passed))
