"""Which of a period's reports count: each once, and none implausible for its reporter.

A DMARC report is unauthenticated mail: anyone can send one, send it twice, or write any count
into it. Before the advisor adds anything up, a report stored again under the same reporter, report
id and policy domain, saying the same, is left out; and so is one holding far more messages than its
reporter's (or the other reporters') median report for the domain, or more than :data:`MAX_COUNT`
(2^40) in all, whatever its reporter's history. Implausibility is read from the reports' totals alone;
whether two copies say the same is asked of the caller (:data:`Content`), for the few that share an id.

Two copies that say different things both count, and are named (:attr:`Screening.reused`): which one is
the reporter's is unknown, and keeping either would let a forged copy, stored first or sorted first,
hide the real one's failing mail and call the domain ready (the tester's). Counted, a forgery can only
hold the domain back, as any other forged report can.

The baselines are outside evidence too: a few forged reports of 60 messages, under made-up reporters,
made a real reporter's reports of 5,000 "over 20× the other reporters' median", and leaving those out
hid their failing mail and called the domain ready (the tester's). Reports left out against a baseline
(:attr:`Screening.implausible`) are left out only where that holds a domain back: where counting them makes the
verdict more cautious, the advice counts them, and names them (:meth:`Screening.counting_implausible`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from jmapclient.dmarc.analytics import ReportDigest, ReportTotal
from jmapclient.dmarc.digest_rows import MAX_COUNT

if TYPE_CHECKING:
    from jmapclient.dmarc.digest_reads import DigestReads, StoredReport

IMPLAUSIBLE_FACTOR = 20
"""A report holding this many times more messages than its baseline is implausible and left out:
the baseline is the median report of the same reporter for the domain (with at least
:data:`MIN_HISTORY` of its reports in the period), else the median report of the other reporters."""
IMPLAUSIBLE_FLOOR = 1000
"""Below this many messages a report is never called implausible: small counts vary by nature."""
MIN_HISTORY = 3
"""Reports of one reporter for a domain that make its own median a baseline."""
UNENDED_SLACK = timedelta(days=1)
"""How far past the time of screening a report's period may end and the report still count. A report tells of a
period once it has ended, so one whose period ends later had not ended when it arrived: a forged report of a period
from two days ago to 40 days ahead, received today, counted toward "Ready" (tester91). A day, not less: a reporter's
clock may run ahead of ours, and the import lets a mail's Date run as far ahead (``loader.DATE_SLACK``); a real
report's period is mostly a day, so one ending more than a day ahead is no clock's error. The time of screening, not
the report's ``receivedAt``: the store keeps no arrival, and every report arrived before now, so a period that ends
after now had not ended when its report arrived."""


@dataclass(frozen=True)
class LeftOut:
    """A report left out of the figures, and why (repeated, or implausible for its reporter)."""

    reporter: str
    report_id: str
    messages: int
    why: str
    copy_of: tuple[str, str] | None = None
    """For a :data:`COPIED` report: the reporter (as shown) and report id of the counted one it says what says."""


REPEATED = "the same report (reporter and report id) stored again"
COPIED = "says what another counted report says (period, policy and records)"
"""Why a report of a reporter under another report id is left out: a replay of a real report, its id changed, is no
second word (tester91: ten replays of two real reports under new ids called a domain ready for p=reject). Two
reporters' reports that say the same to the record both count: a small domain's one server is seen alike by two."""
REUSED = "another report of this reporter and report id says otherwise: both count"

Content = Callable[[Any], Hashable]
"""What a report says (its period, policy and records), to tell a copy from another report under its id."""


@dataclass
class Screening:
    """Which reports of a period count: once per (reporter, report id, domain) and content, none implausible."""

    left_out: dict[str, LeftOut] = field(default_factory=dict)
    """Digest id → why it is left out."""
    reused: dict[str, LeftOut] = field(default_factory=dict)
    """Digest id → a report counted although an earlier one has its reporter and report id (:data:`REUSED`);
    one left out is not counted, whatever this says."""
    implausible: set[str] = field(default_factory=set)
    """Digest ids left out against a baseline (the reporter's or the other reporters' median report)."""
    doubted: dict[str, LeftOut] = field(default_factory=dict)
    """Digest id → a report implausible against its baseline, counted all the same (:meth:`counting_implausible`)."""

    def counting_implausible(self) -> Screening:
        """This screening with the reports left out against a baseline counted, and named as doubted: what the
        advice judges such a domain on again, keeping the more cautious verdict (``advice._more_cautious``)."""
        kept = {digest: why for digest, why in self.left_out.items() if digest not in self.implausible}
        doubted = {digest: self.left_out[digest] for digest in self.implausible}
        return Screening(kept, self.reused, set(), doubted)


def _median(values: list[int]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return float(ordered[middle]) if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _claimed(messages: int) -> str:
    """A report's stored total in words: a total at the store's cap on one record's count may stand for
    more (each record is counted up to it), so it is said as a floor, never as the report's own figure."""
    return f"at least {messages:,}" if messages >= MAX_COUNT else f"{messages:,}"


