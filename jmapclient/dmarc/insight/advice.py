"""The policy advisor: per policy domain, is it safe to take the next step (none → quarantine → reject)?

Over a period it shows the policy the reporters saw published, the share of messages
the next step would act on (those failing DMARC), split by source class, and a verdict
in words with its evidence. All figures are messages (records' counts), so a person
can check them by adding up the records' counts of the period's reports.

``pct`` is not shown: the server's report object does not carry it (DMARCbis replaced
``pct`` by ``t=``, the testing flag, which is shown).
"""

from __future__ import annotations

import statistics
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from jmapclient.collector import collector_paused
from jmapclient.counted import counted
from jmapclient.display import LIST_MAX, name_text, safe_text
from jmapclient.dmarc.analytics import ReportDigest, format_rate, pass_rate
from jmapclient.dmarc.digest_reads import stored_lists
from jmapclient.dmarc.insight.judge import (
    AUTHORISED,
    JudgedSource,
    ReportContext,
    SourceBound,
    SourceClass,
    SubdomainMail,
    Tallies,
    UnjudgedMail,
    report_context,
    source_bound,
    tallies_of,
)
from jmapclient.dmarc.insight.names import NameResolver, SourceName
from jmapclient.dmarc.insight.screening import (
    REPEATED,
    LeftOut,
    Reporters,
    Screening,
    digest_content,
    normal_reporter,
    screen_reports,
    stored_content,
    totals_of,
)
from jmapclient.dmarc.insight.services import SenderMap
from jmapclient.dmarc.vocab import UNSPECIFIED

if TYPE_CHECKING:
    from jmapclient.dmarc.digest_store import DigestStore

