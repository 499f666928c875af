"""Analytics across DMARC reports: pass rates, sources, a daily series, failures, hints.

Pure computation over the wire form of ``DmarcExternalReport`` (what ``/get`` returns):
no UI and no network. Reports are first reduced to a :class:`ReportDigest`, which keeps
only what the figures need; digests are small, JSON-serialisable and never change
(a received report is immutable), so a caller may cache them by report id.

Every figure is weighted by messages (a record's ``count``), not by records or reports,
because one record may stand for one message or for a million.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from enum import StrEnum
from typing import Any

from jmapclient.dmarc.counting import iter_records, record_count, record_passes
from jmapclient.dmarc.wirelists import iter_wire_list
from jmapclient.encoding import format_utc, parse_utc

FORWARDING_OVERRIDES = frozenset({"Forwarded", "TrustedForwarder"})
MAILING_LIST_OVERRIDES = frozenset({"MailingList"})
AUTH_PASS = "pass"
SPF_AUTH_FAILURES = frozenset({"fail", "softFail"})


class Hint(StrEnum):
    """What a record most likely is; a hint for a person, not a verdict."""

    FORWARDED = "likely forwarded"
    MAILING_LIST = "mailing list"
    SPOOFING = "spoofing"


@dataclass(frozen=True)
class RecordDigest:
    source_ip: str
    count: int
    disposition: str
    dkim: str
    """The evaluated (aligned) DKIM result."""
    spf: str
    header_from: str
    envelope_from: str
    overrides: tuple[str, ...] = ()
    dkim_auth: tuple[tuple[str, str], ...] = ()
    """(domain, result) of each raw DKIM signature check, aligned or not."""
    spf_auth: tuple[tuple[str, str], ...] = ()

    @property
    def passes(self) -> bool:
        return record_passes({"evaluatedDkim": self.dkim, "evaluatedSpf": self.spf})


@dataclass(frozen=True)
class ReportDigest:
    id: str
    reporter: str
    report_id: str
    policy_domain: str
    begin: datetime
    end: datetime
    records: tuple[RecordDigest, ...] = ()

    @property
    def messages(self) -> int:
        return sum(r.count for r in self.records)

    @property
    def passed(self) -> int:
        return sum(r.count for r in self.records if r.passes)

    @property
    def day(self) -> date:
        """The day a report counts for: the UTC day of its period's midpoint.

        Reporters mostly send one report per UTC day; the midpoint puts such a report on
        that day even when its period runs a second or an hour over midnight.
        """
        return (self.begin + (self.end - self.begin) / 2).date()

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "reporter": self.reporter,
            "reportId": self.report_id,
            "policyDomain": self.policy_domain,
            "begin": format_utc(self.begin),
            "end": format_utc(self.end),
            "records": [
                [r.source_ip, r.count, r.disposition, r.dkim, r.spf, r.header_from, r.envelope_from,
                 list(r.overrides), [list(a) for a in r.dkim_auth], [list(a) for a in r.spf_auth]]
                for r in self.records
            ],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ReportDigest:
        records = tuple(
            RecordDigest(
                source_ip=ip, count=count, disposition=disposition, dkim=dkim, spf=spf,
                header_from=header_from, envelope_from=envelope_from, overrides=tuple(overrides),
                dkim_auth=tuple((d, r) for d, r in dkim_auth), spf_auth=tuple((d, r) for d, r in spf_auth),
            )
            for ip, count, disposition, dkim, spf, header_from, envelope_from, overrides, dkim_auth, spf_auth
            in data["records"]
        )
        return cls(
            id=str(data["id"]),
            reporter=str(data["reporter"]),
            report_id=str(data["reportId"]),
            policy_domain=str(data["policyDomain"]),
            begin=parse_utc(data["begin"]),
            end=parse_utc(data["end"]),
            records=records,
        )


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def digest_record(record: Mapping[str, Any]) -> RecordDigest:
    return RecordDigest(
        source_ip=_text(record.get("sourceIp")),
        count=record_count(record),
        disposition=_text(record.get("evaluatedDisposition")),
        dkim=_text(record.get("evaluatedDkim")),
        spf=_text(record.get("evaluatedSpf")),
        header_from=_text(record.get("headerFrom")).lower(),
        envelope_from=_text(record.get("envelopeFrom")).lower(),
        overrides=tuple(_text(o.get("overrideType")) for o in iter_wire_list(record.get("policyOverrideReasons"))),
        dkim_auth=tuple(
            (_text(d.get("domain")).lower(), _text(d.get("result"))) for d in iter_wire_list(record.get("dkimResults"))
        ),
        spf_auth=tuple(
            (_text(s.get("domain")).lower(), _text(s.get("result"))) for s in iter_wire_list(record.get("spfResults"))
        ),
    )


def digest_report(wire: Mapping[str, Any]) -> ReportDigest:
    """Reduce a DmarcExternalReport (wire form, with ``id``) to what analytics needs."""
    report = wire.get("report")
    body: Mapping[str, Any] = report if isinstance(report, Mapping) else {}
    return ReportDigest(
        id=_text(wire.get("id")),
        reporter=_text(body.get("orgName")),
        report_id=_text(body.get("reportId")),
        policy_domain=_text(body.get("policyDomain")).lower(),
        begin=parse_utc(str(body.get("dateRangeBegin"))),
        end=parse_utc(str(body.get("dateRangeEnd"))),
        records=tuple(digest_record(r) for r in iter_records(wire)),
    )


def pass_rate(passed: int, messages: int) -> float | None:
    """The share of messages that passed, 0..1; None when there were no messages."""
    return passed / messages if messages else None


def classify(record: RecordDigest) -> Hint | None:
    """A classification hint for a record, or None for plain aligned mail.

    In order:
    1. the reporter's own override reason wins (forwarded / mailing list);
    2. DKIM pass with SPF fail is the mark of forwarding: the signature survives the
       hop, the forwarder's address is not in the sender's SPF record;
    3. other passing records need no hint;
    4. a failing record that still authenticated some domain (an unaligned DKIM
       signature or SPF pass) looks like a mailing list that rewrote and re-signed;
    5. a failing record that authenticated nothing is likely spoofing.
    """
    if FORWARDING_OVERRIDES.intersection(record.overrides):
        return Hint.FORWARDED
    if MAILING_LIST_OVERRIDES.intersection(record.overrides):
        return Hint.MAILING_LIST
    dkim_passed = record.dkim == AUTH_PASS or any(r == AUTH_PASS for _, r in record.dkim_auth)
    spf_failed = record.spf == "fail" and (
        not record.spf_auth or all(r in SPF_AUTH_FAILURES for _, r in record.spf_auth)
    )
    if dkim_passed and spf_failed:
        return Hint.FORWARDED
    if record.passes:
        return None
    if dkim_passed or any(r == AUTH_PASS for _, r in record.spf_auth):
        return Hint.MAILING_LIST
    return Hint.SPOOFING


# --- Aggregations -----------------------------------------------------------------------------


class Tally:
    """Messages and passing messages of a group, with what follows from them."""

    messages: int
    passed: int

    @property
    def failed(self) -> int:
        return self.messages - self.passed

    @property
    def rate(self) -> float | None:
        return pass_rate(self.passed, self.messages)


@dataclass
class DomainRate(Tally):
    domain: str
    messages: int = 0
    passed: int = 0
    reports: int = 0


def domain_rates(reports: Iterable[ReportDigest]) -> list[DomainRate]:
    """Message-weighted pass rate per policy domain, busiest domain first."""
    by_domain: dict[str, DomainRate] = {}
    for report in reports:
        entry = by_domain.setdefault(report.policy_domain, DomainRate(report.policy_domain))
        entry.reports += 1
        entry.messages += report.messages
        entry.passed += report.passed
    return sorted(by_domain.values(), key=lambda d: (-d.messages, d.domain))


@dataclass
class SourceStat(Tally):
    source_ip: str
    messages: int = 0
    passed: int = 0
    domains: set[str] = field(default_factory=set)
    """Header From domains this source sent as."""
    reporters: set[str] = field(default_factory=set)
    hints: dict[Hint, int] = field(default_factory=dict)
    """Messages per classification hint."""

    @property
    def main_hint(self) -> Hint | None:
        """The hint that covers most of this source's messages."""
        if not self.hints:
            return None
        return max(sorted(self.hints), key=lambda h: self.hints[h])


