"""Analytics across DMARC reports: pass rates, sources, a daily series, failures, hints.

Pure computation over the wire form of ``DmarcExternalReport`` (what ``/get`` returns):
no UI and no network. Reports are first reduced to a :class:`ReportDigest`, which keeps
what the figures (and advice on the published policy) need; a received report never
changes, so :mod:`jmapclient.dmarc.digest_store` keeps digests by report id and
aggregates them into the figures declared here.

Every figure is weighted by messages (a record's ``count``), not by records or reports,
because one record may stand for one message or for a million.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from enum import StrEnum
from functools import lru_cache
from typing import Any, NamedTuple

from jmapclient.dmarc.counting import iter_records, record_count
from jmapclient.dmarc.wirelists import POSITIONS, iter_wire_list
from jmapclient.dmarc.wireshape import RECORD_LISTS, report_problem
from jmapclient.encoding import MAX_UNSIGNED_INT, parse_utc, shifted

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
        return verdicts_pass(self.dkim, self.spf)


class ReportTotal(NamedTuple):
    """What the advice's screening reads of a report, no records: sender, ids, domain, day, messages, period's end."""

    id: str
    reporter: str
    report_id: str
    policy_domain: str
    day: date
    messages: int
    end: datetime


@dataclass(frozen=True)
class ReportDigest:
    id: str
    reporter: str
    report_id: str
    policy_domain: str
    begin: datetime
    end: datetime
    records: tuple[RecordDigest, ...] = ()
    p: str = ""
    """The published policy (``policyDisposition``), and below the rest of what the reporter saw published."""
    sp: str = ""
    np: str = ""
    adkim: str = ""
    aspf: str = ""
    testing: bool = False

    @property
    def messages(self) -> int:
        return sum(r.count for r in self.records)

    @property
    def passed(self) -> int:
        return sum(r.count for r in self.records if r.passes)

    @property
    def day(self) -> date:
        """The day a report counts for: the UTC day of its period's midpoint, at most :data:`COUNTED_WITHIN` after
        its period began.

        Reporters mostly send one report per UTC day; the midpoint puts such a report on
        that day even when its period runs a second or an hour over midnight. The midpoint lies between
        two dates that read, so only the bound can pass the last day Python has: held there (:func:`shifted`),
        a period beginning on 9999-12-31 counts on that day, in the future of every period asked for.
        """
        return min(self.begin + (self.end - self.begin) / 2, shifted(self.begin, COUNTED_WITHIN)).date()


def verdicts_pass(dkim: str, spf: str) -> bool:
    """Whether a record of these evaluated verdicts passes DMARC: :func:`~jmapclient.dmarc.counting.record_passes`
    of the plain values, without building them a mapping (read per record, often)."""
    return dkim == "pass" or spf == "pass"


COUNTED_WITHIN = timedelta(days=2)
"""How long after its period began a report counts at the latest. A sync for a period fetches the reports that
arrived since it began, less this (``digest_store.ARRIVAL_SLACK``), and a report arrives after its period began:
so every report a period counts is fetched for it. A report of 90 days counted on its midpoint, inside the last
30 days, though it arrived 69 days ago: ``dmarc-advice`` counted it or not as an earlier, longer period had
fetched it, the same command giving two answers (the tester's)."""


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _texts(*values: Any) -> tuple[str, ...]:
    """:func:`_text` of each value, in one test when all are strings, as servers write them."""
    try:
        "".join(values)
    except TypeError:
        return tuple(map(_text, values))
    return values


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
    """Reduce a DmarcExternalReport (wire form, with ``id``) to what analytics needs.

    ValueError for a report whose shape cannot be walked (:func:`report_problem`): the inbox
    lists it without figures and the export leaves it out, so analytics leaves it out too,
    rather than counting a record whose count is no number as 0 messages.
    """
    if (digest := _plain_digest(wire)) is not None:
        return digest
    if (problem := report_problem(wire)) is not None:
        raise ValueError(problem)
    report = wire.get("report")
    body: Mapping[str, Any] = report if isinstance(report, Mapping) else {}
    return _report_digest(wire, body, tuple(digest_record(r) for r in iter_records(wire)))


def _report_digest(wire: Mapping[str, Any], body: Mapping[str, Any], records: tuple[RecordDigest, ...]) -> ReportDigest:
    get = body.get
    id_, reporter, report_id, policy_domain, p, sp, np, adkim, aspf = _texts(
        wire.get("id"), get("orgName"), get("reportId"), get("policyDomain"), get("policyDisposition"),
        get("policySubdomainDisposition"), get("policyNp"), get("policyAdkim"), get("policyAspf"))
    return ReportDigest(
        id=id_,
        reporter=reporter,
        report_id=report_id,
        policy_domain=policy_domain.lower(),
        begin=_utc(str(get("dateRangeBegin"))),
        end=_utc(str(get("dateRangeEnd"))),
        records=records,
        p=p,
        sp=sp,
        np=np,
        adkim=adkim,
        aspf=aspf,
        testing=get("policyTestingMode") is True,
    )


_utc = lru_cache(maxsize=4096)(parse_utc)
"""Report periods repeat: a day's reports mostly share their begin and end."""


def plain_items(value: Any) -> tuple[Any, ...] | None:
    """The objects of a wire list in the shape servers write (absent, an index map in order, an array
    of objects), or None for any other shape: then the general walk reads it or says what is wrong."""
    if value is None:
        return ()
    if type(value) is dict:  # exactly what JSON decoding gives
        if not value:  # most lists of a record are empty
            return ()
        if len(value) == 1:  # and most others hold one item: no tuple of keys to compare
            item = value.get("0")
            return (item,) if type(item) is dict else None
        keys = tuple(value)
        if keys != POSITIONS[: len(keys)]:
            return None
        items = tuple(value.values())
    elif type(value) is list:
        items = tuple(value)
    else:
        return None
    for item in items:
        if type(item) is not dict:
            return None
    return items


def new_record(source_ip: str, count: int, disposition: str, dkim: str, spf: str, header_from: str,
            envelope_from: str, overrides: tuple[str, ...], dkim_auth: tuple[tuple[str, str], ...],
            spf_auth: tuple[tuple[str, str], ...]) -> RecordDigest:
    """``RecordDigest(...)`` at a third of the cost (a frozen dataclass sets each field through
    ``object.__setattr__``): the same object, its fields set at once. Every field is named, none left to a
    default (a field added to :class:`RecordDigest` fails :data:`_RECORD_FIELDS`' check at import)."""
    record = _new(RecordDigest)
    record.__dict__.update(source_ip=source_ip, count=count, disposition=disposition, dkim=dkim, spf=spf,
                           header_from=header_from, envelope_from=envelope_from, overrides=overrides,
                           dkim_auth=dkim_auth, spf_auth=spf_auth)
    return record


def new_report(id: str, reporter: str, report_id: str, policy_domain: str, begin: datetime, end: datetime,
               records: tuple[RecordDigest, ...], p: str, sp: str, np: str, adkim: str, aspf: str,
               testing: bool) -> ReportDigest:
    """``ReportDigest(...)`` the way :func:`new_record` makes a record (the store reads tens of thousands back)."""
    report = _new(ReportDigest)
    report.__dict__.update(id=id, reporter=reporter, report_id=report_id, policy_domain=policy_domain, begin=begin,
                           end=end, records=records, p=p, sp=sp, np=np, adkim=adkim, aspf=aspf, testing=testing)
    return report


_new = object.__new__
_RECORD_FIELDS = ("source_ip", "count", "disposition", "dkim", "spf", "header_from", "envelope_from", "overrides",
                  "dkim_auth", "spf_auth")
_REPORT_FIELDS = ("id", "reporter", "report_id", "policy_domain", "begin", "end", "records", "p", "sp", "np", "adkim",
                  "aspf", "testing")
if tuple(RecordDigest.__dataclass_fields__) != _RECORD_FIELDS:  # pragma: no cover - a change of RecordDigest
    raise ImportError("RecordDigest's fields changed: update analytics.new_record")
if tuple(ReportDigest.__dataclass_fields__) != _REPORT_FIELDS:  # pragma: no cover - a change of ReportDigest
    raise ImportError("ReportDigest's fields changed: update analytics.new_report")


def plain_count(count: object) -> int | None:
    """A record's ``count`` as servers write it (absent: 0); None for anything else (a float, text, a
    bool, out of range), which the general walk reads or refuses with its reason."""
    if count is None:
        return 0
    if type(count) is not int or not 0 <= count <= MAX_UNSIGNED_INT:
        return None
    return count


def _plain_digest(wire: Any) -> ReportDigest | None:
    """:func:`digest_report` of a report in the shape servers write, in one walk (a fetch of many
    reports spent most of its time walking each list twice); None for anything else, which the
    general walk then reads, or refuses with its reason."""
    if type(wire) is not dict:
        return None
    body = wire.get("report")
    if type(body) is not dict or (wires := plain_items(body.get("records"))) is None:
        return None
    records = []
    for record in wires:
        get = record.get
        count = plain_count(get("count"))
        if count is None:
            return None
        dkim, spf, overrides, extensions = [plain_items(get(name)) for name in RECORD_LISTS]
        if dkim is None or spf is None or overrides is None or extensions is None:
            return None
        ip, disposition, dkim_result, spf_result, header_from, envelope_from = _texts(
            get("sourceIp"), get("evaluatedDisposition"), get("evaluatedDkim"), get("evaluatedSpf"),
            get("headerFrom"), get("envelopeFrom"))
        records.append(new_record(
            ip, count, disposition, dkim_result, spf_result, header_from.lower(), envelope_from.lower(),
            tuple([_text(o.get("overrideType")) for o in overrides]) if overrides else (),
            tuple([(_text(d.get("domain")).lower(), _text(d.get("result"))) for d in dkim]) if dkim else (),
            tuple([(_text(d.get("domain")).lower(), _text(d.get("result"))) for d in spf]) if spf else (),
        ))
    return _report_digest(wire, body, tuple(records))


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


@dataclass(frozen=True)
class DayStat(Tally):
    day: date
    messages: int
    passed: int


@dataclass(frozen=True)
class FailingRecord:
    report: ReportDigest
    record: RecordDigest
    hint: Hint | None


@dataclass(frozen=True)
class Overview(Tally):
    reports: int
    messages: int
    passed: int


def format_rate(rate: float | None) -> str:
    """``97.5%``, or an en dash when there is nothing to rate."""
    return "–" if rate is None else f"{rate * 100:.1f}%"
