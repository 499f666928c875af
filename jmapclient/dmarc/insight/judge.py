"""Each source judged: authorised and aligned, authorised but misaligned, forwarded, or unknown.

A record is judged from what authenticated its mail (:mod:`.alignment`) under the
policy its report saw published; a source (one IP sending as one policy domain) takes
the class that covers most of its messages, with the reason of its biggest record and
every fix its records call for. The reasons are sentences for a person; the fixes say
what to change (an SPF include, DKIM signing with the domain).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from jmapclient.dmarc.analytics import (
    FORWARDING_OVERRIDES,
    MAILING_LIST_OVERRIDES,
    RecordDigest,
    ReportDigest,
    verdicts_pass,
)
from jmapclient.dmarc.insight.alignment import STRICT, RecordAlignment, align_record
from jmapclient.dmarc.insight.names import SourceName
from jmapclient.dmarc.insight.services import SenderMap, Service, base_domain, load_senders
from jmapclient.dmarc.vocab import UNSPECIFIED

if TYPE_CHECKING:
    from jmapclient.dmarc.digest_reads import DigestReads, StoredLists, StoredRecord

UNKNOWN_SERVICE = "unknown service"
"""The group of sources no name or authenticated domain ties to a known service."""


class SourceClass(StrEnum):
    """The classes, best first; the order is also the order of the tables."""

    ALIGNED = "authorised, aligned"
    MISALIGNED = "authorised, misaligned"
    FORWARDED = "forwarded or mailing list"
    VIA_PROVIDER = "via a shared provider, not yours"
    """Authenticated only by a shared provider's own domain (DKIM d=amazonses.com, SPF amazonses.com):
    any customer of it can send so. Authorised only once the owner says that provider sends for the
    domain (the config's ``[dmarc] senders``)."""
    UNKNOWN = "unknown or spoofing"


AUTHORISED = frozenset({SourceClass.ALIGNED, SourceClass.MISALIGNED})
"""Classes of mail the domain's owner sends (or has someone send) on purpose."""


@dataclass(frozen=True)
class RecordJudgement:
    klass: SourceClass
    reason: str
    fixes: tuple[str, ...] = ()
    needs_dkim: bool = False
    """Authorised mail without an aligned DKIM signature: what ``p=reject`` readiness asks for."""
    service: Service | None = None
    """The known service whose domain authenticated this mail, if any."""


def _list(domains: Iterable[str]) -> str:
    return ", ".join(domains)


def _dkim_fix(from_domain: str, others: Iterable[str]) -> str:
    signed = _list(others)
    return f"sign with DKIM as {from_domain} (d={from_domain})" + (f", not only as {signed}" if signed else "")


def _spf_fix(from_domain: str, others: Iterable[str], strict: bool, provider: Service | None = None) -> str:
    under = f"exactly {from_domain} (aspf=s)" if strict else f"under {from_domain}"
    if provider is not None:
        # Never "include the provider in your SPF": that would let every customer of it pass as you.
        return (f"SPF passes for {_list(others)}, not {from_domain}: set a custom bounce (MAIL FROM) domain {under}"
                f" in your {provider.name} account")
    return (f"SPF passes for {_list(others)}, not {from_domain}: use a bounce (Return-Path) domain {under}"
            f" and add the service to its SPF record (include)")


def _claim_fix(from_domain: str, provider: Service, domains: Iterable[str]) -> str:
    base = next((b for b in (base_domain(d) for d in domains) if b), provider.name)
    return (f"if you send through {provider.name}, say so (mailadmin dmarc-advice --add-sender {base}) and sign"
            f" with DKIM as {from_domain} in your {provider.name} account; if not, this is someone else's mail")


def _service_of(domains: Iterable[str], senders: SenderMap) -> Service | None:
    for domain in domains:
        found = senders.lookup(domain)
        if found is not None:
            return found
    return None


def judge_record(
    record: RecordDigest, report: ReportDigest, *, senders: SenderMap | None = None, service: Service | None = None
) -> RecordJudgement:
    """The class of one record, its reason and fixes; ``service`` is what the source's name says it is."""
    senders = senders if senders is not None else load_senders()
    return _judged(record, report.policy_domain, report.adkim, report.aspf, senders, service)


def _judged(record: RecordDigest, policy_domain: str, adkim: str, aspf: str, senders: SenderMap,
            service: Service | None) -> RecordJudgement:
    """:func:`judge_record` under the policy of the record's report (all of the report it reads)."""
    if FORWARDING_OVERRIDES.intersection(record.overrides):
        return RecordJudgement(SourceClass.FORWARDED, "the reporter marked it forwarded")
    if MAILING_LIST_OVERRIDES.intersection(record.overrides):
        return RecordJudgement(SourceClass.FORWARDED, "the reporter marked it a mailing list")
    seen = align_record(record, policy_domain, adkim, aspf)
    known = _service_of(seen.dkim_other + seen.spf_other, senders)
    if seen.dkim_ok and seen.spf_failed:
        return RecordJudgement(
            SourceClass.FORWARDED,
            f"DKIM passes aligned (d={_list(seen.dkim_aligned)}) but SPF fails from this address:"
            " forwarded, the signature survived the hop", service=known)
    if seen.aligned:
        return _aligned(seen, known)
    if seen.authenticated:
        return _misaligned(seen, aspf, known, senders)
    reason = "neither DKIM nor SPF passed for any domain"
    if service is not None:
        reason += f"; sent from {service.name}'s servers — someone else's account there, or yours not set up"
    return RecordJudgement(SourceClass.UNKNOWN, reason + ": likely spoofing")


def _aligned(seen: RecordAlignment, known: Service | None) -> RecordJudgement:
    how = []
    if seen.dkim_ok:
        how.append(f"DKIM d={_list(seen.dkim_aligned)}")
    if seen.spf_ok:
        how.append(f"SPF {_list(seen.spf_aligned)}")
    fixes = () if seen.dkim_ok else (_dkim_fix(seen.from_domain, seen.dkim_other),)
    reason = f"passes aligned with {seen.from_domain}: {' and '.join(how)}"
    return RecordJudgement(SourceClass.ALIGNED, reason, fixes, needs_dkim=not seen.dkim_ok, service=known)


def _misaligned(seen: RecordAlignment, aspf: str, known: Service | None, senders: SenderMap) -> RecordJudgement:
    others = seen.dkim_other + seen.spf_other
    own = base_domain(seen.from_domain)
    ours = [d for d in others if own is not None and base_domain(d) == own]
    if known is None and not ours and seen.signed_as_own:
        return RecordJudgement(
            SourceClass.FORWARDED,
            f"authenticated only as {_list(others)}, which is neither {seen.from_domain} nor a known sender, with"
            f" a signature of d={_list(seen.signed_as_own)} it broke: a mailing list or forwarder that re-sent it")
    if known is None and not ours:
        # SPF passing for a domain of the sender's own is what a spoofer gets too: without the domain's own
        # signature on the mail nothing says it was ever the domain's (a forged report's "forwarded" mail made
        # the advice hold back for mail that enforcement exists to stop).
        return RecordJudgement(
            SourceClass.UNKNOWN,
            f"authenticated only as {_list(others)}, which is neither {seen.from_domain} nor a known sender, and no"
            f" signature of {seen.from_domain} came with it: likely someone else's mail using the domain (a"
            " forwarder of mail you never signed looks the same)")
    if known is not None and not ours and not senders.owns(others):
        return RecordJudgement(
            SourceClass.VIA_PROVIDER,
            f"authenticated only as {_list(others)}: via {known.name}, not yours (you have not said {known.name}"
            f" sends for {seen.from_domain}; any of its customers can send so)",
            (_claim_fix(seen.from_domain, known, others),), service=known)
    fixes = []
    if seen.spf_other:
        provider = known if not ours else None
        fixes.append(_spf_fix(seen.from_domain, seen.spf_other, aspf == STRICT, provider))
    fixes.append(_dkim_fix(seen.from_domain, seen.dkim_other))
    who = known.name if known is not None else f"your own {_list(ours)}"
    reason = f"authenticated as {_list(others)} ({who}) but not aligned with {seen.from_domain}"
    return RecordJudgement(SourceClass.MISALIGNED, reason, tuple(fixes), needs_dkim=True, service=known)


NO_ADDRESS = "(no address)"
"""A source whose reports gave no usable IP (empty, or not an address): said so, never a blank in a list."""


@dataclass
class JudgedSource:
    """One source IP as seen sending for one policy domain over a period."""

    ip: str
    policy_domain: str
    klass: SourceClass = SourceClass.UNKNOWN
    reason: str = ""
    fixes: tuple[str, ...] = ()
    messages: int = 0
    passed: int = 0
    """Messages that passed DMARC as the reporters evaluated it."""
    by_class: dict[SourceClass, int] = field(default_factory=dict)
    """Messages per class: a source may forward some mail and send some of its own."""
    failing_by_class: dict[SourceClass, int] = field(default_factory=dict)
    """Messages that failed DMARC, per class: what enforcement would act on."""
    header_from: set[str] = field(default_factory=set)
    name: SourceName | None = None
    service: Service | None = None
    """From the confirmed name, else from a domain that authenticated its mail."""
    needs_dkim: bool = False
    new: bool | None = False
    """First seen in the period: no stored report before it names this source for this domain.
    None when that cannot be told (the reports before the period are not all held)."""
    before: int | None = None
    """Its messages that failed DMARC in the stored reports before the period, when it was seen there (and that is
    known)."""
    by_reporter: dict[str, dict[SourceClass, list[int]]] = field(default_factory=dict)
    """Per reporting organisation, per class: [messages, failing]; what each reporter's word rests on."""
    _reasons: dict[SourceClass, tuple[int, int, str]] = field(default_factory=dict, repr=False)
    """Per class, the reason of its biggest record, the first of them on a tie (messages, where, reason)."""

    @property
    def shown_ip(self) -> str:
        """The address as lists show it: :data:`NO_ADDRESS` for a record that gave none (the tester's report
        with an empty ``<source_ip>`` read "New in this period: 198.51.100.1, , 192.0.2.50")."""
        return self.ip or NO_ADDRESS

    @property
    def failed(self) -> int:
        return self.messages - self.passed

    @property
    def authorised(self) -> int:
        """Messages of the domain's own mail (:data:`AUTHORISED` classes) from this source, whatever its class: a
        source takes the class of most of its mail, and a forged report of 100 unauthenticated messages from a
        relay made its 80 failing authorised ones another class's, unseen by the verdict (the tester's)."""
        return sum(self.by_class.get(klass, 0) for klass in AUTHORISED)

    @property
    def authorised_failing(self) -> int:
        """Of :attr:`authorised`, the messages that failed DMARC."""
        return sum(self.failing_by_class.get(klass, 0) for klass in AUTHORISED)

    @property
    def group(self) -> str:
        """The service group this source is listed under."""
        return self.service.name if self.service is not None else UNKNOWN_SERVICE

    def add(self, count: int, passes: bool, header_from: str, judgement: RecordJudgement, reporter: str = "",
            biggest: int | None = None, at: int = 0) -> None:
        """Records of one judgement, header From and reporter, added in the order their first came: ``count``
        messages, which pass DMARC or not; ``biggest`` (one record's count by default) is the count of the
        biggest of them and ``at`` where the first record of that count came among all (the earlier one
        gives its class's reason on a tie)."""
        klass = judgement.klass
        self.messages += count
        by_reporter = self.by_reporter.get(reporter)
        if by_reporter is None:
            by_reporter = self.by_reporter[reporter] = {}
        share = by_reporter.get(klass)
        if share is None:
            share = by_reporter[klass] = [0, 0]
        share[0] += count
        by_class = self.by_class
        by_class[klass] = by_class.get(klass, 0) + count
        if passes:
            self.passed += count
        else:
            share[1] += count
            self.failing_by_class[klass] = self.failing_by_class.get(klass, 0) + count
        if header_from:
            self.header_from.add(header_from)
        if self.service is None and judgement.service is not None:
            self.service = judgement.service
        if judgement.fixes and not all(fix in self.fixes for fix in judgement.fixes):
            self.fixes = tuple(dict.fromkeys(self.fixes + judgement.fixes))
        self.needs_dkim = self.needs_dkim or judgement.needs_dkim
        biggest = count if biggest is None else biggest
        best = self._reasons.get(klass)
        if best is None or biggest > best[0] or (biggest == best[0] and at < best[1]):
            self._reasons[klass] = (biggest, at, judgement.reason)
        # The class covering most messages; on a tie the worse one, so a doubt is never hidden. Only this
        # record's class grew, so the leader is the one before or this one.
        current = self.klass
        if current not in by_class or (by_class[klass], _RANK[klass]) > (by_class[current], _RANK[current]):
            self.klass = klass
        self.reason = self._reasons[self.klass][2]


_RANK = {klass: rank for rank, klass in enumerate(SourceClass)}
"""A class's place, best first: the later one wins a tie."""


class _Tally:
    """A source's records of one pattern and reporter: their messages, and the first of the biggest."""

    __slots__ = ("at", "biggest", "context", "ip", "known", "messages", "pattern", "reports")

    def __init__(self, context: ReportContext, ip: str, pattern: tuple[Any, ...], known: Service | None,
                 at: int) -> None:
        self.context, self.ip, self.pattern, self.known, self.at = context, ip, pattern, known, at
        self.messages = 0
        self.biggest = -1
        self.reports: dict[int, int] = {}
        """Its messages by the key of the report they came in."""


MAX_JUDGED_SOURCES = 10_000
"""Sources of one policy domain judged one by one, the most messages first: a flood of forged reports named
400,000 distinct sources (twenty mails of 116 KB gzipped), and judging each took the advice 95 s and 2.6 GB
(tester86). The mail of the others is counted, not judged, and holds the domain back (:class:`UnjudgedMail`)."""
MAX_JUDGED_IN_ALL = 50_000
"""Sources judged one by one over all domains: forged reports can name as many policy domains as sources."""


@dataclass(frozen=True)
class SourceBound:
    """Which sources of a period are judged one by one (:data:`MAX_JUDGED_SOURCES`)."""

    judged: frozenset[tuple[str, str]]
    """(policy domain, source IP) of the sources judged one by one."""
    ips: tuple[str, ...]
    """Their addresses, the most messages first: names are looked up in this order."""
    left: Mapping[str, int]
    """Per policy domain, its sources in the period's reports not judged one by one (none: not in it)."""


def source_bound(store: DigestReads, first: date, last: date, domain: str | None = None) -> SourceBound:
    """The :class:`SourceBound` of the stored reports of ``first..last`` (of ``domain`` only, if given)."""
    chosen, sources = store.busiest_sources(first, last, domain, per_domain=MAX_JUDGED_SOURCES,
                                            in_all=MAX_JUDGED_IN_ALL)
    left = dict(sources)
    for judged_domain, _ in chosen:
        left[judged_domain] -= 1
    return SourceBound(frozenset(chosen), tuple(dict.fromkeys(ip for _, ip in chosen)),
                       {name: count for name, count in left.items() if count})


@dataclass
class UnjudgedMail:
    """A domain's mail from the sources past :data:`MAX_JUDGED_SOURCES`: counted, not judged."""

    sources: int = 0
    messages: int = 0
    failing: int = 0


ReportContext = tuple[str, str, str, str, str]
"""What judging reads of a record's report: (policy domain, adkim, aspf, reporter, sp as published or "")."""


def report_context(report: Any) -> ReportContext:
    """A report's :data:`ReportContext` (a digest's or a stored report's)."""
    sp = report.sp if report.sp not in ("", UNSPECIFIED) else ""
    return report.policy_domain, report.adkim, report.aspf, report.reporter, sp


@dataclass
class SubdomainMail:
    """A domain's mail From its subdomains in reports publishing sp=: that policy, not p, applies to it."""

    messages: int = 0
    failing: int = 0
    domains: set[str] = field(default_factory=set)
    policies: set[str] = field(default_factory=set)


def judge_sources(
    digests: Iterable[ReportDigest],
    names: Mapping[str, SourceName] | None = None,
    *,
    senders: SenderMap | None = None,
) -> list[JudgedSource]:
    """Every (policy domain, source IP) of ``digests``, judged; biggest first."""
    return tallies_of(digests, senders=senders).judge(names)


def tallies_of(digests: Iterable[ReportDigest], *, senders: SenderMap | None = None,
               bound: SourceBound | None = None) -> Tallies:
    """:class:`Tallies` of the records of ``digests`` (read once, as they come), judged one by one within ``bound``."""
    contexts: dict[int, ReportContext] = {}

    def records() -> Iterator[StoredRecord]:
        for n, report in enumerate(digests):
            contexts[n] = report_context(report)
            for r in report.records:
                yield n, r.source_ip, r.count, r.dkim, r.spf, r.header_from, r.overrides, r.dkim_auth, r.spf_auth

    return Tallies(records(), contexts, senders=senders, bound=bound)


class Tallies:
    """Records as plain values (the store's: no object a record), each under the context of its report's
    key (a key without one is left out), tallied a source, pattern and reporter: one look-up a record.

    Names are not needed to tally (the sources' addresses, :meth:`ips`, are what names are looked up
    for); :meth:`judge` then judges each tally once and adds it to its source, in the order of their
    first records, so what depends on the order comes out as record by record.
    """

    def __init__(self, records: Iterable[StoredRecord], contexts: Mapping[int, ReportContext], *,
                 senders: SenderMap | None = None, lists: Callable[[Any, Any, Any], StoredLists] | None = None,
                 bound: SourceBound | None = None) -> None:
        """``lists``: how a record's overrides and DKIM and SPF results read as values (the store's
        :func:`~jmapclient.dmarc.digest_reads.stored_lists`), once a tally, not once a record; without it
        they are values already (a digest's). ``bound``: the sources judged one by one (all without it); the
        others' records are only counted (:attr:`unjudged`)."""
        self.senders = senders if senders is not None else load_senders()
        self._judged: dict[tuple[Any, ...], tuple[RecordJudgement, bool]] = {}
        """Records repeat the same few patterns (each sender authenticates the same way every day): a
        judgement depends only on its pattern and the source's service, so each is judged once."""
        self._tallies: list[_Tally] = []
        """In the order of their first records."""
        self._known: dict[tuple[str, str], Service | None] = {}
        """(domain, IP) → the service its records confirmed first (None: none yet)."""
        self._contexts = contexts
        self.authorised_by_report: dict[int, list[int]] = {}
        """Report key → [authorised messages, of them failing], filled by :meth:`judge`: what each report says of
        the domain's own mail (:meth:`reports_of_own_mail`)."""
        self.subdomains: dict[str, SubdomainMail] = {}
        """Policy domain → its mail From a subdomain in reports that publish sp=: left out of the tallies, since
        the next step on p does not act on it (p=quarantine was said to act on 200 messages of news.example.com
        under sp=none: the tester's)."""
        self.unjudged: dict[str, UnjudgedMail] = {}
        """Policy domain → the mail of its sources past the ``bound``."""
        judged, left = (bound.judged, bound.left) if bound is not None else (None, {})
        live: dict[tuple[Any, ...], _Tally] = {}
        opened: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
        """A source's keys in ``live`` while its records confirm no service."""
        for at, (key, ip, count, dkim, spf, header_from, overrides, dkim_auth, spf_auth) in enumerate(records):
            context = contexts.get(key)
            if context is None:
                continue
            if context[4] and header_from != context[0] and header_from.endswith(f".{context[0]}"):
                mail = self.subdomains.setdefault(context[0], SubdomainMail())
                mail.messages += count
                mail.failing += 0 if verdicts_pass(dkim, spf) else count
                mail.domains.add(header_from)
                mail.policies.add(context[4])
                continue
            if judged is not None and (context[0], ip) not in judged:
                unjudged = self.unjudged.get(context[0])
                if unjudged is None:
                    unjudged = self.unjudged[context[0]] = UnjudgedMail(left.get(context[0], 0))
                unjudged.messages += count
                unjudged.failing += 0 if verdicts_pass(dkim, spf) else count
                continue
            tally = live.get((context, ip, overrides, dkim, spf, header_from, dkim_auth, spf_auth))
            if tally is None:
                source = (context[0], ip)
                known = self._known.setdefault(source, None)
                read = (overrides, dkim_auth, spf_auth) if lists is None else lists(overrides, dkim_auth, spf_auth)
                pattern = (read[0], dkim, spf, header_from, read[1], read[2], context[0], context[1], context[2])
                tally = _Tally(context, ip, pattern, known, at)
                if known is None and self._judgement(pattern, None)[0].service is not None:
                    # A source unnamed is known by the service its first confirming record names, and the
                    # records after are judged with it (:func:`judge_record`'s ``service``): its tallies so
                    # far take no more records.
                    self._known[source] = self._judgement(pattern, None)[0].service
                    for stale in opened.pop(source, ()):
                        del live[stale]
                elif known is None:
                    opened.setdefault(source, []).append((context, ip, overrides, dkim, spf, header_from,
                                                          dkim_auth, spf_auth))
                live[context, ip, overrides, dkim, spf, header_from, dkim_auth, spf_auth] = tally
                self._tallies.append(tally)
            tally.messages += count
            tally.reports[key] = tally.reports.get(key, 0) + count
            if count > tally.biggest:
                tally.biggest, tally.at = count, at

    def ips(self) -> list[str]:
        """The sources' addresses, the most messages first: names are looked up in this order, and only so many
        (:data:`~jmapclient.dmarc.insight.names.MAX_LOOKUPS`)."""
        messages: dict[str, int] = {}
        for tally in self._tallies:
            messages[tally.ip] = messages.get(tally.ip, 0) + tally.messages
        return sorted(messages, key=lambda ip: (-messages[ip], ip))

    def judge(self, names: Mapping[str, SourceName] | None = None) -> list[JudgedSource]:
        """Every source judged, named by ``names``; biggest first."""
        names = names or {}
        sources: dict[tuple[str, str], JudgedSource] = {}
        for tally in self._tallies:
            domain, _, _, reporter, _ = tally.context
            source = sources.get((domain, tally.ip))
            if source is None:
                name = names.get(tally.ip)
                source = sources[domain, tally.ip] = JudgedSource(
                    tally.ip, domain, name=name, service=name.service if name is not None else None)
            named = source.name.service if source.name is not None else None
            judgement, passes = self._judgement(tally.pattern, named or tally.known)
            source.add(tally.messages, passes, tally.pattern[3], judgement, reporter, tally.biggest, tally.at)
            if judgement.klass in AUTHORISED:
                for report, messages in tally.reports.items():
                    figures = self.authorised_by_report.setdefault(report, [0, 0])
                    figures[0] += messages
                    figures[1] += 0 if passes else messages
        return sorted(sources.values(), key=lambda s: (s.policy_domain, -s.messages, s.ip))

    def reports_of_own_mail(self) -> Iterator[tuple[str, str, int, int]]:
        """(policy domain, reporter, authorised messages, of them failing) of each report that saw the domain's own
        mail (after :meth:`judge`): a reporter's word report by report, which forged reports under its name
        cannot dilute as they dilute its sum."""
        for report, (authorised, failing) in self.authorised_by_report.items():
            domain, _, _, reporter, _ = self._contexts[report]
            yield domain, reporter, authorised, failing

    def _judgement(self, pattern: tuple[Any, ...], service: Service | None) -> tuple[RecordJudgement, bool]:
        found = self._judged.get((pattern, service))
        if found is None:
            overrides, dkim, spf, header_from, dkim_auth, spf_auth, domain, adkim, aspf = pattern
            record = RecordDigest(source_ip="", count=0, disposition="", dkim=dkim, spf=spf, header_from=header_from,
                                  envelope_from="", overrides=overrides, dkim_auth=dkim_auth, spf_auth=spf_auth)
            found = self._judged[pattern, service] = (_judged(record, domain, adkim, aspf, self.senders, service),
                                                      record.passes)
        return found


@dataclass(frozen=True)
class JudgedRecord:
    """One record of a report, judged: what a report's record list shows and groups by service."""

    record: RecordDigest
    judgement: RecordJudgement
    name: SourceName | None = None

    @property
    def messages(self) -> int:
        return self.record.count

    @property
    def service(self) -> Service | None:
        if self.name is not None and self.name.service is not None:
            return self.name.service
        return self.judgement.service

    @property
    def group(self) -> str:
        return self.service.name if self.service is not None else UNKNOWN_SERVICE


def judge_report(
    report: ReportDigest, names: Mapping[str, SourceName] | None = None, *, senders: SenderMap | None = None
) -> list[JudgedRecord]:
    """Every record of one report, judged under the policy that report saw; in the report's order."""
    senders = senders if senders is not None else load_senders()
    names = names or {}
    judged = []
    for record in report.records:
        name = names.get(record.source_ip)
        service = name.service if name is not None else None
        judged.append(JudgedRecord(record, judge_record(record, report, senders=senders, service=service), name))
    return judged


class Grouped(Protocol):
    @property
    def group(self) -> str: ...

    @property
    def messages(self) -> int: ...


G = TypeVar("G", bound=Grouped)


def group_by_service(items: Iterable[G]) -> list[tuple[str, list[G]]]:
    """Sources (or a report's records) grouped by service, the busiest group first; the unknown group last."""
    groups: dict[str, list[G]] = {}
    for item in items:
        groups.setdefault(item.group, []).append(item)
    return sorted(groups.items(), key=lambda g: (g[0] == UNKNOWN_SERVICE, -sum(i.messages for i in g[1]), g[0]))
