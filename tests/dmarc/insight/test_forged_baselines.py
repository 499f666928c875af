"""Forged reports cannot make a real reporter's reports implausible and so call a domain ready.

A report holding 20 times its baseline's messages (its reporter's median report, or the other reporters')
is left out as implausible. The baselines are outside evidence: six forged reports of 60 passing messages,
under two made-up reporters, made a real reporter's two reports of 5,000 "over 20× the other reporters'
median", and leaving those out hid their 1,000 failing messages of the domain's own sender. The advice said
"Ready" and ``--check`` said nothing (the tester's; one forged 3-message report did it too).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime

from jmapclient.dmarc.analytics import ReportDigest
from jmapclient.dmarc.attention import attention
from jmapclient.dmarc.insight.advice import Verdict
from jmapclient.dmarc.insight.judge import SourceClass
from tests.support.insight_reports import aligned, both_ways, record, report

# The domain's own sender (it uses SendGrid) whose mail fails DMARC: authorised, misaligned.
ESP_FAILING = dict(dkim_auth=(("sendgrid.net", "pass"),), spf_auth=(("bounces.sendgrid.net", "pass"),))


def real() -> list[ReportDigest]:
    """One big reporter's two reports: 4,000 passing messages each, and 1,000 of the domain's own sender failing."""
    return [report(aligned("192.0.2.10", 4000), record("198.51.100.20", 1000, **ESP_FAILING),  # type: ignore[arg-type]
                   day=date(2026, 3, d), reporter="google.com", rid=f"g{d}") for d in (2, 4)]


def forged(reporters: tuple[str, ...], count: int = 60, per_reporter: int = 3) -> list[ReportDigest]:
    """Small reports of only passing mail from the domain's own server, under made-up reporters."""
    # Each made-up reporter's its own: the same records under two names are one report's copy (test_reused_ids).
    return [report(aligned(f"192.0.2.{10 + at}", count), day=date(2026, 3, 1 + n), reporter=who, rid=f"{who}-{n}")
            for at, who in enumerate(reporters) for n in range(per_reporter)]


async def test_forged_small_reports_do_not_leave_the_real_failing_reports_out() -> None:
    [honest] = await both_ways(real())
    assert honest.verdict is Verdict.NOT_READY, honest.summary
    [advice] = await both_ways([*real(), *forged(("Yahoo", "Mail.Ru"))])
    assert advice.verdict is not Verdict.READY, advice.summary
    assert advice.left_out == [] and advice.reports == 8
    assert [(r.reporter, r.report_id) for r in advice.doubted] == [("google.com", "g2"), ("google.com", "g4")]
    assert "1 authorised source fails: 198.51.100.20" in advice.summary
    assert ("Counted although implausible, since leaving them out made the advice less cautious: 2 reports"
            " (google.com report g2: 5,000 messages, over 20× the other reporters' median report (60)"
            ) in advice.summary
    assert advice.to_json()["countedThoughImplausible"][0]["reportId"] == "g2"


async def test_one_tiny_forged_report_does_not_either() -> None:
    [advice] = await both_ways([*real(), *forged(("Other",), count=3, per_reporter=1)])
    assert advice.verdict is Verdict.NOT_READY, advice.summary
    assert advice.left_out == [] and len(advice.doubted) == 2


async def test_a_forged_huge_passing_report_is_still_left_out() -> None:
    # Leaving it out holds the domain back (its passing mail would outweigh the failing): it stays left out.
    honest = [*real(), *forged(("Yahoo", "Mail.Ru"), count=4000)]
    bogus = report(aligned("192.0.2.10", 10_000_000), day=date(2026, 3, 5), reporter="Yahoo", rid="bogus")
    [advice] = await both_ways([*honest, bogus])
    assert advice.verdict is Verdict.NOT_READY, advice.summary
    assert [(r.reporter, r.report_id) for r in advice.left_out] == [("Yahoo", "bogus")] and advice.doubted == []
    assert "Counted although implausible" not in advice.summary


