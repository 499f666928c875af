"""The figures of a period, added up by SQL over the stored digests, remembered until the store changes.

Split out of :class:`~jmapclient.dmarc.digest_store.DigestStore` by job.
"""

from __future__ import annotations

import heapq
import sqlite3
from collections.abc import Callable, Iterator
from datetime import date, timedelta

from jmapclient.dmarc.analytics import DayStat, DomainRate, Hint, Overview, RecordDigest, SourceStat
from jmapclient.dmarc.digest_file import UNREADABLE, DigestFile
from jmapclient.dmarc.figures import Figures, Headline, failing_record, figures_from_json, figures_json

MEMO_SIZE = 8
"""Figures remembered: every period of the view, for the latest listing."""
_RECORD_TALLY = "coalesce(sum(count), 0), coalesce(sum(CASE WHEN passes THEN count ELSE 0 END), 0)"
_REPORT_TALLY = "coalesce(sum(messages), 0), coalesce(sum(passed), 0)"

MAX_KEPT_FIGURES = 16 << 20
"""Bytes of one remembered figures entry read back: a period's lists are cut at their row limit, far below."""


class DigestFigures(DigestFile):
    """Figures over the file of :class:`DigestFile`."""

    def figures(self, first: date, last: date, limit: int,
                early: Callable[[Headline], object] | None = None) -> Figures:
        """The figures of the listed reports whose day is in the period; lists cut at ``limit`` rows.

        Remembered (in memory, and in the file for a console started again) until what is
        stored or listed changes: a visit that fetched nothing new costs no aggregation,
        however many reports there are. ``early`` is told the headline as soon as it is added
        up, before the records are (only when the figures are aggregated: remembered ones come at once).
        """
        with self._lock:
            generation = self._generation(self._db)
            key = (generation, first, last, limit)
            known = self._memo.get(key)
            if known is None:
                with self._readable():
                    known = self._kept(*key) or self._aggregate(first, last, limit, early)
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
        except UNREADABLE:
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

    def _aggregate(self, first: date, last: date, limit: int, early: Callable[[Headline], object] | None) -> Figures:
        db = self._db
        db.execute("DROP TABLE IF EXISTS temp.chosen")
        db.execute("CREATE TEMP TABLE chosen AS SELECT r.key, r.id, r.org, r.policy_domain, r.day, r.messages,"
                   " r.passed FROM reports r JOIN listed USING(id) WHERE r.day BETWEEN ? AND ?",
                   (first.isoformat(), last.isoformat()))
        headline = self._headline(first, last, limit)
        if early is not None:
            early(headline)  # the records' part below is four fifths of the work
        db.execute("CREATE INDEX temp.chosen_key ON chosen(key)")
        top = heapq.nsmallest(limit, self._sources(), key=_busiest_first)
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
        return Figures.of(headline, top, failing)

    def _headline(self, first: date, last: date, limit: int) -> Headline:
        """The headline of the reports in ``temp.chosen``: from their stored sums, no record read."""
        db = self._db
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
        days = [first + timedelta(days=n) for n in range(max(0, (last - first).days + 1))]
        series = [DayStat(day, *totals.get(day, (0, 0))) for day in days]
        return Headline(first, last, summary, domains, series)

    def _sources(self) -> Iterator[SourceStat]:
        """Every source of the chosen reports with who it sent as, who saw it and its hints, one at a time.

        One pass over the period's records, grouped by source and what it was seen as, in the order of
        the sources: each source is whole when the next begins, so only the busiest need be kept. (The
        busiest were once added up in one pass and their detail read in a second: 0.57 s against this
        pass's 0.25-0.38 s over 53,000 reports and 159,000 records.)
        """
        source: SourceStat | None = None
        for ip, header_from, org, hint, messages, passed in self._db.execute(
                f"SELECT source_ip, header_from, c.org, hint, {_RECORD_TALLY} FROM chosen c"
                " JOIN records ON records.report=c.key GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4"):
            if source is None or source.source_ip != ip:
                if source is not None:
                    yield source
                source = SourceStat(ip)
            source.messages += messages
            source.passed += passed
            if header_from:
                source.domains.add(header_from)
            source.reporters.add(org)
            if hint:
                source.hints[Hint(hint)] = source.hints.get(Hint(hint), 0) + messages
        if source is not None:
            yield source


def _busiest_first(source: SourceStat) -> tuple[int, str]:
    """The order of the busiest sources: most messages first, then by address (as SQLite orders text)."""
    return -source.messages, source.source_ip
