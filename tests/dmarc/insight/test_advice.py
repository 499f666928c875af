"""The advisor's figures and verdicts on report sets small enough to add up by hand."""

from __future__ import annotations

from datetime import date

import pytest

from jmapclient.dmarc.digest_store import DigestStore
from jmapclient.dmarc.insight.advice import MIN_MESSAGES, VOUCHING_FLOOR, Verdict, advise, advise_stored
from jmapclient.dmarc.insight.judge import SourceClass
from jmapclient.dmarc.insight.names import NameResolver
from jmapclient.dmarc.insight.services import load_senders
from tests.support.insight_reports import aligned, record, report

FIRST, LAST = date(2026, 3, 1), date(2026, 3, 7)

SPF_ONLY = record("192.0.2.30", 20, spf="pass", spf_auth=(("example.com", "pass"),))
FORWARDED = record("203.0.113.15", 5, dkim="pass", dkim_auth=(("example.com", "pass"),),
                   spf_auth=(("example.com", "fail"),))
SPOOF = record("203.0.113.99", 10)
ESP = record("198.51.100.21", 15, dkim_auth=(("sendgrid.net", "pass"),), spf_auth=(("bounces.sendgrid.net", "pass"),))


OWNS_SENDGRID = load_senders().with_owned(["sendgrid.net"])
"""The owner has said SendGrid sends for the domain."""


def period_reports(*, esp: bool = True) -> list:
    return [
        report(aligned("192.0.2.10", 100), SPF_ONLY, FORWARDED, SPOOF, day=date(2026, 3, 2), reporter="google.com"),
        report(aligned("192.0.2.10", 50), *([ESP] if esp else []), day=date(2026, 3, 3), reporter="Yahoo"),
    ]


def test_figures_by_hand() -> None:
    [advice] = advise(period_reports(), FIRST, LAST, senders=OWNS_SENDGRID)
    # 100 + 20 + 5 + 10 + 50 + 15 messages; all but the spoof (10) and the ESP (15) pass.
    assert (advice.reports, advice.messages, advice.passed, advice.affected) == (2, 200, 175, 25)
    assert {k: (v.messages, v.failing) for k, v in advice.by_class.items()} == {
        SourceClass.ALIGNED: (170, 0),  # 150 own + 20 SPF-only
        SourceClass.MISALIGNED: (15, 15),
        SourceClass.FORWARDED: (5, 0),  # DKIM survived: it passes
        SourceClass.UNKNOWN: (10, 10),
    }
    assert list(advice.by_class) == [k for k in SourceClass if k is not SourceClass.VIA_PROVIDER]  # the table's order
    assert advice.authorised_rate == pytest.approx(170 / 185)
    assert advice.current is not None and advice.current.p == "none" and advice.next_step == "quarantine"
    assert advice.verdict is Verdict.NOT_READY
    assert advice.summary.startswith("Not ready for p=quarantine: 91.9% of mail from authorised sources passes;")
    assert "1 authorised source fails: 198.51.100.21 (SendGrid)" in advice.summary
    assert "2 sources need DKIM: 192.0.2.30, 198.51.100.21 (SendGrid)" in advice.summary  # busiest first
    assert "10 messages from unknown sources would be stopped" in advice.summary


def test_ready_when_authorised_mail_passes() -> None:
    [advice] = advise(period_reports(esp=False), FIRST, LAST)
    assert advice.authorised_rate == 1.0
    assert advice.verdict is Verdict.READY
    assert advice.summary.startswith("Ready for p=quarantine: 100.0% of mail from authorised sources passes;")
    assert "1 source needs DKIM: 192.0.2.30" in advice.summary


def test_at_reject_there_is_no_next_step() -> None:
    [advice] = advise([report(aligned("192.0.2.10", 200), day=date(2026, 3, 2), p="reject"),
                       report(aligned("192.0.2.10", 1), day=date(2026, 3, 3), p="reject")], FIRST, LAST)
    assert advice.next_step is None and advice.verdict is Verdict.ENFORCED
    assert advice.summary.startswith("Already at p=reject")