async def test_forged_reports_naming_another_policy_are_said_to_disagree() -> None:
    # Two forged reports at p=reject, a day after the real ones at p=none: the later date made theirs the policy
    # taken. The least enforced policy with mail behind it is taken, never without a word of the disagreement.
    forgeries = [report(record(ip, 60), day=date(2026, 3, 5), reporter=who, rid=who, p="reject")
                 for who, ip in (("Someone", "192.0.2.1"), ("Other", "192.0.2.2"))]
    [advice] = await both_ways([*real(), *forgeries])
    assert advice.current is not None and advice.current.p == "none"
    assert ("The reporters' latest reports disagree on the published policy: p=none adkim=r aspf=r (google.com:"
            " 10,000 messages); p=reject adkim=r aspf=r (Someone, Other: 120 messages). The advice takes the least"
            " enforced of them that 1% or more of a reporter's mail stands behind (reports can be forged); the domain's"
            " DMARC record (_dmarc.example.com) says which is published.") in advice.summary
    assert [(entry["p"], entry["reporters"], entry["reports"]) for entry in advice.to_json()["policyDisputed"]] == [
        ("none", ["google.com"], 2), ("reject", ["Someone", "Other"], 2)]
    [honest] = await both_ways(real())
    assert honest.disputed == [] and "disagree" not in honest.summary


def relayed() -> list[ReportDigest]:
    """Two reporters' two reports each: the domain's server passing, and its relay's 20 messages failing (the
    domain's own sender: SPF passes for its bounce domain, not aligned under aspf=s)."""
    relay_failing = record("198.51.100.7", 20, spf="fail", spf_auth=(("bounce.example.com", "pass"),))
    return [report(aligned(server, 2500), relay_failing, day=date(2026, 3, d), reporter=who, rid=f"{who}{d}",
                   aspf="strict") for who, server in (("google.com", "203.0.113.1"), ("Yahoo", "203.0.113.2"))
            for d in (2, 4)]


async def test_a_forged_report_giving_a_failing_sender_another_class_does_not_make_the_domain_ready() -> None:
    # One forged report of 100 unauthenticated messages from the relay made it "unknown" (a source takes the class
    # of most of its mail), and its 80 failing authorised messages were no longer any authorised source's: "Not
    # ready" became "Ready for p=quarantine", while --check still said the source failed (the tester's).
    [honest] = await both_ways(relayed())
    assert honest.verdict is Verdict.NOT_READY and "1 authorised source fails: 198.51.100.7" in honest.summary
    forgery = report(record("198.51.100.7", 100), day=date(2026, 3, 3), reporter="Receiver Three", rid="r3",
                     aspf="strict")
    [advice] = await both_ways([*relayed(), forgery])
    assert advice.verdict is Verdict.NOT_READY, advice.summary
    assert "1 authorised source fails: 198.51.100.7" in advice.summary
    assert "1 authorised source fails more than 5 messages" in advice.summary
    relay = next(source for source in advice.sources if source.ip == "198.51.100.7")
    assert relay.klass is SourceClass.UNKNOWN and (relay.authorised, relay.authorised_failing) == (80, 80)
    said = [found.text for found in attention([advice], None) if found.kind == "authorised-source-failing"]
    assert said == ["authorised source failing: 198.51.100.7: 80 of 80 authorised messages fail DMARC"]  # not 180


async def test_a_forged_report_ending_in_9999_outweighs_nothing() -> None:
    # One made-up reporter's one-message report at p=reject, its period ending 9999-12-31: "Already at p=reject" of a
    # domain that every real report said was at p=none (tester81). A period not over is left out (tester91).
    one = report(record("192.0.2.1", 1), day=date(2026, 3, 5), reporter="forger.example", rid="f", p="reject")
    [advice] = await both_ways([*real(), replace(one, end=datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC))])
    assert advice.current is not None and advice.current.p == "none"
    assert advice.verdict is not Verdict.ENFORCED
    assert [(r.reporter, r.report_id) for r in advice.left_out] == [("forger.example", "f")]


async def test_a_later_report_under_the_real_reporters_name_carries_only_its_own_messages() -> None:
    # Forged under "google.com" itself and dated last, it made the reporter's whole volume stand behind p=reject.
    late = report(record("192.0.2.1", 1), day=date(2026, 3, 6), reporter="google.com", rid="late", p="reject")
    [advice] = await both_ways([*real(), *forged(("Yahoo",), count=100), late])
    assert advice.current is not None and advice.current.p == "none", advice.summary
    assert "p=reject adkim=r aspf=r (google.com: 1 message)" in advice.summary


async def test_a_look_alike_reporter_is_named_by_its_a_label_in_the_word_of_the_reporters() -> None:
    # "On the word of 2 reporters: google.com (2 reports), gооgle.com (1 report)": a forgery read as Google twice.
    look_alike = forged(("gооgle.com",), count=60, per_reporter=1)
    [advice] = await both_ways([*real(), *look_alike])
    assert "xn--ggle-55da.com (gооgle.com) (1 report)" in advice.summary, advice.summary


