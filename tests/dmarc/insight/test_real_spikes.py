"""A real wave of failing mail, reported in reports far larger than their reporters' usual ones, is shown.

A report holding 20 times its reporter's median report is implausible and left out of the judgement, unless
counting it holds the domain back. A spoofing campaign (tester86: 10,000 failing messages in each of two real
reporters' reports of a day, beside their usual 300) changed no verdict, so it stayed left out: the sources
lacked it, and ``dmarc-advice --check``, run from cron for exactly this, said nothing and exited 0.
"""

from __future__ import annotations

from datetime import date

from jmapclient.dmarc.analytics import ReportDigest
from jmapclient.dmarc.attention import attention, mark_new_since
from jmapclient.dmarc.insight.advice import Verdict
from tests.support.insight_reports import aligned, both_ways, record, report

REPORTERS = ("google.com", "Yahoo")


def usual_days(days: range = range(1, 7)) -> list[ReportDigest]:
    return [report(aligned("192.0.2.20", 300), day=date(2026, 3, d), reporter=who, rid=f"{who}-{d}")
            for who in REPORTERS for d in days]


def wave_day(*extra: object) -> list[ReportDigest]:
    return [report(aligned("192.0.2.20", 300), *extra, day=date(2026, 3, 7), reporter=who,  # type: ignore[arg-type]
                   rid=f"{who}-7") for who in REPORTERS]


async def test_a_spoofing_wave_in_reports_thirty_times_their_usual_size_is_shown_and_checked() -> None:
    [advice] = await both_ways([*usual_days(), *wave_day(record("203.0.113.200", 10_000))])
    assert advice.verdict is Verdict.READY, advice.summary  # spoofed mail stopped by the next step: as before
    failing = {source.ip: source.failed for source in advice.sources}
    assert failing.get("203.0.113.200") == 20_000, failing
    assert "Counted although implausible, since leaving them out made the advice less cautious: 2 reports" \
        in advice.summary
    mark_new_since([advice], None)  # --check --since-last's first run: every source is new
    said = [(item.kind, item.text) for item in attention([advice], None)]
    assert ("new-failing-source", "new source failing: 203.0.113.200: 20,000 of 20,000 messages fail DMARC") in said


async def test_the_domain_s_own_failing_wave_is_shown_beside_a_small_failing_source() -> None:
    # Already "Not ready" for a small failing sender: the 16,000 failing messages of its newsletter provider
    # changed no verdict, and were left out; the advice named only the small one.
    esp = dict(dkim_auth=(("sendgrid.net", "pass"),), spf_auth=(("bounces.sendgrid.net", "pass"),))
    small = [report(record("198.51.100.7", 40, **esp), day=date(2026, 3, 2), reporter="google.com",  # type: ignore[arg-type]
                    rid="small")]
    [advice] = await both_ways([*usual_days(), *small, *wave_day(record("198.51.100.20", 8_000, **esp))])
    assert advice.verdict is Verdict.NOT_READY, advice.summary
    failing = {source.ip: source.failed for source in advice.sources}
    assert failing.get("198.51.100.20") == 16_000 and failing.get("198.51.100.7") == 40, failing


async def test_a_huge_report_of_passing_mail_alone_stays_left_out() -> None:
    # Counting it would show no failing mail and hold nothing back: it is left out, as before.
    [advice] = await both_ways([*usual_days(), *wave_day(aligned("192.0.2.21", 10_000))])
    assert [(r.reporter, r.report_id) for r in advice.left_out] == [("google.com", "google.com-7"),
                                                                    ("Yahoo", "Yahoo-7")]
    assert advice.doubted == []
