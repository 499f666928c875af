"""The advice over a store (its rows summed, its records tallied) says what the advice over its digests says.

``advise_stored`` no longer reads a digest back: it counts the reports' stored rows and judges the records as
plain values, a tally a source, pattern and reporter. Whatever depends on the order of the records (the reason
of a class when two records tie, the service a source is known by from its first confirming record, the fixes'
order) must come out as the record-by-record path (``advise`` over ``store.digests``) has it.
"""

from __future__ import annotations

import gc
import json
from datetime import date
from pathlib import Path

import pytest

from jmapclient.dmarc.analytics import ReportDigest
from jmapclient.dmarc.digest_reads import StoredLists, stored_lists
from jmapclient.dmarc.digest_store import DigestStore
from jmapclient.dmarc.insight.advice import advise, advise_stored
from jmapclient.dmarc.insight.judge import Tallies, report_context, source_bound
from jmapclient.dmarc.insight.names import NameResolver
from jmapclient.dmarc.insight.services import load_senders
from tests.support.insight_reports import aligned, record, report

FIRST, LAST = date(2026, 3, 1), date(2026, 3, 7)
EXPECTED = Path(__file__).with_name("advice_stored_expected.json")
"""The advice on :func:`mixed`, as 7d84fe6 gave it (every digest read back, judged record by record)."""
SPF_ALIGNED = dict(spf="pass", spf_auth=(("example.com", "pass"),))
ESP = dict(dkim_auth=(("sendgrid.net", "pass"),), spf_auth=(("bounces.sendgrid.net", "pass"),))


def mixed() -> tuple[list[ReportDigest], set[str]]:
    """Reports of two domains, in and out of the period, with every order-dependent case; and those unlisted."""
    day = [date(2026, 3, d) for d in range(1, 8)]
    reports = [
        # One class, two reasons, tied at 10: the DKIM-and-SPF record's 10 comes first, the SPF-only one's
        # pattern first (its 5). The reason is the first 10's.
        report(record("192.0.2.20", 5, **SPF_ALIGNED), aligned("192.0.2.20", 10), record("192.0.2.20", 10,
               **SPF_ALIGNED), day=day[0], reporter="Google.com"),
        # Spoofing from an address, then a SendGrid record from it (the source's service from then on), then
        # the spoofing again, bigger, from the same reporter: its reason names the service only after.
        report(record("198.51.100.21", 30), day=day[1], reporter="Yahoo"),
        report(record("198.51.100.21", 3, **ESP), record("198.51.100.21", 40), day=day[2], reporter="Yahoo"),
        report(record("203.0.113.15", 7, dkim="pass", dkim_auth=(("example.com", "pass"),),
                      spf_auth=(("example.com", "fail"),)),
               record("203.0.113.16", 4, overrides=("MailingList",)), aligned("192.0.2.10", 60), day=day[3],
               reporter="Yahoo", p="quarantine", testing=True),
        # Repeated (a copy: same reporter, report id and contents, another digest) and implausible (a reporter's
        # own median x20).
        report(record("203.0.113.15", 7, dkim="pass", dkim_auth=(("example.com", "pass"),),
                      spf_auth=(("example.com", "fail"),)),
               record("203.0.113.16", 4, overrides=("MailingList",)), aligned("192.0.2.10", 60), day=day[3],
               reporter="yahoo", p="quarantine", testing=True, rid="again",
               report_id=f"example.com-{day[3]}-3-203.0.113.15"),
        report(aligned("192.0.2.11", 20), day=day[4], reporter=" mail.RU "),
        report(aligned("192.0.2.11", 22), day=day[5], reporter="Mail.ru"),
        report(aligned("192.0.2.11", 21), day=day[6], reporter="Mail.ru", p="reject"),
        report(aligned("192.0.2.11", 50_000), day=day[6], reporter="Mail.ru", rid="huge"),
        # Another domain; one report before the period, one the server no longer lists.
        report(aligned("192.0.2.10", 200, "example.org"), record("203.0.113.99", 9, header_from="example.org"),
               domain="example.org", day=day[2]),
        report(aligned("192.0.2.12", 8, "example.org"), domain="example.org", day=date(2026, 2, 20)),
        report(record("203.0.113.98", 5, header_from="example.org"), domain="example.org", day=day[4],
               rid="deleted"),
    ]
    return reports, {"deleted"}


def filled() -> DigestStore:
    store = DigestStore(None)
    reports, unlisted = mixed()
    store.put(reports)
    store.mark_listed([r.id for r in reports if r.id not in unlisted])
    return store