def _failing_in_each_report() -> list[ReportDigest]:
    """google.com's three reports, each 100 passing messages and 10 of the domain's own failing (2 each from 5
    senders, none over the per-source limit); Yahoo's three, 100 passing each."""
    return [report(aligned("192.0.2.10", 100),
                   *(record(f"198.51.100.{10 * d + n}", 2, **ESP_FAILING) for n in range(5)),  # type: ignore[arg-type]
                   day=date(2026, 3, d), reporter=who, rid=f"{who}-{d}")
            for d in (2, 3, 4) for who in ("google.com",)] + forged(("Yahoo",), count=100)


async def test_forged_reports_under_a_real_reporters_name_cannot_dilute_its_doubt_away() -> None:
    # Three forged 1,000-message reports signed "Google.com" on the same days diluted google.com's own 90.9% to 99.1%:
    # "Not ready" became "Ready for p=quarantine" (tester81). Its reports are judged one by one as well.
    [honest] = await both_ways(_failing_in_each_report())
    assert honest.verdict is Verdict.NOT_READY, honest.summary
    dilution = [report(aligned("192.0.2.10", 1000), day=date(2026, 3, d), reporter="Google.com", rid=f"forged-{d}")
                for d in (2, 3, 4)]
    [advice] = await both_ways([*_failing_in_each_report(), *dilution])
    assert advice.verdict is Verdict.NOT_READY, advice.summary
    assert "as seen by google.com (in 3 of its reports)" in advice.summary
    assert advice.to_json()["reporters"]["google.com"]["reportsUnder"] == 3


async def test_forged_reports_dated_last_under_each_real_reporters_name_cannot_make_the_policy_bolder() -> None:
    # One forged one-message p=reject report dated last under each real reporter's name was each one's latest word:
    # "Already at p=reject" of a domain at p=none, with no word of a disagreement (tester84).
    late = [report(record("192.0.2.1", 1), day=date(2026, 3, 6), reporter=who, rid=f"late-{who}", p="reject")
            for who in ("google.com", "Yahoo")]
    [advice] = await both_ways([*real(), *forged(("Yahoo",), count=100), *late])
    assert advice.current is not None and advice.current.p == "none", advice.summary
    assert advice.verdict is not Verdict.ENFORCED and "disagree on the published policy" in advice.summary


async def test_a_forged_implausible_report_cannot_outweigh_the_real_policy() -> None:
    # One made-up reporter's report of 60,000 spoofed messages at p=reject, left out as implausible, decided the
    # policy at its claimed count (tester84).
    huge = report(record("203.0.113.9", 10_000_000), day=date(2026, 3, 6), reporter="forger.example", rid="huge",
                  p="reject")
    [advice] = await both_ways([*real(), *forged(("Yahoo",), count=100), huge])
    assert "huge" in [r.report_id for r in [*advice.left_out, *advice.doubted]]  # left out, or counted and doubted
    assert advice.current is not None and advice.current.p == "none", advice.summary


async def test_a_reporters_median_report_cannot_be_diluted_by_fewer_forged_reports_than_its_real_ones() -> None:
    # Ten real reports of 90 authorised messages each (88.9% passing: none of 100 or more, so none doubted alone),
    # diluted to 99% by four forged 1,500-message reports under the same name: "Ready" (tester84).
    def small(n: int) -> ReportDigest:
        failing = (record(f"198.51.{100 + n}.{k}", 2, **ESP_FAILING) for k in range(5))  # type: ignore[arg-type]
        return report(aligned("192.0.2.10", 80), *failing, day=date(2026, 3, 1 + n % 7), reporter="smallrx.example",
                      rid=f"small-{n}")

    honest = [small(n) for n in range(10)] + forged(("Yahoo",), count=100)
    [before] = await both_ways(honest)
    assert before.verdict is Verdict.NOT_READY, before.summary
    dilution = [report(aligned("192.0.2.10", 1500), day=date(2026, 3, 2 + n), reporter="smallrx.example",
                       rid=f"forged-{n}") for n in range(4)]
    [advice] = await both_ways([*honest, *dilution])
    assert advice.verdict is Verdict.NOT_READY, advice.summary
    assert "as seen by smallrx.example" in advice.summary