def sources(reports: Iterable[ReportDigest]) -> list[SourceStat]:
    """Per sending IP across reports, most messages first (ties by address)."""
    by_ip: dict[str, SourceStat] = {}
    for report in reports:
        for record in report.records:
            entry = by_ip.setdefault(record.source_ip, SourceStat(record.source_ip))
            entry.messages += record.count
            if record.passes:
                entry.passed += record.count
            if record.header_from:
                entry.domains.add(record.header_from)
            entry.reporters.add(report.reporter)
            hint = classify(record)
            if hint is not None:
                entry.hints[hint] = entry.hints.get(hint, 0) + record.count
    return sorted(by_ip.values(), key=lambda s: (-s.messages, s.source_ip))


@dataclass(frozen=True)
class DayStat(Tally):
    day: date
    messages: int
    passed: int


def daily(reports: Iterable[ReportDigest], first: date, last: date) -> list[DayStat]:
    """Volume and passing messages for every day from ``first`` to ``last``, zero-filled.

    A report counts for :attr:`ReportDigest.day`; reports outside the period are left out.
    """
    if last < first:
        return []
    totals: dict[date, list[int]] = {}
    for report in reports:
        if first <= report.day <= last:
            bucket = totals.setdefault(report.day, [0, 0])
            bucket[0] += report.messages
            bucket[1] += report.passed
    days = (last - first).days + 1
    out = []
    for offset in range(days):
        day = first + timedelta(days=offset)
        messages, passed = totals.get(day, (0, 0))
        out.append(DayStat(day, messages, passed))
    return out


def in_period(reports: Iterable[ReportDigest], first: date, last: date) -> list[ReportDigest]:
    return [r for r in reports if first <= r.day <= last]


@dataclass(frozen=True)
class FailingRecord:
    report: ReportDigest
    record: RecordDigest
    hint: Hint | None


def failing_records(reports: Iterable[ReportDigest]) -> list[FailingRecord]:
    """Only the records that fail DMARC, most messages first."""
    found = [
        FailingRecord(report, record, classify(record))
        for report in reports
        for record in report.records
        if not record.passes
    ]
    return sorted(found, key=lambda f: (-f.record.count, f.record.source_ip, f.report.id))


@dataclass(frozen=True)
class Overview(Tally):
    reports: int
    messages: int
    passed: int


def overview(reports: Sequence[ReportDigest]) -> Overview:
    return Overview(len(reports), sum(r.messages for r in reports), sum(r.passed for r in reports))


def format_rate(rate: float | None) -> str:
    """``97.5%``, or an en dash when there is nothing to rate."""
    return "–" if rate is None else f"{rate * 100:.1f}%"