def test_the_latest_policy_is_current_and_every_policy_seen_is_counted() -> None:
    reports = [report(aligned("192.0.2.10", 60), day=date(2026, 3, d), p=p, testing=t, reporter=f"reporter-{d % 2}")
               for d, p, t in ((2, "none", False), (3, "none", False), (4, "quarantine", True))]
    [advice] = advise(reports, FIRST, LAST)
    assert advice.current is not None and advice.current.words() == "p=quarantine adkim=r aspf=r t=y"
    assert [(p.p, p.reports) for p in advice.policies] == [("none", 2), ("quarantine", 1)]
    # In testing mode receivers apply one step less: the next step is quarantine for real.
    assert advice.current.enforced == "none" and advice.next_step == "quarantine"
    assert advice.summary.startswith("Ready for p=quarantine without t=y:")


def test_too_little_data_is_said_with_the_threshold() -> None:
    [advice] = advise([report(aligned("192.0.2.10", MIN_MESSAGES - 1), day=date(2026, 3, 2)),
                       report(aligned("192.0.2.10", 0), day=date(2026, 3, 3))], FIRST, LAST)
    assert advice.verdict is Verdict.TOO_LITTLE_DATA
    assert advice.summary.startswith(f"Too little data to judge: {MIN_MESSAGES - 1} messages in 2 reports"
                                     f" (at least {MIN_MESSAGES} messages in 2 reports are needed).")
    [single] = advise([report(aligned("192.0.2.10", 5000), day=date(2026, 3, 2))], FIRST, LAST)
    assert single.verdict is Verdict.TOO_LITTLE_DATA  # one report is one receiver's day


def test_an_empty_period_gives_no_advice() -> None:
    assert advise([], FIRST, LAST) == []
    assert advise(period_reports(), date(2026, 4, 1), date(2026, 4, 30)) == []


def test_only_the_period_and_the_domain_asked_for_count() -> None:
    outside = report(aligned("192.0.2.10", 999), day=date(2026, 2, 20))
    other = report(SPOOF, domain="example.org", day=date(2026, 3, 2))
    advice = advise([*period_reports(), outside, other], FIRST, LAST, domain="Example.COM.")
    assert [(a.domain, a.messages) for a in advice] == [("example.com", 200)]


def test_everything_spoofed_is_not_ready() -> None:
    reports = [report(record("203.0.113.99", 100), day=date(2026, 3, d)) for d in (2, 3)]
    [advice] = advise(reports, FIRST, LAST)
    assert advice.authorised_rate is None and advice.verdict is Verdict.NOT_READY
    assert "no mail from authorised sources was seen" in advice.summary


async def test_sources_first_seen_in_the_period_are_new() -> None:
    store = DigestStore(None)
    before = report(aligned("192.0.2.10", 7), SPOOF, domain="example.org", day=date(2026, 2, 10))
    earlier = report(aligned("192.0.2.10", 7), day=date(2026, 2, 20))
    unlisted = report(SPF_ONLY, day=date(2026, 2, 21), rid="deleted-on-the-server")
    reports = [*period_reports(), before, earlier, unlisted]
    store.put(reports)
    store.mark_listed([r.id for r in reports if r is not unlisted])
    [advice] = await advise_stored(store, FIRST, LAST, resolver=NameResolver(offline=True), domain="example.com")
    # 192.0.2.10 sent for example.com before the period; 203.0.113.99 only for example.org, so it is new here;
    # 192.0.2.30 is in a report the server no longer lists, which does not count.
    assert {s.ip: s.new for s in advice.sources} == {
        "192.0.2.10": False, "192.0.2.30": True, "203.0.113.15": True, "203.0.113.99": True, "198.51.100.21": True,
    }
    assert all(s.name is not None and s.name.status == "offline" for s in advice.sources)
    assert advice.to_json()["sources"][0] | {"messages": 0} == {
        "ip": "192.0.2.10", "name": None, "nameStatus": "offline", "baseDomain": None, "service": None,
        "serviceKind": None, "class": "authorised, aligned",
        "reason": "passes aligned with example.com: DKIM d=example.com and SPF example.com", "fixes": [],
        "messages": 0, "passed": 150, "headerFrom": ["example.com"], "new": False,
    }