MIN_MESSAGES = 100
"""Below this many messages a verdict is noise: one misconfigured sender with 3 messages moves the share 3 points."""
MIN_REPORTS = 2
"""One report is one receiver's view of one day; senders that mail other receivers are missing from it."""
REPORT_FLOOR = 10
"""Authorised messages under which one report's pass rate says too little to count in its reporter's median."""
READY_SHARE = 0.98
"""Authorised mail that must pass before the next step: above it, what fails is a sender or two to fix first."""
MIN_REPORTERS = 2
"""Independent reporting organisations a "ready" rests on: reports are unauthenticated mail, and one
sender (or one receiver's odd view) must not decide alone."""
VOUCHING_FLOOR = -(-MIN_MESSAGES // MIN_REPORTERS)
"""Authorised messages a reporter must have seen for its word to count towards a "ready" (:data:`MIN_REPORTERS`): an
even share of the least evidence a "ready" rests on, so the reporters that count meet :data:`MIN_MESSAGES` between
them. Reports are unauthenticated mail under any name: one forged report of 1 message from a made-up reporter was the
second independent reporter, and one of 20 filled the message floor of two real reporters' 90 (tester101). Below it a
reporter's word can still hold the domain back: its failing mail counts all the same."""
MAX_AUTHORISED_FAILING = 5
"""Messages an authorised source may fail DMARC by and the domain still be called ready (a stray
misconfigured relay); any source failing more is a sender to fix first, whatever the share."""
LISTED_SOURCES = 5
"""Sources named in a verdict's sentence; the JSON and the table list them all."""
MAX_SHOWN_DOMAINS = 50
"""Policy domains whose advice is told in words (the console's Advice tab, ``dmarc-advice`` without ``--json``), the
most messages first; the others are counted in one line (:func:`shown_domains`), as the sources past
:data:`~.judge.MAX_JUDGED_SOURCES` are. 10,000 forged one-report domains drew 10,000 blocks: the console's screen
took minutes to draw them and answered no key meanwhile, ``dmarc-advice`` printed 83,957 lines (tester91).
``--json`` lists every domain."""
NEXT_STEP = {"none": "quarantine", "quarantine": "reject", "reject": None}
TESTING_APPLIES = {"quarantine": "none", "reject": "quarantine"}
UNPUBLISHED = "none"
"""What a missing or ``unspecified`` p means: monitoring."""


class Verdict(StrEnum):
    READY = "ready"
    NOT_READY = "not ready"
    TOO_LITTLE_DATA = "too little data"
    ENFORCED = "enforced"
    """Already at p=reject: there is no next step, only senders to keep an eye on."""


@dataclass(frozen=True)
class PolicySeen:
    """One published policy as the reporters saw it, and how many reports saw it."""

    p: str
    sp: str
    np: str
    adkim: str
    aspf: str
    testing: bool
    reports: int = 0

    @property
    def enforced(self) -> str:
        """The policy receivers apply: in testing mode (DMARCbis ``t=y``) one step below ``p``."""
        return TESTING_APPLIES.get(self.p, self.p) if self.testing else self.p

    def words(self) -> str:
        parts = [f"p={self.p or '?'}"]
        parts += [f"{k}={v}" for k, v in (("sp", self.sp), ("np", self.np)) if v and v != UNSPECIFIED]
        parts += [f"{k}={v[0]}" for k, v in (("adkim", self.adkim), ("aspf", self.aspf)) if v and v != UNSPECIFIED]
        if self.testing:
            parts.append("t=y")
        return " ".join(parts)


@dataclass
class ClassShare:
    """Messages of one source class, and of them, those failing DMARC (what the next step acts on)."""

    messages: int = 0
    failing: int = 0


@dataclass
class ReporterView:
    """One reporting organisation's word on a domain: its reports, and its view of authorised mail."""

    name: str = ""
    """As the first of its reports wrote it (but for spaces at its ends); reporters are told apart without case
    or runs of spaces."""
    reports: int = 0
    messages: int = 0
    authorised: int = 0
    authorised_failing: int = 0
    reports_under: int = 0
    """Its reports of :data:`MIN_MESSAGES` authorised messages or more that saw under :data:`READY_SHARE` of them
    pass: a reporter's word report by report. Three forged 1,000-message reports under a real reporter's name
    diluted its sum from 95% to 99% and made the domain ready (tester81); they cannot undo a report."""
    report_rates: list[float] = field(default_factory=list)
    """The authorised pass rate of each of its reports of :data:`REPORT_FLOOR` authorised messages or more: its
    median report is its word too, which forged reports move only by outnumbering the real ones. Ten real reports of
    90 authorised messages (88.9% passing) were diluted by four forged ones of 1,500 (tester84)."""

    @property
    def authorised_rate(self) -> float | None:
        return pass_rate(self.authorised - self.authorised_failing, self.authorised)

    @property
    def vouches(self) -> bool:
        """Whether it saw enough of the domain's own mail (:data:`VOUCHING_FLOOR`) for its word to count towards a
        "ready"."""
        return self.authorised >= VOUCHING_FLOOR

    def not_vouching(self) -> str:
        """Why its word does not count towards a "ready" (when it does not :attr:`vouches`)."""
        if not self.authorised:
            return "saw none of the domain's own mail"
        return (f"saw too little of the domain's own mail to count: {_count(self.authorised, 'message')} (at least"
                f" {VOUCHING_FLOOR} are needed)")

    @property
    def doubts(self) -> bool:
        """Whether this reporter saw the domain's own mail pass under :data:`READY_SHARE`: in all, in a report, or in
        its median report.

        Its view counts from :data:`MIN_MESSAGES` authorised messages, or from more failing ones than a stray relay
        fails by (:data:`MAX_AUTHORISED_FAILING`): a real reporter that saw 27 of 90 authorised messages fail (30%)
        was no view at all, and three forged reports of 2,000 passing messages under a made-up name lifted the
        domain's share to 99.6% and called it ready (tester86)."""
        if self.reports_under > 0:
            return True
        if self.authorised < MIN_MESSAGES and self.authorised_failing <= MAX_AUTHORISED_FAILING:
            return False
        median = statistics.median(self.report_rates) if self.report_rates else 1.0
        return (self.authorised_rate or 0.0) < READY_SHARE or median < READY_SHARE


@dataclass
class DomainAdvice:
    domain: str
    first: date
    last: date
    reports: int = 0
    messages: int = 0
    passed: int = 0
    policies: list[PolicySeen] = field(default_factory=list)
    """Distinct policies seen, the most reported first."""
    current: PolicySeen | None = None
    """The policy of the latest report."""
    disputed: list[tuple[PolicySeen, list[str], int]] = field(default_factory=list)
    """When the reporters' latest reports disagree: each policy they give (with the number of its reporters'
    reports), its reporters and their messages, the latest first (the one taken: :attr:`current`)."""
    next_step: str | None = None
    by_class: dict[SourceClass, ClassShare] = field(default_factory=dict)
    sources: list[JudgedSource] = field(default_factory=list)
    reporters: dict[str, ReporterView] = field(default_factory=dict)
    """Per reporting organisation, what the verdict rests on."""
    left_out: list[LeftOut] = field(default_factory=list)
    """Reports not counted: repeats of a report already counted, and implausible ones."""
    reused: list[LeftOut] = field(default_factory=list)
    """Reports counted although another of the same reporter and report id says otherwise."""
    subdomains: SubdomainMail | None = None
    """Its mail From subdomains in reports publishing sp=: left out of the judgement and of :attr:`affected`."""
    doubted: list[LeftOut] = field(default_factory=list)
    """Reports implausible against their baseline, counted all the same: left out, the advice was less cautious."""
    unjudged: UnjudgedMail | None = None
    """The mail of its sources past :data:`~.judge.MAX_JUDGED_SOURCES`: counted, not judged; it holds the domain
    back."""
    verdict: Verdict = Verdict.TOO_LITTLE_DATA
    summary: str = ""
    """The verdict in words, with the evidence."""

    @property
    def affected(self) -> int:
        """Messages the next step would act on: those failing DMARC, but for a subdomain's that sp= governs."""
        return self.messages - self.passed - (self.subdomains.failing if self.subdomains is not None else 0)

    @property
    def authorised_messages(self) -> int:
        return sum(self.by_class[k].messages for k in AUTHORISED if k in self.by_class)

    @property
    def authorised_failing(self) -> int:
        return sum(self.by_class[k].failing for k in AUTHORISED if k in self.by_class)

    @property
    def authorised_rate(self) -> float | None:
        """The share of authorised mail that passes DMARC, 0..1."""
        return pass_rate(self.authorised_messages - self.authorised_failing, self.authorised_messages)

    @property
    def new_sources(self) -> list[JudgedSource]:
        return [s for s in self.sources if s.new]

    def to_json(self) -> dict[str, Any]:
        """The figures, verdict and sources as plain JSON values (outside text still raw: escape on output)."""
        return {
            "domain": self.domain,
            "first": self.first.isoformat(),
            "last": self.last.isoformat(),
            "reports": self.reports,
            "messages": self.messages,
            "passed": self.passed,
            "policy": None if self.current is None else _policy_json(self.current),
            "policiesSeen": [_policy_json(p) for p in self.policies],
            "policyDisputed": [{**_policy_json(policy), "reporters": reporters, "messages": messages}
                               for policy, reporters, messages in self.disputed],
            "nextStep": self.next_step,
            "affected": self.affected,
            "authorisedPassRate": self.authorised_rate,
            "byClass": {str(k): {"messages": v.messages, "failing": v.failing} for k, v in self.by_class.items()},
            "reporters": {v.name: {"reports": v.reports, "messages": v.messages, "authorised": v.authorised,
                                 "authorisedFailing": v.authorised_failing, "reportsUnder": v.reports_under}
                          for v in self.reporters.values()},
            "reportersNotCounted": [{"reporter": v.name, "authorised": v.authorised, "why": v.not_vouching()}
                                    for v in self.reporters.values() if not v.vouches],
            "leftOut": [{"reporter": r.reporter, "reportId": r.report_id, "messages": r.messages, "why": r.why,
                         **({} if r.copy_of is None else {"copyOf": {"reporter": r.copy_of[0],
                                                                     "reportId": r.copy_of[1]}})}
                        for r in self.left_out],
            "reusedIds": [{"reporter": r.reporter, "reportId": r.report_id, "messages": r.messages, "why": r.why}
                          for r in self.reused],
            "subdomainsUnderSp": None if self.subdomains is None else {
                "messages": self.subdomains.messages, "failing": self.subdomains.failing,
                "domains": sorted(self.subdomains.domains), "sp": sorted(self.subdomains.policies)},
            "unjudged": None if self.unjudged is None else {
                "sources": self.unjudged.sources, "messages": self.unjudged.messages,
                "failing": self.unjudged.failing},
            "countedThoughImplausible": [{"reporter": r.reporter, "reportId": r.report_id, "messages": r.messages,
                                          "why": r.why} for r in self.doubted],
            "verdict": str(self.verdict),
            "summary": self.summary,
            "sources": [_source_json(s) for s in self.sources],
        }


def _policy_json(policy: PolicySeen) -> dict[str, Any]:
    return {"p": policy.p, "sp": policy.sp, "np": policy.np, "adkim": policy.adkim, "aspf": policy.aspf,
            "testing": policy.testing, "reports": policy.reports}


def _source_json(source: JudgedSource) -> dict[str, Any]:
    name = source.name
    return {
        "ip": source.ip,
        "name": name.ptr if name is not None else None,
        "nameStatus": str(name.status) if name is not None else None,
        "baseDomain": name.base if name is not None else None,
        "service": source.service.name if source.service is not None else None,
        "serviceKind": source.service.kind if source.service is not None else None,
        "class": str(source.klass),
        "reason": source.reason,
        "fixes": list(source.fixes),
        "messages": source.messages,
        "passed": source.passed,
        "headerFrom": sorted(source.header_from),
        "new": source.new,
    }


@dataclass(frozen=True)
class ShownDomains:
    """The advice told in words (:data:`MAX_SHOWN_DOMAINS`, the most messages first), and what the others hold."""

    shown: list[DomainAdvice]
    hidden: int = 0
    """Domains not told in words."""
    hidden_messages: int = 0
    hidden_verdicts: dict[Verdict, int] = field(default_factory=dict)
    """Of the domains not told, how many have each verdict (the most first)."""

    def more(self) -> str:
        """The line that says the domains not told (each front adds where they are all listed), or "" when every
        domain is."""
        if not self.hidden:
            return ""
        verdicts = ", ".join(f"{count:,} {verdict}" for verdict, count in self.hidden_verdicts.items())
        return (f"… and {counted(self.hidden, 'more policy domain')} with fewer messages"
                f" ({counted(self.hidden_messages, 'message')} in all; {verdicts})")


def shown_domains(advice: list[DomainAdvice]) -> ShownDomains:
    """The first :data:`MAX_SHOWN_DOMAINS` of ``advice`` (ordered by most messages first, as :func:`advise` gives it),
    and a count of the others."""
    most = MAX_SHOWN_DOMAINS
    hidden = advice[most:]
    if not hidden:
        return ShownDomains(advice)
    verdicts: dict[Verdict, int] = {}
    for entry in hidden:
        verdicts[entry.verdict] = verdicts.get(entry.verdict, 0) + 1
    return ShownDomains(advice[:most], len(hidden), sum(entry.messages for entry in hidden),
                        dict(sorted(verdicts.items(), key=lambda item: (-item[1], item[0]))))


class CountedReport(Protocol):
    """What the advice counts of a report besides its records: a digest, or a report's stored row."""

    @property
    def id(self) -> str: ...
    @property
    def reporter(self) -> str: ...
    @property
    def policy_domain(self) -> str: ...
    @property
    def day(self) -> date: ...
    @property
    def end(self) -> datetime: ...
    @property
    def p(self) -> str: ...
    @property
    def sp(self) -> str: ...
    @property
    def np(self) -> str: ...
    @property
    def adkim(self) -> str: ...
    @property
    def aspf(self) -> str: ...
    @property
    def testing(self) -> bool: ...


def _policy(report: CountedReport) -> PolicySeen:
    return PolicySeen(report.p if report.p not in ("", UNSPECIFIED) else UNPUBLISHED, report.sp, report.np,
                      report.adkim, report.aspf, report.testing)


PolicyClaim = tuple[str, str]
"""What the next step rests on in a report's policy: p as published, and as applied (t=y)."""


def _claim(policy: PolicySeen) -> PolicyClaim:
    # A reporter that gives no np= (an older one) does not disagree with one that does, nor t=y with none where
    # t=y changes nothing.
    return policy.p, policy.enforced


RECENT_REPORTS = 3
"""A reporter's latest reports that are its word on the published policy, at least: one forged report dated last under
its name outweighed its real ones (tester84); three give way to a real change of policy within three of its reports."""
RECENT_DAYS = timedelta(days=7)
"""Its reports ending within this of its latest are its word too: three forged reports dated last under each real
reporter's name were all its latest three (tester86); they cannot push a week of its real reports out."""
ENFORCEMENT = {UNPUBLISHED: 0, "quarantine": 1, "reject": 2}
"""How far a policy as applied goes (:attr:`PolicySeen.enforced`)."""
WEIGHED_SHARE = 0.01
"""The share of a reporter's plausible mail in its latest word under which a policy it gives is not taken (noise).
Each reporter's own: weighed against all reporters' mail, a made-up reporter's three reports of 100,000 messages
made the real reporters' policy a sliver of it (tester86)."""


@dataclass
class _DayWord:
    """A reporter's reports of one day (by their end) giving one policy: the newest of them, and what they hold."""

    end: datetime
    """The newest's end, no later than the period's."""
    order: int
    """The newest's arrival: what orders reports of one end."""
    report: CountedReport
    claim: PolicyClaim
    messages: int = 0
    plausible: int = 0
    """Of :attr:`messages`, those of reports not left out (or doubted) against a baseline."""
    reports: int = 0


@dataclass
class _ReporterWord:
    """One reporter's word on a domain's published policy: its latest :data:`RECENT_REPORTS` reports at least, and
    those ending within :data:`RECENT_DAYS` of its latest. Kept a day and policy at a time (what it holds is bounded
    by the days, not by the reports: a forger may send thousands)."""

    days: dict[tuple[date, PolicyClaim], _DayWord] = field(default_factory=dict)

    def add(self, report: CountedReport, claim: PolicyClaim, messages: int, horizon: datetime, order: int, *,
            plausible: bool) -> None:
        # A report ends in the past: one ending after the period (a forged end in 9999) is no later than the period's
        # end, so a date alone cannot make it the reporter's latest word.
        end = min(report.end, horizon)
        day = self.days.get((end.date(), claim))
        if day is None:
            day = self.days[end.date(), claim] = _DayWord(end, order, report, claim)
        elif (end, order) > (day.end, day.order):
            day.end, day.order, day.report = end, order, report
        day.messages += messages
        day.plausible += messages if plausible else 0
        day.reports += 1

    def recent(self) -> list[_DayWord]:
        """The days of its word, oldest first."""
        days = sorted(self.days.values(), key=lambda day: (day.end, day.order))
        if not days:
            return []
        since, reports, first = days[-1].end - RECENT_DAYS, 0, len(days)
        while first > 0 and (days[first - 1].end >= since or reports < RECENT_REPORTS):
            first -= 1
            reports += days[first].reports
        return days[first:]

    @staticmethod
    def weighed(days: list[_DayWord]) -> set[PolicyClaim]:
        """The policies ``days`` give with :data:`WEIGHED_SHARE` or more of its plausible mail behind them (all they
        give, when none of its mail is plausible)."""
        mail: dict[PolicyClaim, int] = {}
        for day in days:
            mail[day.claim] = mail.get(day.claim, 0) + day.plausible
        total = sum(mail.values())
        return {claim for claim, messages in mail.items() if not total or messages >= WEIGHED_SHARE * total}


@dataclass
class _PolicyWeight:
    """The reporters' latest reports giving one policy: the newest of them, their mail, how many, and whose."""

    newest: CountedReport
    messages: int = 0
    reports: int = 0
    reporters: list[str] = field(default_factory=list)

    def add(self, day: _DayWord, reporter: str, horizon: datetime) -> None:
        """A reporter's reports of one ``day`` (their ends no later than ``horizon``), from ``reporter``."""
        if day.end > min(self.newest.end, horizon):
            self.newest = day.report
        self.messages += day.messages
        self.reports += day.reports
        if reporter not in self.reporters:
            self.reporters.append(reporter)


class _Counting:
    """The advice per policy domain as the period's reports are counted, one at a time, none held; then
    :meth:`advice` adds their judged sources and the verdicts."""

    def __init__(self, first: date, last: date, wanted: str | None, screening: Screening) -> None:
        self.first, self.last, self.wanted, self.screening = first, last, wanted, screening
        self.domains: dict[str, DomainAdvice] = {}
        self.policies: dict[str, dict[PolicySeen, int]] = {}
        self.latest: dict[str, dict[str, _ReporterWord]] = {}
        """Policy domain → reporter (as told apart) → its word on the published policy, from its reports counted or
        left out as implausible (its policy is its word all the same)."""
        self.horizon = datetime.combine(last + timedelta(days=1), time(0), UTC)
        """The period's end: no report is later than it."""
        self.arrivals = 0
        """Reports claimed so far: what orders reports of one end."""
        # Once a report of the period (tens of thousands): what repeats is made once, not once a report.
        self.reporters = Reporters()
        self.seen_policies: dict[tuple[str, str, str, str, str, bool], PolicySeen] = {}

    def wanted_in(self, report: CountedReport) -> DomainAdvice | None:
        """The advice ``report`` counts in, or None: outside the period or the domain, or left out."""
        if not self.first <= report.day <= self.last or (self.wanted is not None
                                                         and report.policy_domain != self.wanted):
            return None
        entry = self.domains.get(report.policy_domain)
        if entry is None:
            entry = self.domains[report.policy_domain] = DomainAdvice(report.policy_domain, self.first, self.last)
        left_out = self.screening.left_out.get(report.id)
        if left_out is not None:
            entry.left_out.append(left_out)
            if report.id in self.screening.implausible:  # its policy is its word all the same, its mail no weight
                self._claims(report, left_out.messages, plausible=False)
            return None
        reused = self.screening.reused.get(report.id)
        if reused is not None:
            entry.reused.append(reused)
        doubted = self.screening.doubted.get(report.id)
        if doubted is not None:
            entry.doubted.append(doubted)
        return entry

    def count(self, entry: DomainAdvice, report: CountedReport, messages: int, passed: int) -> None:
        """Count ``report`` (of ``messages``, ``passed`` of them) in ``entry`` (:meth:`wanted_in`)."""
        named = self.reporters[report.reporter]
        view = entry.reporters.get(named[0])
        if view is None:
            view = entry.reporters[named[0]] = ReporterView(named[1])
        view.reports += 1
        view.messages += messages
        entry.reports += 1
        entry.messages += messages
        entry.passed += passed
        seen = self.policies.setdefault(report.policy_domain, {})
        policy = self._policy_of(report)
        seen[policy] = seen.get(policy, 0) + 1
        self._claims(report, messages, plausible=report.id not in self.screening.doubted)

    def _claims(self, report: CountedReport, messages: int, *, plausible: bool = True) -> None:
        """Keep ``report`` (of ``messages``) if it is among its reporter's latest words on the published policy;
        ``plausible``: not left out (or doubted) against a baseline."""
        who = self.reporters[report.reporter][0]
        word = self.latest.setdefault(report.policy_domain, {}).setdefault(who, _ReporterWord())
        self.arrivals += 1
        word.add(report, _claim(self._policy_of(report)), messages, self.horizon, self.arrivals, plausible=plausible)

    def _policy_of(self, report: CountedReport) -> PolicySeen:
        shape = (report.p, report.sp, report.np, report.adkim, report.aspf, report.testing)
        policy = self.seen_policies.get(shape)
        if policy is None:
            policy = self.seen_policies[shape] = _policy(report)
        return policy

    def advice(self, sources: Iterable[JudgedSource], seen_before: Collection[tuple[str, str]] | None,
               tallies: Tallies) -> list[DomainAdvice]:
        """The advice per domain with the judged sources of the counted reports (and the ``tallies``' mail they
        left out of them: a subdomain's, the sources' past the bound), biggest domain first."""
        self._reports_under(tallies.reports_of_own_mail())
        advice = self.domains
        for name, mail in tallies.subdomains.items():
            if name in advice:
                advice[name].subdomains = mail
        for name, unjudged in tallies.unjudged.items():
            if name in advice:
                advice[name].unjudged = unjudged
        for source in sources:
            entry = advice[source.policy_domain]
            key = (source.policy_domain, source.ip)
            source.new = None if seen_before is None else key not in seen_before
            source.before = seen_before.get(key) if isinstance(seen_before, Mapping) else None
            entry.sources.append(source)
            for klass, count in source.by_class.items():
                share = entry.by_class.setdefault(klass, ClassShare())
                share.messages += count
                share.failing += source.failing_by_class.get(klass, 0)
            for reporter, classes in source.by_reporter.items():
                view = entry.reporters.setdefault(normal_reporter(reporter), ReporterView())
                for klass, (messages, failing) in classes.items():
                    if klass in AUTHORISED:
                        view.authorised += messages
                        view.authorised_failing += failing
        for name, entry in advice.items():
            entry.reporters = dict(sorted(entry.reporters.items(), key=lambda item: (-item[1].messages, item[0])))
            if not entry.reports:  # every report of the domain was left out
                entry.summary = _left_out_words(entry)
                continue
            policies = self.policies[name]
            counted = sorted(policies.items(), key=lambda item: (-item[1], item[0].words()))
            entry.policies = [_with_reports(policy, count) for policy, count in counted]
            current = self._published(entry, self.latest[name].values())
            entry.current = _with_reports(current, policies.get(current, 0))
            entry.next_step = NEXT_STEP.get(entry.current.enforced, NEXT_STEP[UNPUBLISHED])
            entry.by_class = {k: entry.by_class[k] for k in SourceClass if k in entry.by_class}
            entry.verdict, entry.summary = judge_domain(entry)
        return sorted(advice.values(), key=lambda a: (-a.messages, a.domain))

    def _reports_under(self, own_mail: Iterable[tuple[str, str, int, int]]) -> None:
        """Count each reporter's reports that saw its domain's own mail pass under :data:`READY_SHARE`
        (``Tallies.reports_of_own_mail``)."""
        for domain, reporter, authorised, failing in own_mail:
            entry = self.domains.get(domain)
            if entry is None or authorised < REPORT_FLOOR:
                continue
            rate = pass_rate(authorised - failing, authorised) or 0.0
            view = entry.reporters.setdefault(self.reporters[reporter][0], ReporterView(self.reporters[reporter][1]))
            view.report_rates.append(rate)
            if authorised >= MIN_MESSAGES and rate < READY_SHARE:
                view.reports_under += 1

    def _published(self, entry: DomainAdvice, words: Iterable[_ReporterWord]) -> PolicySeen:
        """The policy the domain publishes, as far as reports tell: the least enforced one its reporters' latest
        reports (:data:`RECENT_REPORTS` each at least, and those of the :data:`RECENT_DAYS` before) give with
        :data:`WEIGHED_SHARE` or more of their reporter's plausible mail behind it. When they disagree, that is kept
        in ``entry``. Reports are unauthenticated: a forgery may make the advice more cautious, never bolder. Taken
        from the latest report, or by the most mail, one forged report dated last (or ending in 9999) under each real
        reporter's name said "Already at p=reject" of a domain at p=none."""
        weights: dict[PolicyClaim, _PolicyWeight] = {}
        weighed: set[PolicyClaim] = set()
        for word in words:
            # Weighed against its reporter's plausible mail alone: a forged report of 10^9 messages, left out as
            # implausible, made every real policy a sliver of the whole; a real one left out (forged small reports
            # lowered its baseline) still weighs what it says.
            days = word.recent()
            weighed |= word.weighed(days)
            for day in days:
                weight = weights.setdefault(day.claim, _PolicyWeight(day.report))
                who, shown = self.reporters[day.report.reporter]
                view = entry.reporters.get(who)  # named as the verdict names it, when it counts
                weight.add(day, view.name if view is not None else shown, self.horizon)

        def taken_first(key: PolicyClaim) -> tuple[int, float, int]:
            # The least enforced; of policies applied alike (p=none, p=quarantine t=y) the latest, then the most mail.
            newest = min(weights[key].newest.end, self.horizon)
            return ENFORCEMENT.get(key[1], 0), -newest.timestamp(), -weights[key].messages

        taken = min(weighed or set(weights), key=taken_first)
        ranked = [taken, *sorted((key for key in weights if key != taken), key=lambda key: -weights[key].messages)]
        if len(ranked) > 1:
            entry.disputed = [(_with_reports(_policy(weights[key].newest), weights[key].reports),
                               weights[key].reporters, weights[key].messages) for key in ranked]
        return _policy(weights[taken].newest)

def advise(
    digests: Iterable[ReportDigest],
    first: date,
    last: date,
    *,
    names: Mapping[str, SourceName] | None = None,
    seen_before: Collection[tuple[str, str]] | None = (),
    domain: str | None = None,
    senders: SenderMap | None = None,
    screening: Screening | None = None,
    bound: SourceBound | None = None,
) -> list[DomainAdvice]:
    """Advice per policy domain of the reports whose day is in ``first..last``.

    ``seen_before`` holds (policy domain, source IP) of stored reports before ``first``;
    the sources of the period not in it are marked new (None: the history is not all held, and
    no source is said to be new or not). ``domain`` keeps one policy domain.
    ``screening`` (:func:`screen_reports` of the same digests) says which reports count; without
    it the digests are held and screened here. ``bound`` (:func:`~.judge.source_bound` of the store they come
    from) says which sources are judged one by one; without it, every one.
    """
    wanted = _wanted(domain)
    if screening is None:
        digests = list(digests)
        by_id = {digest.id: digest for digest in digests}
        screening = screen_reports(totals_of(digests), first, last, wanted,
                                   content=lambda total: digest_content(by_id[total.id]))
    if screening.implausible and not isinstance(digests, list):
        digests = list(digests)  # read again if the implausible reports must be counted (see _more_cautious)

    def judged(screening: Screening) -> list[DomainAdvice]:
        counting = _Counting(first, last, wanted, screening)

        def chosen() -> Iterator[ReportDigest]:
            """The period's reports, counted per domain as the judging reads them: one pass, none held."""
            for report in digests:
                entry = counting.wanted_in(report)
                if entry is None:
                    continue
                messages = passed = 0  # summed over the records once
                for record in report.records:
                    messages += record.count
                    if record.passes:
                        passed += record.count
                counting.count(entry, report, messages, passed)
                yield report

        tallies = tallies_of(chosen(), senders=senders, bound=bound)
        return counting.advice(tallies.judge(names), seen_before, tallies)

    advice = judged(screening)
    doubtful = _doubtful(advice, screening)
    return _more_cautious(advice, judged(screening.counting_implausible()), doubtful) if doubtful else advice


def _doubtful(advice: list[DomainAdvice], screening: Screening) -> set[str]:
    """The domains with reports left out against a baseline (:func:`_more_cautious` judges them again)."""
    against_baseline = {screening.left_out[digest] for digest in screening.implausible}
    return {entry.domain for entry in advice if any(why in against_baseline for why in entry.left_out)}


CAUTION = {Verdict.READY: 0, Verdict.TOO_LITTLE_DATA: 1, Verdict.NOT_READY: 2}
"""How far a verdict holds a domain back (Enforced is the policy's word, not the reports')."""


def _more_cautious(advice: list[DomainAdvice], again: list[DomainAdvice], doubtful: set[str]) -> list[DomainAdvice]:
    """``advice``, but for a ``doubtful`` domain judged ``again`` with its implausible reports counted (and named)
    where that judgement holds the domain back further (:data:`CAUTION`).

    The baselines are outside evidence: forged small reports made a real reporter's reports implausible, and
    leaving those out hid their failing mail and called the domain ready, or "Too little data: 3 messages" beside
    10,000 real ones. Left out, an implausible report can then only hold a domain back.

    Judged as cautiously, counted they are kept too where they show failing mail the judgement without them hid
    (:func:`_shows_more_failing`): a real spoofing wave of 20,000 messages, reported by the domain's two usual
    reporters in reports 30 times their usual size, was left out, and ``--check`` said nothing (tester86)."""
    judged = {entry.domain: entry for entry in again if entry.domain in doubtful}

    def chosen(entry: DomainAdvice) -> DomainAdvice:
        counted = judged.get(entry.domain)
        if counted is None:
            return entry
        caution, counted_caution = CAUTION.get(entry.verdict, 3), CAUTION.get(counted.verdict, -1)
        if counted_caution > caution or (counted_caution == caution and _shows_more_failing(counted, entry)):
            return counted
        return entry

    return sorted(map(chosen, advice), key=lambda a: (-a.messages, a.domain))


def _shows_more_failing(counted: DomainAdvice, entry: DomainAdvice) -> bool:
    """Whether ``counted`` names a source failing more messages than ``entry`` says it does (or names it not)."""
    failing = {source.ip: source.failed for source in entry.sources}
    return any(source.failed > failing.get(source.ip, 0) for source in counted.sources)


def _wanted(domain: str | None) -> str | None:
    return domain.strip().rstrip(".").lower() if domain else None


def _with_reports(policy: PolicySeen, reports: int) -> PolicySeen:
    return PolicySeen(policy.p, policy.sp, policy.np, policy.adkim, policy.aspf, policy.testing, reports)


def _listed(items: list[str], total: int, separator: str = ", ") -> str:
    """The first :data:`LISTED_SOURCES` of ``items`` (``total`` in all), and how many more there are."""
    more = total - LISTED_SOURCES
    return separator.join(items[:LISTED_SOURCES]) + (f" and {more} more" if more > 0 else "")


def _named(sources: list[JudgedSource]) -> str:
    return _listed([f"{s.ip} ({s.service.name})" if s.service is not None else s.ip
                    for s in sources[:LISTED_SOURCES]], len(sources))


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _verb(subjects: list[JudgedSource], verb: str) -> str:
    return f"{verb}s" if len(subjects) == 1 else verb


def _named_by_outsider(name: str) -> str:
    """A name a report gave (its id) in a sentence: one line, cut as lists cut it.
    A 100,000-character organisation name made the verdict one line of 100,475 characters."""
    return safe_text(name, max_len=LIST_MAX)


def _reporter_named(name: str) -> str:
    """A reporter's name in a sentence (:func:`_named_by_outsider`), a look-alike domain name shown by its A-label
    first (``display.name_text``): ``gооgle.com`` beside ``google.com`` read as Google twice."""
    return name_text(name, max_len=LIST_MAX)


NONE_OWN = "; none of the domain's own mail"
"""Said of a reporter that saw no mail from the domain's authorised sources: it vouches for none."""
TOO_LITTLE_OWN = "; too little of the domain's own mail to count"
"""Said of a reporter that saw some, under :data:`VOUCHING_FLOOR`: its word does not count towards a "ready"."""


def _reporter_mark(view: ReporterView) -> str:
    if view.vouches:
        return ""
    return TOO_LITTLE_OWN if view.authorised else NONE_OWN


def _reporters_words(advice: DomainAdvice) -> str:
    views = list(advice.reporters.values())[:LISTED_SOURCES]
    shown = [f"{_reporter_named(view.name)} ({_count(view.reports, 'report')}{_reporter_mark(view)})"
             for view in views]
    return f"on the word of {_count(len(advice.reporters), 'reporter')}: {_listed(shown, len(advice.reporters))}"


def _left_out_words(advice: DomainAdvice) -> str:
    if not advice.left_out:
        return ""
    repeated = [r for r in advice.left_out if r.why == REPEATED]
    copied = [r for r in advice.left_out if r.copy_of is not None]
    odd = [r for r in advice.left_out if r not in repeated and r not in copied]
    parts = []
    if repeated:
        parts.append(f"{_count(len(repeated), 'repeated report')} counted once")
    if copied:
        shown = "; ".join(f"{_reporter_named(r.reporter)} report {_named_by_outsider(r.report_id)} says what"
                          f" {_reporter_named(r.copy_of[0])} report {_named_by_outsider(r.copy_of[1])} says"
                          for r in copied[:LISTED_SOURCES] if r.copy_of is not None)
        parts.append(f"{counted(len(copied), 'copy', 'copies')} of a counted report under another id ({shown})")
    if odd:
        shown = "; ".join(f"{_reporter_named(r.reporter)} report {_named_by_outsider(r.report_id)}: {r.why}"
                          for r in odd[:LISTED_SOURCES])
        parts.append(f"{_count(len(odd), 'implausible report')} left out ({shown})")
    return "Left out: " + "; ".join(parts) + "."


def _reports_words(headline: str, reports: list[LeftOut], *, why: bool) -> str:
    """``headline``: and the ``reports`` named by reporter and report id (``why``: each with its reason)."""
    if not reports:
        return ""
    shown = [f"{_reporter_named(r.reporter)} report {_named_by_outsider(r.report_id)}{f': {r.why}' if why else ''}"
             for r in reports[:LISTED_SOURCES]]
    return f"{headline}: {_count(len(reports), 'report')} ({_listed(shown, len(reports), '; ')})."


def _reused_words(advice: DomainAdvice) -> str:
    """The reports counted although another under their reporter and report id says otherwise."""
    return _reports_words("Counted although another report of the same reporter and report id says otherwise",
                          advice.reused, why=False)


def _disputed_words(advice: DomainAdvice) -> str:
    """The policies the reporters' latest reports give, when they disagree (the latest first: the one taken)."""
    if not advice.disputed:
        return ""
    given = [f"{policy.words()} ({_listed([_reporter_named(n) for n in names[:LISTED_SOURCES]], len(names))}:"
             f" {_count(messages, 'message')})" for policy, names, messages in advice.disputed[:LISTED_SOURCES]]
    return (f"The reporters' latest reports disagree on the published policy: {'; '.join(given)}. The advice takes"
            " the least enforced of them that 1% or more of a reporter's mail stands behind (reports can be forged);"
            f" the domain's DMARC record (_dmarc.{advice.domain}) says which is published.")


def _subdomain_words(advice: DomainAdvice) -> str:
    """The mail From subdomains that sp= governs: the next step on p does not act on it."""
    mail = advice.subdomains
    if mail is None:
        return ""
    domains = [name_text(d, max_len=LIST_MAX) for d in sorted(mail.domains)[:LISTED_SOURCES]]
    return (f"Left out of this judgement: {_count(mail.messages, 'message')} From subdomains"
            f" ({_listed(domains, len(mail.domains))}; {mail.failing:,} failing), which the published"
            f" {' or '.join(f'sp={sp}' for sp in sorted(mail.policies))} governs, not p: the next step on p does"
            " not act on them.")


def _unjudged_words(unjudged: UnjudgedMail, judged: int) -> str:
    """The mail of the sources past the bound (:data:`~.judge.MAX_JUDGED_SOURCES`): counted, not judged, so the
    domain is not called ready."""
    return (f"the reports name {unjudged.sources + judged:,} sources, too many to judge each: the {judged:,} with the"
            f" most messages are judged one by one, the other {_count(unjudged.sources, 'source')} sent"
            f" {_count(unjudged.messages, 'message')} ({unjudged.failing:,} failing DMARC), counted but not judged")


def _doubted_words(advice: DomainAdvice) -> str:
    """The reports counted although implausible against their baseline: left out, the advice was less cautious."""
    return _reports_words("Counted although implausible, since leaving them out made the advice less cautious",
                          advice.doubted, why=True)


def judge_domain(advice: DomainAdvice) -> tuple[Verdict, str]:
    """The verdict and its sentence, from the figures already in ``advice``.

    Ready needs all of: enough messages and reports, :data:`MIN_REPORTERS` independent reporters that each saw
    :data:`VOUCHING_FLOOR` authorised messages or more, authorised mail passing at :data:`READY_SHARE` or more both
    overall and in every reporter's own view (no reporter's volume outweighs another's), and no authorised source
    failing more than :data:`MAX_AUTHORISED_FAILING` messages. A forged report can then hold a domain back, and a
    made-up reporter's word counts towards "ready" only as a real one's does, from :data:`VOUCHING_FLOOR` messages
    of the domain's own mail: reports are unauthenticated, and no rule on their figures tells a forger who writes
    enough of them from a real reporter.
    """
    verdict, summary = _verdict(advice)
    resting = _reporters_words(advice)
    said = " ".join(words for words in (_disputed_words(advice), _subdomain_words(advice), _left_out_words(advice),
                                        _reused_words(advice), _doubted_words(advice)) if words)
    return verdict, f"{summary} {resting[0].upper()}{resting[1:]}." + (f" {said}" if said else "")


def _verdict(advice: DomainAdvice) -> tuple[Verdict, str]:
    if advice.messages < MIN_MESSAGES or advice.reports < MIN_REPORTS:
        return Verdict.TOO_LITTLE_DATA, (
            f"Too little data to judge: {_count(advice.messages, 'message')} in {_count(advice.reports, 'report')}"
            f" (at least {MIN_MESSAGES} messages in {MIN_REPORTS} reports are needed).")
    authorised = [s for s in advice.sources if s.authorised]  # any of its mail, its own class what it may
    need_dkim = [s for s in authorised if s.needs_dkim]
    failing = [s for s in authorised if s.authorised_failing]
    unknown = advice.by_class.get(SourceClass.UNKNOWN, ClassShare())
    rate = advice.authorised_rate
    evidence = [f"{format_rate(rate)} of mail from authorised sources passes" if rate is not None
                else "no mail from authorised sources was seen"]
    if failing:
        evidence.append(f"{_count(len(failing), 'authorised source')} {_verb(failing, 'fail')}: {_named(failing)}")
    if need_dkim:
        evidence.append(f"{_count(len(need_dkim), 'source')} {_verb(need_dkim, 'need')} DKIM: {_named(need_dkim)}")
    via = advice.by_class.get(SourceClass.VIA_PROVIDER, ClassShare())
    if via.messages:
        evidence.append(f"{_count(via.messages, 'message')} came via shared providers you have not said send for you")
    forwarded = advice.by_class.get(SourceClass.FORWARDED, ClassShare())
    if forwarded.failing:
        # Mail a forwarder or list broke: enforcement acts on it too, and only the forwarder can fix it (ARC, SRS).
        evidence.append(f"{_count(forwarded.failing, 'forwarded or mailing-list message')} would be acted on too")
    if unknown.messages:
        evidence.append(f"{_count(unknown.failing, 'message')} from unknown sources would be stopped")
    unjudged = advice.unjudged
    if unjudged is not None:
        evidence.append(_unjudged_words(unjudged, len(advice.sources)))
    if advice.next_step is None:
        return Verdict.ENFORCED, "Already at p=reject: " + "; ".join(evidence) + "."
    step = f"p={advice.next_step}"
    if advice.current is not None and advice.current.testing:
        step += " without t=y"
    over = [s for s in authorised if s.authorised_failing > MAX_AUTHORISED_FAILING]
    if over:
        evidence.append(f"{_count(len(over), 'authorised source')} {_verb(over, 'fail')} more than"
                        f" {MAX_AUTHORISED_FAILING} messages")
    doubting = [_reporter_named(view.name) + (f" (in {view.reports_under:,} of its reports)" if view.reports_under
                                              else "")
                for view in advice.reporters.values() if view.doubts]
    if doubting:
        evidence.append(f"authorised mail passes less than {format_rate(READY_SHARE)} as seen by "
                        + ", ".join(doubting[:LISTED_SOURCES]))
    if rate is None or rate < READY_SHARE or over or doubting or unjudged is not None:
        return Verdict.NOT_READY, f"Not ready for {step}: " + "; ".join(evidence) + "."
    if advice.authorised_messages < MIN_MESSAGES:
        # Spoofed mail counts towards the data, not towards knowing the domain's own mail: three
        # forged reports (4 authorised messages beside 1,000 spoofed ones) read as ready.
        return Verdict.TOO_LITTLE_DATA, (
            f"Too little of the domain's own mail seen to call it ready for {step}:"
            f" {_count(advice.authorised_messages, 'message')} from authorised sources (at least {MIN_MESSAGES}"
            " are needed); " + "; ".join(evidence) + ".")
    # A reporter that saw none of the domain's own mail vouches for none of it: a made-up one whose
    # records were all "From" another domain was the second reporter that made a domain ready. One that saw
    # too little of it vouches for none either (:data:`VOUCHING_FLOOR`): a made-up one's single message was.
    vouching = [view for view in advice.reporters.values() if view.vouches]
    if len(vouching) < MIN_REPORTERS:
        too_little = [view for view in advice.reporters.values() if view.authorised and not view.vouches]
        named = _listed([f"{_reporter_named(view.name)} ({_count(view.authorised, 'message')})"
                         for view in too_little[:LISTED_SOURCES]], len(too_little))
        return Verdict.TOO_LITTLE_DATA, (
            f"Too little data to call it ready for {step}: {_count(len(vouching), 'reporter')} saw enough of the"
            f" domain's own mail (at least {MIN_REPORTERS} independent reporters are needed, each of"
            f" {VOUCHING_FLOOR} authorised messages or more)"
            + (f"; {named} saw too little of it to count" if too_little else "")
            + "; " + "; ".join(evidence) + ".")
    return Verdict.READY, f"Ready for {step}: " + "; ".join(evidence) + "."


async def advise_stored(
    store: DigestStore,
    first: date,
    last: date,
    *,
    resolver: NameResolver | None = None,
    naming_budget: float | None = None,
    domain: str | None = None,
    senders: SenderMap | None = None,
) -> list[DomainAdvice]:
    """:func:`advise` over the stored reports of the period, sources named by ``resolver``: the same
    advice, from the stored rows (a report's sums are stored with it) and records as plain values, no
    digest read back (that cost as much as the judging).

    Waits for the names, at most ``naming_budget`` seconds.

    A view that must not wait calls :func:`advise` with what :meth:`NameResolver.known`
    says now, and again as :meth:`NameResolver.stream` brings names in.
    """
    wanted = _wanted(domain)
    with collector_paused():
        bound = source_bound(store, first, last, wanted)

    async def judged(screening: Screening | None) -> tuple[list[DomainAdvice], Screening]:
        # The reports' rows alone are screened and counted; then the records of those counted stream from the
        # store into tallies, a chunk of reports at a time. Held meanwhile: a shared context a report. The cycle
        # collector rests while they are counted and judged (not while names are awaited): tens of thousands of
        # rows and tallies, none of them in a cycle, made its passes a fifth of the judging (0.05 of 0.27 s CPU
        # at 9,666 reports) right after a sync, whose own survivors its first young pass went over.
        with collector_paused():
            reports = store.period_reports(first, last)
            if screening is None:
                screening = screen_reports(reports, first, last, wanted, content=stored_content(store))
            counting = _Counting(first, last, wanted, screening)
            contexts: dict[int, ReportContext] = {}
            shared: dict[ReportContext, ReportContext] = {}
            for report in reports:
                entry = counting.wanted_in(report)
                if entry is not None:
                    counting.count(entry, report, report.messages, report.passed)
                    context = report_context(report)
                    contexts[report.key] = shared.setdefault(context, context)
            del reports
            tallies = Tallies(store.records_of(list(contexts)), contexts, senders=senders, lists=stored_lists,
                              bound=bound)
            ips = tallies.ips()  # the sources counted: names are looked up for them only
        names = await resolver.resolve_all(ips, budget=naming_budget) if resolver is not None else {}
        with collector_paused():
            judged_sources = tallies.judge(names)
            return counting.advice(judged_sources, store.seen_before(first, ips), tallies), screening

    advice, screening = await judged(None)
    doubtful = _doubtful(advice, screening)
    if not doubtful:
        return advice
    again, _ = await judged(screening.counting_implausible())
    return _more_cautious(advice, again, doubtful)
