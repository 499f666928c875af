"""Small synthetic report digests for the insight tests: every figure in them can be added up by hand."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from jmapclient.dmarc.analytics import RecordDigest, ReportDigest
from jmapclient.dmarc.digest_store import DigestStore
from jmapclient.dmarc.insight.advice import DomainAdvice, advise, advise_stored
from jmapclient.dmarc.insight.judge import source_bound
from jmapclient.dmarc.insight.names import NameResolver
from jmapclient.dmarc.insight.services import load_senders

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
    aspf: str = "relaxed", testing: bool = False, rid: str = "", reporter: str = "r", report_id: str = "", sp: str = "",
) -> ReportDigest:
    """A report digest; its report id is its own unless given (a repeat of a report shares reporter and id)."""
    begin = datetime(day.year, day.month, day.day, tzinfo=UTC)
    digest_id = rid or f"{domain}-{day}-{len(records)}-{records[0].source_ip if records else ''}"
    return ReportDigest(id=digest_id, reporter=reporter, report_id=report_id or digest_id, policy_domain=domain,
                        begin=begin,
                        end=begin + timedelta(days=1, seconds=-1), records=records, p=p, sp=sp, np="",
                        adkim=adkim, aspf=aspf, testing=testing)


def aligned(ip: str, count: int, domain: str = "example.com") -> RecordDigest:
    """Mail the domain sends itself: DKIM and SPF pass, aligned."""
    return record(ip, count, dkim="pass", spf="pass", header_from=domain,
                  dkim_auth=((domain, "pass"),), spf_auth=((domain, "pass"),))


PERIOD = (date(2026, 3, 1), date(2026, 3, 7))
"""The week the insight tests judge."""


async def both_ways(reports: list[ReportDigest], domain: str | None = None,
                    owned: tuple[str, ...] = ("sendgrid.net",)) -> list[DomainAdvice]:
    """The advice over ``PERIOD`` of the digests and of a store of them, held equal: the console's and the
    command's (the domain owning the senders ``owned``)."""
    first, last = PERIOD
    senders = load_senders().with_owned(list(owned))
    store = DigestStore(None)
    store.put(reports)
    store.mark_listed([r.id for r in reports])
    try:
        stored = await advise_stored(store, first, last, resolver=NameResolver(offline=True), domain=domain,
                                     senders=senders)
        bound = source_bound(store, first, last)
        names = await NameResolver(offline=True).resolve_all(bound.ips)
        digests = advise(reports, first, last, names=names, seen_before=store.seen_before(first, bound.ips),
                         domain=domain, senders=senders, bound=bound)
    finally:
        store.close()
    assert [a.to_json() for a in stored] == [a.to_json() for a in digests]
    return stored