def _said(report: ReportDigest | StoredReport, records: Iterable[tuple[Any, ...]]) -> Hashable:
    """What a report says (:data:`Content`): its day, policy and ``records``, in any order. Not its period to the
    second: ten replays of a real report, each with its period moved by a few seconds and a new id, made "Too little
    data" "Ready for p=quarantine" (tester99). A reporter's two reports of one day saying the same to the record
    count once: the advice is then the more cautious."""
    return (report.day, report.p, report.sp, report.np, report.adkim, report.aspf, report.testing,
            tuple(sorted(records)))


def digest_content(report: ReportDigest) -> Hashable:
    """:data:`Content` of a digest, its records as the store keeps them (source, count, disposition, results,
    envelope From, lists): a forged copy saying ``none`` where the real one said ``reject`` was its duplicate."""
    return _said(report, ((r.source_ip, r.count, r.disposition, r.dkim, r.spf, r.header_from, r.envelope_from,
                           r.overrides, r.dkim_auth, r.spf_auth) for r in report.records))


def stored_content(store: DigestReads) -> Content:
    """:data:`Content` of a report of ``store``, its records read back (only for the few sharing an id)."""
    return lambda report: _said(report, (record[1:] for record in store.records_of([report.key])))


def normal_reporter(name: str) -> str:
    """A reporting organisation as the reports name it, case, spaces and a domain's final dot aside (``google.com.``
    was a second independent reporter beside ``google.com``: tester84)."""
    return " ".join(name.split()).lower().rstrip(".")


def totals_of(digests: Iterable[ReportDigest]) -> Iterator[ReportTotal]:
    """What screening reads of each digest."""
    for report in digests:
        yield ReportTotal(report.id, report.reporter, report.report_id, report.policy_domain, report.day,
                          report.messages, report.end)


class Reporters(dict[str, tuple[str, str]]):
    """A reporter as written → (as told apart, as shown): reports repeat a few reporters, each made once."""

    def __missing__(self, reporter: str) -> tuple[str, str]:
        # Shown as written but for the ends: a line break inside is outside text's, shown as ``\n`` in the
        # sentence and kept in ``--json`` (it was shown as a space, which hid it).
        named = self[reporter] = (normal_reporter(reporter), reporter.strip())
        return named


def unended(end: datetime) -> str:
    """Why a report whose period ends past :data:`UNENDED_SLACK` is left out."""
    return f"its period ends {end:%Y-%m-%d %H:%M} UTC, after it arrived: a report tells of a period once it has ended"