async def test_a_reporter_named_with_a_final_dot_is_the_same_reporter() -> None:
    # "google.com." beside "google.com" was a second independent reporter (tester84).
    [advice] = await both_ways([*real(), *forged(("google.com.",), count=60, per_reporter=1)])
    assert list(advice.reporters) == ["google.com"]


async def test_forged_passing_mail_under_a_made_up_reporter_cannot_dilute_a_small_real_reporter_s_failures() -> None:
    # tester86: a real reporter saw 27 of its 90 authorised messages fail (30%), one a sending address, in 9 reports;
    # under 100 authorised messages, its view was not judged, and three forged reports of 2,000 passing messages
    # under a made-up name lifted the domain's share to 99.6%: "Ready for p=reject ... 27 authorised sources fail".
    own_dkim = dict(dkim_auth=(("mail.example.com", "pass"),))
    small = [report(aligned("192.0.2.20", 7), *(record(f"198.51.100.{3 * d + n}", 1, **own_dkim)  # type: ignore[arg-type]
                                                for n in range(3)),
                    day=date(2026, 3, 1 + d % 7), reporter="smallco.example", rid=f"s{d}") for d in range(9)]
    other = [report(aligned("192.0.2.20", 25), day=date(2026, 3, 1 + d % 7), reporter="Yahoo", rid=f"y{d}")
             for d in range(9)]
    [honest] = await both_ways([*small, *other])
    assert honest.verdict is Verdict.NOT_READY, honest.summary
    [advice] = await both_ways([*small, *other, *forged(("Zed Mail",), count=2000)])
    assert (advice.authorised_rate or 0) > 0.99 and advice.verdict is Verdict.NOT_READY, advice.summary
    assert "authorised mail passes less than 98.0% as seen by smallco.example" in advice.summary
    # A reporter whose few failing messages are a stray relay's (5 or fewer) is not held against the domain.
    stray = [report(aligned("192.0.2.20", 20), record("198.51.100.200", 1, **own_dkim),  # type: ignore[arg-type]
                    day=date(2026, 3, 1 + d), reporter="tiny.example", rid=f"t{d}") for d in range(3)]
    [calm] = await both_ways([*stray, *real_passing(), *forged(("Other",), count=2000)])
    assert calm.verdict is Verdict.READY, calm.summary


def real_passing() -> list[ReportDigest]:
    return [report(aligned("192.0.2.10", 4000), day=date(2026, 3, d), reporter="google.com", rid=f"gp{d}")
            for d in (2, 4)]


def _a_week_at_none() -> list[ReportDigest]:
    """Two real reporters' daily reports of the week, at p=none: 200 passing messages and 20 of a failing relay."""
    return [report(aligned("192.0.2.10", 200), record("198.51.100.7", 20, **ESP_FAILING),  # type: ignore[arg-type]
                   day=date(2026, 3, d), reporter=who, rid=f"{who}-{d}") for who in ("google.com", "Yahoo")
            for d in range(1, 7)]


async def test_three_forged_reports_dated_last_under_each_real_name_cannot_push_its_week_out() -> None:
    # tester86: three forged p=reject reports of 50 passing messages under each real reporter's name, dated on the
    # period's last day, were each reporter's three latest: "Already at p=reject", no disagreement said.
    forged_last = [report(aligned("192.0.2.10", 50), day=date(2026, 3, 7), reporter=who, rid=f"fg-{who}-{n}",
                          p="reject") for who in ("google.com", "Yahoo") for n in range(3)]
    [advice] = await both_ways([*_a_week_at_none(), *forged_last])
    assert advice.current is not None and advice.current.p == "none", advice.summary
    assert advice.verdict is Verdict.NOT_READY and "disagree on the published policy" in advice.summary


async def test_a_made_up_reporter_s_huge_reports_cannot_make_the_real_policy_a_sliver() -> None:
    # tester86: three p=reject reports of 100,000 messages from a made-up reporter, plausible against its own median,
    # made the real reporters' p=none under 1% of all the mail: "Already at p=reject".
    huge = [report(record("203.0.113.9", 100_000), day=date(2026, 3, 5 + n % 3), reporter="Z Mail Org",
                   rid=f"z{n}", p="reject") for n in range(3)]
    [advice] = await both_ways([*_a_week_at_none(), *huge])
    assert advice.current is not None and advice.current.p == "none", advice.summary
    assert advice.verdict is Verdict.NOT_READY, advice.summary
