"""A report whose period had not ended when it arrived is left out, and named.

Two honest one-day reports were "Too little data"; a forged one under a real reporter's name, its period from two
days ago to 40 days ahead, received today, made the domain "Ready for p=quarantine" without a word (tester91).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

from jmapclient.dmarc.analytics import ReportDigest
from jmapclient.dmarc.insight.advice import Verdict
from jmapclient.dmarc.insight.screening import UNENDED_SLACK
from tests.support.insight_reports import aligned, both_ways, report


def honest() -> list[ReportDigest]:
    return [report(aligned("192.0.2.10", 60), day=date(2026, 3, 2), reporter="google.com", rid="g"),
            report(aligned("192.0.2.10", 30), day=date(2026, 3, 3), reporter="Yahoo", rid="y")]


def ending_in(ahead: timedelta) -> ReportDigest:
    """A Yahoo report of the period whose period ends ``ahead`` of now."""
    return replace(report(aligned("192.0.2.10", 60), day=date(2026, 3, 5), reporter="Yahoo", rid="y-forged"),
                   end=datetime.now(UTC) + ahead)


async def test_a_report_whose_period_ends_after_now_is_left_out_and_named() -> None:
    [before] = await both_ways(honest())
    assert before.verdict is Verdict.TOO_LITTLE_DATA, before.summary
    [advice] = await both_ways([*honest(), ending_in(timedelta(days=40))])
    assert advice.verdict is Verdict.TOO_LITTLE_DATA, advice.summary
    assert (advice.reports, advice.messages) == (before.reports, before.messages)
    [left_out] = advice.to_json()["leftOut"]
    assert (left_out["reporter"], left_out["reportId"]) == ("Yahoo", "y-forged")
    assert "after it arrived" in left_out["why"]
    assert "Yahoo report y-forged: its period ends" in advice.summary


async def test_a_period_ending_within_the_slack_still_counts() -> None:
    # A reporter's clock a little ahead of ours is no forgery: within the slack the report counts.
    [advice] = await both_ways([*honest(), ending_in(UNENDED_SLACK - timedelta(hours=1))])
    assert advice.left_out == [] and advice.reports == 3
    assert advice.verdict is Verdict.READY, advice.summary