def test_forwarded_mail_that_fails_is_counted_in_the_evidence() -> None:
    broken = record("203.0.113.15", 6, overrides=("Forwarded",))  # DKIM did not survive the hop
    [advice] = advise([report(aligned("192.0.2.10", 100), broken, day=date(2026, 3, 2), reporter="a"),
                       report(aligned("192.0.2.10", 100), day=date(2026, 3, 3), reporter="b")], FIRST, LAST)
    assert advice.by_class[SourceClass.FORWARDED].failing == 6 and advice.verdict is Verdict.READY
    assert "6 forwarded or mailing-list messages would be acted on too" in advice.summary
    [clean] = advise(period_reports(), FIRST, LAST)
    assert "forwarded" not in clean.summary  # its forwarder's DKIM survived: nothing acted on


@pytest.mark.parametrize(("passing", "verdict"), [(98, Verdict.READY), (97, Verdict.NOT_READY)])
def test_exactly_98_percent_of_authorised_mail_passing_is_ready(passing: int, verdict: Verdict) -> None:
    # 100 messages from authorised sources: the own server's pass, an ESP's fail (misaligned).
    failing = record("198.51.100.21", 100 - passing, dkim_auth=(("sendgrid.net", "pass"),),
                     spf_auth=(("bounces.sendgrid.net", "pass"),))
    # Two reporters, each seeing enough to count (one alone cannot make a domain ready), and SendGrid said to send
    # for the owner.
    reports = [report(aligned("192.0.2.10", passing - VOUCHING_FLOOR), failing, day=date(2026, 3, 2), reporter="a"),
               report(aligned("192.0.2.10", VOUCHING_FLOOR), day=date(2026, 3, 3), reporter="b")]
    [advice] = advise(reports, FIRST, LAST, senders=OWNS_SENDGRID)
    assert advice.messages == 100 and advice.authorised_rate == pytest.approx(passing / 100)
    assert advice.verdict is verdict


def test_counts_in_the_advice_sentences_are_grouped_as_the_tables_are() -> None:
    # "65048 messages" in the prose beside "65,048" in the tables (the new user's finding).
    [advice] = advise([report(aligned("192.0.2.10", 1234), day=date(2026, 3, 2))], FIRST, LAST)
    assert advice.summary.startswith("Too little data to judge: 1,234 messages in 1 report"), advice.summary


@pytest.mark.parametrize("raw_results", [True, False], ids=["signed for the other domain", "evaluated pass only"])
async def test_a_forged_report_of_another_from_domain_does_not_make_a_domain_ready(raw_results: bool) -> None:
    # The tester's: three true reports of 20 messages (too little data), then one from a made-up reporter
    # whose 900 messages are "From" another domain, signed and passing for it: "Ready for p=quarantine".
    true = [report(aligned("192.0.2.10", 20), day=date(2026, 3, day), reporter="google.com") for day in (2, 3, 4)]
    other = (record("198.51.100.99", 900, dkim="pass", spf="pass", header_from="other.example",
                    dkim_auth=(("other.example", "pass"),), spf_auth=(("other.example", "pass"),))
             if raw_results else record("198.51.100.99", 900, dkim="pass", spf="pass", header_from="other.example"))
    forged = report(other, day=date(2026, 3, 5), reporter="Outlook")
    [alone] = advise(true, FIRST, LAST)
    [advice] = advise([*true, forged], FIRST, LAST)
    assert alone.verdict is Verdict.TOO_LITTLE_DATA
    assert advice.verdict is not Verdict.READY, advice.summary
    assert SourceClass.ALIGNED not in {source.klass for source in advice.sources if source.ip == "198.51.100.99"}
    store = DigestStore(None)
    store.put([*true, forged])
    store.mark_listed([r.id for r in [*true, forged]])
    [stored] = await advise_stored(store, FIRST, LAST, resolver=NameResolver(offline=True))
    assert stored.verdict is advice.verdict  # the command's path judges alike


