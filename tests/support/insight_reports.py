"""Small synthetic report digests for the insight tests: every figure in them can be added up by hand."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from jmapclient.dmarc.analytics import RecordDigest, ReportDigest

DAY = date(2026, 3, 1)


def record(
    ip: str, count: int, *, dkim: str = "fail", spf: str = "fail", header_from: str = "example.com",
    dkim_auth: tuple[tuple[str, str], ...] = (), spf_auth: tuple[tuple[str, str], ...] = (),
    overrides: tuple[str, ...] = (),
) -> RecordDigest:
    return RecordDigest(source_ip=ip, count=count, disposition="none", dkim=dkim, spf=spf, header_from=header_from,
                        envelope_from="", overrides=overrides, dkim_auth=dkim_auth, spf_auth=spf_auth)


def report(
    *records: RecordDigest, domain: str = "example.com", day: date = DAY, p: str = "none", adkim: str = "relaxed",
    aspf: str = "relaxed", testing: bool = False, rid: str = "", reporter: str = "r", report_id: str = "",
) -> ReportDigest:
    """A report digest; its report id is its own unless given (a repeat of a report shares reporter and id)."""
    begin = datetime(day.year, day.month, day.day, tzinfo=UTC)
    digest_id = rid or f"{domain}-{day}-{len(records)}-{records[0].source_ip if records else ''}"
    return ReportDigest(id=digest_id, reporter=reporter, report_id=report_id or digest_id, policy_domain=domain,
                        begin=begin,
                        end=begin + timedelta(days=1, seconds=-1), records=records, p=p, sp="", np="",
                        adkim=adkim, aspf=aspf, testing=testing)


def aligned(ip: str, count: int, domain: str = "example.com") -> RecordDigest:
    """Mail the domain sends itself: DKIM and SPF pass, aligned."""
    return record(ip, count, dkim="pass", spf="pass", header_from=domain,
                  dkim_auth=((domain, "pass"),), spf_auth=((domain, "pass"),))