def screen_reports(reports: Iterable[ReportTotal | StoredReport], first: date, last: date,
                   domain: str | None = None, *, content: Content) -> Screening:
    """Repeated and implausible reports of the period; ``content`` is asked only of reports sharing an id."""
    screening = Screening()
    latest_end = datetime.now(UTC) + UNENDED_SLACK
    copies = _Copies(content)
    replays = _Replays(content)
    totals: dict[str, dict[str, list[tuple[str, str, int]]]] = {}  # domain → reporter → (digest, report id, n)
    names: dict[str, str] = {}
    reporters = Reporters()
    for report in reports:
        if not first <= report.day <= last or (domain is not None and report.policy_domain != domain):
            continue
        (who, shown), rid = reporters[report.reporter], report.report_id.strip()
        if report.end > latest_end:
            # Before the copies are matched, so that it is no report's original (a real report saying the same would
            # be left out as its copy), and out of every baseline: a forgery's tell, not a reporter's size.
            screening.left_out[report.id] = LeftOut(shown, rid, report.messages, unended(report.end))
            continue
        match = copies.match((who, rid, report.policy_domain), report) if rid else None
        if match is REPEATED:
            screening.left_out[report.id] = LeftOut(shown, rid, report.messages, REPEATED)
            continue
        if match is REUSED:
            screening.reused[report.id] = LeftOut(shown, rid, report.messages, REUSED)
        original = replays.original(who, report)
        if original is not None:
            screening.left_out[report.id] = LeftOut(shown, rid, report.messages, COPIED, (
                reporters[original.reporter][1], original.report_id.strip()))
            continue
        if report.messages >= MAX_COUNT:
            # Past what any record may claim: implausible on its face, whoever sent it and how often. Left
            # out of every baseline too: three such reports made their own median and passed as usual.
            screening.left_out[report.id] = LeftOut(shown, rid, report.messages,
                                                    f"{_claimed(report.messages)} messages (2^40 or more):"
                                                    " no real report holds so many")
            names.setdefault(who, shown)
            continue
        totals.setdefault(report.policy_domain, {}).setdefault(who, []).append((report.id, rid, report.messages))
        names.setdefault(who, shown)
    for by_reporter in totals.values():
        for who, kept_reports in by_reporter.items():
            if len(kept_reports) >= MIN_HISTORY:
                baseline, against = _median([n for _, _, n in kept_reports]), "its own median report"
            else:
                others = [n for other, kept in by_reporter.items() if other != who for _, _, n in kept]
                if not others:
                    continue
                baseline, against = _median(others), "the other reporters' median report"
            for digest, rid, messages in kept_reports:
                if messages > IMPLAUSIBLE_FLOOR and messages > IMPLAUSIBLE_FACTOR * max(baseline, 1):
                    screening.left_out[digest] = LeftOut(
                        names[who], rid, messages, f"{_claimed(messages)} messages, over {IMPLAUSIBLE_FACTOR}×"
                                                   f" {against} ({baseline:,.0f})")
                    screening.implausible.add(digest)
    return screening




class _Replays:
    """The first report of a reporter counted saying each thing, whatever its id: what a report is a replay of.

    Reports are told apart by their reporter, domain, day and messages first, and ``content`` is asked only of the
    few that share them (reading a report's records back costs a query)."""

    def __init__(self, content: Content) -> None:
        self._content = content
        self._first: dict[tuple[str, str, date, int], Any] = {}
        self._said: dict[tuple[str, str, date, int], dict[Hashable, Any]] = {}

    def original(self, reporter: str, report: Any) -> Any | None:
        """The report of ``reporter`` (as told apart) counted before that says what ``report`` says, else None (and
        ``report`` is kept)."""
        shape = (reporter, report.policy_domain, report.day, report.messages)
        first = self._first.setdefault(shape, report)
        if first is report:
            return None
        said = self._said.get(shape)
        if said is None:
            said = self._said[shape] = {self._content(first): first}
        content = self._content(report)
        original = said.get(content)
        if original is None:
            said[content] = report
        return original


class _Copies:
    """The reports counted so far under each (reporter, report id, domain), and what each says when asked."""

    def __init__(self, content: Content) -> None:
        self._content = content
        self._kept: dict[tuple[str, str, str], list[Any]] = {}
        self._said: dict[int, Hashable] = {}

    def match(self, key: tuple[str, str, str], report: Any) -> str | None:
        """:data:`REPEATED` when a report counted under ``key`` says what ``report`` says, :data:`REUSED` when
        one says otherwise, None for the first under it; ``report`` is kept unless repeated."""
        kept = self._kept.get(key)
        if kept is None:
            self._kept[key] = [report]
            return None
        said = self._content(report)
        if any(self._of(other) == said for other in kept):
            return REPEATED
        self._said[id(report)] = said
        kept.append(report)
        return REUSED

    def _of(self, report: Any) -> Hashable:
        said = self._said.get(id(report))
        if said is None:
            said = self._said[id(report)] = self._content(report)
        return said