def test_mail_from_a_subdomain_of_the_policy_domain_is_the_domain_s_own() -> None:
    sub = record("192.0.2.11", 200, dkim="pass", spf="pass", header_from="news.example.com",
                 dkim_auth=(("news.example.com", "pass"),), spf_auth=(("example.com", "pass"),))
    reports = [report(sub, day=date(2026, 3, 2), reporter="google.com"),
               report(sub, day=date(2026, 3, 3), reporter="Yahoo")]
    [advice] = advise(reports, FIRST, LAST)
    assert advice.verdict is Verdict.READY, advice.summary


def test_a_line_break_in_a_reporter_s_name_is_shown_not_hidden() -> None:
    # It was shown as a space, in the sentence and in --json's reporters (the tester's "Org second line").
    reports = [report(aligned("192.0.2.10", 80), day=date(2026, 3, 2), reporter="Org\nsecond line"),
               report(aligned("192.0.2.10", 80), day=date(2026, 3, 3), reporter="google.com")]
    [advice] = advise(reports, FIRST, LAST)
    assert "Org\\nsecond line (1 report)" in advice.summary and "\n" not in advice.summary
    assert "Org\nsecond line" in advice.to_json()["reporters"]


async def test_a_count_past_the_store_s_cap_is_said_as_a_floor() -> None:
    # "Hugeco report P40: 1,099,511,627,776 messages" of a report that claims 1,099,511,640,121: the
    # store counts a record up to 2^40, and the capped sum was said as the report's own (the tester's).
    usual = [report(aligned("192.0.2.10", 50), day=date(2026, 3, day), reporter="Hugeco") for day in (2, 3, 4)]
    huge = report(aligned("192.0.2.10", 2**40 + 12_345), day=date(2026, 3, 5), reporter="Hugeco", report_id="P40")
    store = DigestStore(None)
    store.put([*usual, huge])
    store.mark_listed([r.id for r in [*usual, huge]])
    [advice] = await advise_stored(store, FIRST, LAST, resolver=NameResolver(offline=True))
    assert "Hugeco report P40: at least 1,099,511,627,776 messages (2^40 or more): no real report holds so many" \
        in advice.summary, advice.summary


async def test_a_reporter_that_saw_none_of_the_domain_s_own_mail_is_not_the_second_reporter() -> None:
    # Enough of the domain's own mail, from one true reporter; a made-up second reporter whose records
    # are all "From" another domain made it "Ready for p=quarantine ... on the word of 2 reporters".
    true = [report(aligned("192.0.2.10", 60), day=date(2026, 3, day), reporter="google.com") for day in (2, 3, 4)]
    other = record("198.51.100.99", 900, dkim="pass", spf="pass", header_from="other.example",
                   dkim_auth=(("other.example", "pass"),), spf_auth=(("other.example", "pass"),))
    forged = report(other, day=date(2026, 3, 5), reporter="Outlook")
    [advice] = advise([*true, forged], FIRST, LAST)
    assert advice.authorised_messages == 180 and advice.authorised_rate == 1.0
    assert advice.verdict is Verdict.TOO_LITTLE_DATA, advice.summary
    assert "1 reporter saw enough of the domain's own mail (at least 2 independent reporters are needed" \
        in advice.summary
    assert "Outlook (1 report; none of the domain's own mail)" in advice.summary
    assert "google.com (3 reports)." in advice.summary
    store = DigestStore(None)
    store.put([*true, forged])
    store.mark_listed([r.id for r in [*true, forged]])
    [stored] = await advise_stored(store, FIRST, LAST, resolver=NameResolver(offline=True))
    assert (stored.verdict, stored.summary) == (advice.verdict, advice.summary)  # the command's path alike
    # A true second reporter that saw enough of the domain's own mail makes it ready.
    [both] = advise([*true, forged, report(aligned("192.0.2.10", VOUCHING_FLOOR), day=date(2026, 3, 6),
                                           reporter="yahoo")],
                    FIRST, LAST)
    assert both.verdict is Verdict.READY, both.summary