@pytest.mark.parametrize("domain", [None, "example.com", "Example.ORG."])
@pytest.mark.parametrize("owned", [(), ("sendgrid.net",)])
async def test_the_stored_advice_is_what_it_was_before(domain: str | None, owned: tuple[str, ...]) -> None:
    advice = await advise_stored(filled(), FIRST, LAST, resolver=NameResolver(offline=True), domain=domain,
                                 senders=load_senders().with_owned(owned))
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))[f"{domain}|{','.join(owned)}"]
    assert [a.to_json() for a in advice] == expected


@pytest.mark.parametrize("domain", [None, "example.com", "Example.ORG."])
@pytest.mark.parametrize("owned", [(), ("sendgrid.net",)])
async def test_the_stored_advice_is_the_digests_advice(domain: str | None, owned: tuple[str, ...]) -> None:
    store = filled()
    senders = load_senders().with_owned(owned)
    stored = await advise_stored(store, FIRST, LAST, resolver=NameResolver(offline=True), domain=domain,
                                 senders=senders)
    bound = source_bound(store, FIRST, LAST)
    names = await NameResolver(offline=True).resolve_all(bound.ips)
    digests = advise(store.digests(FIRST, LAST), FIRST, LAST, names=names,
                     seen_before=store.seen_before(FIRST, bound.ips), domain=domain, senders=senders, bound=bound)
    assert [a.to_json() for a in stored] == [a.to_json() for a in digests]
    assert stored  # and the cases are there to be told apart:
    com = next((a for a in stored if a.domain == "example.com"), None)
    if com is not None:
        by_ip = {s.ip: s for s in com.sources}
        assert by_ip["192.0.2.20"].reason.startswith("passes aligned with example.com: DKIM d=example.com and SPF")
        assert "SendGrid's servers" in by_ip["198.51.100.21"].reason  # the 40 came after the service was known
        assert sorted(r.why[:20] for r in com.left_out) == ["50,000 messages, ove", "the same report (rep"]


async def test_the_stored_advice_reads_no_digest_back(monkeypatch: pytest.MonkeyPatch) -> None:
    # Reading every digest of the period back (a report and record objects each) cost as much as the judging.
    store = filled()
    expected = [a.to_json() for a in await advise_stored(store, FIRST, LAST, resolver=NameResolver(offline=True))]

    def no_digests(*_: object) -> None:
        raise AssertionError("the advice read the digests back")

    monkeypatch.setattr(store, "digests", no_digests)
    assert [a.to_json() for a in await advise_stored(store, FIRST, LAST, resolver=NameResolver(offline=True))] \
        == expected


def test_a_records_lists_are_read_once_a_tally_not_once_a_record() -> None:
    # Reading three lists a record (28,849 records at 20,000 reports) cost as much as fetching the rows; records
    # repeat a few shapes, so the stored lists are read when a tally opens, the rows handed on as SQLite gives them.
    store = filled()
    reports = store.period_reports(FIRST, LAST)
    contexts = {r.key: report_context(r) for r in reports}
    records = list(store.records_of(list(contexts)))
    assert all(type(r[6]) is str and type(r[7]) is str for r in records)  # as stored: JSON text
    read: list[tuple[str, str, str]] = []

    def lists(overrides: str, dkim_auth: str, spf_auth: str) -> StoredLists:
        read.append((overrides, dkim_auth, spf_auth))
        return stored_lists(overrides, dkim_auth, spf_auth)

    tallies = Tallies(records, contexts, lists=lists)
    assert 0 < len(read) == len(tallies._tallies) < len(records)


async def test_the_collector_rests_while_the_advice_counts_and_judges(monkeypatch: pytest.MonkeyPatch) -> None:
    # Its passes over the rows and tallies (none in a cycle) were a fifth of the judging's CPU after a sync.
    store = filled()
    seen: dict[str, bool] = {}
    reads, judges = store.records_of, Tallies.judge

    def records_of(keys: list[int]) -> object:
        seen["counting"] = gc.isenabled()
        return reads(keys)

    def judge(self: Tallies, names: object = None) -> object:
        seen["judging"] = gc.isenabled()
        return judges(self, names)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "records_of", records_of)
    monkeypatch.setattr(Tallies, "judge", judge)
    assert gc.isenabled()
    await advise_stored(store, FIRST, LAST, resolver=NameResolver(offline=True))
    assert seen == {"counting": False, "judging": False}
    assert gc.isenabled()  # back on after
