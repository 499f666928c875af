"""The figures of one period, as the analytics view shows them, and their form on disk.

:class:`~jmapclient.dmarc.digest_store.DigestStore` aggregates them by SQL and keeps the
latest ones in its file, so a console started again shows an unchanged period without
aggregating tens of thousands of reports again. The stored form is JSON (never code to
run): a row that does not read back is aggregated again, like a damaged file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from typing import Any

from jmapclient.dmarc.analytics import (
    DayStat,
    DomainRate,
    FailingRecord,
    Hint,
    Overview,
    RecordDigest,
    ReportDigest,
    SourceStat,
)
from jmapclient.encoding import parse_utc
from jmapclient.file_safety import json_bounded

NO_TIME = parse_utc("1970-01-01T00:00:00Z")
"""The period of a failing record's report: the figures name the report, they do not date it."""


@dataclass(frozen=True)
class Headline:
    """What the figures of a period say first: the totals, the policy domains and the days.

    Added up from the reports' own sums, without their records (a fifth of the figures' work at
    53,000 reports): what a first visit shows at once (the status line, the Domains tab, the chart),
    while the sources and the failing records are still being added up.
    """

    first: date
    last: date
    overview: Overview
    domains: list[DomainRate]
    daily: list[DayStat]


@dataclass(frozen=True)
class Figures:
    """Everything the analytics view shows for one period."""

    first: date
    last: date
    overview: Overview
    domains: list[DomainRate]
    sources: list[SourceStat]
    daily: list[DayStat]
    failing: list[FailingRecord]

    @property
    def headline(self) -> Headline:
        return Headline(self.first, self.last, self.overview, self.domains, self.daily)

    @classmethod
    def of(cls, headline: Headline, sources: list[SourceStat], failing: list[FailingRecord]) -> Figures:
        """The whole figures: ``headline`` with the sources and failing records of the same period."""
        return cls(headline.first, headline.last, headline.overview, headline.domains, sources, headline.daily,
                   failing)


def failing_record(report_id: str, org: str, domain: str, record: RecordDigest, hint: str) -> FailingRecord:
    """A failing record as the figures hold it: its report by id, reporter and domain only."""
    report = ReportDigest(id=report_id, reporter=org, report_id="", policy_domain=domain, begin=NO_TIME, end=NO_TIME)
    return FailingRecord(report, record, Hint(hint) if hint else None)


def figures_json(figures: Figures) -> str:
    return json.dumps({
        "first": figures.first.isoformat(),
        "last": figures.last.isoformat(),
        "overview": [figures.overview.reports, figures.overview.messages, figures.overview.passed],
        "domains": [[d.domain, d.messages, d.passed, d.reports] for d in figures.domains],
        "sources": [[s.source_ip, s.messages, s.passed, sorted(s.domains), sorted(s.reporters),
                     {str(hint): count for hint, count in s.hints.items()}] for s in figures.sources],
        "daily": [[d.day.isoformat(), d.messages, d.passed] for d in figures.daily],
        "failing": [[f.report.id, f.report.reporter, f.report.policy_domain, f.record.source_ip, f.record.count,
                     f.record.disposition, f.record.dkim, f.record.spf, f.record.header_from,
                     f.record.envelope_from, str(f.hint or "")] for f in figures.failing],
    })


def figures_from_json(text: str) -> Figures:
    """The figures :func:`figures_json` wrote; ValueError (or KeyError, TypeError) for anything else."""
    data: dict[str, Any] = json_bounded(text)  # bounded: a deeply nested entry raised RecursionError
    return Figures(
        date.fromisoformat(data["first"]),
        date.fromisoformat(data["last"]),
        Overview(*data["overview"]),
        [DomainRate(domain, messages=messages, passed=passed, reports=reports)
         for domain, messages, passed, reports in data["domains"]],
        [SourceStat(ip, messages=messages, passed=passed, domains=set(domains), reporters=set(reporters),
                    hints={Hint(hint): count for hint, count in hints.items()})
         for ip, messages, passed, domains, reporters, hints in data["sources"]],
        [DayStat(date.fromisoformat(day), messages, passed) for day, messages, passed in data["daily"]],
        [failing_record(report_id, org, domain,
                        RecordDigest(source_ip=ip, count=count, disposition=disposition, dkim=dkim, spf=spf,
                                     header_from=header_from, envelope_from=envelope_from), hint)
         for (report_id, org, domain, ip, count, disposition, dkim, spf, header_from, envelope_from, hint)
         in data["failing"]],
    )
